/* SPDX-License-Identifier: MIT */
/*
 * Posting WRs (main thread): the entry goes into the QP's queue in the RFC's
 * format, and beside it the memory its keys name, resolved now because the
 * object tables are the main thread's.  A key that does not resolve is not
 * refused here: the WR completes with the error the device reports for it.
 */
#include "daemon/soft/datapath_int.h"
#include "daemon/verbs/ah.h"
#include "daemon/verbs/gid.h"
#include "daemon/verbs/mkey.h"
#include "daemon/verbs/mr.h"
#include "daemon/verbs/qp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

static struct rdma_mkey *mkey_of(struct rdma_device *dev, uint32_t key)
{
	struct rdma_object *obj = object_table_find(&dev->tables[RDMA_OBJ_MKEY], key);

	return obj ? rdma_mkey(obj) : NULL;
}

/* MR access bits and MKEY access bits are the same IBV_ACCESS_* numbers. */
_Static_assert(RDMA_ACCESS_LOCAL_WRITE == RDMA_MKEY_ACCESS_LOCAL_WRITE &&
	       RDMA_ACCESS_REMOTE_WRITE == RDMA_MKEY_ACCESS_REMOTE_WRITE &&
	       RDMA_ACCESS_REMOTE_READ == RDMA_MKEY_ACCESS_REMOTE_READ, "one numbering of access flags");

/*
 * The iova of offset bytes into the MR of key; an MKEY's addresses start at
 * 0 (mlx5dv MKEYs); just offset for a key of nothing (it fails later).
 */
static uint64_t key_iova(struct rdma_device *dev, uint32_t key, uint64_t offset)
{
	struct rdma_object *obj = object_table_find(&dev->tables[RDMA_OBJ_MR], key);

	return obj ? rdma_mr(obj)->iova + offset : offset;
}

/*
 * Fills the SGE list of an entry and the segments of its context; a bad SGE
 * leaves fault as the context's status.
 */
static void resolve_sges(struct rdma_device *dev, uint32_t pd, uint32_t access, uint8_t fault,
			 const struct rdma_dp_sge *sges, uint32_t n, struct dp_sge *out,
			 struct rdma_dp_wqe_ctx *ctx)
{
	struct rdma_mkey *mkey;

	ctx->status = DP_WC_SUCCESS;
	ctx->n_segs = n;
	ctx->length = 0;
	ctx->local_mkey.mkey = NULL;
	ctx->remote_mkey.mkey = NULL;
	ctx->canceled = false;
	/* An MKEY is the only SGE of its list (checked when posted): its transform sees all bytes. */
	if (n == 1 && sges[0].length && (mkey = mkey_of(dev, sges[0].key))) {
		struct rdma_error err;

		out[0] = (struct dp_sge){ .addr = sges[0].offset, .length = sges[0].length,
					  .lkey = sges[0].key };
		ctx->segs[0] = (struct rdma_dp_seg){ .addr = NULL, .length = sges[0].length };
		ctx->length = sges[0].length;
		if (rdma_mkey_span(dev, mkey, pd, access, sges[0].offset, sges[0].length,
				   &ctx->local_mkey, &err) < 0)
			ctx->status = fault;
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct rdma_error err;

		out[i] = (struct dp_sge){ .addr = key_iova(dev, sges[i].key, sges[i].offset),
					  .length = sges[i].length, .lkey = sges[i].key };
		ctx->segs[i] = (struct rdma_dp_seg){ .addr = NULL, .length = sges[i].length };
		ctx->length += sges[i].length;
		/* A zero-length SGE touches no memory: its key is not checked. */
		if (sges[i].length && rdma_mr_resolve(dev, sges[i].key, false, pd, access, out[i].addr,
						      sges[i].length, &ctx->segs[i].addr, &err) < 0)
			ctx->status = fault;
	}
}

static void wake(struct rdma_dp_qp *q)
{
	if (q->worker)
		dp_worker_wake(q->worker);
}

/* The slot for the next WR, or NULL with the error when the queue holds max WRs not yet executed. */
static void *next_slot(struct dp_wq *wq, uint32_t max, const char *which, uint32_t *index,
		       struct rdma_error *err)
{
	void *slot = dp_wq_count(wq) < max ? dp_wq_next(wq, index) : NULL;

