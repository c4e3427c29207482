/* SPDX-License-Identifier: MIT */
/*
 * How many request packets an RC requester keeps unacknowledged.
 *
 * Go-back-N sends again everything after a lost packet: a loss costs about a
 * window of packets sent twice (with segmentation offload the whole window
 * leaves as one burst before the NAK can come back; bench_roce counted 50
 * packets sent again per loss at a window of 100).  A loss that a packet
 * sent alone again mended (a responder that keeps what follows a gap:
 * kept.c) costs one packet and is not counted here; one that went back N is.
 * With p of the packets so lost and a window of W, p * W of every packet
 * goes twice, so the window is held to 1 / (2 p) of that loss rate measured
 * on this connection (at most half again as many packets sent as needed),
 * and otherwise grows by one packet per window acknowledged, up to
 * DP_ROCE_WINDOW.  A loss is not taken for congestion and does not halve the
 * window, as TCP's would: on the lossless fabrics RoCE is made for,
 * congestion shows as ECN marks (DCQCN), and a loss is a packet damaged or
 * dropped on the way (docs/decisions.md,
 * "RoCE v2 transport").  Halving on every loss kept a 1%-loss path at about a
 * dozen packets in flight, a sixth of the loss-free rate with segmentation
 * offload.  A timeout, where a whole window may have gone, still starts again
 * from DP_ROCE_WINDOW_MIN, doubling each round trip up to half the window it
 * had, then one per window (TCP's slow start).
 */
#include "dataplane/roce/roce_int.h"

/* The loss rate is measured over about this many packets: older ones count half, then a quarter... */
#define LOSS_HORIZON 4096u
#define LOSS_ONE     256u       /* a loss in loss_seen (fixed point, so that halving keeps it) */
#define LOSS_PRIOR   1024u

void roce_window_init(struct dp_roce_qp *c)
{
	c->window = DP_ROCE_WINDOW;
	c->window_credit = 0;
	c->slow_start_to = 0;
	/* As if LOSS_PRIOR packets had gone without a loss: the first losses of a connection
	 * do not make a rate on their own (one in the first ten packets is not 10%). */
	c->loss_sent = LOSS_PRIOR;
	c->loss_seen = 0;
}

/* The most the loss rate of late lets the window be: 1 / (2 p) packets. */
static uint32_t loss_limit(const struct dp_roce_qp *c)
{
	uint64_t limit;

	if (c->loss_seen == 0)
		return DP_ROCE_WINDOW;
	limit = (uint64_t)c->loss_sent * LOSS_ONE / (2 * (uint64_t)c->loss_seen);
	if (limit < DP_ROCE_WINDOW_MIN)
		return DP_ROCE_WINDOW_MIN;
	return limit < DP_ROCE_WINDOW ? (uint32_t)limit : DP_ROCE_WINDOW;
}

void roce_window_sent(struct dp_roce_qp *c, uint32_t packets)
{
	c->loss_sent += packets;
	if (c->loss_sent >= LOSS_HORIZON) {
		c->loss_sent /= 2;
		c->loss_seen /= 2;
	}
}

void roce_window_acked(struct dp_roce_qp *c, uint32_t packets)
{
	uint32_t limit = loss_limit(c);

	if (c->window < c->slow_start_to) {
		uint32_t room = c->slow_start_to - c->window;

		c->window += packets < room ? packets : room;
		return;
	}
	c->window_credit += packets;
	while (c->window < limit && c->window_credit >= c->window) {
		c->window_credit -= c->window;
		c->window++;
	}
	if (c->window >= limit)
		c->window_credit = 0;
}

void roce_window_loss(struct dp_roce_qp *c)
{
	uint32_t limit;

	c->loss_seen += LOSS_ONE;
	limit = loss_limit(c);
	if (c->window > limit) {
		c->window = limit;
		c->window_credit = 0;
	}
	c->slow_start_to = 0;
}

void roce_window_timeout(struct dp_roce_qp *c)
{
	c->slow_start_to = c->window / 2 > DP_ROCE_WINDOW_MIN ? c->window / 2 : DP_ROCE_WINDOW_MIN;
	c->window = DP_ROCE_WINDOW_MIN;
	c->window_credit = 0;
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
