/* SPDX-License-Identifier: MIT */
/* Workers (commands, events, pollers, descriptors, timers, sleep) and CPU lists. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "dataplane/worker.h"
#include "lib/cpulist.h"

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
	/* Only the command can wake it in time, not its own timeout. */
	w.sleep_ms = 60000;
	assert_int_equal(dp_worker_start(&w), 0);

	assert_int_equal(dp_worker_submit(&w, record_cpu, &p), 0);
	assert_true(wait_for(&p.ran, 1));
	assert_int_equal(atomic_load(&p.cpu), cpu);
	/* The event came back through the event queue. */
	for (int i = 0; i < 1000 && !dp_queue_pop(&w.events, &ev); i++)
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

/* A worker that sleeps until something wakes it: its own timeout would not end a test's wait. */
static void start_sleepy(struct dp_worker *w)
{
	assert_int_equal(dp_worker_init(w, 0, -1), 0);
	w->sleep_ms = 60000;
	assert_int_equal(dp_worker_start(w), 0);
}

/*
 * Waits until the worker announced its sleep: from then on a kick rings its
 * doorbell, wherever it is between its last look and epoll_wait.  The flag
 * goes down when it wakes, before it runs anything.
 */
static void wait_asleep(struct dp_worker *w)
{
	for (int i = 0; i < 2000 && !atomic_load(&w->commands.hdr->sleeping); i++)
		usleep(1000);
	assert_int_equal(atomic_load(&w->commands.hdr->sleeping), 1);
	/* Most likely in epoll_wait by now, which is the case worth testing. */
	usleep(2000);
}

struct fd_probe {
	int efd, pipe[2];
	_Atomic int tid;          /* the worker thread's */
	_Atomic int added;        /* 1 + what the adds returned, or an error */
	_Atomic int removed;
	_Atomic int calls;
	_Atomic int off_worker;   /* calls on another thread */
	_Atomic int busy;         /* the busy poller keeps the worker awake */
};

static void on_fd(struct dp_worker *w, int fd, uint32_t revents, void *arg)
{
	struct fd_probe *p = arg;
	uint64_t buf;

	if (gettid() != atomic_load(&p->tid) || !(revents & EPOLLIN))
		atomic_fetch_add(&p->off_worker, 1);
	(void)!read(fd, &buf, sizeof(buf));
	atomic_fetch_add(&p->calls, 1);
}

static void add_fds(struct dp_worker *w, void *arg)
{
	struct fd_probe *p = arg;
	int ok = dp_worker_add_fd(w, p->efd, EPOLLIN, on_fd, p) == 0 &&
		 dp_worker_add_fd(w, p->pipe[0], EPOLLIN, on_fd, p) == 0 &&
		 dp_worker_add_fd(w, p->efd, EPOLLIN, on_fd, p) == -EEXIST &&
		 dp_worker_add_fd(w, -1, EPOLLIN, on_fd, p) == -EBADF;

	atomic_store(&p->tid, gettid());
	atomic_store(&p->added, ok ? 1 : -1);
}

static void remove_efd(struct dp_worker *w, void *arg)
{
	struct fd_probe *p = arg;
	int ok = dp_worker_remove_fd(w, p->efd) == 0 && dp_worker_remove_fd(w, p->efd) == -ENOENT;

	atomic_store(&p->removed, ok ? 1 : -1);
}

static unsigned busy_poll(struct dp_worker *w, void *arg)
{
	struct fd_probe *p = arg;

	return atomic_load(&p->busy) ? 1 : 0;
}

static void own_busy_poller(struct dp_worker *w, void *arg)
{
	dp_worker_add_poller(w, busy_poll, arg);
}

static bool wait_for_int(_Atomic int *v, int want, int timeout_ms)
{
	for (int i = 0; i < timeout_ms; i++) {
		if (atomic_load(v) >= want)
			return true;
		usleep(1000);
	}
	return false;
}

