/* SPDX-License-Identifier: MIT */
/*
 * wqe.c - the RDMA data path as the seed's guest driver drives it: one
 * device-readable descriptor per WQE on a QP's send or receive virtqueue
 * (virtio_rdma_sq_req or virtio_rdma_rq_req with its SGEs behind it), and
 * completions as used 48-byte buffers of the CQ's virtqueue, each posted
 * again once read.  Commands post_send, post_recv, poll, wait_event.
 */
#include "guest.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SGE_MAX	64

static const struct name_value wr_opcodes[] = {
	{ "write", VIRTIO_IB_WR_RDMA_WRITE }, { "write_imm", VIRTIO_IB_WR_RDMA_WRITE_WITH_IMM },
	{ "send", VIRTIO_IB_WR_SEND }, { "send_imm", VIRTIO_IB_WR_SEND_WITH_IMM },
	{ "read", VIRTIO_IB_WR_RDMA_READ }, { NULL, 0 },
};

static const struct name_value send_flags[] = {
	{ "fence", VIRTIO_IB_SEND_FENCE }, { "signaled", VIRTIO_IB_SEND_SIGNALED },
	{ "solicited", VIRTIO_IB_SEND_SOLICITED }, { "inline", VIRTIO_IB_SEND_INLINE },
	{ NULL, 0 },
};

static const char *const wc_status[] = {
	"success", "loc_len_err", "loc_qp_op_err", "loc_prot_err", "wr_flush_err",
	"bad_resp_err", "loc_access_err", "rem_inv_req_err", "rem_access_err", "rem_op_err",
	"retry_exc_err", "rnr_retry_exc_err", "rem_abort_err", "fatal_err", "resp_timeout_err",
	"general_err",
};

static const char *const wc_opcodes[] = {
	"send", "rdma_write", "rdma_read", "recv", "recv_rdma_with_imm",
};

struct vq *qp_vq(struct guest *g, uint32_t qpn, enum vq_kind kind)
{
	if (!g->started || !HAS(g, VIRTIO_NET_F_ROCE) || qpn >= g->config.max_rdma_qps)
		return NULL;
	return vq_get(g, vq_sq_index(g, qpn) + (kind == VQ_KIND_RQ), kind);
}

/* Adds the slot of the next head holding len bytes of wqe; no kick. */
static int post_wqe(struct guest *g, struct vq *q, const void *wqe, size_t len)
{
	int head;

	if (len > q->slot_size)
		return -E2BIG;
	vq_reap(q);
	head = vring_peek_head(&q->ring);
	if (head < 0)
		return head;
	memcpy(vq_slot(g, q, (unsigned)head), wqe, len);
	return vq_post_slot(g, q, (uint32_t)len, false);
}

int wqe_post_send(struct guest *g, struct vq *sq, const struct virtio_rdma_sq_req *wr,
		  const struct virtio_rdma_sge *sges, unsigned nsge)
{
	uint8_t wqe[sizeof(*wr) + SGE_MAX * sizeof(*sges)];

	if (nsge > SGE_MAX)
		return -E2BIG;
	memcpy(wqe, wr, sizeof(*wr));
	memcpy(wqe + sizeof(*wr), sges, nsge * sizeof(*sges));
	return post_wqe(g, sq, wqe, sizeof(*wr) + nsge * sizeof(*sges));
}

int wqe_post_recv(struct guest *g, struct vq *rq, uint64_t wr_id, const struct virtio_rdma_sge *sges,
		  unsigned nsge)
{
	uint8_t wqe[sizeof(struct virtio_rdma_rq_req) + SGE_MAX * sizeof(struct virtio_rdma_sge)];
	struct virtio_rdma_rq_req wr = { .wr_id = wr_id, .num_sge = nsge };

	if (nsge > SGE_MAX)
		return -E2BIG;
	memcpy(wqe, &wr, sizeof(wr));
	memcpy(wqe + sizeof(wr), sges, nsge * sizeof(*sges));
	return post_wqe(g, rq, wqe, sizeof(wr) + nsge * sizeof(*sges));
}

