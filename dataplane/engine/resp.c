/* SPDX-License-Identifier: MIT */
/*
 * The responder: on the worker of the QP a request is for, takes its receive
 * WQE, resolves the remote key against its PD and access, moves the bytes,
 * writes its own completions, and answers the requester with the status its
 * WQE completes with (reference roce_virtio.md §4.1-4.2).
 */
#include "dataplane/engine/engine.h"
#include "dataplane/engine/psn.h"

#include <string.h>

static bool accepts_requests(const struct dp_qp *qp)
{
	return qp && (qp->state == DP_QPS_RTR || qp->state == DP_QPS_RTS || qp->state == DP_QPS_SQD);
}

/*
 * The responder could not take the request: on RC both ends fail (the
 * receive WQE, if one was taken, completes with recv_status); UC drops the
 * message and the requester never knows.
 */
static void fault(struct dp_xfer *x, uint8_t requester_status, const struct dp_recv_wqe *took,
		  uint8_t recv_status)
{
	struct dp_qp *qp = x->responder;

	if (x->type == DP_QPT_UC) {
		x->resp->lost = true;
		return;
	}
	x->resp->status = requester_status;
	dp_enter_error(x->w, qp);
	if (took)
		dp_complete_recv(x->w, qp, took->wr_id, recv_status, DP_WC_RECV, 0, NULL, 0);
}

/* No receive WQE: an RNR NAK (the requester retries after the timer); UC loses the message. */
static void receiver_not_ready(struct dp_xfer *x)
{
	if (x->type == DP_QPT_UC) {
		x->resp->lost = true;
		return;
	}
	x->resp->rnr = true;
	x->resp->rnr_timer = (uint8_t)(x->responder->min_rnr_timer & 31);
}

/* A move that could not stage its bytes fails the WR (the requester goes to ERR). */
static void moved(struct dp_xfer *x, int r)
{
	if (r < 0)
		x->resp->status = DP_WC_GENERAL_ERR;
}

static void received(struct dp_xfer *x, const struct dp_recv_wqe *rwqe, uint8_t opcode, uint32_t len)
{
	DP_COUNT(x->w, x->responder, recvs, 1);
	dp_complete_recv(x->w, x->responder, rwqe->wr_id, DP_WC_SUCCESS, opcode, len, x->wqe,
			 x->requester_qpn);
}

static void do_send(struct dp_xfer *x)
{
	uint64_t len = x->wqe->mem.length;
	struct dp_recv_wqe rwqe;

	if (!dp_read_recv(x->responder, &rwqe)) {
		receiver_not_ready(x);
		return;
	}
	if (rwqe.mem.status != DP_WC_SUCCESS) {
		fault(x, DP_WC_REM_OP_ERR, &rwqe, DP_WC_LOC_QP_OP_ERR);
		return;
	}
	/* The receive was sized for its whole SGE; the message may be shorter. */
	if ((rwqe.mem.mkey.mkey && dp_mkey_mem_length(rwqe.mem.mkey.mkey, x->w->index, len, &rwqe.mem.mkey.mem_length) < 0) ||
	    len > rwqe.mem.length) {
		fault(x, DP_WC_REM_INV_REQ_ERR, &rwqe, DP_WC_LOC_LEN_ERR);
		return;
	}
	if (dp_move(x, &rwqe.mem, &x->wqe->mem, len) < 0) {
		moved(x, -1);
		return;
	}
	/*
	 * SEND_WITH_INV: after the data, the key it names goes free; one that
	 * cannot (another PD, an MKEY without remote_invalidate, no such key)
	 * is an invalid request (decisions.md, "Invalidation").
	 */
	if (x->wqe->opcode == DP_WR_SEND_WITH_INV) {
		if (dp_keytab_invalidate(&x->nic->keytab, x->wqe->imm_data, x->responder->pd, true) < 0) {
			fault(x, DP_WC_REM_INV_REQ_ERR, &rwqe, DP_WC_LOC_QP_OP_ERR);
			return;
		}
		dp_tell_invalidated(x->w, x->nic, x->wqe->imm_data);
	}
	received(x, &rwqe, DP_WC_RECV, (uint32_t)len);
}

