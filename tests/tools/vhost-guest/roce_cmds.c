/* SPDX-License-Identifier: MIT */
/*
 * roce_cmds.c - the seed's VIRTIO_NET_CTRL_ROCE commands 0-17 as input
 * lines: request fields as key=value, every ack field printed from the
 * bytes the device wrote; CREATE_CQ/CREATE_QP then set up the CQ's or QP's
 * virtqueues, DESTROY_CQ/DESTROY_QP reset them, as the seed's driver must.
 * raw_ctrl sends any bytes as a control command.
 */
#include "guest.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct name_value access_names[] = {
	{ "local_write", VIRTIO_IB_ACCESS_LOCAL_WRITE },
	{ "remote_write", VIRTIO_IB_ACCESS_REMOTE_WRITE },
	{ "remote_read", VIRTIO_IB_ACCESS_REMOTE_READ },
	{ NULL, 0 },
};

static const struct name_value qp_types[] = {
	{ "smi", VIRTIO_IB_QPT_SMI }, { "gsi", VIRTIO_IB_QPT_GSI }, { "rc", VIRTIO_IB_QPT_RC },
	{ "uc", VIRTIO_IB_QPT_UC }, { "ud", VIRTIO_IB_QPT_UD }, { NULL, 0 },
};

static const struct name_value qp_states[] = {
	{ "reset", 0 }, { "init", 1 }, { "rtr", 2 }, { "rts", 3 }, { "sqd", 4 }, { "sqe", 5 },
	{ "err", 6 }, { NULL, 0 },
};

static const struct name_value mtus[] = {
	{ "256", 1 }, { "512", 2 }, { "1024", 3 }, { "2048", 4 }, { "4096", 5 }, { NULL, 0 },
};

static const struct name_value notify_flags[] = {
	{ "solicited", VIRTIO_IB_NOTIFY_SOLICITED }, { "next", VIRTIO_IB_NOTIFY_NEXT_COMPLETION },
	{ NULL, 0 },
};

static const char *const command_names[] = {
	"QUERY_DEVICE", "QUERY_PORT", "CREATE_CQ", "DESTROY_CQ", "CREATE_PD", "DESTROY_PD",
	"GET_DMA_MR", "REG_USER_MR", "DEREG_MR", "CREATE_QP", "MODIFY_QP", "QUERY_QP",
	"DESTROY_QP", "CREATE_AH", "DESTROY_AH", "ADD_GID", "DEL_GID", "REQ_NOTIFY_CQ",
};

/* The name of value in t, or NULL (the caller prints the number). */
static const char *name_of(const struct name_value *t, uint32_t value)
{
	for (; t->name; t++)
		if (t->value == value)
			return t->name;
	return NULL;
}

/* "a,b" of the bits set, unknown bits as 0x..; "0" for none. */
static const char *bits_text(const struct name_value *t, uint32_t bits, char *out, size_t len)
{
	size_t used = 0;

	out[0] = 0;
	for (; t->name; t++) {
		if (bits & t->value) {
			used += (size_t)snprintf(out + used, len - used, "%s%s", used ? "," : "", t->name);
			bits &= ~t->value;
		}
	}
	if (bits)
		snprintf(out + used, len - used, "%s0x%x", used ? "," : "", bits);
	else if (!used)
		snprintf(out, len, "0");
	return out;
}

static const char *enum_text(const struct name_value *t, uint32_t v, char *out, size_t len)
{
	const char *n = name_of(t, v);

	if (n)
		return n;
	snprintf(out, len, "%u", v);
	return out;
}

static void gid_text(const uint8_t gid[16], char *out, size_t len)
{
	if (!inet_ntop(AF_INET6, gid, out, (socklen_t)len))
		snprintf(out, len, "?");
}

/* Runs a ROCE command: 0 when the device acked OK and wrote the whole ack
 * data; otherwise the reply (fail ...) is printed and -1 returned. */
