/* SPDX-License-Identifier: MIT */
/*
 * Transfers between QPs of the device, on the worker that owns both ends:
 * the requester's send queue is executed WQE by WQE, the responder's part
 * (receive WQE, remote key, access) done in the same step, and the
 * completions of both sides written.  Who sees what follows reference
 * roce_virtio.md §4.1-4.2 (RC); UC loses a message the responder cannot take.
 */
#include "daemon/soft/datapath_int.h"
#include "daemon/verbs/mkey.h"
#include "daemon/verbs/mr.h"
#include "daemon/soft/workers.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* WRs one QP executes per turn of its worker, so that one busy QP does not starve the others. */
#define SQ_BUDGET 64
/* SGEs of a UD send (the device's max_send_sge), after the GRH area. */
#define DP_UD_SEGS_MAX 32
/* rnr_retry 7: retry for ever. */
#define RNR_RETRY_INFINITE 7

/* The RNR NAK timer code (5 bits) in microseconds (reference §3.4). */
static const uint32_t rnr_timer_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920,
	2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960, 61440, 81920, 122880,
	163840, 245760, 327680, 491520,
};

static const uint8_t wc_opcode_of[DP_WR_OPCODE_COUNT] = {
	[DP_WR_RDMA_WRITE] = DP_WC_RDMA_WRITE,
	[DP_WR_RDMA_WRITE_WITH_IMM] = DP_WC_RDMA_WRITE,
	[DP_WR_SEND] = DP_WC_SEND,
	[DP_WR_SEND_WITH_IMM] = DP_WC_SEND,
	[DP_WR_RDMA_READ] = DP_WC_RDMA_READ,
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Adds to a counter only this worker writes (the QP's, while it owns the QP;
 * its own share of the device's): a plain add, no locked instruction.  The
 * atomic type keeps readers on other threads from seeing a torn value.
 */
static inline void count_add(_Atomic uint64_t *c, uint64_t n)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n, memory_order_relaxed);
}

/* The QP's counter and its device's (the worker's share of it). */
#define COUNT(w, q, field, n) do { \
	count_add(&(q)->counters.field, (n)); \
	count_add(&(q)->dp->per_worker[(w)->index].counters.field, (n)); \
} while (0)

/*
 * Tells the main thread of a state the QP went to on its own; false when the
 * event ring is full (the poller tries again on its next turn).
 */
static bool tell(struct dp_worker *w, struct rdma_dp_qp *q, uint32_t type, uint64_t value)
{
	struct dp_event ev = {
		.type = type, .object = q->qpn, .value = (int64_t)value,
		.cookie = (uint64_t)(uintptr_t)q->dp, .ptr = q,
	};

	return dp_worker_emit(w, &ev);
}

static void tell_error(struct dp_worker *w, struct rdma_dp_qp *q)
{
	q->error_pending = !tell(w, q, WORKER_EVENT_QP_ERROR, 0);
}

static void tell_stopped(struct dp_worker *w, struct rdma_dp_qp *q)
{
	q->stop_pending = !tell(w, q, WORKER_EVENT_QP_STOPPED, q->stopped_at_ns);
}

/*
 * sig_pipelining: the send queue stops in SQD right after the WQE whose
 * transfer failed a signature check (reference §5: anywhere before the next
 * fenced WQE is allowed; the tests expect here).  As for ERR, the main thread
 * is told before the WQE's completion is written.
 */
static void stop_in_sqd(struct dp_worker *w, struct rdma_dp_qp *q, uint64_t found_at_ns)
{
	q->state = RDMA_QPS_SQD;
	q->stopped_at_ns = found_at_ns;
	atomic_fetch_add_explicit(&q->stops, 1, memory_order_relaxed);
	COUNT(w, q, sig_stops, 1);
	tell_stopped(w, q);
}

void rdma_dp_report_push(struct dp_worker *w, struct rdma_dp_qp *q, struct rdma_dp_report *r)
{
	struct rdma_dp_worker_ctx *wc = &q->dp->per_worker[w->index];
	struct dp_event ev = { .type = WORKER_EVENT_REPORTS, .cookie = (uint64_t)(uintptr_t)q->dp };

	r->next = atomic_load_explicit(&wc->reports, memory_order_relaxed);
	while (!atomic_compare_exchange_weak_explicit(&wc->reports, &r->next, r, memory_order_release,
						      memory_order_relaxed))
		;
	/* A full event ring is no loss: the main thread takes the list with every event it handles. */
	dp_worker_emit(w, &ev);
}