/* A descriptor a worker watches is handled on the worker, asleep or busy, until removed. */
static void test_worker_fds(void **state)
{
	struct fd_probe p = { 0 };
	struct dp_worker w;
	uint64_t sleeps;

	p.efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	assert_true(p.efd >= 0);
	assert_int_equal(pipe2(p.pipe, O_CLOEXEC | O_NONBLOCK), 0);
	start_sleepy(&w);
	assert_int_equal(dp_worker_submit(&w, add_fds, &p), 0);
	assert_true(wait_for_int(&p.added, 1, 2000));
	assert_int_equal(atomic_load(&p.added), 1);

	/* Asleep: the descriptor wakes it. */
	wait_asleep(&w);
	assert_int_equal(eventfd_write(p.efd, 1), 0);
	assert_true(wait_for_int(&p.calls, 1, 2000));
	wait_asleep(&w);
	assert_int_equal(write(p.pipe[1], "x", 1), 1);
	assert_true(wait_for_int(&p.calls, 2, 2000));

	/* Busy, never sleeping: it still looks at its descriptors. */
	atomic_store(&p.busy, 1);
	assert_int_equal(dp_worker_submit(&w, own_busy_poller, &p), 0);
	for (int i = 0; i < 2000 && atomic_load(&w.stats.work) == 0; i++)
		usleep(1000);
	sleeps = atomic_load(&w.stats.sleeps);
	assert_int_equal(eventfd_write(p.efd, 1), 0);
	assert_true(wait_for_int(&p.calls, 3, 2000));
	assert_int_equal(atomic_load(&w.stats.sleeps), sleeps);
	atomic_store(&p.busy, 0);

	/* Removed: no more calls for it. */
	assert_int_equal(dp_worker_submit(&w, remove_efd, &p), 0);
	assert_true(wait_for_int(&p.removed, 1, 2000));
	assert_int_equal(atomic_load(&p.removed), 1);
	assert_int_equal(eventfd_write(p.efd, 1), 0);
	usleep(50000);
	assert_int_equal(atomic_load(&p.calls), 3);
	assert_int_equal(atomic_load(&p.off_worker), 0);
	assert_int_equal(atomic_load(&w.stats.fd_events), 3);
	dp_worker_stop(&w);
	close(p.efd);
	close(p.pipe[0]);
	close(p.pipe[1]);
}

struct timer_probe;

struct mark {
	struct timer_probe *p;
	int id;
	uint64_t deadline;        /* the last it was armed for */
	struct dp_timer t;
};

struct timer_probe {
	struct mark marks[6];
	int order[8];             /* ids as they fired (worker writes, then counts) */
	int n_fired;              /* worker only */
	_Atomic int fired;
	_Atomic int early;        /* fired before its deadline */
	_Atomic int armed;
	_Atomic uint64_t sleeps_at_arm, sleeps_at_fire;
};

static void on_timer(struct dp_worker *w, void *arg)
{
	struct mark *m = arg;
	struct timer_probe *p = m->p;

	if (dp_worker_now_ns() < m->deadline || dp_timer_armed(&m->t))
		atomic_fetch_add(&p->early, 1);
	if (p->n_fired < 8)
		p->order[p->n_fired] = m->id;
	atomic_store(&p->sleeps_at_fire, atomic_load(&w->stats.sleeps));
	atomic_store(&p->fired, ++p->n_fired);
}

static void arm(struct dp_worker *w, struct mark *m, uint64_t deadline)
{
	m->deadline = deadline;
	assert_int_equal(dp_worker_timer_arm(w, &m->t, deadline), 0);
}

/*
 * Six timers: fired in deadline order, two with one deadline in the order
 * they were armed, a re-armed one at its new deadline, a cancelled one never.
 */
