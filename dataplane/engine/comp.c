/* SPDX-License-Identifier: MIT */
/*
 * The completer: on the requester QP's worker, takes each response, marks
 * its WQE done (or sends it again after an RNR NAK), and retires done WQEs
 * from the head of the send queue in order: counters, the state the QP goes
 * to (ERR on an error, SQD after a signature error when pipelining), and the
 * completion.
 */
#include "dataplane/engine/engine.h"

static const uint8_t wc_opcode_of[DP_WR_OPCODE_COUNT] = {
	[DP_WR_RDMA_WRITE] = DP_WC_RDMA_WRITE,
	[DP_WR_RDMA_WRITE_WITH_IMM] = DP_WC_RDMA_WRITE,
	[DP_WR_SEND] = DP_WC_SEND,
	[DP_WR_SEND_WITH_IMM] = DP_WC_SEND,
	[DP_WR_RDMA_READ] = DP_WC_RDMA_READ,
	[DP_WR_LOCAL_INV] = DP_WC_LOCAL_INV,
	[DP_WR_SEND_WITH_INV] = DP_WC_SEND,
	[DP_WR_CONFIGURE] = DP_WC_CONFIGURE,
};

static uint8_t wc_opcode(uint8_t wr_opcode)
{
	return wr_opcode < DP_WR_OPCODE_COUNT ? wc_opcode_of[wr_opcode] : 0;
}

/* Once the QP went to ERR, the WQEs after the one that failed complete flushed. */
static void retire(struct dp_worker *w, struct dp_qp *q, uint32_t index, const struct dp_send_wqe *wqe)
{
	uint8_t status = q->state == DP_QPS_ERR ? DP_WC_WR_FLUSH_ERR : wqe->status;
	bool ok = status == DP_WC_SUCCESS, executed = ok && !wqe->nop, signaled;
	struct dp_cqe e = {
		.wr_id = wqe->wr_id, .status = status, .opcode = wc_opcode(wqe->opcode),
		.byte_len = executed ? (uint32_t)wqe->mem.length : 0, .qp_num = q->qpn,
	};

	if (status != DP_WC_WR_FLUSH_ERR) {
		if (wqe->nop)
			DP_COUNT(w, q, nops, 1);
		else if (wqe->opcode < DP_WR_OPCODE_COUNT)
			DP_COUNT(w, q, wrs[wqe->opcode], 1);
		if (executed && wqe->opcode == DP_WR_RDMA_READ)
			DP_COUNT(w, q, bytes_read, wqe->mem.length);
		else if (executed)
			DP_COUNT(w, q, bytes_sent, wqe->mem.length);
	}
	if (!ok)
		dp_enter_error(w, q);
	else if (wqe->sig_failed && q->sig_pipelining && q->state == DP_QPS_RTS)
		dp_stop_in_sqd(w, q, wqe->sig_found_ns);
	/* Errors complete even unsignaled WRs; a NOP completes as the WR it was (reference §5). */
	signaled = !ok || q->sq_sig_all || (wqe->send_flags & DP_SEND_SIGNALED);
	q->rnr_active = false;
	/* The slot first (clean for its next WR): whoever sees the completion may post into it. */
	if (wqe->canceled)
		atomic_store_explicit(&q->sq_canceled[index & q->sq.mask], false, memory_order_relaxed);
	dp_queue_consume(&q->sq, 1);
	if (signaled)
		dp_complete(w, q, q->send_cq, &e, false);
}

unsigned dp_comp_retire(struct dp_worker *w, struct dp_qp *q)
{
	uint32_t sent = atomic_load_explicit(&q->req_next, memory_order_relaxed);
	unsigned n = 0;

	for (uint32_t i = dp_queue_cons(&q->sq); i != sent; i++, n++) {
		const struct dp_send_wqe *wqe = &q->wqes[i & q->sq.mask];

		if (!wqe->done)
			break;
		retire(w, q, i, wqe);
	}
	return n;
}

/* No receive WQE at the responder: the WQE goes again after its timer, until rnr_retry runs out. */
static void receiver_not_ready(struct dp_worker *w, struct dp_qp *q, const struct dp_packet *resp,
			       struct dp_send_wqe *wqe)
{
	DP_COUNT(w, q, rnr_naks, 1);
	if (!q->rnr_active || q->rnr_index != resp->index) {
		q->rnr_active = true;
		q->rnr_index = resp->index;
		q->rnr_left = q->rnr_retry;
	}
	if (q->rnr_retry != DP_RNR_RETRY_INFINITE) {
		if (!q->rnr_left) {
			wqe->status = DP_WC_RNR_RETRY_EXC_ERR;
			wqe->done = true;
			return;
		}
		q->rnr_left--;
	}
	q->rnr_until_ns = dp_worker_now_ns() + dp_rnr_timer_ns(resp->rnr_timer);
	/* A sleeping worker wakes for the retry. */
	dp_worker_timer_arm(w, &q->rnr_timer, q->rnr_until_ns);
	/* Sent again from the NAKed WQE on, with the same sequence numbers. */
	atomic_store_explicit(&q->req_next, resp->index, memory_order_relaxed);
	q->psn_next = resp->psn;
}

void dp_comp_response(struct dp_worker *w, struct dp_nic *nic, const struct dp_packet *resp)
{
	struct dp_qp *q = resp->requester;
	struct dp_send_wqe *wqe = &q->wqes[resp->index & q->sq.mask];

	(void)nic;
	dp_count_step(&q->in_flight, -1);
	/* Taken back for RESET: what it had in flight is dropped with the rest. */
	if (resp->dropped || q->state == DP_QPS_RESET || resp->epoch != q->epoch)
		return;
	for (unsigned t = 0; resp->sig_failed && t <= DP_SIG_ERR_APPTAG; t++)
		if (resp->sig_errors[t])
			DP_COUNT(w, q, sig_errors[t], resp->sig_errors[t]);
	if (resp->lost)
		DP_COUNT(w, q, lost, 1);
	if (resp->rnr) {
		receiver_not_ready(w, q, resp, wqe);
	} else {
		wqe->status = resp->status;
		wqe->sig_failed = resp->sig_failed;
		wqe->sig_found_ns = resp->sig_found_ns;
		wqe->done = true;
	}
	dp_comp_retire(w, q);
}
