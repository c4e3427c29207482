/* SPDX-License-Identifier: MIT */
/*
 * Posting WRs (main thread): the entry goes into the QP's queue in the RFC's
 * format, its SGEs and remote address as iovas with their keys.  The keys
 * are resolved by the worker when it executes the WR (dataplane/keytab.h):
 * a key that does not resolve then is not refused here, the WR completes
 * with the error the device reports for it.
 */
#include "daemon/soft/datapath_int.h"
#include "daemon/verbs/ah.h"
#include "daemon/verbs/gid.h"
#include "daemon/verbs/mkey.h"
#include "daemon/verbs/mr.h"
#include "daemon/verbs/qp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
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

/* The SGE list of an entry: offsets from each MR's first byte become iovas. */
static void fill_sges(struct rdma_device *dev, const struct rdma_dp_sge *sges, uint32_t n,
		      struct dp_sge *out)
{
	for (uint32_t i = 0; i < n; i++)
		out[i] = (struct dp_sge){ .addr = key_iova(dev, sges[i].key, sges[i].offset),
					  .length = sges[i].length, .lkey = sges[i].key };
}

static void wake(struct dp_qp *q)
{
	if (q->worker)
		dp_worker_wake(q->worker);
}

/* The slot for the next WR, or NULL with the error when the queue holds max WRs not yet executed. */
static void *next_slot(struct dp_queue *wq, uint32_t max, const char *which, uint32_t *index,
		       struct rdma_error *err)
{
	void *slot = dp_queue_count(wq) < max ? dp_queue_reserve(wq, index) : NULL;

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

/* Which opcodes a QP type carries (IBA: UC has no READ and no SEND with Invalidate packet
 * opcodes; UD only SEND).  local_inv never leaves the QP, so UC may use it. */
static bool opcode_allowed(enum rdma_qp_type type, enum dp_wr_opcode op)
{
	switch (type) {
	case RDMA_QPT_RC:
		return true;
	case RDMA_QPT_UC:
		return op != DP_WR_RDMA_READ && op != DP_WR_SEND_WITH_INV;
	default:
		return op == DP_WR_SEND || op == DP_WR_SEND_WITH_IMM;
	}
}

/* The MKEY of a configure WR, or NULL with NoSuchObject naming "mkey". */
static struct rdma_mkey *configure_mkey(struct rdma_device *dev, const struct rdma_dp_send_wr *wr,
					struct rdma_error *err)
{
	struct rdma_mkey *mkey = mkey_of(dev, wr->mkey);

	if (!mkey)
		rdma_error_invalid(err, "mkey", "0x%x is no MKEY", wr->mkey);
	return mkey;
}

/*
 * A refusal of the model's configure, as the WR's field: the MKEY ("handle"
 * of Mkey.Configure) is the WR's "mkey", the setters are in its "configure".
 */
static int configure_refusal(struct rdma_error *err, int r)
{
	if (r < 0 && !strcmp(err->field, "handle"))
		snprintf(err->field, sizeof(err->field), "mkey");
	else if (r < 0 && strcmp(err->field, "mkey"))
		rdma_error_prefix(err, "configure.");
	return r;
}

static int check_configure(struct rdma_device *dev, struct rdma_qp *qp, const struct rdma_dp_send_wr *wr,
			   struct rdma_error *err)
{
	struct rdma_mkey *mkey = configure_mkey(dev, wr, err);

	if (!mkey)
		return -ENOENT;
	return configure_refusal(err, rdma_mkey_configure_wr_check(dev, mkey, qp, wr->conf, err));
}

static int check_send(struct rdma_device *dev, struct rdma_qp *qp, const struct rdma_dp_send_wr *wr,
		      struct rdma_error *err)
{
	bool is_inline = wr->send_flags & DP_SEND_INLINE;
	bool rdma = dp_wr_has_remote(wr->opcode);

