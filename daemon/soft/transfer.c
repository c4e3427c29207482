/* SPDX-License-Identifier: MIT */
/*
 * Transfers between QPs of the device, on the worker that owns both ends:
 * the requester's send queue is executed WQE by WQE, the responder's part
 * (receive WQE, remote key, access) done in the same step, and the
 * completions of both sides written.  Each entry is copied out of its queue
 * and checked before use, and its keys resolved in the key table against
 * the PD of the QP whose side reads them.  Who sees what follows reference
 * roce_virtio.md §4.1-4.2 (RC); UC loses a message the responder cannot take.
 */
#include "daemon/soft/datapath_int.h"
#include "daemon/soft/workers.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* WRs one QP executes per turn of its worker, so that one busy QP does not starve the others. */
#define SQ_BUDGET 64
/* SGEs of one WQE at most (the device's max_send_sge and max_recv_sge). */
#define DP_SEGS_MAX 32
/* Bytes one transfer through an MKEY carries at most (as io.rdmad.Mkey's tx and rx). */
#define MKEY_TRANSFER_MAX (32u << 20)
/* rnr_retry 7: retry for ever. */
#define RNR_RETRY_INFINITE 7

/* Bytes in memory the worker may touch. */
struct rdma_dp_seg {
	uint8_t *addr;
	uint32_t length;
};

/* Memory a WQE names, resolved: plain segments, or one MKEY span (mkey set). */
struct wqe_mem {
	uint8_t status;           /* DP_WC_SUCCESS, or the error its entry or keys cause */
	uint64_t length;          /* bytes of the SGEs or of the inline data */
	uint32_t n_segs;
	struct rdma_dp_seg segs[DP_SEGS_MAX];
	struct dp_mkey_span mkey;
	uint32_t mkey_key;        /* the MKEY's key, for its signature-error reports */
};

/* A send WQE as the worker copied it out of its queue. */
struct send_wqe {
	uint64_t wr_id;
	uint8_t opcode;
	uint8_t send_flags;
	uint32_t imm_data;
	uint64_t remote_addr;
	uint32_t rkey;
	uint32_t remote_qpn;
	struct rdma_dp_slot slot;
	struct wqe_mem mem;
	uint8_t inline_data[DP_INLINE_MAX];
};

/* A receive WQE likewise. */
struct recv_wqe {
	uint64_t wr_id;
	struct wqe_mem mem;
};

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
	struct dp_queue *lane = &cq->lanes[w->index];

	if (atomic_fetch_add_explicit(&cq->used, 1, memory_order_acq_rel) >= cq->capacity) {
		atomic_fetch_sub_explicit(&cq->used, 1, memory_order_relaxed);
		COUNT(w, q, cq_overflows, 1);
		enter_error(w, q);
		return;
	}
	/* The lane holds the CQ's capacity, and used bounds all lanes together. */
	dp_queue_push(lane, e);
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
			       const struct send_wqe *req, const struct rdma_dp_qp *from)
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
static uint64_t retire_recv(struct rdma_dp_qp *q, uint64_t wr_id)
{
	dp_queue_consume(&q->rq, 1);
	return wr_id;
}

/* The wr_id of the receive WQE at the head of q (one is there). */
static uint64_t head_recv_id(struct rdma_dp_qp *q)
{
	uint64_t wr_id;

	memcpy(&wr_id, dp_queue_slot(&q->rq, dp_queue_cons(&q->rq)), sizeof(wr_id));
	return wr_id;
}

static void complete_recv(struct dp_worker *w, struct rdma_dp_qp *q, uint64_t wr_id, uint8_t status,
			  uint8_t opcode, uint32_t byte_len, const struct send_wqe *req)
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
	struct send_wqe *wqe;
	uint32_t index;
	uint8_t status;           /* of the requester's completion */
	bool nop;                 /* canceled: executed as a NOP */
	bool sig_failed;          /* a signature check through an MKEY failed (the transfer went on) */
	uint64_t sig_found_ns;
};

/* ---- entries out of the queues, keys resolved ---- */

/*
 * The SGEs of an entry (already bounded by the QP's max) resolved against
 * pd: an MKEY is only ever the one SGE of its list, so that its transform
 * sees all bytes; a key of nothing, another PD, access missing or a range
 * outside it leaves fault as the status.
 */
