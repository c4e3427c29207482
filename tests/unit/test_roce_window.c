/* SPDX-License-Identifier: MIT */
/*
 * The RoCE requester's window of unacknowledged packets (dataplane/roce/window.c):
 * AIMD as docs/decisions.md ("RoCE v2 transport", Reliability) states it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "dataplane/roce/roce_int.h"

static struct dp_roce_qp fresh(void)
{
	struct dp_roce_qp c;

	memset(&c, 0, sizeof(c));
	c.una = c.tx_psn = c.tx_high = 0xfffff0; /* near the wrap */
	roce_window_init(&c);
	return c;
}

/* Packets acknowledged: una moves on by n. */
static void ack(struct dp_roce_qp *c, uint32_t n)
{
	c->una = dp_psn_add(c->una, n);
	roce_window_acked(c, n);
}

static void test_starts_full(void **state)
{
	struct dp_roce_qp c = fresh();

	assert_int_equal(c.window, DP_ROCE_WINDOW);
	ack(&c, 1000);
	assert_int_equal(c.window, DP_ROCE_WINDOW);
}

static void test_one_halving_per_loss_episode(void **state)
{
	struct dp_roce_qp c = fresh();

	c.tx_high = dp_psn_add(c.una, 100);
	roce_window_loss(&c);
	assert_int_equal(c.window, DP_ROCE_WINDOW / 2);
	/* More NAKs of the same episode (the gap lost again): no second halving. */
	roce_window_loss(&c);
	ack(&c, 50);
	roce_window_loss(&c);
	assert_int_equal(c.window, DP_ROCE_WINDOW / 2);
	/* What was in flight at the loss is acknowledged: a new loss halves again. */
	ack(&c, 50);
	c.tx_high = dp_psn_add(c.una, 10);
	roce_window_loss(&c);
	assert_int_equal(c.window, DP_ROCE_WINDOW / 4);
}

static void test_timeout_to_the_least(void **state)
{
	struct dp_roce_qp c = fresh();

	roce_window_timeout(&c);
	assert_int_equal(c.window, DP_ROCE_WINDOW_MIN);
	for (int i = 0; i < 10; i++) {
		c.recovering = false;
		roce_window_loss(&c);
	}
	assert_int_equal(c.window, DP_ROCE_WINDOW_MIN);
}

/* One packet more per window acknowledged, up to DP_ROCE_WINDOW. */
static void test_additive_increase(void **state)
{
	struct dp_roce_qp c = fresh();

	roce_window_timeout(&c);
	ack(&c, DP_ROCE_WINDOW_MIN - 1);
	assert_int_equal(c.window, DP_ROCE_WINDOW_MIN);
	ack(&c, 1);
	assert_int_equal(c.window, DP_ROCE_WINDOW_MIN + 1);
	ack(&c, DP_ROCE_WINDOW_MIN + 1);
	assert_int_equal(c.window, DP_ROCE_WINDOW_MIN + 2);
	ack(&c, 1000000);
	assert_int_equal(c.window, DP_ROCE_WINDOW);
}

/* AckReq twice per window, and every DP_ROCE_ACK_EVERY packets at most. */
static void test_ack_requests(void **state)
{
	struct dp_roce_qp c = fresh();
	unsigned asked = 0;

	for (int i = 0; i < 1280; i++)
		asked += roce_window_asks_ack(&c);
	assert_int_equal(asked, 1280 / DP_ROCE_ACK_EVERY);
	roce_window_timeout(&c);
	asked = 0;
	for (int i = 0; i < 100; i++)
		asked += roce_window_asks_ack(&c);
	assert_int_equal(asked, 100 / (DP_ROCE_WINDOW_MIN / 2));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_starts_full),
		cmocka_unit_test(test_one_halving_per_loss_episode),
		cmocka_unit_test(test_timeout_to_the_least),
		cmocka_unit_test(test_additive_increase),
		cmocka_unit_test(test_ack_requests),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