	if (!slot)
		rdma_error_state(err, which, "the queue holds %u WRs not yet executed (max_%s_wr)",
				 max, which);
	return slot;
}

static int check_sges(struct rdma_device *dev, const struct rdma_qp *qp, const struct rdma_dp_sge *sges,
		      uint32_t n, uint32_t max, const char *cap, struct rdma_error *err)
{
	if (n > max)
		return rdma_error_invalid(err, "sges", "%u SGEs; the QP takes at most %u (%s)", n, max, cap);
	for (uint32_t i = 0; i < n; i++) {
		if (!mkey_of(dev, sges[i].key))
			continue;
		if (qp->type == RDMA_QPT_UD)
			return rdma_error_unsupported(err, "sges", "UD QPs do not carry MKEYs "
						      "(0x%x is one)", sges[i].key);
		if (n > 1)
			return rdma_error_unsupported(err, "sges", "an SGE through an MKEY (0x%x) must "
						      "be the only one of its WR", sges[i].key);
	}
	return 0;
}

/* Which opcodes a QP type carries (IBA: UC has no READ; UD only SEND). */
static bool opcode_allowed(enum rdma_qp_type type, enum dp_wr_opcode op)
{
	switch (type) {
	case RDMA_QPT_RC:
		return true;
	case RDMA_QPT_UC:
		return op != DP_WR_RDMA_READ;
	default:
		return op == DP_WR_SEND || op == DP_WR_SEND_WITH_IMM;
	}
}

static int check_send(struct rdma_device *dev, struct rdma_qp *qp, const struct rdma_dp_send_wr *wr,
		      struct rdma_error *err)
{
	bool is_inline = wr->send_flags & DP_SEND_INLINE;
	bool rdma = wr->opcode != DP_WR_SEND && wr->opcode != DP_WR_SEND_WITH_IMM;

	/* Posting before RTS is refused (as rxe does); in ERR the WR is flushed. */
	if (qp->state != RDMA_QPS_RTS && qp->state != RDMA_QPS_SQD && qp->state != RDMA_QPS_ERR)
		return rdma_error_state(err, "state", "the QP is in %s; send WRs are posted in RTS, "
					"SQD or ERR", rdma_qp_state_name(qp->state));
	if ((qp->type == RDMA_QPT_UD) != wr->ud)
		return rdma_error_invalid(err, "ud", qp->type == RDMA_QPT_UD ?
					  "a UD send needs an AH, a remote QP number and a Q_Key" :
					  "only UD QPs send through an AH");
	if (!opcode_allowed(qp->type, wr->opcode))
		return rdma_error_invalid(err, "opcode", "%s is not carried by %s QPs",
					  dp_wr_opcode_name(wr->opcode), rdma_qp_type_name(qp->type));
	if (is_inline && wr->n_sges)
		return rdma_error_invalid(err, "sges", "inline data and SGEs exclude each other");
	if (is_inline && wr->opcode == DP_WR_RDMA_READ)
		return rdma_error_invalid(err, "inline", "an RDMA READ has nowhere to put inline data");
	if (is_inline && wr->inline_len > qp->cap.max_inline_data)
		return rdma_error_invalid(err, "inline", "%u bytes; the QP takes at most %u "
					  "(max_inline_data)", wr->inline_len, qp->cap.max_inline_data);
	if (!rdma && wr->remote_key)
		return rdma_error_invalid(err, "remote", "only RDMA WRITE and READ name remote memory");
	return check_sges(dev, qp, wr->sges, wr->n_sges, qp->cap.max_send_sge, "max_send_sge", err);
}

/* The peer's memory for RDMA WRITE / READ, resolved against the peer's PD and access. */
static void resolve_remote(struct rdma_device *dev, struct rdma_qp *qp, const struct rdma_dp_send_wr *wr,
			   struct dp_sq_req *req, struct rdma_dp_wqe_ctx *ctx)
{
	uint32_t access = wr->opcode == DP_WR_RDMA_READ ? RDMA_ACCESS_REMOTE_READ :
			  RDMA_ACCESS_REMOTE_WRITE;
	struct rdma_object *peer = NULL;
	struct rdma_mkey *mkey;
	struct rdma_error err;