/*
 * A fatal error: the QP goes to ERR.  The main thread is told before the
 * completion that reports the error is written, so that whoever sees the
 * completion and then asks finds the QP in ERR.  Its queues are flushed by
 * its poller.
 */
static void enter_error(struct dp_worker *w, struct rdma_dp_qp *q)
{
	if (q->state == RDMA_QPS_ERR)
		return;
	q->state = RDMA_QPS_ERR;
	q->rnr_active = false;
	tell_error(w, q);
}

/* Writes e into cq; a full CQ is a fatal error of the QP that completes (IBA class G). */
static void complete(struct dp_worker *w, struct rdma_dp_qp *q, struct rdma_cq_ring *cq,
		     const struct dp_cqe *e, bool solicited)
{
	struct dp_wq *lane = &cq->lanes[w->index];
	uint32_t index;
	struct dp_cqe *slot;

	if (atomic_fetch_add_explicit(&cq->used, 1, memory_order_acq_rel) >= cq->capacity) {
		atomic_fetch_sub_explicit(&cq->used, 1, memory_order_relaxed);
		COUNT(w, q, cq_overflows, 1);
		enter_error(w, q);
		return;
	}
	/* The lane holds the CQ's capacity, and used bounds all lanes together. */
	slot = dp_wq_next(lane, &index);
	*slot = *e;
	dp_wq_publish(lane);
	COUNT(w, q, completions[e->status], 1);
	if (atomic_load_explicit(&cq->wanted, memory_order_acquire) ||
	    atomic_load_explicit(&cq->armed, memory_order_acquire)) {
		struct dp_event ev = {
			.type = WORKER_EVENT_CQ_ENTRY, .object = cq->cqn, .ptr = cq,
			.value = solicited, .cookie = (uint64_t)(uintptr_t)q->dp,
		};

		dp_worker_emit(w, &ev);
	}
}

/* A receive completion; from is the sending QP of a UD message (NULL otherwise). */
static void complete_recv_from(struct dp_worker *w, struct rdma_dp_qp *q, uint64_t wr_id,
			       uint8_t status, uint8_t opcode, uint32_t byte_len,
			       const struct dp_sq_req *req, const struct rdma_dp_qp *from)
{
	struct dp_cqe e = { .wr_id = wr_id, .status = status, .opcode = opcode, .qp_num = q->qpn };

	if (status == DP_WC_SUCCESS && from) {
		e.src_qp = from->qpn;
		e.wc_flags = DP_WC_GRH;
	}
	if (status == DP_WC_SUCCESS) {
		e.byte_len = byte_len;
		if (req && (req->opcode == DP_WR_SEND_WITH_IMM ||
			    req->opcode == DP_WR_RDMA_WRITE_WITH_IMM)) {
			e.imm_data = req->imm_data;
			e.wc_flags |= DP_WC_WITH_IMM;
		}
	}
	/* Solicited: the sender asked for it (the BTH SE bit); flushes are not (as rxe). */
	complete(w, q, q->recv_cq, &e, req && (req->send_flags & DP_SEND_SOLICITED));
}

/*
 * Gives the receive WQE at the head of q back to its queue, before its
 * completion is written: whoever sees the completion may post into its slot.
 */
static uint64_t retire_recv(struct rdma_dp_qp *q)
{
	uint32_t index;
	uint64_t wr_id = ((const struct dp_rq_req *)dp_wq_head(&q->rq, &index))->wr_id;

	dp_wq_consume(&q->rq);
	return wr_id;
}

static void complete_recv(struct dp_worker *w, struct rdma_dp_qp *q, uint64_t wr_id, uint8_t status,
			  uint8_t opcode, uint32_t byte_len, const struct dp_sq_req *req)
{
	complete_recv_from(w, q, wr_id, status, opcode, byte_len, req, NULL);
}

