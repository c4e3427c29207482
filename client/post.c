/* SPDX-License-Identifier: MIT */
/*
 * Posting work requests: into the QP's rings (client/ring.c), or, for a UD
 * QP, whose sends name address handles rdmad resolves, through
 * io.rdmad.Qp.PostSend and PostRecv, one varlink call per WR.
 * An SGE's address is turned into an offset in its MR here (the MRs this
 * context registered know their iova); a key the context did not register
 * (an MKEY's) takes the address as the offset from its first byte.
 */
#include "client/internal.h"

#include <stdlib.h>
#include <string.h>

/* Inline bytes of one WR copied into a call: far above any device's max_inline_data. */
#define INLINE_MAX 65536

static const char *opcode_word(uint8_t opcode)
{
	switch (opcode) {
	case RDMAD_WR_RDMA_WRITE: return "write";
	case RDMAD_WR_RDMA_WRITE_WITH_IMM: return "write_imm";
	case RDMAD_WR_SEND: return "send";
	case RDMAD_WR_SEND_WITH_IMM: return "send_imm";
	case RDMAD_WR_RDMA_READ: return "read";
	case RDMAD_WR_LOCAL_INV: return "local_inv";
	case RDMAD_WR_SEND_WITH_INV: return "send_inv";
	}
	return NULL;
}

static int sges_json(struct rdmad_context *ctx, const struct rdmad_sge *sg, uint32_t n,
		     struct json_object *p)
{
	struct json_object *list = json_object_new_array();
	int r = client_check_sges(ctx, sg, n);

	json_object_object_add(p, "sges", list);
	for (uint32_t i = 0; r == 0 && i < n; i++) {
		const struct rdmad_mr *mr = client_mr_by_key(ctx, sg[i].lkey);
		struct json_object *o = json_object_new_object();
		uint64_t offset = mr ? sg[i].addr - mr->iova : sg[i].addr;

		json_object_array_add(list, o);
		client_add_u64(o, "key", sg[i].lkey);
		client_add_u64(o, "offset", offset);
		client_add_u64(o, "length", sg[i].length);
	}
	return r;
}

/* RDMAD_SEND_INLINE: the SGEs' bytes, read now from this process's memory, as hex. */
static int inline_json(const struct rdmad_sge *sg, uint32_t n, struct json_object *p)
{
	static const char digits[] = "0123456789abcdef";
	size_t total = 0, at = 0;
	char *hex;

	for (uint32_t i = 0; i < n; i++) {
		total += sg[i].length;
		if (total > INLINE_MAX)
			return client_fail(-EINVAL, "inline: more than %d bytes", INLINE_MAX);
	}
	hex = malloc(total * 2 + 1);
	if (!hex)
		return client_fail(-ENOMEM, "out of memory");
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *b = (const uint8_t *)(uintptr_t)sg[i].addr;

		for (uint32_t j = 0; j < sg[i].length; j++) {
			hex[at++] = digits[b[j] >> 4];
			hex[at++] = digits[b[j] & 15];
		}
	}
	hex[at] = '\0';
	client_add_str(p, "inline", hex);
	free(hex);
	return 0;
}

