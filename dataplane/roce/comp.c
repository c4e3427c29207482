/* SPDX-License-Identifier: MIT */
/*
 * The completer's side of RoCE v2 (reference roce_virtio.md §2.6, §4.2):
 * ACKs are cumulative, a READ response acknowledges what came before the
 * READ, a PSN-sequence NAK acknowledges what came before it and asks to go
 * back to it, an RNR NAK hands its message back to the completer (which
 * sends it again after the timer), any other NAK fails its message.  Each
 * message gets the one response the completer expects (dataplane/engine/comp.c);
 * the ones after a message that failed or must wait are answered too, so
 * that nothing stays in flight.
 */
#include "dataplane/roce/roce_int.h"

#include <stdlib.h>
#include <string.h>

/*
 * The first PSN not acknowledged: in the oldest message, its next READ
 * response, or the first packet after what ACKs covered; else the next PSN
 * to use.
 */
static uint32_t oldest_unacked(struct dp_qp *q)
{
	uint32_t end = atomic_load_explicit(&q->req_next, memory_order_relaxed);
	struct dp_roce_qp *c = roce_qp(q);

	for (uint32_t i = dp_queue_cons(&q->sq); i != end; i++) {
		struct dp_wire_msg *m = roce_msg_at(q, i);

		if (!m)
			continue;
		if (q->wqes[i & q->sq.mask].opcode == DP_WR_RDMA_READ)
			return m->read_next;
		return dp_psn_diff(c->acked, m->psn) > 0 ? c->acked : m->psn;
	}
	return q->psn_next;
}

/* What the peer acknowledged reaches psn (exclusive). */
static void acked_to(struct dp_qp *q, uint32_t psn)
{
	if (dp_psn_diff(psn, roce_qp(q)->acked) > 0 && dp_psn_diff(psn, q->psn_next) <= 0)
		roce_qp(q)->acked = psn;
}

/*
 * The retransmission timer runs while something is unacknowledged, from
 * the last progress (una moved, or force: packets sent again).
 */
static void rearm(struct dp_worker *w, struct dp_qp *q, bool force)
{
	struct dp_roce_qp *c = roce_qp(q);
	uint32_t before = c->una;

	c->una = oldest_unacked(q);
	if (c->una != before) {
		c->retry_left = c->path.retry_cnt;
		roce_window_acked(c, (uint32_t)dp_psn_diff(c->una, before));
	}
	if (!c->rto_ns || c->una == q->psn_next) {
		dp_worker_timer_cancel(w, &c->rto);
		return;
	}
	if (force || c->una != before || !dp_timer_armed(&c->rto))
		dp_worker_timer_arm(w, &c->rto, dp_worker_now_ns() + c->rto_ns);
}

/* Answers every message from index on: the first with status, the rest flushed. */
static void fail_from(struct dp_worker *w, struct dp_qp *q, uint32_t index, uint8_t status)
{
	uint32_t end = atomic_load_explicit(&q->req_next, memory_order_relaxed);

	for (uint32_t i = index; i != end; i++) {
		if (!roce_msg_at(q, i))
			continue;
		roce_msg_answer(w, q, i, status);
		status = DP_WC_WR_FLUSH_ERR;
	}
}

/*
 * Messages acknowledged up to psn (inclusive) get their responses.  A READ
 * whose responses did not all come is not done: its responses were lost,
 * and it is asked for again from the first missing one.  Returns the index
 * of the first message not acknowledged (req_next when none).
 */
static uint32_t ack_through(struct dp_worker *w, struct dp_qp *q, uint32_t psn)
{
	uint32_t end = atomic_load_explicit(&q->req_next, memory_order_relaxed), i;

	for (i = dp_queue_cons(&q->sq); i != end; i++) {
		struct dp_send_wqe *wqe = &q->wqes[i & q->sq.mask];
		struct dp_wire_msg *m = roce_msg_at(q, i);

		if (!m)
			continue;
		if (dp_psn_diff(dp_psn_add(m->psn, m->npsn - 1), psn) > 0)
			break;
		if (wqe->opcode == DP_WR_RDMA_READ) {
			roce_req_rewind(w, q, m->read_next);
			break;
		}
		roce_msg_answer(w, q, i, DP_WC_SUCCESS);
	}
	return i;
}

/* The message holding psn, from the head of the send queue; its index in *index. */
static struct dp_wire_msg *message_of(struct dp_qp *q, uint32_t psn, uint32_t *index)
{
	uint32_t end = atomic_load_explicit(&q->req_next, memory_order_relaxed);

