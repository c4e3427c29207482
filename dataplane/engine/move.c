/* SPDX-License-Identifier: MIT */
/* Moving the bytes of a transfer, through the MKEYs on its way (reference mlx5_sig_crypto.md §2). */
#include "dataplane/engine/engine.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void dp_copy_segs(const struct dp_seg *dst, uint32_t n_dst, const struct dp_seg *src, uint32_t n_src,
		  uint64_t length)
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

/* Worker-owned staging memory i (0: memory-domain bytes, 1: wire bytes), at least n bytes. */
static uint8_t *scratch(struct dp_xfer *x, unsigned i, size_t n)
{
	struct dp_nic_worker *nw = &x->nic->per_worker[x->w->index];

	if (nw->scratch_size[i] < n) {
		uint8_t *p = realloc(nw->scratch[i], n);

		if (!p)
			return NULL;
		nw->scratch[i] = p;
		nw->scratch_size[i] = n;
	}
	return nw->scratch[i];
}

/*
 * A signature error never fails the transfer (reference §2.1, §3.4): it is
 * reported for the MKEY's record, and belongs to the requester's WR, whichever
 * side's MKEY found it: the response carries it to the completer, which
 * counts it and stops a sig_pipelining QP after the WQE.
 */
static void sig_error(struct dp_xfer *x, const struct dp_wqe_mem *m, enum dp_dir dir,
		      const struct dp_sig_err *e)
{
	struct dp_nic_worker *nw = &x->nic->per_worker[x->w->index];
	struct dp_packet *resp = x->resp;
	struct dp_report *r;
	uint64_t now = dp_worker_now_ns();

	if (!resp->sig_failed)
		resp->sig_found_ns = now;
	resp->sig_failed = true;
	resp->sig_errors[e->type]++;
	r = calloc(1, sizeof(*r));
	if (!r)
		return;   /* counted; the MKEY's record misses it, as a lost SIG_ERR CQE would */
	*r = (struct dp_report){
		.qp = x->requester, .qpn = x->requester ? x->requester_qpn : x->responder->qpn, .wr_id = x->wqe->wr_id, .mkey = m->mkey_key,
		.dir = dir, .err = *e, .at_ns = resp->sig_found_ns,
	};
	r->next = atomic_load_explicit(&nw->reports, memory_order_relaxed);
	while (!atomic_compare_exchange_weak_explicit(&nw->reports, &r->next, r, memory_order_release,
						      memory_order_relaxed))
		;
	/* A full event queue is no loss: the driver takes the lists with every event it handles. */
	dp_worker_emit(x->w, &(struct dp_event){ .type = DP_EVENT_REPORTS,
						 .cookie = (uint64_t)(uintptr_t)x->nic });
}

/* TX: the span's memory-domain bytes become len wire bytes in wire. */
static int mkey_tx(struct dp_xfer *x, const struct dp_wqe_mem *src, uint8_t *wire, uint64_t len)
{
	const struct dp_mkey_span *span = &src->mkey;
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
		sig_error(x, src, DP_TX, &e);
	return 0;
}

/* RX: len wire bytes become the span's memory-domain bytes. */
static int mkey_rx(struct dp_xfer *x, const struct dp_wqe_mem *dst, const uint8_t *wire, uint64_t len)
{
	const struct dp_mkey_span *span = &dst->mkey;
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
		sig_error(x, dst, DP_RX, &e);
	return 0;
}

int dp_move_out(struct dp_xfer *x, const struct dp_wqe_mem *src, uint8_t *wire, uint64_t len)
{
	struct dp_seg out = { wire, (uint32_t)len };

	if (src->mkey.mkey)
		return len ? mkey_tx(x, src, wire, len) : 0;
	dp_copy_segs(&out, 1, src->segs, src->n_segs, len);
	return 0;
}

int dp_move_in(struct dp_xfer *x, const struct dp_wqe_mem *dst, const uint8_t *wire, uint64_t len)
{
	struct dp_seg in = { (uint8_t *)wire, (uint32_t)len };

	if (dst->mkey.mkey)
		return len ? mkey_rx(x, dst, wire, len) : 0;
	dp_copy_segs(dst->segs, dst->n_segs, &in, 1, len);
	return 0;
}

/* Bytes in one piece are transformed in place, not staged. */
int dp_move(struct dp_xfer *x, const struct dp_wqe_mem *dst, const struct dp_wqe_mem *src, uint64_t len)
{
	bool src_mkey = src->mkey.mkey, dst_mkey = dst->mkey.mkey;
	struct dp_seg staged;
	uint8_t *wire;

	if (!src_mkey && !dst_mkey) {
		dp_copy_segs(dst->segs, dst->n_segs, src->segs, src->n_segs, len);
		return 0;
	}
	if (!len)
		return 0;
	if (src_mkey) {
		bool direct = !dst_mkey && dst->n_segs == 1 && dst->segs[0].length >= len;

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
		staged = (struct dp_seg){ wire, (uint32_t)len };
		dp_copy_segs(&staged, 1, src->segs, src->n_segs, len);
	}
	if (!dst_mkey) {
		staged = (struct dp_seg){ wire, (uint32_t)len };
		dp_copy_segs(dst->segs, dst->n_segs, &staged, 1, len);
		return 0;
	}
	return mkey_rx(x, dst, wire, len);
}