static void arm_timers(struct dp_worker *w, void *arg)
{
	struct timer_probe *p = arg;
	uint64_t base = dp_worker_now_ns() + 20 * 1000000ull, ms = 1000000;

	for (int i = 0; i < 6; i++) {
		p->marks[i] = (struct mark){ .p = p, .id = i };
		dp_timer_init(&p->marks[i].t, on_timer, &p->marks[i]);
	}
	arm(w, &p->marks[0], base + 30 * ms);
	arm(w, &p->marks[1], base + 10 * ms);
	arm(w, &p->marks[2], base + 20 * ms);
	arm(w, &p->marks[3], base + 15 * ms);
	dp_worker_timer_cancel(w, &p->marks[3].t);
	dp_worker_timer_cancel(w, &p->marks[3].t);
	arm(w, &p->marks[4], base + 5 * ms);
	arm(w, &p->marks[5], base + 20 * ms);
	arm(w, &p->marks[4], base + 25 * ms);
	atomic_store(&p->armed, 1);
}

static void test_worker_timers_in_order(void **state)
{
	static const int want[] = { 1, 2, 5, 4, 0 };
	struct timer_probe p = { 0 };
	struct dp_worker w;

	start_sleepy(&w);
	assert_int_equal(dp_worker_submit(&w, arm_timers, &p), 0);
	assert_true(wait_for_int(&p.fired, 5, 5000));
	usleep(50000);
	assert_int_equal(atomic_load(&p.fired), 5);
	for (int i = 0; i < 5; i++)
		assert_int_equal(p.order[i], want[i]);
	assert_int_equal(atomic_load(&p.early), 0);
	assert_false(dp_timer_armed(&p.marks[3].t));
	assert_int_equal(atomic_load(&w.stats.timers), 5);
	dp_worker_stop(&w);
}

static void arm_one_later(struct dp_worker *w, void *arg)
{
	struct timer_probe *p = arg;

	p->marks[0] = (struct mark){ .p = p, .id = 0 };
	dp_timer_init(&p->marks[0].t, on_timer, &p->marks[0]);
	arm(w, &p->marks[0], dp_worker_now_ns() + 50 * 1000000ull);
	atomic_store(&p->sleeps_at_arm, atomic_load(&w->stats.sleeps));
}

/* A sleeping worker wakes for its next timer, long before its own timeout. */
static void test_worker_sleeps_until_timer(void **state)
{
	struct timer_probe p = { 0 };
	struct dp_worker w;

	start_sleepy(&w);
	wait_asleep(&w);
	assert_int_equal(dp_worker_submit(&w, arm_one_later, &p), 0);
	assert_true(wait_for_int(&p.fired, 1, 5000));
	assert_int_equal(atomic_load(&p.early), 0);
	/* It slept between arming and firing: the timeout, not a busy loop, brought it. */
	assert_true(atomic_load(&p.sleeps_at_fire) > atomic_load(&p.sleeps_at_arm));
	dp_worker_stop(&w);
}

struct wake_probe {
	_Atomic int pending;      /* work published outside the command queue */
	_Atomic int handled;
};

static unsigned take_pending(struct dp_worker *w, void *arg)
{
	struct wake_probe *p = arg;

	if (!atomic_exchange(&p->pending, 0))
		return 0;
	atomic_fetch_add(&p->handled, 1);
	return 1;
}

static void own_wake_poller(struct dp_worker *w, void *arg)
{
	dp_worker_add_poller(w, take_pending, arg);
}

/* dp_worker_wake reaches a worker asleep in epoll_wait (its own timeout is a minute away). */
static void test_worker_wakes_for_kick(void **state)
{
	struct wake_probe p = { 0 };
	struct dp_worker w;

	start_sleepy(&w);
	assert_int_equal(dp_worker_submit(&w, own_wake_poller, &p), 0);
	for (int round = 1; round <= 3; round++) {
		wait_asleep(&w);
		atomic_store(&p.pending, 1);
		dp_worker_wake(&w);
		assert_true(wait_for_int(&p.handled, round, 2000));
	}
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
		cmocka_unit_test(test_worker_pinned_commands_events_pollers),
		cmocka_unit_test(test_worker_fds),
		cmocka_unit_test(test_worker_timers_in_order),
		cmocka_unit_test(test_worker_sleeps_until_timer),
		cmocka_unit_test(test_worker_wakes_for_kick),
		cmocka_unit_test(test_cpulist),
	};

	return cmocka_run_group_tests_name("dataplane workers", tests, NULL, NULL);
}