int cq_take(struct guest *g, struct vq *cq, struct virtio_rdma_cq_req *cqe, uint32_t *len)
{
	int head = vring_get_used(&cq->ring, len, NULL);

	if (head < 0)
		return head;
	memcpy(cqe, vq_slot(g, cq, (unsigned)head), sizeof(*cqe));
	/* The same buffer goes back, as the driver's poll_cq does. */
	memset(vq_slot(g, cq, (unsigned)head), 0, sizeof(*cqe));
	vq_post_slot(g, cq, sizeof(*cqe), true);
	return 0;
}

/* sge=NAME:OFFSET:LEN:LKEY[:pa], or ADDR:0:LEN:LKEY with a number for the
 * address.  The address is the buffer's guest-virtual one (for REG_USER_MR
 * keys) or with :pa its guest-physical one (for a DMA MR); it is not checked
 * against the buffer: the device must check it. */
static int parse_sge(struct guest *g, const char *text, struct virtio_rdma_sge *sge, char *err,
		     size_t errlen)
{
	char copy[128], *parts[6], *save = NULL, *p;
	uint64_t off, len, lkey, base;
	unsigned n = 0;
	struct gbuf *b;

	snprintf(copy, sizeof(copy), "%s", text);
	for (p = strtok_r(copy, ":", &save); p && n < 6; p = strtok_r(NULL, ":", &save))
		parts[n++] = p;
	if ((n != 4 && n != 5) || (n == 5 && strcmp(parts[4], "pa")) ||
	    parse_num(parts[1], &off) < 0 || parse_num(parts[2], &len) < 0 || len > UINT32_MAX ||
	    parse_num(parts[3], &lkey) < 0 || lkey > UINT32_MAX) {
		snprintf(err, errlen, "field sge: '%s' is not NAME:OFFSET:LEN:LKEY[:pa]", text);
		return -1;
	}
	b = gbuf_find(g, parts[0]);
	if (b && n == 5) {
		if (off >= b->bytes) {
			snprintf(err, errlen, "field sge: offset %" PRIu64 " is past %s", off, b->name);
			return -1;
		}
		base = b->pages[off / GUEST_PAGE] + off % GUEST_PAGE;
	} else if (b) {
		base = b->va + off;
	} else if (parse_num(parts[0], &base) == 0) {
		base += off;
	} else {
		snprintf(err, errlen, "field sge: no buffer named '%s' (see alloc)", parts[0]);
		return -1;
	}
	sge->addr = base;
	sge->length = (uint32_t)len;
	sge->lkey = (uint32_t)lkey;
	return 0;
}

static int parse_sges(struct guest *g, struct args *a, struct virtio_rdma_sge *sges, unsigned *n)
{
	unsigned iter = 1;
	const char *v;

	*n = 0;
	while ((v = args_next(a, "sge", &iter))) {
		if (*n == SGE_MAX) {
			snprintf(a->err, sizeof(a->err), "field sge: at most %d", SGE_MAX);
			return -1;
		}
		if (parse_sge(g, v, &sges[(*n)++], a->err, sizeof(a->err)) < 0)
			return -1;
	}
	return 0;
}

static int posted(struct guest *g, struct vq *q, int r, const char *what)
{
	if (r == -ENOSPC)
		return reply_fail(g, "%s: queue full (%u WQEs in flight)", what, q->ring.num);
	if (r == -E2BIG)
		return reply_fail(g, "%s: more SGEs than the QP was created with", what);
	if (r < 0)
		return reply_errno(g, what, r);
	vq_kick_if_needed(q);
	return reply_ok("%s", "");
}

