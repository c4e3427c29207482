/* SPDX-License-Identifier: MIT */
/*
 * The requester: on the worker of a QP, copies each send WQE out of the
 * queue, checks it and resolves its local keys, and hands the request to the
 * transport; what needs no responder (a NOP, a WQE whose entry or keys are
 * bad) is done at once.  A fenced WQE waits until every WQE before it is
 * done.  The QP's poller runs the requester and the completer, and flushes
 * in ERR.
 */
#include "dataplane/engine/engine.h"
#include "dataplane/engine/psn.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

/* How far ahead the requester asks for the entries' lines: a few WRs' work hides a transfer. */
#define DP_PREFETCH_AHEAD 4

static void done(struct dp_send_wqe *wqe, uint8_t status)
{
	wqe->status = status;
	wqe->done = true;
}

/*
 * A configure WR: the MKEY's new context the driver prepared goes into the
 * key table here, so the WQEs after it see it (the small fence mlx5 puts
 * after a UMR).  An entry whose opcode an application changed has no
 * prepared context, or one of another key: an operation error.
 */
static int configure(struct dp_worker *w, struct dp_qp *q, uint32_t index, struct dp_send_wqe *wqe)
{
	struct dp_key *k = dp_qp_sq_slot(q, index)->configure;

	if (!k || k->key != wqe->imm_data || k->pd != q->pd ||
	    dp_keytab_publish(&q->nic->keytab, k) < 0) {
		done(wqe, DP_WC_LOC_QP_OP_ERR);
		return 0;
	}
	dp_tell_configured(w, q->nic, k->key);
	done(wqe, DP_WC_SUCCESS);
	return 0;
}

/* 0: sent or done; -EAGAIN: the transport has no room now. */
static int start(struct dp_worker *w, struct dp_qp *q, uint32_t index, struct dp_send_wqe *wqe)
{
	struct dp_packet req = {
		.kind = DP_PKT_REQUEST, .psn = q->psn_next, .index = index, .epoch = q->epoch, .requester = q,
		.qpn = q->type == DP_QPT_UD ? wqe->remote_qpn : q->dest_qpn,
	};
	bool ud_remote = q->type == DP_QPT_UD && wqe->slot.ud_remote && q->nic->remote;
	int r;

	if (wqe->canceled) {
		wqe->nop = true;
		done(wqe, DP_WC_SUCCESS);
		return 0;
	}
	if (wqe->mem.status != DP_WC_SUCCESS) {
		done(wqe, wqe->mem.status);
		return 0;
	}
	/* Executed here, in order with the WQEs around it: the key is free for those after it. */
	if (wqe->opcode == DP_WR_LOCAL_INV) {
		if (dp_keytab_invalidate(&q->nic->keytab, wqe->imm_data, q->pd, false) < 0) {
			done(wqe, DP_WC_LOC_PROT_ERR);
			return 0;
		}
		dp_tell_invalidated(w, q->nic, wqe->imm_data);
		done(wqe, DP_WC_SUCCESS);
		return 0;
	}
	if (wqe->opcode == DP_WR_CONFIGURE)
		return configure(w, q, index, wqe);
	/*
	 * UD: an address outside the device goes to the NIC's remote transport when it has one;
	 * else, or for a message over the MTU, nowhere.
	 */
	if (q->type == DP_QPT_UD && !wqe->slot.ud_local && !ud_remote) {
		DP_COUNT(w, q, lost, 1);
		done(wqe, DP_WC_SUCCESS);
		return 0;
	}
	dp_count_step(&q->in_flight, 1);
	/* Taken before sending: a response on this worker may come (and rewind it) at once. */
	req.npsn = dp_transport_psns(q, wqe);
	q->psn_next = dp_psn_add(q->psn_next, req.npsn);
	r = dp_transport_request(w, q->nic, &req);
	if (r == 0)
		return 0;
	q->psn_next = req.psn;
	dp_count_step(&q->in_flight, -1);
	if (r == -EAGAIN)
		return r;
	/* No QP of that number runs: RC retries until retry_cnt runs out; UC's message is lost. */
	if (q->type == DP_QPT_RC) {
		done(wqe, DP_WC_RETRY_EXC_ERR);
	} else {
		DP_COUNT(w, q, lost, 1);
		done(wqe, DP_WC_SUCCESS);
	}
	return 0;
}