/* Copies length bytes from one list of segments to another (each long enough). */
static void copy_segs(const struct rdma_dp_seg *dst, uint32_t n_dst, const struct rdma_dp_seg *src,
		      uint32_t n_src, uint64_t length)
{
	uint32_t di = 0, si = 0;
	uint64_t doff = 0, soff = 0;

	while (length && di < n_dst && si < n_src) {
		uint64_t n = length;

		if (n > dst[di].length - doff)
			n = dst[di].length - doff;
		if (n > src[si].length - soff)
			n = src[si].length - soff;
		if (n) {
			memcpy(dst[di].addr + doff, src[si].addr + soff, n);
			length -= n;
		}
		doff += n;
		soff += n;
		if (doff == dst[di].length) {
			di++;
			doff = 0;
		}
		if (soff == src[si].length) {
			si++;
			soff = 0;
		}
	}
}

/* How a WR ended on the requester's side; WAIT: it stays at the head (RNR). */
enum outcome { DONE, WAIT };

struct exec {
	struct dp_worker *w;
	struct rdma_dp_qp *q, *peer;
	const struct dp_sq_req *req;
	struct rdma_dp_wqe_ctx *ctx;
	uint32_t index;
	uint8_t status;           /* of the requester's completion */
	bool nop;                 /* canceled: executed as a NOP */
	bool sig_failed;          /* a signature check through an MKEY failed (the transfer went on) */
	uint64_t sig_found_ns;
};

/* ---- bytes through MKEYs ---- */

/* Worker-owned staging memory i (0: memory-domain bytes, 1: wire bytes), at least n bytes. */
static uint8_t *scratch(struct exec *x, unsigned i, size_t n)
{
	struct rdma_dp_worker_ctx *wc = &x->q->dp->per_worker[x->w->index];

	if (wc->scratch_size[i] < n) {
		uint8_t *p = realloc(wc->scratch[i], n);

		if (!p)
			return NULL;
		wc->scratch[i] = p;
		wc->scratch_size[i] = n;
	}
	return wc->scratch[i];
}

/*
 * A signature error never fails the transfer (reference §2.1, §3.4): it is
 * counted, reported for the MKEY's record, and stops a sig_pipelining QP
 * after this WQE.
 */
static void sig_error(struct exec *x, const struct rdma_mkey *mkey, enum dp_dir dir,
		      const struct dp_sig_err *e)
{
	struct rdma_dp_report *r;

	COUNT(x->w, x->q, sig_errors[e->type], 1);
	if (!x->sig_failed)
		x->sig_found_ns = now_ns();
	x->sig_failed = true;
	r = calloc(1, sizeof(*r));
	if (!r)
		return;   /* counted; the MKEY's record misses it, as a lost SIG_ERR CQE would */
	*r = (struct rdma_dp_report){
		.q = x->q, .qpn = x->q->qpn, .wr_id = x->req->wr_id, .mkey = mkey->obj.handle,
		.dir = dir, .err = *e, .at_ns = x->sig_found_ns,
	};
	rdma_dp_report_push(x->w, x->q, r);
}

/* TX: the span's memory-domain bytes become len wire bytes in wire. */
static int mkey_tx(struct exec *x, const struct rdma_dp_mkey_span *span, uint8_t *wire, uint64_t len)
{
	struct rdma_mkey *mkey = span->mkey;
	uint8_t *mem = rdma_mkey_span_addr(mkey, span);
	struct dp_sig_err e;

	if (!mem) {
		mem = scratch(x, 0, span->mem_length);
		if (!mem)
			return -ENOMEM;
		rdma_mkey_gather(mkey, span, mem);
	}
	if (rdma_mkey_run(mkey, x->w->index, DP_TX, mem, span->mem_length, wire, len, &e) < 0)
		return -EINVAL;
	if (e.type != DP_SIG_ERR_NONE)
		sig_error(x, mkey, DP_TX, &e);
	return 0;
}

