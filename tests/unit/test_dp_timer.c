/* SPDX-License-Identifier: MIT */
/* The workers' timer heap on its own: order, re-arm, cancel, many at once. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "dataplane/timer.h"

#define N 500

static void nothing(struct dp_worker *w, void *arg)
{
}

/* Everything due by now, in the order taken; checks the order on the way. */
static unsigned take_all(struct dp_timer_heap *h, uint64_t now, struct dp_timer **out)
{
	unsigned n = 0;
	struct dp_timer *t;

	while ((t = dp_timer_heap_take_due(h, now))) {
		assert_false(dp_timer_armed(t));
		if (n)
			assert_true(out[n - 1]->deadline_ns < t->deadline_ns ||
				    (out[n - 1]->deadline_ns == t->deadline_ns && out[n - 1]->seq < t->seq));
		out[n++] = t;
	}
	return n;
}

static void test_order_rearm_cancel(void **state)
{
	struct dp_timer_heap h = { 0 };
	struct dp_timer a, b, c, *out[4];

	dp_timer_init(&a, nothing, NULL);
	dp_timer_init(&b, nothing, NULL);
	dp_timer_init(&c, nothing, NULL);
	assert_false(dp_timer_armed(&a));
	assert_null(dp_timer_heap_take_due(&h, UINT64_MAX));
	assert_int_equal(dp_timer_heap_arm(&h, &a, 30), 0);
	assert_int_equal(dp_timer_heap_arm(&h, &b, 10), 0);
	assert_int_equal(dp_timer_heap_arm(&h, &c, 20), 0);
	assert_ptr_equal(dp_timer_heap_first(&h), &b);
	/* Moved later, then cancelled (twice: the second does nothing). */
	assert_int_equal(dp_timer_heap_arm(&h, &b, 40), 0);
	assert_ptr_equal(dp_timer_heap_first(&h), &c);
	assert_int_equal(h.n, 3);
	dp_timer_heap_cancel(&h, &c);
	dp_timer_heap_cancel(&h, &c);
	assert_int_equal(h.n, 2);
	/* Not due yet. */
	assert_null(dp_timer_heap_take_due(&h, 29));
	assert_int_equal(take_all(&h, 100, out), 2);
	assert_ptr_equal(out[0], &a);
	assert_ptr_equal(out[1], &b);
	dp_timer_heap_release(&h);
}

/* Many timers, some moved and some cancelled at random: the rest come out sorted, each once. */
static void test_many(void **state)
{
	static struct dp_timer t[N], *out[N];
	struct dp_timer_heap h = { 0 };
	unsigned live = N, n;

	srand(9);
	for (unsigned i = 0; i < N; i++) {
		dp_timer_init(&t[i], nothing, NULL);
		assert_int_equal(dp_timer_heap_arm(&h, &t[i], (uint64_t)(rand() % 1000)), 0);
	}
	for (unsigned i = 0; i < N; i += 3)
		assert_int_equal(dp_timer_heap_arm(&h, &t[i], (uint64_t)(rand() % 1000)), 0);
	for (unsigned i = 1; i < N; i += 7) {
		dp_timer_heap_cancel(&h, &t[i]);
		live--;
	}
	assert_int_equal(h.n, live);
	/* In two steps: what is due by 500, then the rest. */
	n = take_all(&h, 500, out);
	for (unsigned i = 0; i < n; i++)
		assert_true(out[i]->deadline_ns <= 500);
	n += take_all(&h, UINT64_MAX, out + n);
	assert_int_equal(n, live);
	for (unsigned i = 0; i < N; i++)
		assert_false(dp_timer_armed(&t[i]));
	dp_timer_heap_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_rearm_cancel),
		cmocka_unit_test(test_many),
	};

	return cmocka_run_group_tests_name("dataplane timers", tests, NULL, NULL);
}