static int roce(struct guest *g, uint8_t cmd, const void *req, size_t req_len, void *ack,
		size_t ack_len)
{
	struct ctrl_result res;
	int r;

	if (!g->started)
		return reply_fail(g, "start first");
	if (!HAS(g, VIRTIO_NET_F_ROCE))
		return reply_fail(g, "ROCE not negotiated");
	r = ctrl_exec(g, VIRTIO_NET_CTRL_ROCE, cmd, req, req_len, ack, ack_len, &res);
	if (r == -ETIMEDOUT)
		return reply_fail(g, "timeout: %s not used within %d ms", command_names[cmd],
				  CTRL_TIMEOUT_MS);
	if (r < 0)
		return reply_errno(g, command_names[cmd], r);
	if (res.used_len < 1 || res.ack == 0xff)
		return reply_fail(g, "%s: no ack byte written (used len %u)", command_names[cmd],
				  res.used_len);
	if (res.ack != VIRTIO_NET_OK)
		return reply_fail(g, "ack=%u", res.ack);
	if (res.used_len < 1 + ack_len)
		return reply_fail(g, "%s: ack data short, the device wrote %u of %zu bytes",
				  command_names[cmd], res.used_len - 1, ack_len);
	return 0;
}

static int cmd_query_device(struct guest *g, struct args *a)
{
	struct virtio_rdma_ack_query_device d;

	CHECK(args_done(a, 0));
	if (roce(g, VIRTIO_NET_CTRL_ROCE_QUERY_DEVICE, NULL, 0, &d, sizeof(d)) < 0)
		return -1;
	return reply_ok("device_cap_flags=0x%" PRIx64 " max_mr_size=0x%" PRIx64
			" page_size_cap=0x%" PRIx64 " hw_ver=%u max_qp_wr=%u max_send_sge=%u"
			" max_recv_sge=%u max_sge_rd=%u max_cqe=%u max_mr=%u max_pd=%u"
			" max_qp_rd_atom=%u max_qp_init_rd_atom=%u max_ah=%u local_ca_ack_delay=%u",
			d.device_cap_flags, d.max_mr_size, d.page_size_cap, d.hw_ver, d.max_qp_wr,
			d.max_send_sge, d.max_recv_sge, d.max_sge_rd, d.max_cqe, d.max_mr, d.max_pd,
			d.max_qp_rd_atom, d.max_qp_init_rd_atom, d.max_ah, d.local_ca_ack_delay);
}

static int cmd_query_port(struct guest *g, struct args *a)
{
	struct virtio_rdma_ack_query_port p;

	CHECK(args_done(a, 0));
	if (roce(g, VIRTIO_NET_CTRL_ROCE_QUERY_PORT, NULL, 0, &p, sizeof(p)) < 0)
		return -1;
	return reply_ok("gid_tbl_len=%u max_msg_sz=%u", p.gid_tbl_len, p.max_msg_sz);
}

static int cmd_create_cq(struct guest *g, struct args *a)
{
	struct virtio_rdma_cmd_create_cq req = { 0 };
	struct virtio_rdma_ack_create_cq ack;
	char err[160];

	CHECK(args_u32(a, "cqe", true, UINT32_MAX, &req.cqe));
	CHECK(args_done(a, 0));
	if (roce(g, VIRTIO_NET_CTRL_ROCE_CREATE_CQ, &req, sizeof(req), &ack, sizeof(ack)) < 0)
		return -1;
	if (ack.cqn >= g->config.max_rdma_cqs)
		return reply_fail(g, "cqn=%u: beyond max_rdma_cqs %u", ack.cqn, g->config.max_rdma_cqs);
	if (vq_setup(g, vq_cq_index(g, ack.cqn), VQ_KIND_CQ, sizeof(struct virtio_rdma_cq_req), err,
		     sizeof(err)) < 0)
		return reply_fail(g, "cqn=%u: %s", ack.cqn, err);
	return reply_ok("cqn=%u vq=%u", ack.cqn, vq_cq_index(g, ack.cqn));
}