/* RX: len wire bytes become the span's memory-domain bytes. */
static int mkey_rx(struct exec *x, const struct rdma_dp_mkey_span *span, const uint8_t *wire,
		   uint64_t len)
{
	struct rdma_mkey *mkey = span->mkey;
	uint8_t *direct = rdma_mkey_span_addr(mkey, span);
	uint8_t *mem = direct ? direct : scratch(x, 0, span->mem_length);
	struct dp_sig_err e;

	if (!mem)
		return -ENOMEM;
	if (rdma_mkey_run(mkey, x->w->index, DP_RX, wire, len, mem, span->mem_length, &e) < 0)
		return -EINVAL;
	if (!direct)
		rdma_mkey_scatter(mkey, span, mem);
	if (e.type != DP_SIG_ERR_NONE)
		sig_error(x, mkey, DP_RX, &e);
	return 0;
}

/* One side of a transfer: plain segments, or memory through an MKEY (span set). */
struct end {
	const struct rdma_dp_seg *segs;
	uint32_t n_segs;
	const struct rdma_dp_mkey_span *span;
};

static struct end local_end(const struct rdma_dp_wqe_ctx *ctx)
{
	return (struct end){ ctx->segs, ctx->n_segs, ctx->local_mkey.mkey ? &ctx->local_mkey : NULL };
}

/*
 * Moves len wire bytes from src to dst, each MKEY on the way running its
 * transform: TX on the side that reads memory, RX on the side that writes
 * it.  Bytes in one piece are transformed in place, not staged.
 */
static int move(struct exec *x, const struct end *dst, const struct end *src, uint64_t len)
{
	struct rdma_dp_seg staged;
	uint8_t *wire;

	if (!src->span && !dst->span) {
		copy_segs(dst->segs, dst->n_segs, src->segs, src->n_segs, len);
		return 0;
	}
	if (!len)
		return 0;
	if (src->span) {
		bool direct = !dst->span && dst->n_segs == 1 && dst->segs[0].length >= len;

		wire = direct ? dst->segs[0].addr : scratch(x, 1, len);
		if (!wire || mkey_tx(x, src->span, wire, len) < 0)
			return -ENOMEM;
		if (direct)
			return 0;
	} else if (src->n_segs == 1) {
		wire = src->segs[0].addr;
	} else {
		wire = scratch(x, 1, len);
		if (!wire)
			return -ENOMEM;
		staged = (struct rdma_dp_seg){ wire, (uint32_t)len };
		copy_segs(&staged, 1, src->segs, src->n_segs, len);
	}
	if (!dst->span) {
		staged = (struct rdma_dp_seg){ wire, (uint32_t)len };
		copy_segs(dst->segs, dst->n_segs, &staged, 1, len);
		return 0;
	}
	return mkey_rx(x, dst->span, wire, len);
}

/* A move that could not stage its bytes fails the WR (the QP goes to ERR). */
static enum outcome moved(struct exec *x, int r)
{
	if (r < 0)
		x->status = DP_WC_GENERAL_ERR;
	return DONE;
}

/*
 * The responder could not take the request: on RC both ends fail (the peer's
 * receive WQE, if it took one, completes with peer_status); UC drops the
 * message and the requester never knows.
 */
static void responder_fault(struct exec *x, uint8_t requester_status, bool took_recv, uint8_t peer_status)
{
	struct rdma_dp_qp *peer = x->peer;

	if (x->q->type == RDMA_QPT_UC) {
		COUNT(x->w, x->q, lost, 1);
		return;
	}
	x->status = requester_status;
	enter_error(x->w, peer);
	if (took_recv)
		complete_recv(x->w, peer, retire_recv(peer), peer_status, DP_WC_RECV, 0, NULL);
}

/* No receive WQE: an RNR NAK, retried after the responder's timer until rnr_retry runs out. */
static enum outcome receiver_not_ready(struct exec *x)
{
	struct rdma_dp_qp *q = x->q;

	if (q->type == RDMA_QPT_UC) {
		COUNT(x->w, q, lost, 1);
		return DONE;
	}
	COUNT(x->w, q, rnr_naks, 1);
	if (!q->rnr_active || q->rnr_index != x->index) {
		q->rnr_active = true;
		q->rnr_index = x->index;
		q->rnr_left = q->rnr_retry;
	}
	if (q->rnr_retry != RNR_RETRY_INFINITE) {
		if (!q->rnr_left) {
			x->status = DP_WC_RNR_RETRY_EXC_ERR;
			return DONE;
		}
		q->rnr_left--;
	}
	q->rnr_until_ns = now_ns() + (uint64_t)rnr_timer_us[x->peer->min_rnr_timer & 31] * 1000u;
	return WAIT;
}