static unsigned send_requests(struct dp_worker *w, struct dp_qp *q)
{
	unsigned sent = 0;

	while (sent < DP_SQ_BUDGET && q->state == DP_QPS_RTS) {
		uint32_t index = atomic_load_explicit(&q->req_next, memory_order_relaxed);
		struct dp_send_wqe *wqe = &q->wqes[index & q->sq.mask];

		if (!dp_queue_ready(&q->sq, index))
			break;
		/*
		 * The next entry was written on another CPU: its lines are on their
		 * way while this one is executed.
		 */
		if (dp_queue_ready(&q->sq, index) > DP_PREFETCH_AHEAD) {
			const uint8_t *next = dp_queue_slot(&q->sq, index + DP_PREFETCH_AHEAD);

			__builtin_prefetch(next);
			__builtin_prefetch(next + offsetof(struct dp_sq_req, num_sge));
		}
		if (q->rnr_active && q->rnr_index == index && dp_worker_now_ns() < q->rnr_until_ns)
			break;
		dp_read_send(q, index, wqe);
		if ((wqe->send_flags & DP_SEND_FENCE) && index != dp_queue_cons(&q->sq))
			break;
		/* Before sending: a response on this worker may come (and rewind it) at once. */
		atomic_store_explicit(&q->req_next, index + 1, memory_order_relaxed);
		if (start(w, q, index, wqe) < 0) {
			atomic_store_explicit(&q->req_next, index, memory_order_relaxed);
			break;
		}
		sent++;
		/* Done without a response (a NOP, a local error): retired before the next is sent. */
		if (wqe->done)
			dp_comp_retire(w, q);
	}
	return sent;
}

/*
 * In ERR every WR, posted before or after, completes in order with
 * WR_FLUSH_ERR: those not sent at once, those in flight once their response
 * came.  A turn flushes at most what was posted when it began: a producer
 * that keeps posting (or an application that moved its index far ahead,
 * which no consumption ever catches up with) does not hold the worker.
 */
static unsigned flush(struct dp_worker *w, struct dp_qp *q)
{
	unsigned n = dp_comp_retire(w, q);
	uint32_t index, sends = dp_queue_count(&q->sq), recvs = dp_queue_count(&q->rq);

	if (dp_queue_cons(&q->sq) == atomic_load_explicit(&q->req_next, memory_order_relaxed)) {
		for (; sends && dp_queue_count(&q->sq); sends--) {
			index = dp_queue_cons(&q->sq);
			dp_read_send(q, index, &q->wqes[index & q->sq.mask]);
			done(&q->wqes[index & q->sq.mask], DP_WC_WR_FLUSH_ERR);
			atomic_store_explicit(&q->req_next, index + 1, memory_order_relaxed);
			n += dp_comp_retire(w, q);
		}
	}
	for (; recvs && dp_queue_count(&q->rq); recvs--) {
		uint64_t wr_id;

		memcpy(&wr_id, dp_queue_slot(&q->rq, dp_queue_cons(&q->rq)), sizeof(wr_id));
		dp_complete_recv(w, q, wr_id, DP_WC_WR_FLUSH_ERR, DP_WC_RECV, 0, NULL, 0);
		n++;
	}
	return n;
}

unsigned dp_qp_poll(struct dp_worker *w, void *arg)
{
	struct dp_qp *q = arg;
	unsigned n = 0;

	dp_tell_pending(w, q);
	n = dp_transport_poll(w, q);
	switch (q->state) {
	case DP_QPS_RTS:
		n += send_requests(w, q);
		/* The turn's requests leave together. */
		dp_transport_flush(w, q->nic);
		return n;
	case DP_QPS_SQD:
		/* What was in flight when it stopped still completes. */
		return n + dp_comp_retire(w, q);
	case DP_QPS_ERR:
		return n + flush(w, q);
	default:
		return n;
	}
}