/* Resets the queues of a destroyed CQ or QP and prints what GET_VRING_BASE said. */
static int reset_vqs(struct guest *g, const char *what, uint32_t handle, unsigned first,
		     unsigned count)
{
	char line[128] = "";
	size_t used = 0;
	unsigned i;

	for (i = 0; i < count; i++) {
		uint32_t base = 0;
		int r = vq_reset(g, first + i, &base);

		if (r == -ENOENT)
			return reply_fail(g, "%s=%u destroyed, but vq %u was not set up here", what,
					  handle, first + i);
		if (r < 0)
			return reply_fail(g, "%s=%u destroyed; GET_VRING_BASE vq %u: %s", what, handle,
					  first + i, strerror(-r));
		used += (size_t)snprintf(line + used, sizeof(line) - used, "%svq%u_base=%u",
					 i ? " " : "", first + i, base);
	}
	return reply_ok("%s", line);
}

static int cmd_destroy_cq(struct guest *g, struct args *a)
{
	struct virtio_rdma_cmd_destroy_cq req = { 0 };

	CHECK(args_u32(a, "cqn", true, UINT32_MAX, &req.cqn));
	CHECK(args_done(a, 0));
	if (roce(g, VIRTIO_NET_CTRL_ROCE_DESTROY_CQ, &req, sizeof(req), NULL, 0) < 0)
		return -1;
	return reset_vqs(g, "cqn", req.cqn, vq_cq_index(g, req.cqn), 1);
}

static int cmd_create_pd(struct guest *g, struct args *a)
{
	struct virtio_rdma_ack_create_pd ack;

	CHECK(args_done(a, 0));
	if (roce(g, VIRTIO_NET_CTRL_ROCE_CREATE_PD, NULL, 0, &ack, sizeof(ack)) < 0)
		return -1;
	return reply_ok("pdn=%u", ack.pdn);
}

static int cmd_destroy_pd(struct guest *g, struct args *a)
{
	struct virtio_rdma_cmd_destroy_pd req = { 0 };

	CHECK(args_u32(a, "pdn", true, UINT32_MAX, &req.pdn));
	CHECK(args_done(a, 0));
	if (roce(g, VIRTIO_NET_CTRL_ROCE_DESTROY_PD, &req, sizeof(req), NULL, 0) < 0)
		return -1;
	return reply_ok("%s", "");
}

static int reply_mr(const struct virtio_rdma_ack_mr *ack)
{
	return reply_ok("mrn=%u lkey=0x%x rkey=0x%x", ack->mrn, ack->lkey, ack->rkey);
}

static int cmd_get_dma_mr(struct guest *g, struct args *a)
{
	struct virtio_rdma_cmd_get_dma_mr req = { 0 };
	struct virtio_rdma_ack_mr ack;

	CHECK(args_u32(a, "pdn", true, UINT32_MAX, &req.pdn));
	CHECK(args_flags(a, "access", true, access_names, &req.access_flags));
	CHECK(args_done(a, 0));
	if (roce(g, VIRTIO_NET_CTRL_ROCE_GET_DMA_MR, &req, sizeof(req), &ack, sizeof(ack)) < 0)
		return -1;
	return reply_mr(&ack);
}