static int cmd_post_send(struct guest *g, struct args *a)
{
	struct virtio_rdma_sq_req wr = { 0 };
	struct virtio_rdma_sge sges[SGE_MAX];
	uint32_t qpn = 0, opcode = 0, flags = 0, imm = 0;
	const char *remote = NULL, *inl = NULL;
	unsigned nsge;
	struct vq *sq;
	long len;

	CHECK(args_u32(a, "qpn", true, UINT32_MAX, &qpn));
	CHECK(args_enum(a, "opcode", true, wr_opcodes, &opcode));
	CHECK(args_num(a, "wr_id", true, UINT64_MAX, &wr.wr_id));
	CHECK(args_flags(a, "flags", false, send_flags, &flags));
	CHECK(args_u32(a, "imm", false, UINT32_MAX, &imm));
	CHECK(args_str(a, "remote_addr", false, &remote));
	CHECK(args_u32(a, "rkey", false, UINT32_MAX, &wr.rdma.rkey));
	if (remote && gbuf_addr(g, remote, &wr.rdma.remote_addr) < 0)
		return reply_fail(g, "field remote_addr: '%s' is not a number or NAME[+OFFSET]", remote);
	if (args_has(a, "ud_qpn") || args_has(a, "ud_qkey") || args_has(a, "ah")) {
		if (remote || args_has(a, "rkey"))
			return reply_fail(g, "remote_addr/rkey and ud_qpn/ud_qkey/ah share the WQE's union: give one set");
		CHECK(args_u32(a, "ud_qpn", false, 0xffffff, &wr.ud.remote_qpn));
		CHECK(args_u32(a, "ud_qkey", false, UINT32_MAX, &wr.ud.remote_qkey));
		CHECK(args_u32(a, "ah", false, UINT32_MAX, &wr.ud.ah));
	}
	CHECK(parse_sges(g, a, sges, &nsge));
	CHECK(args_str(a, "inline", false, &inl));
	CHECK(args_done(a, 0));
	sq = qp_vq(g, qpn, VQ_KIND_SQ);
	if (!sq)
		return reply_fail(g, "qpn=%u: no send queue set up here (create_qp)", qpn);
	wr.opcode = (uint8_t)opcode;
	wr.imm_data = htonl(imm);
	if (inl) {
		if (nsge)
			return reply_fail(g, "inline and sge exclude each other");
		len = parse_hex(inl, wr.inline_data, sizeof(wr.inline_data));
		if (len < 0)
			return reply_fail(g, "field inline: hex bytes, at most %d", VIRTIO_RDMA_INLINE_MAX);
		flags |= VIRTIO_IB_SEND_INLINE;
		wr.inline_len = (uint16_t)len;
	} else {
		wr.num_sge = nsge;
	}
	wr.send_flags = (uint8_t)flags;
	return posted(g, sq, wqe_post_send(g, sq, &wr, sges, nsge), "post_send");
}

static int cmd_post_recv(struct guest *g, struct args *a)
{
	struct virtio_rdma_sge sges[SGE_MAX];
	uint64_t wr_id = 0;
	uint32_t qpn = 0;
	unsigned nsge;
	struct vq *rq;

	CHECK(args_u32(a, "qpn", true, UINT32_MAX, &qpn));
	CHECK(args_num(a, "wr_id", true, UINT64_MAX, &wr_id));
	CHECK(parse_sges(g, a, sges, &nsge));
	CHECK(args_done(a, 0));
	rq = qp_vq(g, qpn, VQ_KIND_RQ);
	if (!rq)
		return reply_fail(g, "qpn=%u: no receive queue set up here (create_qp)", qpn);
	return posted(g, rq, wqe_post_recv(g, rq, wr_id, sges, nsge), "post_recv");
}

/* post_raw qpn= queue=send|recv hex=HEX: HEX as the WQE's bytes, whatever they are (a hostile driver's). */
static int cmd_post_raw(struct guest *g, struct args *a)
{
	uint8_t bytes[sizeof(struct virtio_rdma_sq_req) + SGE_MAX * sizeof(struct virtio_rdma_sge)];
	const char *queue = NULL, *hex = NULL;
	uint32_t qpn = 0;
	struct vq *q;
	long len;

	CHECK(args_u32(a, "qpn", true, UINT32_MAX, &qpn));
	CHECK(args_str(a, "queue", true, &queue));
	CHECK(args_str(a, "hex", true, &hex));
	CHECK(args_done(a, 0));
	if (strcmp(queue, "send") && strcmp(queue, "recv"))
		return reply_fail(g, "field queue: '%s' is not one of send, recv", queue);
	len = parse_hex(hex, bytes, sizeof(bytes));
	if (len <= 0)
		return reply_fail(g, "field hex: '%s' is not 1 to %zu bytes of hex", hex, sizeof(bytes));
	q = qp_vq(g, qpn, strcmp(queue, "send") ? VQ_KIND_RQ : VQ_KIND_SQ);
	if (!q)
		return reply_fail(g, "qpn=%u: no %s queue set up here (create_qp)", qpn, queue);
	return posted(g, q, post_wqe(g, q, bytes, (size_t)len), "post_raw");
}