static int send_params(struct rdmad_qp *qp, const struct rdmad_send_wr *wr, struct json_object *p)
{
	const char *opcode = opcode_word(wr->opcode);
	int r;

	if (!opcode)
		return client_fail(-EINVAL, "opcode: %u is no work request opcode", wr->opcode);
	client_add_u64(p, "handle", qp->qp_num);
	client_add_str(p, "opcode", opcode);
	client_add_u64(p, "wr_id", wr->wr_id);
	if (wr->num_sge && !wr->sg_list)
		return client_fail(-EINVAL, "sg_list: NULL with num_sge %u", wr->num_sge);
	if (wr->num_sge) {
		r = wr->send_flags & RDMAD_SEND_INLINE ? inline_json(wr->sg_list, wr->num_sge, p) :
			sges_json(qp->context, wr->sg_list, wr->num_sge, p);
		if (r < 0)
			return r;
	}
	switch (wr->opcode) {
	case RDMAD_WR_RDMA_WRITE_WITH_IMM:
	case RDMAD_WR_SEND_WITH_IMM:
		client_add_u64(p, "imm", wr->imm_data);
		break;
	case RDMAD_WR_LOCAL_INV:
	case RDMAD_WR_SEND_WITH_INV:
		client_add_u64(p, "invalidate", wr->invalidate_rkey);
		break;
	}
	if (wr->opcode == RDMAD_WR_RDMA_WRITE || wr->opcode == RDMAD_WR_RDMA_WRITE_WITH_IMM ||
	    wr->opcode == RDMAD_WR_RDMA_READ) {
		struct json_object *remote = json_object_new_object();

		client_add_u64(remote, "key", wr->wr.rdma.rkey);
		client_add_u64(remote, "addr", wr->wr.rdma.remote_addr);
		json_object_object_add(p, "remote", remote);
	}
	if (qp->qp_type == RDMAD_QPT_UD) {
		struct json_object *ud = json_object_new_object();

		client_add_u64(ud, "ah", wr->wr.ud.ah);
		client_add_u64(ud, "remote_qpn", wr->wr.ud.remote_qpn);
		client_add_u64(ud, "remote_qkey", wr->wr.ud.remote_qkey);
		json_object_object_add(p, "ud", ud);
	}
	client_add_bool(p, "signaled", wr->send_flags & RDMAD_SEND_SIGNALED);
	client_add_bool(p, "fence", wr->send_flags & RDMAD_SEND_FENCE);
	client_add_bool(p, "solicited", wr->send_flags & RDMAD_SEND_SOLICITED);
	return 0;
}

/* One WR's call with its parameters p, unless building them failed (r < 0): p is consumed. */
static int post_one(struct rdmad_qp *qp, const char *method, struct json_object *p, int r)
{
	if (r < 0) {
		json_object_put(p);
		return r;
	}
	return client_call(qp->context, method, p, NULL, 0, NULL);
}

int rdmad_post_send(struct rdmad_qp *qp, struct rdmad_send_wr *wr, struct rdmad_send_wr **bad_wr)
{
	client_ok();
	if (client_qp_of(qp)->rings.addr)
		return client_ring_post_send(client_qp_of(qp), wr, bad_wr);
	for (; wr; wr = wr->next) {
		struct json_object *p = json_object_new_object();
		int r = send_params(qp, wr, p);

		r = post_one(qp, "io.rdmad.Qp.PostSend", p, r);
		if (r < 0) {
			if (bad_wr)
				*bad_wr = wr;
			return r;
		}
	}
	return 0;
}

int rdmad_cancel_posted_send_wrs(struct rdmad_qp *qp, uint64_t wr_id)
{
	struct json_object *p = json_object_new_object(), *reply = NULL;
	int r;

	client_add_u64(p, "handle", qp->qp_num);
	client_add_u64(p, "wr_id", wr_id);
	r = client_call(qp->context, "io.rdmad.Qp.Cancel", p, NULL, 0, &reply);
	if (r < 0)
		return r;
	r = (int)client_get_u64(reply, "count");
	json_object_put(reply);
	return r;
}

int rdmad_post_recv(struct rdmad_qp *qp, struct rdmad_recv_wr *wr, struct rdmad_recv_wr **bad_wr)
{
	client_ok();
	if (client_qp_of(qp)->rings.addr)
		return client_ring_post_recv(client_qp_of(qp), wr, bad_wr);
	for (; wr; wr = wr->next) {
		struct json_object *p = json_object_new_object();
		int r = 0;

		client_add_u64(p, "handle", qp->qp_num);
		client_add_u64(p, "wr_id", wr->wr_id);
		if (wr->num_sge && !wr->sg_list)
			r = client_fail(-EINVAL, "sg_list: NULL with num_sge %u", wr->num_sge);
		else if (wr->num_sge)
			r = sges_json(qp->context, wr->sg_list, wr->num_sge, p);
		r = post_one(qp, "io.rdmad.Qp.PostRecv", p, r);
		if (r < 0) {
			if (bad_wr)
				*bad_wr = wr;
			return r;
		}
	}
	return 0;
}