	/* Posting before RTS is refused (as rxe does); in ERR the WR is flushed. */
	if (qp->state != RDMA_QPS_RTS && qp->state != RDMA_QPS_SQD && qp->state != RDMA_QPS_ERR)
		return rdma_error_state(err, "state", "the QP is in %s; send WRs are posted in rts, "
					"sqd or err", rdma_qp_state_name(qp->state));
	if (!opcode_allowed(qp->type, wr->opcode))
		return rdma_error_invalid(err, "opcode", "%s is not carried by %s QPs",
					  dp_wr_opcode_name(wr->opcode), rdma_qp_type_name(qp->type));
	if ((qp->type == RDMA_QPT_UD) != wr->ud)
		return rdma_error_invalid(err, "ud", qp->type == RDMA_QPT_UD ?
					  "a UD send needs an AH, a remote QP number and a Q_Key" :
					  "only UD QPs send through an AH");
	if (is_inline && wr->n_sges)
		return rdma_error_invalid(err, "sges", "inline data and SGEs exclude each other");
	if (is_inline && wr->opcode == DP_WR_RDMA_READ)
		return rdma_error_invalid(err, "inline", "an RDMA READ has nowhere to put inline data");
	if (is_inline && wr->inline_len > qp->cap.max_inline_data)
		return rdma_error_invalid(err, "inline", "%u bytes; the QP takes at most %u "
					  "(max_inline_data)", wr->inline_len, qp->cap.max_inline_data);
	if (!rdma && wr->remote_key)
		return rdma_error_invalid(err, "remote", "only RDMA WRITE and READ name remote memory");
	if ((wr->opcode == DP_WR_LOCAL_INV || wr->opcode == DP_WR_CONFIGURE) && (wr->n_sges || is_inline))
		return rdma_error_invalid(err, wr->n_sges ? "sges" : "inline", "%s moves no bytes: it "
					  "names only the %s", dp_wr_opcode_name(wr->opcode),
					  wr->opcode == DP_WR_CONFIGURE ? "MKEY and what to set" :
					  "key to invalidate");
	if (wr->opcode == DP_WR_CONFIGURE)
		return check_configure(dev, qp, wr, err);
	return check_sges(dev, qp, wr->sges, wr->n_sges, qp->cap.max_send_sge, "max_send_sge", err);
}

/* The AH of a UD send (refused here: the RFC has the device validate it) and what it makes. */
static int resolve_ud(struct rdma_device *dev, struct rdma_qp *qp, const struct rdma_dp_send_wr *wr,
		      uint64_t length, struct dp_sq_req *req, struct dp_sq_slot *slot,
		      struct rdma_error *err)
{
	struct rdma_object *obj = object_table_find(&dev->tables[RDMA_OBJ_AH], wr->ah);
	struct rdma_gid_entry *sgid;
	struct rdma_ah *ah;
	bool fits, local;

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
	slot->ud_qkey = (wr->remote_qkey & 0x80000000u) ? qp->attr.qkey : wr->remote_qkey;
	/*
	 * A GID of this device: loopback; of another host: RoCE v2.  IBA
	 * C10-93.1.1: longer than the MTU, a UD message "succeeds" and goes nowhere.
	 */
	fits = length <= dev->ports[ah->attr.port - 1].active_mtu;
	local = rdma_gid_is_local(dev, ah->attr.dgid);
	slot->ud_local = local && fits;
	slot->ud_remote = !local && fits;
	memcpy(slot->ud_sgid, sgid->gid, sizeof(slot->ud_sgid));
	memcpy(slot->ud_dgid, ah->attr.dgid, sizeof(slot->ud_dgid));
	memcpy(slot->ud_dmac, ah->attr.dmac, sizeof(slot->ud_dmac));
	slot->ud_traffic_class = (uint8_t)ah->attr.traffic_class;
	slot->ud_hop_limit = (uint8_t)ah->attr.hop_limit;
	slot->ud_flow_label = ah->attr.flow_label;
	dp_grh_build(slot->grh, sgid->gid, ah->attr.dgid, (uint8_t)ah->attr.traffic_class,
		     ah->attr.flow_label, (uint8_t)ah->attr.hop_limit, (uint32_t)length,
		     wr->opcode == DP_WR_SEND_WITH_IMM);
	return 0;
}

/* Writes wr into the slot at index; not published. */
static int fill_send(struct rdma_device *dev, struct rdma_qp *qp, const struct rdma_dp_send_wr *wr,
		     uint32_t index, struct rdma_error *err)
{
	struct dp_qp *q = soft_qp(qp);
	struct dp_sq_req *req = dp_queue_slot(&q->sq, index);
	struct dp_sq_slot *slot = dp_qp_sq_slot(q, index);
	uint64_t length = wr->inline_len;

	/* The inline area only when it is used: 512 bytes a WR need not write. */
	memset(req, 0, offsetof(struct dp_sq_req, inline_data));
	memset(&req->num_sge, 0, sizeof(*req) - offsetof(struct dp_sq_req, num_sge));
	req->wr_id = wr->wr_id;
	req->opcode = (uint8_t)wr->opcode;
	req->send_flags = (uint8_t)wr->send_flags;
	req->imm_data = htonl(wr->imm);
	if (wr->send_flags & DP_SEND_INLINE) {
		memcpy(req->inline_data, wr->inline_data, wr->inline_len);
		req->inline_len = (uint16_t)wr->inline_len;
	} else {
		req->num_sge = wr->n_sges;
		fill_sges(dev, wr->sges, wr->n_sges, req->sg_list);
		length = 0;
		for (uint32_t i = 0; i < wr->n_sges; i++)
			length += wr->sges[i].length;
	}
	if (dp_wr_has_remote(wr->opcode)) {
		/* A peer on another host: its address as its MR gives it; here, from this device's MR. */
		req->rdma.remote_addr = wr->has_remote_addr ? wr->remote_addr :
					key_iova(dev, wr->remote_key, wr->remote_offset);
		req->rdma.rkey = wr->remote_key;
	}
	/* ibv_send_wr's invalidate_rkey shares imm_data, in host order. */
	if (wr->opcode == DP_WR_LOCAL_INV || wr->opcode == DP_WR_SEND_WITH_INV)
		req->imm_data = wr->invalidate_key;
	/* The slot may hold an earlier WR's: a configure's context only beside its own WR. */
	slot->configure = NULL;
	if (wr->opcode == DP_WR_CONFIGURE) {
		struct rdma_mkey *mkey = configure_mkey(dev, wr, err);

		req->imm_data = wr->mkey;
		if (!mkey)
			return -ENOENT;
		return configure_refusal(err, rdma_mkey_configure_wr(dev, mkey, qp, index, wr->conf,
								     &slot->configure, err));
	}
	return wr->ud ? resolve_ud(dev, qp, wr, length, req, slot, err) : 0;
}

/* One configure WR per MKEY at a time, in a list too (rdma_mkey_configure_wr_check sees the posted ones). */
static int check_configure_once(const struct rdma_dp_send_wr *wrs, uint32_t i, struct rdma_error *err)
{
	if (wrs[i].opcode != DP_WR_CONFIGURE)
		return 0;
	for (uint32_t j = 0; j < i; j++)
		if (wrs[j].opcode == DP_WR_CONFIGURE && wrs[j].mkey == wrs[i].mkey)
			return rdma_error_state(err, "mkey", "WR %u configures MKEY 0x%x already: one "
						"configure WR per MKEY at a time", j, wrs[i].mkey);
	return 0;
}

/* The configures of the first n WRs are not posted after all (a later WR could not be written). */
static void cancel_configures(struct rdma_device *dev, const struct rdma_dp_send_wr *wrs, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (wrs[i].opcode == DP_WR_CONFIGURE && mkey_of(dev, wrs[i].mkey))
			rdma_mkey_configure_wr_cancel(dev, mkey_of(dev, wrs[i].mkey));
}

int rdma_dp_post_sends(struct rdma_device *dev, struct rdma_qp *qp, const struct rdma_dp_send_wr *wrs,
		       uint32_t n, uint32_t *bad, struct rdma_error *err)
{
	struct dp_qp *q = soft_qp(qp);
	uint32_t prod;
	int r;

	*bad = 0;
	for (*bad = 0; *bad < n; ++*bad) {
		r = check_send(dev, qp, &wrs[*bad], err);
		if (r == 0)
			r = check_configure_once(wrs, *bad, err);
		if (r < 0)
			return r;
	}
	*bad = 0;
	if (n > q->max_send_wr - dp_queue_count(&q->sq)) {
		rdma_error_state(err, "send", "the queue holds %u WRs not yet executed and takes %u "
				 "(max_send_wr)", dp_queue_count(&q->sq), q->max_send_wr);
		return -ENOBUFS;
	}
	prod = dp_queue_prod(&q->sq);
	for (*bad = 0; *bad < n; ++*bad) {
		r = fill_send(dev, qp, &wrs[*bad], prod + *bad, err);
		/* Nothing is published: the slots are taken again by the next WRs. */
		if (r < 0) {
			cancel_configures(dev, wrs, *bad);
			return r;
		}
	}
	/* One doorbell: the worker sees all of them or none (a data WR and its fenced response). */
	dp_queue_publish(&q->sq, n);
	wake(q);
	return 0;
}

int rdma_dp_post_recv(struct rdma_device *dev, struct rdma_qp *qp, uint64_t wr_id,
		      const struct rdma_dp_sge *sges, uint32_t n_sges, struct rdma_error *err)
{
	struct dp_qp *q = soft_qp(qp);
	struct dp_rq_req *req;
	uint32_t index;
	int r;

	if (qp->state == RDMA_QPS_RESET)
		return rdma_error_state(err, "state", "the QP is in reset; receive WRs are posted "
					"from init on");
	r = check_sges(dev, qp, sges, n_sges, qp->cap.max_recv_sge, "max_recv_sge", err);
	if (r < 0)
		return r;
	req = next_slot(&q->rq, q->max_recv_wr, "recv", &index, err);
	if (!req)
		return -ENOBUFS;
	memset(req, 0, sizeof(*req));
	req->wr_id = wr_id;
	req->num_sge = n_sges;
	fill_sges(dev, sges, n_sges, req->sg_list);
	dp_queue_publish(&q->rq, 1);
	wake(q);
	return 0;
}

/*
 * The WR that published k, if it did, retired before it could be seen here
 * otherwise: k in the slot is checked again once the WR is known retired.
 */
int rdma_dp_key_settle(struct rdma_device *dev, const struct dp_key *k, struct rdma_qp *qp, uint32_t sq_index)
{
	const struct dp_keytab *kt = &dev->datapath->nic.keytab;
	struct dp_qp *q;

	if (dp_keytab_holds(kt, k))
		return 1;
	if (!qp)
		return -1;
	q = soft_qp(qp);
	if ((uint32_t)(sq_index - dp_queue_cons(&q->sq)) < dp_queue_count(&q->sq))
		return 0;
	return dp_keytab_holds(kt, k) ? 1 : -1;
}

/* ---- cancel (main thread, the QP in SQD: its worker starts no WQE) ---- */

int rdma_dp_cancel(struct rdma_device *dev, struct rdma_qp *qp, uint64_t wr_id, uint32_t *count,
		   struct rdma_error *err)
{
	(void)dev;
	if (qp->state != RDMA_QPS_SQD)
		return rdma_error_state(err, "state", "the QP is in %s; WRs are canceled in sqd",
					rdma_qp_state_name(qp->state));
	if (dp_qp_cancel(soft_qp(qp), wr_id, count) == -EALREADY) {
		rdma_error_state(err, "wr_id", "a posted WR with wr_id %llu is a NOP already "
				 "(canceled before); nothing was canceled", (unsigned long long)wr_id);
		return -EALREADY;
	}
	return 0;
}

struct posted_mkeys {
	const struct dp_keytab *keytab;
	void (*fn)(uint32_t mkey, uint64_t wr_id, void *data);
	void *data;
};

static void note_mkey(struct posted_mkeys *p, uint32_t key, uint64_t wr_id)
{
	const struct dp_key *k = dp_keytab_get(p->keytab, key);

	if (k && k->kind == DP_KEY_MKEY)
		p->fn(key, wr_id, p->data);
}

static bool note_mkeys(struct dp_qp *q, uint32_t index, const struct dp_sq_req *req, void *data)
{
	struct posted_mkeys *p = data;

	if (dp_qp_canceled(q, index))
		return true;
	/* An MKEY is the only SGE of its WR. */
	if (!(req->send_flags & DP_SEND_INLINE) && req->num_sge == 1 && req->sg_list[0].length)
		note_mkey(p, req->sg_list[0].lkey, req->wr_id);
	if (dp_wr_has_remote(req->opcode))
		note_mkey(p, req->rdma.rkey, req->wr_id);
	return true;
}

void rdma_dp_posted_mkeys(struct rdma_device *dev, struct rdma_qp *qp,
			  void (*fn)(uint32_t mkey, uint64_t wr_id, void *data), void *data)
{
	struct posted_mkeys p = { .fn = fn, .data = data };

	(void)dev;
	p.keytab = &soft_qp(qp)->nic->keytab;
	dp_qp_each_posted_send(soft_qp(qp), note_mkeys, &p);
}