	for (uint32_t i = dp_queue_cons(&q->sq); i != end; i++) {
		struct dp_wire_msg *m = roce_msg_at(q, i);

		if (m && dp_psn_in_window(psn, m->psn, m->npsn)) {
			*index = i;
			return m;
		}
	}
	return NULL;
}

/* RNR NAK at psn: its message goes back to the completer; those sent after it go again later. */
static void receiver_not_ready(struct dp_worker *w, struct dp_qp *q, uint32_t psn, uint8_t timer)
{
	uint32_t index, end = atomic_load_explicit(&q->req_next, memory_order_relaxed);
	struct dp_wire_msg *m = message_of(q, psn, &index);
	bool retried;

	if (!m || m->psn != psn)
		return;   /* stale: that message was answered already */
	m->answer.rnr = true;
	m->answer.rnr_timer = timer;
	roce_msg_answer(w, q, index, DP_WC_SUCCESS);
	/* The completer moved the requester back to it, unless rnr_retry ran out. */
	retried = atomic_load_explicit(&q->req_next, memory_order_relaxed) == index;
	for (uint32_t i = index + 1; i != end; i++) {
		struct dp_wire_msg *later = roce_msg_at(q, i);

		if (!later)
			continue;
		later->answer.dropped = retried;
		roce_msg_answer(w, q, i, DP_WC_WR_FLUSH_ERR);
	}
	roce_qp(q)->tx_psn = psn;
}

static uint8_t nak_status(uint8_t code)
{
	switch (code) {
	case ROCE_NAK_INVALID_REQ:
		return DP_WC_REM_INV_REQ_ERR;
	case ROCE_NAK_REMOTE_ACCESS:
		return DP_WC_REM_ACCESS_ERR;
	default:
		return DP_WC_REM_OP_ERR;
	}
}

/*
 * A PSN-sequence NAK: the packet at psn was lost.  It alone is sent again,
 * asking for an ACK, as the responder may have kept what came after it
 * (kept.c: rdmad's does); the ACK that answers it says whether it did.
 */
static void lost(struct dp_worker *w, struct dp_qp *q, uint32_t psn)
{
	struct dp_roce_qp *c = roce_qp(q);

	if (dp_psn_diff(psn, c->una) < 0)
		return;                       /* a NAK repeated after its gap filled */
	if (!roce_req_resend(w, q, psn)) {
		roce_req_rewind(w, q, psn);
		return;
	}
	/*
	 * What the responder may have kept when the packet sent again reaches it
	 * is what left before it.  A NAK of the same gap repeated (kept.c) sends it
	 * again but keeps that mark: its ACK may answer the first copy, before
	 * what left since came in.
	 */
	if (!c->resending || psn != c->resend_psn)
		c->resend_until = c->tx_high;
	c->resending = true;
	c->resend_psn = psn;
}

/*
 * An ACK of psn after a lost packet was sent again alone.  One that stops
 * short of what had been sent says the responder kept nothing after the gap
 * (a responder that goes by the standard's letter drops it): go back N from
 * there, and the loss counts against the window (window.c).  An ACK from
 * before the packet sent again says nothing yet.
 */
static void resend_answered(struct dp_worker *w, struct dp_qp *q, uint32_t psn)
{
	struct dp_roce_qp *c = roce_qp(q);

	if (!c->resending || dp_psn_diff(psn, c->resend_psn) < 0)
		return;
	c->resending = false;
	if (dp_psn_diff(dp_psn_add(psn, 1), c->resend_until) < 0) {
		DP_COUNT(w, q, roce.go_backs, 1);
		roce_window_loss(c);
		roce_req_rewind(w, q, dp_psn_add(psn, 1));
	}
}

static void acknowledge(struct dp_worker *w, struct dp_qp *q, const struct roce_pkt *p)
{
	uint32_t psn = p->bth.psn, before = dp_psn_add(psn, DP_PSN_SPACE - 1);
	uint8_t value = roce_aeth_value(p->aeth.syndrome);
	uint32_t index;

	acked_to(q, roce_aeth_type(p->aeth.syndrome) == ROCE_AETH_ACK ? dp_psn_add(psn, 1) : psn);
	switch (roce_aeth_type(p->aeth.syndrome)) {
	case ROCE_AETH_ACK:
		ack_through(w, q, psn);
		resend_answered(w, q, psn);
		break;
	case ROCE_AETH_RNR_NAK:
		ack_through(w, q, before);
		receiver_not_ready(w, q, psn, value);
		break;
	case ROCE_AETH_NAK:
		DP_COUNT(w, q, roce.naks_received, 1);
		index = ack_through(w, q, before);
		if (value == ROCE_NAK_PSN_SEQ)
			lost(w, q, psn);
		else
			fail_from(w, q, index, nak_status(value));
		break;
	default:
		break;
	}
}

