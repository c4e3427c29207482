/* SPDX-License-Identifier: MIT */
/*
 * The RoCE requester's window of unacknowledged packets (dataplane/roce/window.c):
 * held to the loss rate, slow start after a timeout, as docs/decisions.md ("RoCE v2 transport",
 * Reliability) states it.
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

/* Packets sent, one in every `every` lost (each loss a PSN-sequence NAK). */
static void send_losing(struct dp_roce_qp *c, uint32_t n, uint32_t every)
{
	for (uint32_t i = 1; i <= n; i++) {
		roce_window_sent(c, 1);
		if (i % every == 0)
			roce_window_loss(c);
	}
}

/* A loss is not congestion: the window is held to 1 / (2 p) of the loss rate, not halved. */
static void test_window_follows_the_loss_rate(void **state)
{
	struct dp_roce_qp c = fresh();

	/* 1 in 1000 lost: the window stays full. */
	send_losing(&c, 20000, 1000);
	assert_int_equal(c.window, DP_ROCE_WINDOW);
	/* 1%: about 50 packets (the rate is measured over a few thousand packets). */
	send_losing(&c, 20000, 100);
	assert_in_range(c.window, 45, 55);
	/* 5%: about 10. */
	send_losing(&c, 20000, 20);
	assert_in_range(c.window, 9, 11);
	/* Never below the least, whatever the loss. */
	send_losing(&c, 20000, 1);
	assert_int_equal(c.window, DP_ROCE_WINDOW_MIN);
}

/* One loss among a connection's first packets is not a rate of its own. */
static void test_first_loss_is_not_a_rate(void **state)
{
	struct dp_roce_qp c = fresh();

	send_losing(&c, 10, 10);
	assert_int_equal(c.window, DP_ROCE_WINDOW);
}

/* The losses age: a path that stopped losing grows back to the full window. */
static void test_losses_age(void **state)
{
	struct dp_roce_qp c = fresh();

	send_losing(&c, 20000, 10);
	assert_in_range(c.window, 4, 6);
	roce_window_sent(&c, 100000);
	ack(&c, 1000000);
	assert_int_equal(c.window, DP_ROCE_WINDOW);
}

/* A timeout: from the least, doubling (one more per packet acknowledged) up to half the
 * window it had, then one more per window. */
static void test_timeout_slow_start(void **state)
{
	struct dp_roce_qp c = fresh();

	roce_window_timeout(&c);
	assert_int_equal(c.window, DP_ROCE_WINDOW_MIN);
	ack(&c, DP_ROCE_WINDOW_MIN);
	assert_int_equal(c.window, 2 * DP_ROCE_WINDOW_MIN);
	ack(&c, 1000);
	assert_true(c.window >= DP_ROCE_WINDOW / 2);
	assert_true(c.window < DP_ROCE_WINDOW / 2 + 10);
	/* A loss in slow start ends it, and holds the window to the loss rate. */
	roce_window_timeout(&c);
	roce_window_sent(&c, 8);
	roce_window_loss(&c);
	assert_int_equal(c.window, DP_ROCE_WINDOW_MIN);
	assert_int_equal(c.slow_start_to, 0);
}

/* One packet more per window acknowledged, up to DP_ROCE_WINDOW (or the loss limit). */
static void test_additive_increase(void **state)
{
	struct dp_roce_qp c = fresh();

	roce_window_timeout(&c);
	c.slow_start_to = 0;
	ack(&c, DP_ROCE_WINDOW_MIN - 1);
	assert_int_equal(c.window, DP_ROCE_WINDOW_MIN);
	ack(&c, 1);
	assert_int_equal(c.window, DP_ROCE_WINDOW_MIN + 1);
	ack(&c, DP_ROCE_WINDOW_MIN + 1);
	assert_int_equal(c.window, DP_ROCE_WINDOW_MIN + 2);
	ack(&c, 1000000);
	assert_int_equal(c.window, DP_ROCE_WINDOW);
	/* With 1% lost of late, it grows to about 50 only. */
	send_losing(&c, 20000, 100);
	roce_window_timeout(&c);
	c.slow_start_to = 0;
	ack(&c, 1000000);
	assert_in_range(c.window, 45, 55);
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
		cmocka_unit_test(test_window_follows_the_loss_rate),
		cmocka_unit_test(test_first_loss_is_not_a_rate),
		cmocka_unit_test(test_losses_age),
		cmocka_unit_test(test_timeout_slow_start),
		cmocka_unit_test(test_additive_increase),
		cmocka_unit_test(test_ack_requests),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