static void do_write(struct dp_xfer *x)
{
	bool imm = x->wqe->opcode == DP_WR_RDMA_WRITE_WITH_IMM;
	struct dp_wqe_mem remote;
	struct dp_recv_wqe rwqe;

	if (!(x->responder->access_flags & DP_ACCESS_REMOTE_WRITE)) {
		fault(x, DP_WC_REM_INV_REQ_ERR, NULL, 0);
		return;
	}
	if (imm && !dp_read_recv(x->responder, &rwqe)) {
		receiver_not_ready(x);
		return;
	}
	if (!dp_resolve_remote(&x->nic->keytab, x->w->index, x->wqe, x->responder->pd, DP_ACCESS_REMOTE_WRITE, &remote)) {
		fault(x, DP_WC_REM_ACCESS_ERR, imm ? &rwqe : NULL, DP_WC_REM_ACCESS_ERR);
		return;
	}
	if (dp_move(x, &remote, &x->wqe->mem, x->wqe->mem.length) < 0) {
		moved(x, -1);
		return;
	}
	/* Its SGEs are not used: the data is in the MR already. */
	if (imm)
		received(x, &rwqe, DP_WC_RECV_RDMA_WITH_IMM, (uint32_t)x->wqe->mem.length);
}

/* The READ's data lands in the requester's SGEs (loopback: one address space; RoCE: the responses). */
static void do_read(struct dp_xfer *x)
{
	struct dp_wqe_mem remote;

	if (!(x->responder->access_flags & DP_ACCESS_REMOTE_READ) || !x->responder->max_dest_rd_atomic) {
		fault(x, DP_WC_REM_INV_REQ_ERR, NULL, 0);
		return;
	}
	if (!dp_resolve_remote(&x->nic->keytab, x->w->index, x->wqe, x->responder->pd, DP_ACCESS_REMOTE_READ, &remote)) {
		fault(x, DP_WC_REM_ACCESS_ERR, NULL, 0);
		return;
	}
	moved(x, dp_move(x, &x->wqe->mem, &remote, x->wqe->mem.length));
}

/*
 * A UD message: it reaches a UD QP in RTR or later whose Q_Key it carries,
 * lands after the 40-byte GRH area of the next receive WR, and completes
 * there with src_qp.  Whatever goes wrong on the way, the message is dropped
 * and the sender never knows (reference §4.2); only a receive WR whose memory
 * is unusable fails the receiver.
 */
static void do_ud_send(struct dp_xfer *x)
{
	const struct dp_send_wqe *wqe = x->wqe;
	struct dp_qp *qp = x->responder;
	struct dp_seg src[1 + DP_SEGS_MAX];
	struct dp_recv_wqe rwqe;
	bool got = false;

	if (qp && qp->type == DP_QPT_UD && accepts_requests(qp) && qp->qkey == wqe->slot.ud_qkey)
		got = dp_read_recv(qp, &rwqe);
	if (got && rwqe.mem.status != DP_WC_SUCCESS) {
		dp_enter_error(x->w, qp);
		dp_complete_recv(x->w, qp, rwqe.wr_id, rwqe.mem.status, DP_WC_RECV, 0, NULL, 0);
		got = false;
	}
	/* An MKEY carries no UD message (refused when posted). */
	if (!got || rwqe.mem.mkey.mkey || wqe->mem.mkey.mkey || DP_GRH_LEN + wqe->mem.length > rwqe.mem.length) {
		x->resp->lost = true;
		return;
	}
	src[0] = (struct dp_seg){ .addr = (uint8_t *)wqe->slot.grh, .length = DP_GRH_LEN };
	memcpy(src + 1, wqe->mem.segs, wqe->mem.n_segs * sizeof(src[0]));
	dp_copy_segs(rwqe.mem.segs, rwqe.mem.n_segs, src, 1 + wqe->mem.n_segs, DP_GRH_LEN + wqe->mem.length);
	received(x, &rwqe, DP_WC_RECV, (uint32_t)(DP_GRH_LEN + wqe->mem.length));
}