static struct rdma_dp_seg remote_seg(const struct exec *x)
{
	return (struct rdma_dp_seg){ .addr = x->ctx->remote, .length = (uint32_t)x->ctx->length };
}

/* The rkey was resolved at posting against the peer's PD; a zero-length transfer needs none. */
static bool remote_ok(const struct exec *x)
{
	return x->ctx->length == 0 || (x->ctx->peer_known && x->ctx->remote_status == DP_WC_SUCCESS);
}

static struct end remote_end(const struct exec *x, struct rdma_dp_seg *seg)
{
	*seg = remote_seg(x);
	return (struct end){ seg, 1, x->ctx->remote_mkey.mkey ? &x->ctx->remote_mkey : NULL };
}

static enum outcome do_send(struct exec *x)
{
	struct rdma_dp_qp *peer = x->peer;
	uint32_t ridx;
	const struct dp_rq_req *rwqe = dp_wq_head(&peer->rq, &ridx);
	struct rdma_dp_mkey_span span;
	struct rdma_dp_wqe_ctx *rctx;
	struct end dst, src = local_end(x->ctx);

	if (!rwqe)
		return receiver_not_ready(x);
	rctx = rdma_dp_rq_ctx(peer, ridx);
	if (rctx->status != DP_WC_SUCCESS) {
		responder_fault(x, DP_WC_REM_OP_ERR, true, DP_WC_LOC_QP_OP_ERR);
		return DONE;
	}
	dst = local_end(rctx);
	if (dst.span) {
		/* The receive was sized for its whole SGE; the message may be shorter. */
		span = rctx->local_mkey;
		dst.span = &span;
		if (rdma_mkey_mem_length(span.mkey, x->ctx->length, &span.mem_length) < 0) {
			responder_fault(x, DP_WC_REM_INV_REQ_ERR, true, DP_WC_LOC_LEN_ERR);
			return DONE;
		}
	}
	if (x->ctx->length > rctx->length) {
		responder_fault(x, DP_WC_REM_INV_REQ_ERR, true, DP_WC_LOC_LEN_ERR);
		return DONE;
	}
	if (move(x, &dst, &src, x->ctx->length) < 0)
		return moved(x, -ENOMEM);
	COUNT(x->w, peer, recvs, 1);
	complete_recv(x->w, peer, retire_recv(peer), DP_WC_SUCCESS, DP_WC_RECV, (uint32_t)x->ctx->length,
		      x->req);
	return DONE;
}

static enum outcome do_write(struct exec *x)
{
	struct rdma_dp_qp *peer = x->peer;
	bool imm = x->req->opcode == DP_WR_RDMA_WRITE_WITH_IMM;
	struct rdma_dp_seg seg;
	struct end dst, src = local_end(x->ctx);
	uint32_t ridx;
	const struct dp_rq_req *rwqe = NULL;

	if (!(peer->access_flags & RDMA_ACCESS_REMOTE_WRITE)) {
		responder_fault(x, DP_WC_REM_INV_REQ_ERR, false, 0);
		return DONE;
	}
	if (imm && !(rwqe = dp_wq_head(&peer->rq, &ridx)))
		return receiver_not_ready(x);
	if (!remote_ok(x)) {
		responder_fault(x, DP_WC_REM_ACCESS_ERR, imm, DP_WC_REM_ACCESS_ERR);
		return DONE;
	}
	dst = remote_end(x, &seg);
	if (move(x, &dst, &src, x->ctx->length) < 0)
		return moved(x, -ENOMEM);
	if (imm) {
		/* Its SGEs are not used: the data is in the MR already. */
		COUNT(x->w, peer, recvs, 1);
		complete_recv(x->w, peer, retire_recv(peer), DP_WC_SUCCESS, DP_WC_RECV_RDMA_WITH_IMM,
			      (uint32_t)x->ctx->length, x->req);
	}
	return DONE;
}