	req->rdma.remote_addr = key_iova(dev, wr->remote_key, wr->remote_offset);
	req->rdma.rkey = wr->remote_key;
	ctx->remote = NULL;
	ctx->remote_status = DP_WC_REM_ACCESS_ERR;
	if (qp->attr_mask & RDMA_QP_DEST_QPN)
		peer = object_table_find(&dev->tables[RDMA_OBJ_QP], qp->attr.dest_qp_num);
	ctx->peer_known = peer != NULL;
	if (!peer)
		return;
	if ((mkey = mkey_of(dev, wr->remote_key))) {
		if (rdma_mkey_span(dev, mkey, rdma_qp(peer)->pd->handle, access, wr->remote_offset,
				   ctx->length, &ctx->remote_mkey, &err) == 0)
			ctx->remote_status = DP_WC_SUCCESS;
	} else if (rdma_mr_resolve(dev, wr->remote_key, true, rdma_qp(peer)->pd->handle, access,
				   req->rdma.remote_addr, ctx->length, &ctx->remote, &err) == 0) {
		ctx->remote_status = DP_WC_SUCCESS;
	}
}

/* Loopback only: a UD message reaches a QP of this device when it is sent to one of its GIDs. */
static bool gid_is_ours(struct rdma_device *dev, const uint8_t gid[RDMA_GID_LEN])
{
	for (unsigned p = 0; p < dev->num_ports; p++)
		for (uint32_t i = 0; i < dev->ports[p].gid_tbl_len; i++)
			if (dev->gid_tables[p][i].valid &&
			    memcmp(dev->gid_tables[p][i].gid, gid, RDMA_GID_LEN) == 0)
				return true;
	return false;
}

/* The AH of a UD send (refused here: the RFC has the device validate it) and what it makes. */
static int resolve_ud(struct rdma_device *dev, struct rdma_qp *qp, const struct rdma_dp_send_wr *wr,
		      struct dp_sq_req *req, struct rdma_dp_wqe_ctx *ctx, struct rdma_error *err)
{
	struct rdma_object *obj = object_table_find(&dev->tables[RDMA_OBJ_AH], wr->ah);
	struct rdma_gid_entry *sgid;
	struct rdma_ah *ah;

	if (!obj)
		return rdma_error_invalid(err, "ud.ah", "%u is no address handle", wr->ah);
	ah = rdma_ah(obj);
	if (ah->pd != qp->pd)
		return rdma_error_invalid(err, "ud.ah", "AH %u is in PD %u, the QP in PD %u", wr->ah,
					  ah->pd->handle, qp->pd->handle);
	sgid = rdma_gid_get(dev, ah->attr.port, ah->attr.sgid_index, "ud.ah", err);
	if (!sgid)
		return -ENOENT;
	req->ud.remote_qpn = wr->remote_qpn;
	req->ud.remote_qkey = wr->remote_qkey;
	req->ud.ah = wr->ah;
	/* IBA: a Q_Key with the high bit set means the QP's own. */
	ctx->ud_qkey = (wr->remote_qkey & 0x80000000u) ? qp->attr.qkey : wr->remote_qkey;
	/* IBA C10-93.1.1: longer than the MTU, a UD message "succeeds" and goes nowhere. */
	ctx->peer_known = gid_is_ours(dev, ah->attr.dgid) &&
			  ctx->length <= dev->ports[ah->attr.port - 1].active_mtu;
	dp_grh_build(ctx->grh, sgid->gid, ah->attr.dgid, (uint8_t)ah->attr.traffic_class,
		     ah->attr.flow_label, (uint8_t)ah->attr.hop_limit, (uint32_t)ctx->length,
		     wr->opcode == DP_WR_SEND_WITH_IMM);
	return 0;
}