/*
 * A READ response: it acknowledges the messages before its READ, and
 * carries the next bytes of it.  One out of order is dropped; when it is the
 * last of the READ's responses, the stream it belongs to has ended with a
 * gap, and the READ (this one only: the READs sent after it were not lost)
 * is asked for again at once from the first missing response, as rxe's
 * completer does, rather than when the timer runs out.
 * Only a stream's last response asks, so each stream with a gap asks once
 * (the late responses of an earlier stream ask nothing); a lost last one
 * still waits for the timer.
 */
static void read_response(struct dp_worker *w, struct dp_qp *q, const struct roce_pkt *p)
{
	uint32_t index, mtu = roce_qp(q)->path.mtu;
	struct dp_wire_msg *m = message_of(q, p->bth.psn, &index);
	struct dp_send_wqe *wqe;
	uint64_t off, len, want;

	if (!m)
		return;
	wqe = &q->wqes[index & q->sq.mask];
	if (wqe->opcode != DP_WR_RDMA_READ)
		return;
	if (p->bth.psn != m->read_next) {
		if (p->bth.psn == dp_psn_add(m->psn, m->npsn - 1) && dp_psn_diff(p->bth.psn, m->read_next) > 0) {
			roce_window_loss(roce_qp(q));
			roce_req_read_again(w, q, wqe);
		}
		return;
	}
	ack_through(w, q, dp_psn_add(m->psn, DP_PSN_SPACE - 1));
	len = wqe->mem.length;
	off = (uint64_t)dp_psn_diff(p->bth.psn, m->psn) * mtu;
	want = len - off < mtu ? len - off : mtu;
	if (p->payload_len != want) {
		fail_from(w, q, index, DP_WC_BAD_RESP_ERR);
		return;
	}
	if (want)
		memcpy((m->wire ? m->wire : wqe->mem.segs[0].addr) + off, p->payload, want);
	m->read_next = dp_psn_add(m->read_next, 1);
	if (m->read_next != dp_psn_add(m->psn, m->npsn))
		return;
	if (m->wire) {
		struct dp_xfer x = {
			.w = w, .nic = q->nic, .wqe = wqe, .type = q->type, .requester_qpn = q->qpn,
			.requester = q, .resp = &m->answer,
		};

		if (dp_move_in(&x, &wqe->mem, m->wire, len) < 0) {
			fail_from(w, q, index, DP_WC_LOC_PROT_ERR);
			return;
		}
	}
	roce_msg_answer(w, q, index, DP_WC_SUCCESS);
}

void roce_comp_packet(struct dp_worker *w, struct dp_qp *q, const struct roce_pkt *p)
{
	if (q->type != DP_QPT_RC)
		return;
	if ((p->bth.opcode & 0x1f) == ROCE_ACKNOWLEDGE)
		acknowledge(w, q, p);
	else if (p->op->flags & ROCE_F_PAYLOAD)
		read_response(w, q, p);
	rearm(w, q, false);
	roce_req_pump(w, q);
}

void roce_comp_timeout(struct dp_worker *w, struct dp_qp *q)
{
	struct dp_roce_qp *c = roce_qp(q);

	if (q->state != DP_QPS_RTS && q->state != DP_QPS_SQD)
		return;
	c->una = oldest_unacked(q);
	if (c->una == q->psn_next)
		return;
	DP_COUNT(w, q, roce.timeouts, 1);
	/* retry_cnt 7 retries for ever (rxe). */
	if (c->path.retry_cnt != 7 && c->retry_left-- == 0) {
		fail_from(w, q, dp_queue_cons(&q->sq), DP_WC_RETRY_EXC_ERR);
		return;
	}
	roce_window_timeout(c);
	c->resending = false;
	roce_req_rewind(w, q, c->una);
	roce_tx_flush(w, roce_ep(q->nic));
	rearm(w, q, true);
}

void roce_comp_flush(struct dp_worker *w, struct dp_qp *q)
{
	dp_worker_timer_cancel(w, &roce_qp(q)->rto);
	fail_from(w, q, dp_queue_cons(&q->sq), DP_WC_WR_FLUSH_ERR);
}