/*
 * RC: after an RNR NAK, the requests that were already on their way are not
 * the one expected; they are dropped until the NAKed one comes again.  A
 * new connection (the requester was taken back and attached again) starts
 * from whatever it sends first.
 */
static bool in_sequence(struct dp_qp *qp, const struct dp_packet *req)
{
	if (!qp->resp_epsn_valid || qp->resp_epoch != req->epoch) {
		qp->resp_epsn_valid = true;
		qp->resp_epoch = req->epoch;
		qp->resp_epsn = req->psn;
	}
	return req->psn == qp->resp_epsn;
}

void dp_resp_execute(struct dp_xfer *x)
{
	if (x->type == DP_QPT_UD) {
		do_ud_send(x);
		return;
	}
	switch (x->wqe->opcode) {
	case DP_WR_SEND:
	case DP_WR_SEND_WITH_IMM:
	case DP_WR_SEND_WITH_INV:
		do_send(x);
		break;
	case DP_WR_RDMA_WRITE:
	case DP_WR_RDMA_WRITE_WITH_IMM:
		do_write(x);
		break;
	case DP_WR_RDMA_READ:
		do_read(x);
		break;
	}
}

/*
 * RC and UC: a responder is one end of one connection.  A request of its
 * NIC is its peer's when it comes from the QP of the responder's dest QPN,
 * of the same type, and the responder's path does not lead to another
 * host; the requester's attachment (epoch) then tells a new connection of
 * that QP apart (in_sequence).  Keys resolve against the responder's PD
 * only after this (decisions.md, "The responder checks who asks").
 */
static bool from_peer(const struct dp_qp *qp, const struct dp_qp *requester)
{
	return requester->nic == qp->nic && requester->qpn == qp->dest_qpn && requester->type == qp->type &&
	       !qp->transport;
}

/*
 * A request not from the peer: never executed and the responder's state
 * untouched (its sequence, its receive queue, its state: a stranger cannot
 * take it to ERR).  RC: NAK invalid request, so the requester's WQE fails
 * with REM_INV_REQ_ERR; UC: the message is dropped.
 */
static void refuse_stranger(struct dp_worker *w, struct dp_qp *qp, const struct dp_qp *requester,
			    struct dp_packet *resp)
{
	DP_COUNT(w, qp, refused_not_peer, 1);
	if (requester->type == DP_QPT_RC)
		resp->status = DP_WC_REM_INV_REQ_ERR;
	else
		resp->lost = true;
}

void dp_resp_request(struct dp_worker *w, struct dp_nic *nic, const struct dp_packet *req,
		     struct dp_packet *resp)
{
	const struct dp_qp *requester = req->requester;
	struct dp_xfer x = {
		.w = w, .nic = nic, .type = requester->type, .requester_qpn = requester->qpn,
		.requester = requester, .resp = resp,
		.wqe = &requester->wqes[req->index & requester->sq.mask],
		.responder = dp_nic_worker_qp(nic, w, req->qpn),
	};

	*resp = (struct dp_packet){
		.kind = DP_PKT_RESPONSE, .status = DP_WC_SUCCESS, .qpn = requester->qpn, .psn = req->psn,
		.index = req->index, .epoch = req->epoch, .requester = req->requester,
	};

	if (requester->type != DP_QPT_UD && !accepts_requests(x.responder)) {
		/* Nobody answers: RC retries until retry_cnt runs out; UC's message is lost. */
		if (requester->type == DP_QPT_RC)
			resp->status = DP_WC_RETRY_EXC_ERR;
		else
			resp->lost = true;
	} else if (requester->type != DP_QPT_UD && !from_peer(x.responder, requester)) {
		refuse_stranger(w, x.responder, requester, resp);
	} else if (requester->type == DP_QPT_RC && !in_sequence(x.responder, req)) {
		resp->dropped = true;
	} else {
		dp_resp_execute(&x);
		if (requester->type != DP_QPT_UD && !resp->rnr)
			x.responder->resp_epsn = dp_psn_add(req->psn, req->npsn);
	}
}