/* Writes wr into the slot at index, resolving its keys; not published. */
static int fill_send(struct rdma_device *dev, struct rdma_qp *qp, const struct rdma_dp_send_wr *wr,
		     uint32_t index, struct rdma_error *err)
{
	struct rdma_dp_qp *q = qp->dp;
	struct dp_sq_req *req = dp_wq_slot(&q->sq, index);
	struct rdma_dp_wqe_ctx *ctx = rdma_dp_sq_ctx(q, index);

	memset(req, 0, sizeof(*req));
	req->wr_id = wr->wr_id;
	req->opcode = (uint8_t)wr->opcode;
	req->send_flags = (uint8_t)wr->send_flags;
	req->imm_data = htonl(wr->imm);
	if (wr->send_flags & DP_SEND_INLINE) {
		memcpy(req->inline_data, wr->inline_data, wr->inline_len);
		req->inline_len = (uint16_t)wr->inline_len;
		ctx->status = DP_WC_SUCCESS;
		ctx->canceled = false;
		ctx->local_mkey.mkey = ctx->remote_mkey.mkey = NULL;
		ctx->n_segs = 1;
		ctx->length = wr->inline_len;
		ctx->segs[0] = (struct rdma_dp_seg){ .addr = req->inline_data, .length = wr->inline_len };
	} else {
		req->num_sge = wr->n_sges;
		/* An RDMA READ writes into its SGEs: they need local write (else LOC_PROT_ERR). */
		resolve_sges(dev, qp->pd->handle,
			     wr->opcode == DP_WR_RDMA_READ ? RDMA_ACCESS_LOCAL_WRITE : 0,
			     DP_WC_LOC_PROT_ERR, wr->sges, wr->n_sges, req->sg_list, ctx);
	}
	if (wr->opcode != DP_WR_SEND && wr->opcode != DP_WR_SEND_WITH_IMM)
		resolve_remote(dev, qp, wr, req, ctx);
	return wr->ud ? resolve_ud(dev, qp, wr, req, ctx, err) : 0;
}

int rdma_dp_post_sends(struct rdma_device *dev, struct rdma_qp *qp, const struct rdma_dp_send_wr *wrs,
		       uint32_t n, uint32_t *bad, struct rdma_error *err)
{
	struct rdma_dp_qp *q = qp->dp;
	uint32_t prod;
	int r;

	*bad = 0;
	if (!q)
		return rdma_error_unsupported(err, "handle", "the device has no data path (no workers)");
	for (*bad = 0; *bad < n; ++*bad) {
		r = check_send(dev, qp, &wrs[*bad], err);
		if (r < 0)
			return r;
	}
	*bad = 0;
	if (n > q->max_send_wr - dp_wq_count(&q->sq)) {
		rdma_error_state(err, "send", "the queue holds %u WRs not yet executed and takes %u "
				 "(max_send_wr)", dp_wq_count(&q->sq), q->max_send_wr);
		return -ENOBUFS;
	}
	prod = atomic_load_explicit(&q->sq.prod, memory_order_relaxed);
	for (*bad = 0; *bad < n; ++*bad) {
		r = fill_send(dev, qp, &wrs[*bad], prod + *bad, err);
		/* Nothing is published: the slots are taken again by the next WRs. */
		if (r < 0)
			return r;
	}
	/* One doorbell: the worker sees all of them or none (a data WR and its fenced response). */
	atomic_store_explicit(&q->sq.prod, prod + n, memory_order_release);
	wake(q);
	return 0;
}

int rdma_dp_post_send(struct rdma_device *dev, struct rdma_qp *qp, const struct rdma_dp_send_wr *wr,
		      struct rdma_error *err)
{
	uint32_t bad;

	return rdma_dp_post_sends(dev, qp, wr, 1, &bad, err);
}

int rdma_dp_post_recv(struct rdma_device *dev, struct rdma_qp *qp, uint64_t wr_id,
		      const struct rdma_dp_sge *sges, uint32_t n_sges, struct rdma_error *err)
{
	struct rdma_dp_qp *q = qp->dp;
	struct dp_rq_req *req;
	uint32_t index;
	int r;

	if (!q)
		return rdma_error_unsupported(err, "handle", "the device has no data path (no workers)");
	if (qp->state == RDMA_QPS_RESET)
		return rdma_error_state(err, "state", "the QP is in RESET; receive WRs are posted "
					"from INIT on");
	r = check_sges(dev, qp, sges, n_sges, qp->cap.max_recv_sge, "max_recv_sge", err);
	if (r < 0)
		return r;
	req = next_slot(&q->rq, q->max_recv_wr, "recv", &index, err);
	if (!req)
		return -ENOBUFS;
	memset(req, 0, sizeof(*req));
	req->wr_id = wr_id;
	req->num_sge = n_sges;
	/*
	 * IBA: a receive WQE whose SGEs are unusable fails when a message
	 * arrives (the requester sees REM_OP_ERR, the receiver LOC_QP_OP_ERR).
	 */
	resolve_sges(dev, qp->pd->handle, RDMA_ACCESS_LOCAL_WRITE, DP_WC_LOC_QP_OP_ERR, sges, n_sges,
		     req->sg_list, rdma_dp_rq_ctx(q, index));
	dp_wq_publish(&q->rq);
	wake(q);
	return 0;
}

