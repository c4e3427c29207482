/* SPDX-License-Identifier: MIT */
/*
 * How many request packets an RC requester keeps unacknowledged: a window
 * that halves when the responder reports a loss (a PSN-sequence NAK: once
 * per loss episode, until what was in flight then is acknowledged), falls to
 * its least on a timeout, and grows by one packet per window acknowledged,
 * up to DP_ROCE_WINDOW (additive increase, multiplicative decrease, as TCP's
 * congestion window).  Go-back-N sends again everything after a lost packet,
 * so what a loss costs is the window: a full window of 128 on a link whose
 * round trip holds a few packets threw away most of what was sent after each
 * loss (docs/decisions.md, "RoCE v2 transport").
 */
#include "dataplane/roce/roce_int.h"

void roce_window_init(struct dp_roce_qp *c)
{
	c->window = DP_ROCE_WINDOW;
	c->window_credit = 0;
	c->recovering = false;
}

void roce_window_acked(struct dp_roce_qp *c, uint32_t packets)
{
	if (c->recovering && dp_psn_diff(c->una, c->recover_psn) >= 0)
		c->recovering = false;
	c->window_credit += packets;
	while (c->window < DP_ROCE_WINDOW && c->window_credit >= c->window) {
		c->window_credit -= c->window;
		c->window++;
	}
	if (c->window == DP_ROCE_WINDOW)
		c->window_credit = 0;
}

static void lost(struct dp_roce_qp *c, uint32_t window)
{
	c->window = window > DP_ROCE_WINDOW_MIN ? window : DP_ROCE_WINDOW_MIN;
	c->window_credit = 0;
	c->recovering = true;
	c->recover_psn = c->tx_high;
}

void roce_window_loss(struct dp_roce_qp *c)
{
	/* The NAKs of one episode (each repeat of the gap gets one) halve it once. */
	if (!c->recovering)
		lost(c, c->window / 2);
}

void roce_window_timeout(struct dp_roce_qp *c)
{
	lost(c, DP_ROCE_WINDOW_MIN);
}

bool roce_window_asks_ack(struct dp_roce_qp *c)
{
	/* Twice per window, so that the ACK of the first half comes back while the second goes. */
	uint32_t every = c->window / 2 < DP_ROCE_ACK_EVERY ? c->window / 2 : DP_ROCE_ACK_EVERY;

	if (++c->since_ack_req < (every ? every : 1))
		return false;
	c->since_ack_req = 0;
	return true;
}