static void resolve_sges(const struct dp_keytab *kt, uint32_t pd, uint32_t access, uint8_t fault,
			 const struct dp_sge *sges, uint32_t n, struct wqe_mem *m)
{
	const struct dp_key *k;

	m->status = DP_WC_SUCCESS;
	m->n_segs = n;
	m->length = 0;
	m->mkey.mkey = NULL;
	for (uint32_t i = 0; i < n; i++) {
		m->segs[i] = (struct rdma_dp_seg){ .addr = NULL, .length = sges[i].length };
		m->length += sges[i].length;
	}
	if (m->length > UINT32_MAX) {
		m->status = DP_WC_LOC_LEN_ERR;
		return;
	}
	if (n == 1 && sges[0].length && (k = dp_keytab_get(kt, sges[0].lkey)) && k->kind == DP_KEY_MKEY) {
		m->mkey_key = sges[0].lkey;
		if (dp_mkey_span(k->mkey, pd, access, sges[0].addr, sges[0].length, MKEY_TRANSFER_MAX,
				 &m->mkey) < 0) {
			m->mkey.mkey = NULL;
			m->status = fault;
		}
		return;
	}
	for (uint32_t i = 0; i < n; i++)
		/* A zero-length SGE touches no memory: its key is not checked. */
		if (sges[i].length &&
		    !(m->segs[i].addr = dp_keytab_resolve(kt, sges[i].lkey, false, pd, access,
							  sges[i].addr, sges[i].length)))
			m->status = fault;
}

/* Copies the send WQE at index out of q's queue, checks it and resolves its local keys. */
static void read_send(struct rdma_dp_qp *q, uint32_t index, struct send_wqe *out)
{
	const struct dp_sq_req *req = dp_queue_slot(&q->sq, index);
	struct dp_sge sges[DP_SEGS_MAX];
	uint32_t n;

	out->wr_id = req->wr_id;
	out->opcode = req->opcode;
	out->send_flags = req->send_flags;
	out->imm_data = req->imm_data;
	out->remote_addr = req->rdma.remote_addr;
	out->rkey = req->rdma.rkey;
	out->remote_qpn = req->ud.remote_qpn;
	out->slot = *rdma_dp_sq_slot(q, index);
	out->mem.mkey.mkey = NULL;
	if (out->opcode >= DP_WR_OPCODE_COUNT) {
		out->mem = (struct wqe_mem){ .status = DP_WC_LOC_QP_OP_ERR };
		return;
	}
	if (out->send_flags & DP_SEND_INLINE) {
		n = req->inline_len;
		if (n > q->max_inline || n > DP_INLINE_MAX) {
			out->mem = (struct wqe_mem){ .status = DP_WC_LOC_LEN_ERR };
			return;
		}
		memcpy(out->inline_data, req->inline_data, n);
		out->mem = (struct wqe_mem){ .status = DP_WC_SUCCESS, .length = n, .n_segs = 1 };
		out->mem.segs[0] = (struct rdma_dp_seg){ .addr = out->inline_data, .length = n };
		return;
	}
	n = req->num_sge;
	if (n > q->max_send_sge || n > DP_SEGS_MAX) {
		out->mem = (struct wqe_mem){ .status = DP_WC_LOC_QP_OP_ERR };
		return;
	}
	memcpy(sges, req->sg_list, n * sizeof(sges[0]));
	/* An RDMA READ writes into its SGEs: they need local write (else LOC_PROT_ERR). */
	resolve_sges(&q->dp->keytab, q->pd, out->opcode == DP_WR_RDMA_READ ? DP_ACCESS_LOCAL_WRITE : 0,
		     DP_WC_LOC_PROT_ERR, sges, n, &out->mem);
}

/*
 * The receive WQE at the head of q copied out and resolved, or false when
 * there is none.  IBA: a receive WQE whose SGEs are unusable fails when a
 * message arrives (the requester sees REM_OP_ERR, the receiver LOC_QP_OP_ERR).
 */
static bool read_recv(struct rdma_dp_qp *q, struct recv_wqe *out)
{
	uint32_t index = dp_queue_cons(&q->rq);
	const struct dp_rq_req *req;
	struct dp_sge sges[DP_SEGS_MAX];
	uint32_t n;

	if (!dp_queue_ready(&q->rq, index))
		return false;
	req = dp_queue_slot(&q->rq, index);
	out->wr_id = req->wr_id;
	n = req->num_sge;
	if (n > q->max_recv_sge || n > DP_SEGS_MAX) {
		out->mem = (struct wqe_mem){ .status = DP_WC_LOC_QP_OP_ERR };
		return true;
	}
	memcpy(sges, req->sg_list, n * sizeof(sges[0]));
	resolve_sges(&q->dp->keytab, q->pd, DP_ACCESS_LOCAL_WRITE, DP_WC_LOC_QP_OP_ERR, sges, n, &out->mem);
	return true;
}

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
static void sig_error(struct exec *x, uint32_t mkey, enum dp_dir dir, const struct dp_sig_err *e)
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
		.q = x->q, .qpn = x->q->qpn, .wr_id = x->wqe->wr_id, .mkey = mkey,
		.dir = dir, .err = *e, .at_ns = x->sig_found_ns,
	};
	rdma_dp_report_push(x->w, x->q, r);
}