/* ---- cancel (main thread, the QP in SQD: its worker starts no WQE) ---- */

/* fn(slot's ctx, entry) for each posted send WR not yet executed, oldest first. */
static void each_posted_send(struct rdma_dp_qp *q,
			     bool (*fn)(struct rdma_dp_wqe_ctx *ctx, const struct dp_sq_req *req, void *data),
			     void *data)
{
	uint32_t end = atomic_load_explicit(&q->sq.prod, memory_order_relaxed);

	for (uint32_t i = atomic_load_explicit(&q->sq.cons, memory_order_acquire); i != end; i++)
		if (!fn(rdma_dp_sq_ctx(q, i), dp_wq_slot(&q->sq, i), data))
			return;
}

struct cancel {
	uint64_t wr_id;
	uint32_t count;
	bool nop_found;
};

static bool find_nop(struct rdma_dp_wqe_ctx *ctx, const struct dp_sq_req *req, void *data)
{
	struct cancel *c = data;

	c->nop_found = req->wr_id == c->wr_id && ctx->canceled;
	return !c->nop_found;
}

static bool make_nop(struct rdma_dp_wqe_ctx *ctx, const struct dp_sq_req *req, void *data)
{
	struct cancel *c = data;

	if (req->wr_id != c->wr_id)
		return true;
	/* It keeps its slot, wr_id, opcode and signaling; it no longer names memory. */
	ctx->canceled = true;
	ctx->n_segs = 0;
	ctx->remote = NULL;
	ctx->local_mkey.mkey = ctx->remote_mkey.mkey = NULL;
	c->count++;
	return true;
}

int rdma_dp_cancel(struct rdma_device *dev, struct rdma_qp *qp, uint64_t wr_id, uint32_t *count,
		   struct rdma_error *err)
{
	struct cancel c = { .wr_id = wr_id };

	(void)dev;
	if (!qp->dp)
		return rdma_error_unsupported(err, "handle", "the device has no data path (no workers)");
	if (qp->state != RDMA_QPS_SQD)
		return rdma_error_state(err, "state", "the QP is in %s; WRs are canceled in SQD",
					rdma_qp_state_name(qp->state));
	/*
	 * libmlx5 fails on a matching WR that is a NOP already, after canceling
	 * the ones before it; here nothing changes then.
	 */
	each_posted_send(qp->dp, find_nop, &c);
	if (c.nop_found) {
		rdma_error_state(err, "wr_id", "a posted WR with wr_id %llu is a NOP already "
				 "(canceled before); nothing was canceled", (unsigned long long)wr_id);
		return -EALREADY;
	}
	each_posted_send(qp->dp, make_nop, &c);
	*count = c.count;
	return 0;
}

struct posted_mkeys {
	void (*fn)(uint32_t mkey, uint64_t wr_id, void *data);
	void *data;
};

static bool note_mkeys(struct rdma_dp_wqe_ctx *ctx, const struct dp_sq_req *req, void *data)
{
	struct posted_mkeys *p = data;

	if (ctx->local_mkey.mkey)
		p->fn(ctx->local_mkey.mkey->obj.handle, req->wr_id, p->data);
	if (ctx->remote_mkey.mkey)
		p->fn(ctx->remote_mkey.mkey->obj.handle, req->wr_id, p->data);
	return true;
}

void rdma_dp_posted_mkeys(struct rdma_qp *qp, void (*fn)(uint32_t mkey, uint64_t wr_id, void *data),
			  void *data)
{
	struct posted_mkeys p = { fn, data };

	if (qp->dp)
		each_posted_send(qp->dp, note_mkeys, &p);
}
