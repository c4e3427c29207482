/* SPDX-License-Identifier: MIT */
/*
 * Entries out of the queues: each is copied out of its slot before anything
 * looks at it (the producer may be another process), checked against the
 * QP's limits, and its keys resolved in the key table against the PD of the
 * QP whose side reads them.
 */
#include "dataplane/engine/engine.h"

#include <string.h>

/*
 * The SGEs of an entry (already bounded) resolved against pd: an MKEY is
 * only ever the one SGE of its list, so that its transform sees all bytes;
 * a key of nothing, another PD, access missing or a range outside it leaves
 * fault as the status.
 */
static void resolve_sges(const struct dp_keytab *kt, unsigned worker, uint32_t pd, uint32_t access,
			 uint8_t fault, const struct dp_sge *sges, uint32_t n, struct dp_wqe_mem *m)
{
	const struct dp_key *k;

	m->status = DP_WC_SUCCESS;
	m->n_segs = n;
	m->length = 0;
	m->mkey.mkey = NULL;
	for (uint32_t i = 0; i < n; i++) {
		m->segs[i] = (struct dp_seg){ .addr = NULL, .length = sges[i].length };
		m->length += sges[i].length;
	}
	if (m->length > UINT32_MAX) {
		m->status = DP_WC_LOC_LEN_ERR;
		return;
	}
	if (n == 1 && sges[0].length && (k = dp_keytab_get(kt, sges[0].lkey)) && k->kind == DP_KEY_MKEY) {
		m->mkey_key = sges[0].lkey;
		if (dp_mkey_span(k->mkey, worker, pd, access, sges[0].addr, sges[0].length,
				 DP_MKEY_TRANSFER_MAX, &m->mkey) < 0) {
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

/* n SGEs (at most DP_SEGS_MAX) out of an entry: most WRs have one, not worth a string move. */
static void copy_sges(struct dp_sge *out, const struct dp_sge *in, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		out[i] = in[i];
}

static void refuse(struct dp_wqe_mem *m, uint8_t status)
{
	m->status = status;
	m->length = 0;
	m->n_segs = 0;
	m->mkey.mkey = NULL;
}

void dp_read_send(struct dp_qp *q, uint32_t index, struct dp_send_wqe *out)
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
	out->canceled = dp_qp_canceled(q, index);
	/* The address vector only where there is one. */
	if (q->type == DP_QPT_UD)
		out->slot = *dp_qp_sq_slot(q, index);
	out->done = out->nop = out->sig_failed = false;
	out->status = DP_WC_SUCCESS;
	if (out->opcode >= DP_WR_OPCODE_COUNT) {
		refuse(&out->mem, DP_WC_LOC_QP_OP_ERR);
		return;
	}
	/* It moves no bytes: whatever SGEs the entry names are not looked at. */
	if (out->opcode == DP_WR_LOCAL_INV || out->opcode == DP_WR_CONFIGURE) {
		refuse(&out->mem, DP_WC_SUCCESS);
		return;
	}
	if (out->send_flags & DP_SEND_INLINE) {
		n = req->inline_len;
		if (n > q->max_inline || n > DP_INLINE_MAX) {
			refuse(&out->mem, DP_WC_LOC_LEN_ERR);
			return;
		}
		memcpy(out->inline_data, req->inline_data, n);
		refuse(&out->mem, DP_WC_SUCCESS);
		out->mem.length = n;
		out->mem.n_segs = 1;
		out->mem.segs[0] = (struct dp_seg){ .addr = out->inline_data, .length = n };
		return;
	}
	n = req->num_sge;
	if (n > q->max_send_sge || n > DP_SEGS_MAX) {
		refuse(&out->mem, DP_WC_LOC_QP_OP_ERR);
		return;
	}
	copy_sges(sges, req->sg_list, n);
	/* An RDMA READ writes into its SGEs: they need local write (else LOC_PROT_ERR). */
	resolve_sges(&q->nic->keytab, q->worker->index, q->pd,
		     out->opcode == DP_WR_RDMA_READ ? DP_ACCESS_LOCAL_WRITE : 0, DP_WC_LOC_PROT_ERR, sges, n,
		     &out->mem);
}

/*
 * IBA: a receive WQE whose SGEs are unusable fails when a message arrives
 * (the requester sees REM_OP_ERR, the receiver LOC_QP_OP_ERR).
 */
bool dp_read_recv(struct dp_qp *q, struct dp_recv_wqe *out)
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
		refuse(&out->mem, DP_WC_LOC_QP_OP_ERR);
		return true;
	}
	copy_sges(sges, req->sg_list, n);
	resolve_sges(&q->nic->keytab, q->worker->index, q->pd, DP_ACCESS_LOCAL_WRITE, DP_WC_LOC_QP_OP_ERR,
		     sges, n, &out->mem);
	return true;
}

bool dp_resolve_remote(const struct dp_keytab *kt, unsigned worker, const struct dp_send_wqe *wqe,
		       uint32_t pd, uint32_t access, struct dp_wqe_mem *m)
{
	const struct dp_key *k = dp_keytab_get(kt, wqe->rkey);
	uint64_t len = wqe->mem.length;

	refuse(m, DP_WC_SUCCESS);
	m->length = len;
	m->n_segs = 1;
	m->segs[0].length = (uint32_t)len;
	/* A zero-length transfer touches no memory. */
	if (!len)
		return true;
	m->mkey_key = wqe->rkey;
	if (k && k->kind == DP_KEY_MKEY) {
		if (dp_mkey_span(k->mkey, worker, pd, access, wqe->remote_addr, len, DP_MKEY_TRANSFER_MAX,
				 &m->mkey) == 0)
			return true;
		m->mkey.mkey = NULL;
		return false;
	}
	m->segs[0].addr = dp_keytab_resolve(kt, wqe->rkey, true, pd, access, wqe->remote_addr, len);
	return m->segs[0].addr != NULL;
}