static int cmd_reg_user_mr(struct guest *g, struct args *a)
{
	struct virtio_rdma_cmd_reg_user_mr *req;
	struct virtio_rdma_ack_mr ack;
	const char *name = args_pos(a, 1);
	uint64_t offset = 0, length, first, last, i;
	uint32_t pdn = 0, access = 0;
	struct gbuf *b;
	int rc;

	if (!name)
		return reply_fail(g, "reg_user_mr: missing buffer NAME (see alloc)");
	b = gbuf_find(g, name);
	if (!b)
		return reply_fail(g, "no buffer named '%s' (see alloc)", name);
	length = b->bytes;
	CHECK(args_u32(a, "pdn", true, UINT32_MAX, &pdn));
	CHECK(args_flags(a, "access", true, access_names, &access));
	CHECK(args_num(a, "offset", false, b->bytes, &offset));
	CHECK(args_num(a, "length", false, UINT64_MAX, &length));
	CHECK(args_done(a, 1));
	if (!args_has(a, "length"))
		length = b->bytes - offset;
	if (length == 0 || length > b->bytes - offset)
		return reply_fail(g, "field length: %" PRIu64 " is not 1..%" PRIu64
				  " (what buffer %s holds from offset %" PRIu64 ")",
				  length, b->bytes - offset, name, offset);
	first = offset / GUEST_PAGE;
	last = (offset + length - 1) / GUEST_PAGE;
	req = calloc(1, sizeof(*req) + (last - first + 1) * sizeof(uint64_t));
	if (!req)
		return reply_errno(g, "reg_user_mr", ENOMEM);
	req->pdn = pdn;
	req->access_flags = access;
	req->virt_addr = b->va + offset;
	req->length = length;
	req->npages = (uint32_t)(last - first + 1);
	for (i = first; i <= last; i++)
		req->pages[i - first] = b->pages[i];
	rc = roce(g, VIRTIO_NET_CTRL_ROCE_REG_USER_MR, req,
		  sizeof(*req) + req->npages * sizeof(uint64_t), &ack, sizeof(ack));
	free(req);
	return rc < 0 ? -1 : reply_mr(&ack);
}

static int cmd_dereg_mr(struct guest *g, struct args *a)
{
	struct virtio_rdma_cmd_dereg_mr req = { 0 };

	CHECK(args_u32(a, "mrn", true, UINT32_MAX, &req.mrn));
	CHECK(args_done(a, 0));
	if (roce(g, VIRTIO_NET_CTRL_ROCE_DEREG_MR, &req, sizeof(req), NULL, 0) < 0)
		return -1;
	return reply_ok("%s", "");
}

/* The largest WQE a slot holds: the request and its SGEs. */
static size_t sq_slot(uint32_t sges)
{
	return sizeof(struct virtio_rdma_sq_req) + sges * sizeof(struct virtio_rdma_sge);
}

static size_t rq_slot(uint32_t sges)
{
	return sizeof(struct virtio_rdma_rq_req) + sges * sizeof(struct virtio_rdma_sge);
}

static int cmd_create_qp(struct guest *g, struct args *a)
{
	struct virtio_rdma_cmd_create_qp req = { 0 };
	struct virtio_rdma_ack_create_qp ack;
	uint32_t type = 0;
	char err[160];
	unsigned sq;

	req.cap.max_send_wr = req.cap.max_recv_wr = g->queue_size;
	req.cap.max_send_sge = req.cap.max_recv_sge = 4;
	CHECK(args_u32(a, "pdn", true, UINT32_MAX, &req.pdn));
	CHECK(args_enum(a, "type", true, qp_types, &type));
	CHECK(args_u32(a, "send_cqn", true, UINT32_MAX, &req.send_cqn));
	CHECK(args_u32(a, "recv_cqn", true, UINT32_MAX, &req.recv_cqn));
	CHECK(args_u8(a, "sq_sig_all", false, 1, &req.sq_sig_all));
	CHECK(args_u32(a, "max_send_wr", false, UINT32_MAX, &req.cap.max_send_wr));
	CHECK(args_u32(a, "max_recv_wr", false, UINT32_MAX, &req.cap.max_recv_wr));
	/* What a slot can hold: more would be the device's to refuse, not ours to post. */
	CHECK(args_u32(a, "max_send_sge", false, 64, &req.cap.max_send_sge));
	CHECK(args_u32(a, "max_recv_sge", false, 64, &req.cap.max_recv_sge));
	CHECK(args_u32(a, "max_inline_data", false, UINT32_MAX, &req.cap.max_inline_data));
	CHECK(args_done(a, 0));
	req.qp_type = (uint8_t)type;
	if (roce(g, VIRTIO_NET_CTRL_ROCE_CREATE_QP, &req, sizeof(req), &ack, sizeof(ack)) < 0)
		return -1;
	if (ack.qpn >= g->config.max_rdma_qps)
		return reply_fail(g, "qpn=%u: beyond max_rdma_qps %u", ack.qpn, g->config.max_rdma_qps);
	sq = vq_sq_index(g, ack.qpn);
	if (vq_setup(g, sq, VQ_KIND_SQ, sq_slot(req.cap.max_send_sge ? req.cap.max_send_sge : 1),
		     err, sizeof(err)) < 0)
		return reply_fail(g, "qpn=%u: %s", ack.qpn, err);
	if (vq_setup(g, sq + 1, VQ_KIND_RQ, rq_slot(req.cap.max_recv_sge ? req.cap.max_recv_sge : 1),
		     err, sizeof(err)) < 0)
		return reply_fail(g, "qpn=%u: %s", ack.qpn, err);
	return reply_ok("qpn=%u sq_vq=%u rq_vq=%u", ack.qpn, sq, sq + 1);
}