static struct vq *cq_vq(struct guest *g, uint32_t cqn)
{
	if (!g->started || !HAS(g, VIRTIO_NET_F_ROCE) || cqn >= g->config.max_rdma_cqs)
		return NULL;
	return vq_get(g, vq_cq_index(g, cqn), VQ_KIND_CQ);
}

static void print_cqe(const struct virtio_rdma_cq_req *c, uint32_t len)
{
	char status[16], opcode[16], extra[24] = "";

	if (c->status < sizeof(wc_status) / sizeof(wc_status[0]))
		snprintf(status, sizeof(status), "%s", wc_status[c->status]);
	else
		snprintf(status, sizeof(status), "%u", c->status);
	if (c->opcode < sizeof(wc_opcodes) / sizeof(wc_opcodes[0]))
		snprintf(opcode, sizeof(opcode), "%s", wc_opcodes[c->opcode]);
	else
		snprintf(opcode, sizeof(opcode), "%u", c->opcode);
	if (len != sizeof(*c))
		snprintf(extra, sizeof(extra), " len=%u", len);
	reply_line("cqe wr_id=%" PRIu64 " status=%s opcode=%s byte_len=%u imm=%u qp_num=%u src_qp=%u"
		   " wc_flags=0x%x vendor_err=%u%s",
		   c->wr_id, status, opcode, c->byte_len, ntohl(c->imm_data), c->qp_num, c->src_qp,
		   c->wc_flags, c->vendor_err, extra);
}

/* poll cqn= [n=1] [timeout_ms=2000]: n=0 takes what is there now. */
static int cmd_poll(struct guest *g, struct args *a)
{
	struct virtio_rdma_cq_req cqe;
	uint32_t cqn = 0, n = 1, timeout = POLL_TIMEOUT_MS, got = 0, len;
	struct vq *cq;
	int64_t deadline;
	int r = 0;

	CHECK(args_u32(a, "cqn", true, UINT32_MAX, &cqn));
	CHECK(args_u32(a, "n", false, 65536, &n));
	CHECK(args_u32(a, "timeout_ms", false, 3600000, &timeout));
	CHECK(args_done(a, 0));
	cq = cq_vq(g, cqn);
	if (!cq)
		return reply_fail(g, "cqn=%u: no CQ set up here (create_cq)", cqn);
	deadline = now_ms() + timeout;
	for (;;) {
		while ((!n || got < n) && (r = cq_take(g, cq, &cqe, &len)) == 0) {
			print_cqe(&cqe, len);
			got++;
		}
		if (r == -EIO || n == 0 || got == n)
			break;
		r = vq_wait_ready(g, cq, (int)(deadline - now_ms()));
		if (r < 0)
			break;
	}
	vq_kick_if_needed(cq);
	if (r == -EPIPE)
		return reply_fail(g, "closed");
	if (r == -EIO)
		return reply_fail(g, "polled=%u; the device's used ring named a buffer not posted", got);
	if (n && got < n)
		return reply_fail(g, "timeout polled=%u", got);
	return reply_ok("polled=%u", got);
}

static int cmd_wait_event(struct guest *g, struct args *a)
{
	uint32_t cqn = 0, timeout = POLL_TIMEOUT_MS;
	struct vq *cq;
	int r;

	CHECK(args_u32(a, "cqn", true, UINT32_MAX, &cqn));
	CHECK(args_u32(a, "timeout_ms", false, 3600000, &timeout));
	CHECK(args_done(a, 0));
	cq = cq_vq(g, cqn);
	if (!cq)
		return reply_fail(g, "cqn=%u: no CQ set up here (create_cq)", cqn);
	r = vq_wait_call(g, cq, (int)timeout);
	if (r == -ETIMEDOUT)
		return reply_fail(g, "timeout");
	if (r < 0)
		return reply_errno(g, "wait_event", r);
	return reply_ok("%s", "");
}

const struct command wqe_commands[] = {
	{ "post_send", cmd_post_send },
	{ "post_recv", cmd_post_recv },
	{ "post_raw", cmd_post_raw },
	{ "poll", cmd_poll },
	{ "wait_event", cmd_wait_event },
	{ NULL, NULL },
};
