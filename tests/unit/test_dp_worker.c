/* SPDX-License-Identifier: MIT */
/* Rings, workers and CPU lists: the only channel between the main thread and the data path. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "dataplane/ring.h"
#include "dataplane/worker.h"
#include "lib/cpulist.h"

static void test_ring_fifo_and_wrap(void **state)
{
	struct dp_ring r;
	uint64_t v;

	assert_int_equal(dp_ring_init(&r, 4, sizeof(v)), 0);
	assert_false(dp_ring_pop(&r, &v));
	for (uint64_t round = 0; round < 10; round++) {
		for (uint64_t i = 0; i < 4; i++)
			assert_true(dp_ring_push(&r, &(uint64_t){ round * 4 + i }));
		/* Full at capacity. */
		assert_false(dp_ring_push(&r, &(uint64_t){ 99 }));
		for (uint64_t i = 0; i < 4; i++) {
			assert_true(dp_ring_pop(&r, &v));
			assert_int_equal(v, round * 4 + i);
		}
		assert_true(dp_ring_empty(&r));
	}
	dp_ring_release(&r);
}

static void test_ring_bad_sizes(void **state)
{
	struct dp_ring r;

	assert_int_equal(dp_ring_init(&r, 3, 8), -EINVAL);
	assert_int_equal(dp_ring_init(&r, 0, 8), -EINVAL);
	assert_int_equal(dp_ring_init(&r, 8, 0), -EINVAL);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* An event-loop consumer: every kick makes the doorbell readable. */
static void test_ring_event_driven_doorbell(void **state)
{
	struct dp_ring r;
	uint64_t v = 7, count = 0;

	assert_int_equal(dp_ring_init(&r, 8, sizeof(v)), 0);
	dp_ring_set_event_driven(&r);
	assert_true(dp_ring_push(&r, &v));
	dp_ring_kick(&r);
	assert_int_equal(read(r.doorbell, &count, sizeof(count)), sizeof(count));
	assert_int_equal(count, 1);
	dp_ring_release(&r);
}

/* A sleeping consumer does not sleep past an entry that is already there. */
static void test_ring_wait_returns_when_not_empty(void **state)
{
	struct dp_ring r;
	uint64_t v = 1;
	double t0;

	assert_int_equal(dp_ring_init(&r, 8, sizeof(v)), 0);
	assert_true(dp_ring_push(&r, &v));
	t0 = now_ms();
	dp_ring_wait(&r, 5000);
	assert_true(now_ms() - t0 < 1000);
	dp_ring_release(&r);
}

struct probe {
	_Atomic int ran;
	_Atomic int cpu;
	_Atomic unsigned polls;
};

static void record_cpu(struct dp_worker *w, void *arg)
{
	struct probe *p = arg;
	struct dp_event ev = { .type = 1, .object = w->index, .value = dp_current_cpu() };

	atomic_store(&p->cpu, dp_current_cpu());
	atomic_fetch_add(&p->ran, 1);
	dp_worker_emit(w, &ev);
}

static unsigned count_polls(struct dp_worker *w, void *arg)
{
	struct probe *p = arg;

	/* Report work for a while, then go idle so the worker may sleep. */
	return atomic_fetch_add(&p->polls, 1) < 100 ? 1 : 0;
}

static void own_poller(struct dp_worker *w, void *arg)
{
	dp_worker_add_poller(w, count_polls, arg);
}

static void drop_poller(struct dp_worker *w, void *arg)
{
	dp_worker_remove_poller(w, count_polls, arg);
}

static bool wait_for(_Atomic int *v, int want)
{
	for (int i = 0; i < 2000; i++) {
		if (atomic_load(v) >= want)
			return true;
		usleep(1000);
	}
	return false;
}

static void test_worker_pinned_commands_events_pollers(void **state)
{
	int cpus[CPULIST_MAX];
	int n = cpulist_allowed(cpus, CPULIST_MAX);
	int cpu = cpus[n - 1];
	struct probe p = { 0 };
	struct dp_worker w;
	struct dp_event ev;

	assert_true(n > 0);
	assert_int_equal(dp_worker_init(&w, 3, cpu), 0);
	assert_int_equal(dp_worker_start(&w), 0);

	assert_int_equal(dp_worker_submit(&w, record_cpu, &p), 0);
	assert_true(wait_for(&p.ran, 1));
	assert_int_equal(atomic_load(&p.cpu), cpu);
	/* The event came back through the event ring. */
	for (int i = 0; i < 1000 && !dp_ring_pop(&w.events, &ev); i++)
		usleep(1000);
	assert_int_equal(ev.type, 1);
	assert_int_equal(ev.object, 3);
	assert_int_equal(ev.value, cpu);

	/* A poller runs on the worker until removed. */
	assert_int_equal(dp_worker_submit(&w, own_poller, &p), 0);
	for (int i = 0; i < 2000 && atomic_load(&p.polls) < 100; i++)
		usleep(1000);
	assert_true(atomic_load(&p.polls) >= 100);
	assert_int_equal(dp_worker_submit(&w, drop_poller, &p), 0);

	/* Idle, it sleeps; a command still wakes it at once. */
	for (int i = 0; i < 2000 && atomic_load(&w.stats.sleeps) == 0; i++)
		usleep(1000);
	assert_true(atomic_load(&w.stats.sleeps) > 0);
	assert_int_equal(dp_worker_submit(&w, record_cpu, &p), 0);
	assert_true(wait_for(&p.ran, 2));
	dp_worker_stop(&w);
}

static void test_cpulist(void **state)
{
	int cpus[CPULIST_MAX];
	char err[128], text[128];

	assert_int_equal(cpulist_parse("0-3,8,10-11", cpus, CPULIST_MAX, err, sizeof(err)), 7);
	assert_int_equal(cpus[4], 8);
	cpulist_format(cpus, 7, text, sizeof(text));
	assert_string_equal(text, "0-3,8,10-11");
	assert_int_equal(cpulist_parse("3,1,3,2", cpus, CPULIST_MAX, err, sizeof(err)), 3);
	assert_int_equal(cpus[0], 1);
	assert_int_equal(cpulist_parse("1-0", cpus, CPULIST_MAX, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "'1-0' is not a CPU number or range below 1024");
	assert_int_equal(cpulist_parse("0,x", cpus, CPULIST_MAX, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "'x' is not a CPU number or range below 1024");
	assert_int_equal(cpulist_parse("", cpus, CPULIST_MAX, err, sizeof(err)), -EINVAL);
	assert_int_equal(cpulist_parse("4096", cpus, CPULIST_MAX, err, sizeof(err)), -EINVAL);
	assert_int_equal(cpulist_parse("0-7", cpus, 4, err, sizeof(err)), -EINVAL);
	assert_true(cpulist_allowed(cpus, CPULIST_MAX) >= 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_fifo_and_wrap),
		cmocka_unit_test(test_ring_bad_sizes),
		cmocka_unit_test(test_ring_event_driven_doorbell),
		cmocka_unit_test(test_ring_wait_returns_when_not_empty),
		cmocka_unit_test(test_worker_pinned_commands_events_pollers),
		cmocka_unit_test(test_cpulist),
	};

	return cmocka_run_group_tests_name("dataplane workers", tests, NULL, NULL);
}