/* The address vector fields of modify_qp and create_ah; true if any was given. */
static int parse_ah(struct args *a, struct virtio_rdma_ah_attr *ah, bool *given)
{
	static const char *const keys[] = {
		"dgid", "dmac", "sgid_index", "hop_limit", "traffic_class", "flow_label",
	};
	unsigned i;

	*given = false;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		*given |= args_has(a, keys[i]);
	if (args_gid(a, "dgid", false, ah->grh.dgid) < 0 ||
	    args_mac(a, "dmac", false, ah->dmac) < 0 ||
	    args_u8(a, "sgid_index", false, UINT8_MAX, &ah->grh.sgid_index) < 0 ||
	    args_u8(a, "hop_limit", false, UINT8_MAX, &ah->grh.hop_limit) < 0 ||
	    args_u8(a, "traffic_class", false, UINT8_MAX, &ah->grh.traffic_class) < 0 ||
	    args_u32(a, "flow_label", false, 0xfffff, &ah->grh.flow_label) < 0)
		return -1;
	return 0;
}

/* A u8 attribute of modify_qp: sets its mask bit when given. */
static int attr_u8(struct args *a, const char *key, uint32_t bit, uint8_t max, uint8_t *field,
		   uint32_t *mask)
{
	if (args_has(a, key))
		*mask |= bit;
	return args_u8(a, key, false, max, field);
}

static int attr_u32(struct args *a, const char *key, uint32_t bit, uint32_t max, uint32_t *field,
		    uint32_t *mask)
{
	if (args_has(a, key))
		*mask |= bit;
	return args_u32(a, key, false, max, field);
}