static enum outcome do_read(struct exec *x)
{
	struct rdma_dp_qp *peer = x->peer;
	struct rdma_dp_seg seg;
	struct end src, dst = local_end(x->ctx);

	if (!(peer->access_flags & RDMA_ACCESS_REMOTE_READ) || !peer->max_dest_rd_atomic) {
		responder_fault(x, DP_WC_REM_INV_REQ_ERR, false, 0);
		return DONE;
	}
	if (!remote_ok(x)) {
		responder_fault(x, DP_WC_REM_ACCESS_ERR, false, 0);
		return DONE;
	}
	src = remote_end(x, &seg);
	return moved(x, move(x, &dst, &src, x->ctx->length));
}

static bool accepts_requests(const struct rdma_dp_qp *peer)
{
	return peer && (peer->state == RDMA_QPS_RTR || peer->state == RDMA_QPS_RTS ||
			peer->state == RDMA_QPS_SQD);
}

/*
 * A UD message: it reaches a UD QP of the device in RTR or later whose Q_Key
 * it carries, lands after the 40-byte GRH area of the next receive WR, and
 * completes there with src_qp.  Whatever goes wrong on the way, the message
 * is dropped and the sender never knows (reference §4.2); only a receive WR
 * whose memory is unusable fails the receiver.
 */
static enum outcome do_ud_send(struct exec *x)
{
	struct rdma_dp_qp *q = x->q, *peer = NULL;
	struct rdma_dp_seg src[1 + DP_UD_SEGS_MAX];
	const struct dp_rq_req *rwqe = NULL;
	struct rdma_dp_wqe_ctx *rctx = NULL;
	uint32_t ridx;

	if (x->ctx->peer_known)
		peer = rdma_dp_worker_qp(q->dp, x->w, x->req->ud.remote_qpn);
	if (peer && peer->type == RDMA_QPT_UD && accepts_requests(peer) && peer->qkey == x->ctx->ud_qkey)
		rwqe = dp_wq_head(&peer->rq, &ridx);
	if (rwqe)
		rctx = rdma_dp_rq_ctx(peer, ridx);
	if (rctx && rctx->status != DP_WC_SUCCESS) {
		uint8_t status = rctx->status;

		enter_error(x->w, peer);
		complete_recv(x->w, peer, retire_recv(peer), status, DP_WC_RECV, 0, NULL);
		rctx = NULL;
	}
	if (!rctx || DP_GRH_LEN + x->ctx->length > rctx->length || x->ctx->n_segs > DP_UD_SEGS_MAX) {
		COUNT(x->w, q, lost, 1);
		return DONE;
	}
	src[0] = (struct rdma_dp_seg){ .addr = x->ctx->grh, .length = DP_GRH_LEN };
	memcpy(src + 1, x->ctx->segs, x->ctx->n_segs * sizeof(src[0]));
	copy_segs(rctx->segs, rctx->n_segs, src, 1 + x->ctx->n_segs, DP_GRH_LEN + x->ctx->length);
	COUNT(x->w, peer, recvs, 1);
	complete_recv_from(x->w, peer, retire_recv(peer), DP_WC_SUCCESS, DP_WC_RECV,
			   (uint32_t)(DP_GRH_LEN + x->ctx->length), x->req, q);
	return DONE;
}

static enum outcome execute(struct exec *x)
{
	struct rdma_dp_qp *q = x->q;

	if (x->ctx->canceled) {
		x->nop = true;
		return DONE;
	}
	if (x->ctx->status != DP_WC_SUCCESS) {
		x->status = x->ctx->status;
		return DONE;
	}
	if (q->type == RDMA_QPT_UD)
		return do_ud_send(x);
	x->peer = rdma_dp_worker_qp(q->dp, x->w, q->dest_qpn);
	if (!accepts_requests(x->peer)) {
		/*
		 * Nobody answers (no such QP, not ready, or on another worker):
		 * RC retries until retry_cnt runs out; UC's message is lost.
		 */
		if (q->type == RDMA_QPT_RC)
			x->status = DP_WC_RETRY_EXC_ERR;
		else
			COUNT(x->w, q, lost, 1);
		return DONE;
	}
	switch (x->req->opcode) {
	case DP_WR_SEND:
	case DP_WR_SEND_WITH_IMM:
		return do_send(x);
	case DP_WR_RDMA_WRITE:
	case DP_WR_RDMA_WRITE_WITH_IMM:
		return do_write(x);
	case DP_WR_RDMA_READ:
		return do_read(x);
	}
	x->status = DP_WC_LOC_QP_OP_ERR;
	return DONE;
}