/* One side of a transfer: plain segments, or memory through an MKEY (span set), with its key. */
struct end {
	const struct rdma_dp_seg *segs;
	uint32_t n_segs;
	const struct dp_mkey_span *span;
	uint32_t key;
};

/* TX: the span's memory-domain bytes become len wire bytes in wire. */
static int mkey_tx(struct exec *x, const struct end *src, uint8_t *wire, uint64_t len)
{
	const struct dp_mkey_span *span = src->span;
	uint8_t *mem = dp_mkey_span_addr(span);
	struct dp_sig_err e;

	if (!mem) {
		mem = scratch(x, 0, span->mem_length);
		if (!mem)
			return -ENOMEM;
		dp_mkey_gather(span, mem);
	}
	if (dp_mkey_run(span->mkey, x->w->index, DP_TX, mem, span->mem_length, wire, len, &e) < 0)
		return -EINVAL;
	if (e.type != DP_SIG_ERR_NONE)
		sig_error(x, src->key, DP_TX, &e);
	return 0;
}

/* RX: len wire bytes become the span's memory-domain bytes. */
static int mkey_rx(struct exec *x, const struct end *dst, const uint8_t *wire, uint64_t len)
{
	const struct dp_mkey_span *span = dst->span;
	uint8_t *direct = dp_mkey_span_addr(span);
	uint8_t *mem = direct ? direct : scratch(x, 0, span->mem_length);
	struct dp_sig_err e;

	if (!mem)
		return -ENOMEM;
	if (dp_mkey_run(span->mkey, x->w->index, DP_RX, wire, len, mem, span->mem_length, &e) < 0)
		return -EINVAL;
	if (!direct)
		dp_mkey_scatter(span, mem);
	if (e.type != DP_SIG_ERR_NONE)
		sig_error(x, dst->key, DP_RX, &e);
	return 0;
}