static int cmd_modify_qp(struct guest *g, struct args *a)
{
	struct virtio_rdma_cmd_modify_qp req = { 0 };
	uint32_t mask = 0, v = 0;
	bool av;

	CHECK(args_u32(a, "qpn", true, UINT32_MAX, &req.qpn));
	if (args_has(a, "state"))
		mask |= VIRTIO_IB_QP_STATE;
	CHECK(args_enum(a, "state", false, qp_states, &v));
	req.qp_state = (uint8_t)v;
	if (args_has(a, "cur_state"))
		mask |= VIRTIO_IB_QP_CUR_STATE;
	v = 0;
	CHECK(args_enum(a, "cur_state", false, qp_states, &v));
	req.cur_qp_state = (uint8_t)v;
	if (args_has(a, "path_mtu"))
		mask |= VIRTIO_IB_QP_PATH_MTU;
	v = 0;
	CHECK(args_enum(a, "path_mtu", false, mtus, &v));
	req.path_mtu = (uint8_t)v;
	if (args_has(a, "access"))
		mask |= VIRTIO_IB_QP_ACCESS_FLAGS;
	CHECK(args_flags(a, "access", false, access_names, &req.qp_access_flags));
	CHECK(attr_u32(a, "qkey", VIRTIO_IB_QP_QKEY, UINT32_MAX, &req.qkey, &mask));
	CHECK(attr_u32(a, "dest_qpn", VIRTIO_IB_QP_DEST_QPN, 0xffffff, &req.dest_qp_num, &mask));
	CHECK(attr_u32(a, "rq_psn", VIRTIO_IB_QP_RQ_PSN, 0xffffff, &req.rq_psn, &mask));
	CHECK(attr_u32(a, "sq_psn", VIRTIO_IB_QP_SQ_PSN, 0xffffff, &req.sq_psn, &mask));
	CHECK(attr_u32(a, "rate_limit", VIRTIO_IB_QP_RATE_LIMIT, UINT32_MAX, &req.rate_limit, &mask));
	CHECK(attr_u8(a, "timeout", VIRTIO_IB_QP_TIMEOUT, 31, &req.timeout, &mask));
	CHECK(attr_u8(a, "retry_cnt", VIRTIO_IB_QP_RETRY_CNT, 7, &req.retry_cnt, &mask));
	CHECK(attr_u8(a, "rnr_retry", VIRTIO_IB_QP_RNR_RETRY, 7, &req.rnr_retry, &mask));
	CHECK(attr_u8(a, "min_rnr_timer", VIRTIO_IB_QP_MIN_RNR_TIMER, 31, &req.min_rnr_timer, &mask));
	CHECK(attr_u8(a, "max_rd_atomic", VIRTIO_IB_QP_MAX_QP_RD_ATOMIC, UINT8_MAX,
		      &req.max_rd_atomic, &mask));
	CHECK(attr_u8(a, "max_dest_rd_atomic", VIRTIO_IB_QP_MAX_DEST_RD_ATOMIC, UINT8_MAX,
		      &req.max_dest_rd_atomic, &mask));
	CHECK(parse_ah(a, &req.ah_attr, &av));
	if (av)
		mask |= VIRTIO_IB_QP_AV;
	CHECK(args_u32(a, "mask", false, UINT32_MAX, &mask));
	CHECK(args_done(a, 0));
	req.attr_mask = mask;
	if (roce(g, VIRTIO_NET_CTRL_ROCE_MODIFY_QP, &req, sizeof(req), NULL, 0) < 0)
		return -1;
	return reply_ok("mask=0x%x", mask);
}

static int cmd_query_qp(struct guest *g, struct args *a)
{
	struct virtio_rdma_cmd_query_qp req = { .attr_mask = 0x1ffff };
	struct virtio_rdma_ack_query_qp q;
	char st[16], mtu[16], acc[64], dgid[64];
	const struct virtio_rdma_ah_attr *ah = &q.ah_attr;

	CHECK(args_u32(a, "qpn", true, UINT32_MAX, &req.qpn));
	CHECK(args_u32(a, "mask", false, UINT32_MAX, &req.attr_mask));
	CHECK(args_done(a, 0));
	if (roce(g, VIRTIO_NET_CTRL_ROCE_QUERY_QP, &req, sizeof(req), &q, sizeof(q)) < 0)
		return -1;
	gid_text(ah->grh.dgid, dgid, sizeof(dgid));
	return reply_ok("state=%s path_mtu=%s sq_draining=%u max_rd_atomic=%u max_dest_rd_atomic=%u"
			" min_rnr_timer=%u timeout=%u retry_cnt=%u rnr_retry=%u qkey=0x%x rq_psn=%u"
			" sq_psn=%u dest_qpn=%u access=%s rate_limit=%u max_send_wr=%u"
			" max_recv_wr=%u max_send_sge=%u max_recv_sge=%u max_inline_data=%u"
			" dgid=%s flow_label=%u sgid_index=%u hop_limit=%u traffic_class=%u"
			" dmac=%02x:%02x:%02x:%02x:%02x:%02x",
			enum_text(qp_states, q.qp_state, st, sizeof(st)),
			enum_text(mtus, q.path_mtu, mtu, sizeof(mtu)), q.sq_draining, q.max_rd_atomic,
			q.max_dest_rd_atomic, q.min_rnr_timer, q.timeout, q.retry_cnt, q.rnr_retry,
			q.qkey, q.rq_psn, q.sq_psn, q.dest_qp_num,
			bits_text(access_names, q.qp_access_flags, acc, sizeof(acc)), q.rate_limit,
			q.cap.max_send_wr, q.cap.max_recv_wr, q.cap.max_send_sge, q.cap.max_recv_sge,
			q.cap.max_inline_data, dgid, ah->grh.flow_label, ah->grh.sgid_index,
			ah->grh.hop_limit, ah->grh.traffic_class, ah->dmac[0], ah->dmac[1],
			ah->dmac[2], ah->dmac[3], ah->dmac[4], ah->dmac[5]);
}

