/* SPDX-License-Identifier: MIT */
/* What the requester, responder and completer share: completions and the states a QP reaches on its own. */
#include "dataplane/engine/engine.h"

#include <arpa/inet.h>


/* The RNR NAK timer code (5 bits) in microseconds (reference §3.4). */
static const uint32_t rnr_timer_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920,
	2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960, 61440, 81920, 122880,
	163840, 245760, 327680, 491520,
};

uint64_t dp_rnr_timer_ns(uint32_t code)
{
	return (uint64_t)rnr_timer_us[code & 31] * 1000u;
}

/*
 * Tells the driver of a state the QP went to on its own; false when the
 * event queue is full (the poller tries again on its next turn).
 */
static bool tell(struct dp_worker *w, struct dp_qp *q, uint32_t type, uint64_t value)
{
	struct dp_event ev = {
		.type = type, .object = q->qpn, .value = (int64_t)value,
		.cookie = (uint64_t)(uintptr_t)q->nic, .ptr = q,
	};

	return dp_worker_emit(w, &ev);
}

static void tell_error(struct dp_worker *w, struct dp_qp *q)
{
	q->error_pending = !tell(w, q, DP_EVENT_QP_ERROR, 0);
}

static void tell_stopped(struct dp_worker *w, struct dp_qp *q)
{
	q->stop_pending = !tell(w, q, DP_EVENT_QP_STOPPED, q->stopped_at_ns);
}

/* cq is one of q's, which holds it (dp_cq_get) while the event may still be retried. */
static void tell_cq_error(struct dp_worker *w, struct dp_qp *q, struct dp_cq *cq)
{
	struct dp_event ev = {
		.type = DP_EVENT_CQ_ERROR, .object = cq->cqn, .ptr = cq,
		.cookie = (uint64_t)(uintptr_t)q->nic,
	};
	uint8_t which = cq == q->send_cq ? 1 : 2;

	if (dp_worker_emit(w, &ev))
		q->cq_error_pending &= (uint8_t)~which;
	else
		q->cq_error_pending |= which;
}

void dp_tell_invalidated(struct dp_worker *w, struct dp_nic *nic, uint32_t key)
{
	struct dp_event ev = {
		.type = DP_EVENT_KEY_INVALIDATED, .object = key, .cookie = (uint64_t)(uintptr_t)nic,
	};

	/* A full event queue loses only the model's view: the key is free on the data path already. */
	dp_worker_emit(w, &ev);
}

void dp_tell_configured(struct dp_worker *w, struct dp_nic *nic, uint32_t key)
{
	struct dp_event ev = {
		.type = DP_EVENT_KEY_CONFIGURED, .object = key, .cookie = (uint64_t)(uintptr_t)nic,
	};

	/* A full event queue only delays the model: it settles the MKEY when it next looks at it. */
	dp_worker_emit(w, &ev);
}

void dp_tell_pending(struct dp_worker *w, struct dp_qp *q)
{
	if (q->cq_error_pending & 1)
		tell_cq_error(w, q, q->send_cq);
	if (q->cq_error_pending & 2)
		tell_cq_error(w, q, q->recv_cq);
	if (q->error_pending)
		tell_error(w, q);
	if (q->stop_pending)
		tell_stopped(w, q);
}

/*
 * The main thread is told before the completion that reports the error is
 * written, so that whoever sees the completion and then asks finds the QP
 * in ERR.  Its queues are flushed by its poller.
 */
void dp_enter_error(struct dp_worker *w, struct dp_qp *q)
{
	if (q->state == DP_QPS_ERR)
		return;
	q->state = DP_QPS_ERR;
	q->rnr_active = false;
	tell_error(w, q);
}

/*
 * Right after the WQE whose transfer failed a signature check (reference
 * §5: anywhere before the next fenced WQE is allowed; the tests expect
 * here).  As for ERR, the driver is told before the WQE's completion.
 */
void dp_stop_in_sqd(struct dp_worker *w, struct dp_qp *q, uint64_t found_at_ns)
{
	q->state = DP_QPS_SQD;
	q->stopped_at_ns = found_at_ns;
	atomic_fetch_add_explicit(&q->stops, 1, memory_order_relaxed);
	DP_COUNT(w, q, sig_stops, 1);
	tell_stopped(w, q);
}

void dp_complete(struct dp_worker *w, struct dp_qp *q, struct dp_cq *cq, const struct dp_cqe *e,
		 bool solicited)
{
	switch (dp_cq_push(cq, w->index, e)) {
	case DP_CQ_PUSHED:
		break;
	case DP_CQ_OVERFLOWED:
		/* The CQ's event first: it is the cause of the QP's. */
		tell_cq_error(w, q, cq);
		/* fall through */
	case DP_CQ_IN_ERROR:
		DP_COUNT(w, q, cq_overflows, 1);
		dp_enter_error(w, q);
		return;
	}
	DP_COUNT(w, q, completions[e->status], 1);
	if (cq->ring) {
		dp_nic_defer_notify(w, q->nic, cq, solicited);
		return;
	}
	/*
	 * Pairs with the driver's want-then-poll (rdma_datapath_cq_set_wanted,
	 * then a poll): the entry published above and the flag read below are
	 * a store then a load, which the CPU may swap (x86 too, through its
	 * store buffer).  Without the fence the driver can find the CQ empty
	 * while this worker finds it not wanted, and the waiter sleeps to its
	 * deadline beside its completion.
	 */
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&cq->wanted, memory_order_acquire) ||
	    atomic_load_explicit(&cq->armed, memory_order_acquire)) {
		struct dp_event ev = {
			.type = DP_EVENT_CQ_ENTRY, .object = cq->cqn, .ptr = cq,
			.value = solicited, .cookie = (uint64_t)(uintptr_t)q->nic,
		};

		/* A full queue must not cost a wake-up: the turn's end tells of every CQ. */
		if (!dp_worker_emit(w, &ev))
			q->nic->per_worker[w->index].cq_untold = true;
	}
}

void dp_complete_recv(struct dp_worker *w, struct dp_qp *q, uint64_t wr_id, uint8_t status,
		      uint8_t opcode, uint32_t byte_len, const struct dp_send_wqe *req, uint32_t from_qpn)
{
	struct dp_cqe e = { .wr_id = wr_id, .status = status, .opcode = opcode, .qp_num = q->qpn };

	if (status == DP_WC_SUCCESS) {
		e.byte_len = byte_len;
		if (q->type == DP_QPT_UD) {
			e.src_qp = from_qpn;
			e.wc_flags = DP_WC_GRH;
		}
		if (req && (req->opcode == DP_WR_SEND_WITH_IMM || req->opcode == DP_WR_RDMA_WRITE_WITH_IMM)) {
			e.imm_data = req->imm_data;
			e.wc_flags |= DP_WC_WITH_IMM;
		} else if (req && req->opcode == DP_WR_SEND_WITH_INV) {
			e.imm_data = htonl(req->imm_data);
			e.wc_flags |= DP_WC_WITH_INV;
		}
	}
	/* The slot first: whoever sees the completion may post into it. */
	dp_queue_consume(&q->rq, 1);
	/* Solicited: the sender asked for it (the BTH SE bit); flushes are not (as rxe). */
	dp_complete(w, q, q->recv_cq, &e, req && (req->send_flags & DP_SEND_SOLICITED));
}