static void retire_send(struct exec *x)
{
	struct rdma_dp_qp *q = x->q;
	const struct dp_sq_req *req = x->req;
	bool ok = x->status == DP_WC_SUCCESS, signaled;
	struct dp_cqe e;

	if (x->nop)
		COUNT(x->w, q, nops, 1);
	else
		COUNT(x->w, q, wrs[req->opcode], 1);
	if (ok && !x->nop && req->opcode == DP_WR_RDMA_READ)
		COUNT(x->w, q, bytes_read, x->ctx->length);
	else if (ok && !x->nop)
		COUNT(x->w, q, bytes_sent, x->ctx->length);
	if (!ok)
		enter_error(x->w, q);
	else if (x->sig_failed && q->sig_pipelining)
		stop_in_sqd(x->w, q, x->sig_found_ns);
	/* Errors complete even unsignaled WRs; a NOP completes as the WR it was (reference §5). */
	signaled = !ok || q->sq_sig_all || (req->send_flags & DP_SEND_SIGNALED);
	e = (struct dp_cqe){
		.wr_id = req->wr_id, .status = x->status, .opcode = wc_opcode_of[req->opcode],
		.byte_len = ok && !x->nop ? (uint32_t)x->ctx->length : 0, .qp_num = q->qpn,
	};
	q->rnr_active = false;
	/* The slot first: whoever sees the completion may post into it. */
	dp_wq_consume(&q->sq);
	if (signaled)
		complete(x->w, q, q->send_cq, &e, false);
}

static unsigned run_send_queue(struct dp_worker *w, struct rdma_dp_qp *q)
{
	unsigned done = 0;

	while (done < SQ_BUDGET && q->state == RDMA_QPS_RTS) {
		struct exec x = { .w = w, .q = q, .status = DP_WC_SUCCESS };

		x.req = dp_wq_head(&q->sq, &x.index);
		if (!x.req)
			break;
		if (q->rnr_active && q->rnr_index == x.index && now_ns() < q->rnr_until_ns)
			break;
		x.ctx = rdma_dp_sq_ctx(q, x.index);
		if (execute(&x) == WAIT)
			break;
		retire_send(&x);
		done++;
	}
	return done;
}

/* In ERR every WR, posted before or after, completes in order with WR_FLUSH_ERR. */
static unsigned flush(struct dp_worker *w, struct rdma_dp_qp *q)
{
	unsigned done = 0;
	uint32_t index;
	const struct dp_sq_req *req;

	while ((req = dp_wq_head(&q->sq, &index))) {
		struct dp_cqe e = {
			.wr_id = req->wr_id, .status = DP_WC_WR_FLUSH_ERR,
			.opcode = req->opcode < DP_WR_OPCODE_COUNT ? wc_opcode_of[req->opcode] : 0,
			.qp_num = q->qpn,
		};

		dp_wq_consume(&q->sq);
		complete(w, q, q->send_cq, &e, false);
		done++;
	}
	while (dp_wq_head(&q->rq, &index)) {
		complete_recv(w, q, retire_recv(q), DP_WC_WR_FLUSH_ERR, DP_WC_RECV, 0, NULL);
		done++;
	}
	return done;
}

unsigned rdma_dp_qp_poll(struct dp_worker *w, void *arg)
{
	struct rdma_dp_qp *q = arg;

	if (q->error_pending)
		tell_error(w, q);
	if (q->stop_pending)
		tell_stopped(w, q);
	switch (q->state) {
	case RDMA_QPS_RTS:
		return run_send_queue(w, q);
	case RDMA_QPS_ERR:
		return flush(w, q);
	default:
		return 0;
	}
}