static int cmd_destroy_qp(struct guest *g, struct args *a)
{
	struct virtio_rdma_cmd_destroy_qp req = { 0 };

	CHECK(args_u32(a, "qpn", true, UINT32_MAX, &req.qpn));
	CHECK(args_done(a, 0));
	if (roce(g, VIRTIO_NET_CTRL_ROCE_DESTROY_QP, &req, sizeof(req), NULL, 0) < 0)
		return -1;
	return reset_vqs(g, "qpn", req.qpn, vq_sq_index(g, req.qpn), 2);
}

static int cmd_create_ah(struct guest *g, struct args *a)
{
	struct virtio_rdma_cmd_create_ah req = { 0 };
	struct virtio_rdma_ack_create_ah ack;
	bool av;

	CHECK(args_u32(a, "pdn", true, UINT32_MAX, &req.pdn));
	if (!args_has(a, "dgid"))
		return reply_fail(g, "missing field dgid=");
	CHECK(parse_ah(a, &req.ah_attr, &av));
	CHECK(args_done(a, 0));
	if (roce(g, VIRTIO_NET_CTRL_ROCE_CREATE_AH, &req, sizeof(req), &ack, sizeof(ack)) < 0)
		return -1;
	return reply_ok("ah=%u", ack.ah);
}

static int cmd_destroy_ah(struct guest *g, struct args *a)
{
	struct virtio_rdma_cmd_destroy_ah req = { 0 };

	CHECK(args_u32(a, "pdn", true, UINT32_MAX, &req.pdn));
	CHECK(args_u32(a, "ah", true, UINT32_MAX, &req.ah));
	CHECK(args_done(a, 0));
	if (roce(g, VIRTIO_NET_CTRL_ROCE_DESTROY_AH, &req, sizeof(req), NULL, 0) < 0)
		return -1;
	return reply_ok("%s", "");
}

static int cmd_add_gid(struct guest *g, struct args *a)
{
	struct virtio_rdma_cmd_add_gid req = { 0 };
	uint32_t index = 0;

	CHECK(args_u32(a, "index", true, UINT16_MAX, &index));
	CHECK(args_gid(a, "gid", true, req.gid));
	CHECK(args_done(a, 0));
	req.index = (uint16_t)index;
	if (roce(g, VIRTIO_NET_CTRL_ROCE_ADD_GID, &req, sizeof(req), NULL, 0) < 0)
		return -1;
	return reply_ok("%s", "");
}

static int cmd_del_gid(struct guest *g, struct args *a)
{
	struct virtio_rdma_cmd_del_gid req = { 0 };
	uint32_t index = 0;

	CHECK(args_u32(a, "index", true, UINT16_MAX, &index));
	CHECK(args_done(a, 0));
	req.index = (uint16_t)index;
	if (roce(g, VIRTIO_NET_CTRL_ROCE_DEL_GID, &req, sizeof(req), NULL, 0) < 0)
		return -1;
	return reply_ok("%s", "");
}