static struct end mem_end(const struct wqe_mem *m)
{
	return (struct end){ m->segs, m->n_segs, m->mkey.mkey ? &m->mkey : NULL, m->mkey_key };
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
		if (!wire || mkey_tx(x, src, wire, len) < 0)
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
	return mkey_rx(x, dst, wire, len);
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
static void responder_fault(struct exec *x, uint8_t requester_status, const struct recv_wqe *took,
			    uint8_t peer_status)
{
	struct rdma_dp_qp *peer = x->peer;

	if (x->q->type == RDMA_QPT_UC) {
		COUNT(x->w, x->q, lost, 1);
		return;
	}
	x->status = requester_status;
	enter_error(x->w, peer);
	if (took)
		complete_recv(x->w, peer, retire_recv(peer, took->wr_id), peer_status, DP_WC_RECV, 0, NULL);
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

/*
 * The peer's memory for RDMA WRITE / READ: the rkey resolved against the
 * peer's PD and the access the operation needs; false when it does not
 * resolve.  A zero-length transfer needs none.
 */
static bool resolve_remote(struct exec *x, uint32_t access, struct wqe_mem *m)
{
	const struct dp_keytab *kt = &x->q->dp->keytab;
	const struct send_wqe *wqe = x->wqe;
	const struct dp_key *k = dp_keytab_get(kt, wqe->rkey);
	uint64_t len = wqe->mem.length;

	*m = (struct wqe_mem){ .status = DP_WC_SUCCESS, .length = len, .n_segs = 1 };
	m->segs[0].length = (uint32_t)len;
	if (!len)
		return true;
	m->mkey_key = wqe->rkey;
	if (k && k->kind == DP_KEY_MKEY)
		return dp_mkey_span(k->mkey, x->peer->pd, access, wqe->remote_addr, len, MKEY_TRANSFER_MAX,
				    &m->mkey) == 0;
	m->segs[0].addr = dp_keytab_resolve(kt, wqe->rkey, true, x->peer->pd, access, wqe->remote_addr,
					    len);
	return m->segs[0].addr != NULL;
}

static enum outcome do_send(struct exec *x)
{
	struct rdma_dp_qp *peer = x->peer;
	uint64_t len = x->wqe->mem.length;
	struct recv_wqe rwqe;
	struct end dst, src = mem_end(&x->wqe->mem);

	if (!read_recv(peer, &rwqe))
		return receiver_not_ready(x);
	if (rwqe.mem.status != DP_WC_SUCCESS) {
		responder_fault(x, DP_WC_REM_OP_ERR, &rwqe, DP_WC_LOC_QP_OP_ERR);
		return DONE;
	}
	/* The receive was sized for its whole SGE; the message may be shorter. */
	if (rwqe.mem.mkey.mkey && dp_mkey_mem_length(rwqe.mem.mkey.mkey, len, &rwqe.mem.mkey.mem_length) < 0) {
		responder_fault(x, DP_WC_REM_INV_REQ_ERR, &rwqe, DP_WC_LOC_LEN_ERR);
		return DONE;
	}
	if (len > rwqe.mem.length) {
		responder_fault(x, DP_WC_REM_INV_REQ_ERR, &rwqe, DP_WC_LOC_LEN_ERR);
		return DONE;
	}
	dst = mem_end(&rwqe.mem);
	if (move(x, &dst, &src, len) < 0)
		return moved(x, -ENOMEM);
	COUNT(x->w, peer, recvs, 1);
	complete_recv(x->w, peer, retire_recv(peer, rwqe.wr_id), DP_WC_SUCCESS, DP_WC_RECV, (uint32_t)len,
		      x->wqe);
	return DONE;
}

static enum outcome do_write(struct exec *x)
{
	struct rdma_dp_qp *peer = x->peer;
	bool imm = x->wqe->opcode == DP_WR_RDMA_WRITE_WITH_IMM;
	struct wqe_mem remote;
	struct recv_wqe rwqe;
	struct end dst, src = mem_end(&x->wqe->mem);

	if (!(peer->access_flags & DP_ACCESS_REMOTE_WRITE)) {
		responder_fault(x, DP_WC_REM_INV_REQ_ERR, NULL, 0);
		return DONE;
	}
	if (imm && !read_recv(peer, &rwqe))
		return receiver_not_ready(x);
	if (!resolve_remote(x, DP_ACCESS_REMOTE_WRITE, &remote)) {
		responder_fault(x, DP_WC_REM_ACCESS_ERR, imm ? &rwqe : NULL, DP_WC_REM_ACCESS_ERR);
		return DONE;
	}
	dst = mem_end(&remote);
	if (move(x, &dst, &src, x->wqe->mem.length) < 0)
		return moved(x, -ENOMEM);
	if (imm) {
		/* Its SGEs are not used: the data is in the MR already. */
		COUNT(x->w, peer, recvs, 1);
		complete_recv(x->w, peer, retire_recv(peer, rwqe.wr_id), DP_WC_SUCCESS,
			      DP_WC_RECV_RDMA_WITH_IMM, (uint32_t)x->wqe->mem.length, x->wqe);
	}
	return DONE;
}

static enum outcome do_read(struct exec *x)
{
	struct rdma_dp_qp *peer = x->peer;
	struct wqe_mem remote;
	struct end src, dst = mem_end(&x->wqe->mem);

	if (!(peer->access_flags & DP_ACCESS_REMOTE_READ) || !peer->max_dest_rd_atomic) {
		responder_fault(x, DP_WC_REM_INV_REQ_ERR, NULL, 0);
		return DONE;
	}
	if (!resolve_remote(x, DP_ACCESS_REMOTE_READ, &remote)) {
		responder_fault(x, DP_WC_REM_ACCESS_ERR, NULL, 0);
		return DONE;
	}
	src = mem_end(&remote);
	return moved(x, move(x, &dst, &src, x->wqe->mem.length));
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
	const struct send_wqe *wqe = x->wqe;
	struct rdma_dp_seg src[1 + DP_SEGS_MAX];
	struct recv_wqe rwqe;
	bool got = false;

	if (wqe->slot.ud_local)
		peer = rdma_dp_worker_qp(q->dp, x->w, wqe->remote_qpn);
	if (peer && peer->type == RDMA_QPT_UD && accepts_requests(peer) && peer->qkey == wqe->slot.ud_qkey)
		got = read_recv(peer, &rwqe);
	if (got && rwqe.mem.status != DP_WC_SUCCESS) {
		enter_error(x->w, peer);
		complete_recv(x->w, peer, retire_recv(peer, rwqe.wr_id), rwqe.mem.status, DP_WC_RECV, 0,
			      NULL);
		got = false;
	}
	/* An MKEY carries no UD message (refused when posted). */
	if (!got || rwqe.mem.mkey.mkey || wqe->mem.mkey.mkey ||
	    DP_GRH_LEN + wqe->mem.length > rwqe.mem.length) {
		COUNT(x->w, q, lost, 1);
		return DONE;
	}
	src[0] = (struct rdma_dp_seg){ .addr = (uint8_t *)wqe->slot.grh, .length = DP_GRH_LEN };
	memcpy(src + 1, wqe->mem.segs, wqe->mem.n_segs * sizeof(src[0]));
	copy_segs(rwqe.mem.segs, rwqe.mem.n_segs, src, 1 + wqe->mem.n_segs, DP_GRH_LEN + wqe->mem.length);
	COUNT(x->w, peer, recvs, 1);
	complete_recv_from(x->w, peer, retire_recv(peer, rwqe.wr_id), DP_WC_SUCCESS, DP_WC_RECV,
			   (uint32_t)(DP_GRH_LEN + wqe->mem.length), wqe, q);
	return DONE;
}

static enum outcome execute(struct exec *x)
{
	struct rdma_dp_qp *q = x->q;

	if (x->wqe->slot.canceled) {
		x->nop = true;
		return DONE;
	}
	if (x->wqe->mem.status != DP_WC_SUCCESS) {
		x->status = x->wqe->mem.status;
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
	switch (x->wqe->opcode) {
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

static uint8_t wc_opcode(uint8_t wr_opcode)
{
	return wr_opcode < DP_WR_OPCODE_COUNT ? wc_opcode_of[wr_opcode] : 0;
}

static void retire_send(struct exec *x)
{
	struct rdma_dp_qp *q = x->q;
	const struct send_wqe *wqe = x->wqe;
	bool ok = x->status == DP_WC_SUCCESS, signaled;
	struct dp_cqe e;

	if (x->nop)
		COUNT(x->w, q, nops, 1);
	else if (wqe->opcode < DP_WR_OPCODE_COUNT)
		COUNT(x->w, q, wrs[wqe->opcode], 1);
	if (ok && !x->nop && wqe->opcode == DP_WR_RDMA_READ)
		COUNT(x->w, q, bytes_read, wqe->mem.length);
	else if (ok && !x->nop)
		COUNT(x->w, q, bytes_sent, wqe->mem.length);
	if (!ok)
		enter_error(x->w, q);
	else if (x->sig_failed && q->sig_pipelining)
		stop_in_sqd(x->w, q, x->sig_found_ns);
	/* Errors complete even unsignaled WRs; a NOP completes as the WR it was (reference §5). */
	signaled = !ok || q->sq_sig_all || (wqe->send_flags & DP_SEND_SIGNALED);
	e = (struct dp_cqe){
		.wr_id = wqe->wr_id, .status = x->status, .opcode = wc_opcode(wqe->opcode),
		.byte_len = ok && !x->nop ? (uint32_t)wqe->mem.length : 0, .qp_num = q->qpn,
	};
	q->rnr_active = false;
	/* The slot first: whoever sees the completion may post into it. */
	dp_queue_consume(&q->sq, 1);
	if (signaled)
		complete(x->w, q, q->send_cq, &e, false);
}

static unsigned run_send_queue(struct dp_worker *w, struct rdma_dp_qp *q)
{
	struct send_wqe wqe;
	unsigned done = 0;

	while (done < SQ_BUDGET && q->state == RDMA_QPS_RTS) {
		struct exec x = { .w = w, .q = q, .status = DP_WC_SUCCESS, .wqe = &wqe };

		x.index = dp_queue_cons(&q->sq);
		if (!dp_queue_ready(&q->sq, x.index))
			break;
		if (q->rnr_active && q->rnr_index == x.index && now_ns() < q->rnr_until_ns)
			break;
		read_send(q, x.index, &wqe);
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

	while (dp_queue_count(&q->sq)) {
		const struct dp_sq_req *req = dp_queue_slot(&q->sq, dp_queue_cons(&q->sq));
		struct dp_cqe e = {
			.wr_id = req->wr_id, .status = DP_WC_WR_FLUSH_ERR, .opcode = wc_opcode(req->opcode),
			.qp_num = q->qpn,
		};

		dp_queue_consume(&q->sq, 1);
		complete(w, q, q->send_cq, &e, false);
		done++;
	}
	while (dp_queue_count(&q->rq)) {
		complete_recv(w, q, retire_recv(q, head_recv_id(q)), DP_WC_WR_FLUSH_ERR, DP_WC_RECV, 0, NULL);
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