int roce_req_notify_cq(struct guest *g, uint32_t cqn, uint32_t flags)
{
	struct virtio_rdma_cmd_req_notify req = { .cqn = cqn, .flags = flags };

	return roce(g, VIRTIO_NET_CTRL_ROCE_REQ_NOTIFY_CQ, &req, sizeof(req), NULL, 0);
}

static int cmd_req_notify_cq(struct guest *g, struct args *a)
{
	uint32_t cqn, flags;

	CHECK(args_u32(a, "cqn", true, UINT32_MAX, &cqn));
	CHECK(args_flags(a, "flags", true, notify_flags, &flags));
	CHECK(args_done(a, 0));
	if (roce_req_notify_cq(g, cqn, flags) < 0)
		return -1;
	return reply_ok("%s", "");
}

/* raw_ctrl CLASS CMD HEX|- [ack_len=N]: prints the ack byte and what the device wrote. */
static int cmd_raw_ctrl(struct guest *g, struct args *a)
{
	const char *cls_s = args_pos(a, 1), *cmd_s = args_pos(a, 2), *hex = args_pos(a, 3);
	uint8_t req[8192], ack_data[GUEST_PAGE];
	uint64_t cls, cmd;
	uint32_t ack_len = 0;
	struct ctrl_result res;
	size_t written;
	long len = 0;
	int r;

	if (!cls_s || !cmd_s || !hex)
		return reply_fail(g, "usage: raw_ctrl CLASS CMD HEX|- [ack_len=N]");
	if (parse_num(cls_s, &cls) < 0 || cls > 255 || parse_num(cmd_s, &cmd) < 0 || cmd > 255)
		return reply_fail(g, "raw_ctrl: CLASS and CMD are numbers 0..255");
	if (strcmp(hex, "-") && (len = parse_hex(hex, req, sizeof(req))) < 0)
		return reply_fail(g, "raw_ctrl: '%s' is not hex bytes (at most %zu) or -", hex,
				  sizeof(req));
	CHECK(args_u32(a, "ack_len", false, GUEST_PAGE, &ack_len));
	CHECK(args_done(a, 3));
	if (!g->started)
		return reply_fail(g, "start first");
	r = ctrl_exec(g, (uint8_t)cls, (uint8_t)cmd, req, (size_t)len, ack_data, ack_len, &res);
	if (r == -ETIMEDOUT)
		return reply_fail(g, "timeout: not used within %d ms", CTRL_TIMEOUT_MS);
	if (r < 0)
		return reply_errno(g, "raw_ctrl", r);
	if (res.ack != VIRTIO_NET_OK)
		return reply_fail(g, "ack=%u len=%u", res.ack, res.used_len);
	written = res.used_len > 1 ? res.used_len - 1 : 0;
	printf("ok ack=0 len=%u data=", res.used_len);
	print_hex(ack_data, written < ack_len ? written : ack_len);
	putchar('\n');
	fflush(stdout);
	return 0;
}

const struct command roce_commands[] = {
	{ "query_device", cmd_query_device },
	{ "query_port", cmd_query_port },
	{ "create_cq", cmd_create_cq },
	{ "destroy_cq", cmd_destroy_cq },
	{ "create_pd", cmd_create_pd },
	{ "destroy_pd", cmd_destroy_pd },
	{ "get_dma_mr", cmd_get_dma_mr },
	{ "reg_user_mr", cmd_reg_user_mr },
	{ "dereg_mr", cmd_dereg_mr },
	{ "create_qp", cmd_create_qp },
	{ "modify_qp", cmd_modify_qp },
	{ "query_qp", cmd_query_qp },
	{ "destroy_qp", cmd_destroy_qp },
	{ "create_ah", cmd_create_ah },
	{ "destroy_ah", cmd_destroy_ah },
	{ "add_gid", cmd_add_gid },
	{ "del_gid", cmd_del_gid },
	{ "req_notify_cq", cmd_req_notify_cq },
	{ "raw_ctrl", cmd_raw_ctrl },
	{ NULL, NULL },
};
