/* SPDX-License-Identifier: MIT */
#include "daemon/vdev/wqe.h"
#include "daemon/vdev/roce_wire.h"

#include <errno.h>
#include <string.h>

#define GUEST_SEND_FLAGS (DP_SEND_FENCE | DP_SEND_SIGNALED | DP_SEND_SOLICITED | DP_SEND_INLINE)

/* The n SGEs at in (the guest's bytes: no alignment to rely on) as post.c takes them. */
static void sges_in(const uint8_t *in, uint32_t n, vdev_key_iova_fn key_iova, void *data,
		    struct rdma_dp_sge *out)
{
	for (uint32_t i = 0; i < n; i++) {
		struct dp_sge g;

		memcpy(&g, in + i * sizeof(g), sizeof(g));
		out[i] = (struct rdma_dp_sge){
			.key = le32(g.lkey), .offset = le64(g.addr) - key_iova(data, le32(g.lkey)),
			.length = le32(g.length),
		};
	}
}

/* Where a send WQE's fields lie: its fixed head, its inline data, its count, its SGEs. */
#define SQ_HEAD   offsetof(struct dp_sq_req, inline_data)
#define SQ_COUNT  offsetof(struct dp_sq_req, num_sge)
#define SQ_SGES   sizeof(struct dp_sq_req)

unsigned vdev_wqe_send_spans(const uint8_t *wqe, size_t len, struct vdev_wqe_span spans[2])
{
	uint8_t flags;
	uint32_t n;

	if (!wqe) {
		spans[0] = (struct vdev_wqe_span){ 0, SQ_HEAD };
		spans[1] = (struct vdev_wqe_span){ SQ_COUNT, sizeof(uint32_t) };
		return 2;
	}
	flags = wqe[offsetof(struct dp_sq_req, send_flags)];
	if (flags & DP_SEND_INLINE) {
		uint16_t inline_len;

		memcpy(&inline_len, wqe + SQ_COUNT, sizeof(inline_len));
		spans[0] = (struct vdev_wqe_span){ SQ_HEAD, le16(inline_len) < DP_INLINE_MAX ?
							    le16(inline_len) : DP_INLINE_MAX };
		return 1;
	}
	memcpy(&n, wqe + SQ_COUNT, sizeof(n));
	n = le32(n) < VDEV_WQE_SGES_MAX ? le32(n) : VDEV_WQE_SGES_MAX;
	if (len < SQ_SGES)
		n = 0;
	else if (len < SQ_SGES + n * sizeof(struct dp_sge))
		n = (uint32_t)((len - SQ_SGES) / sizeof(struct dp_sge));
	spans[0] = (struct vdev_wqe_span){ SQ_SGES, n * (uint32_t)sizeof(struct dp_sge) };
	return n ? 1 : 0;
}

uint64_t vdev_wqe_wr_id(const uint8_t *wqe, size_t len)
{
	uint64_t wr_id = 0;

	if (len >= sizeof(wr_id))
		memcpy(&wr_id, wqe, sizeof(wr_id));
	return le64(wr_id);
}

int vdev_wqe_read_send(struct virtqueue *vq, const struct vq_chain *c, uint8_t *wqe, size_t len)
{
	struct vdev_wqe_span spans[2];
	unsigned n;
	int r = 0;

	if (len < SQ_SGES)
		return vq_chain_read(vq, c, 0, wqe, len);
	n = vdev_wqe_send_spans(NULL, len, spans);

	for (unsigned i = 0; i < n && r == 0; i++)
		r = vq_chain_read(vq, c, spans[i].offset, wqe + spans[i].offset, spans[i].len);
	if (r < 0)
		return r;
	/* The fixed fields are in: they say what else to read. */
	n = vdev_wqe_send_spans(wqe, len, spans);
	for (unsigned i = 0; i < n && r == 0; i++)
		r = vq_chain_read(vq, c, spans[i].offset, wqe + spans[i].offset, spans[i].len);
	return r;
}

int vdev_wqe_send(const uint8_t *wqe, size_t len, bool ud, vdev_key_iova_fn key_iova, void *data,
		  struct rdma_dp_sge *sges, struct rdma_dp_send_wr *out)
{
	struct dp_sq_req req;   /* its fixed fields only: the inline data stays in wqe */
	uint32_t n = 0;
	bool inl, remote;

	memset(out, 0, sizeof(*out));
	if (len < SQ_SGES)
		return -EINVAL;
	memcpy(&req, wqe, SQ_HEAD);
	memcpy(&req.num_sge, wqe + SQ_COUNT, sizeof(req.num_sge));
	out->wr_id = le64(req.wr_id);
	out->opcode = req.opcode <= DP_WR_RDMA_READ ? req.opcode : DP_WR_SEND;
	inl = req.send_flags & DP_SEND_INLINE;
	if (!inl)
		n = le32(req.num_sge);
	if (req.opcode > DP_WR_RDMA_READ || (req.send_flags & ~GUEST_SEND_FLAGS) ||
	    (inl && le16(req.inline_len) > DP_INLINE_MAX) || n > VDEV_WQE_SGES_MAX ||
	    len < SQ_SGES + n * sizeof(struct dp_sge))
		return -EINVAL;
	remote = req.opcode == DP_WR_RDMA_WRITE || req.opcode == DP_WR_RDMA_WRITE_WITH_IMM ||
		 req.opcode == DP_WR_RDMA_READ;
	sges_in(wqe + SQ_SGES, n, key_iova, data, sges);
	*out = (struct rdma_dp_send_wr){
		.wr_id = le64(req.wr_id), .opcode = req.opcode, .send_flags = req.send_flags,
		/* The guest writes imm_data in network order: post.c wants it in the host's. */
		.imm = be32toh(req.imm_data),
		/* Only RDMA WRITE and READ name remote memory (post.c refuses it on a SEND). */
		.remote_key = remote ? le32(req.rdma.rkey) : 0, .has_remote_addr = remote,
		.remote_addr = remote ? le64(req.rdma.remote_addr) : 0,
		.inline_data = inl ? wqe + SQ_HEAD : NULL, .inline_len = inl ? le16(req.inline_len) : 0,
		.sges = sges, .n_sges = n,
		.ud = ud, .ah = le32(req.ud.ah), .remote_qpn = le32(req.ud.remote_qpn),
		.remote_qkey = le32(req.ud.remote_qkey),
	};
	return 0;
}

uint64_t vdev_wqe_send_entry(const uint8_t *wqe, size_t len, uint32_t max_sge, struct dp_sq_req *slot)
{
	struct dp_sq_req req;
	uint32_t n = 0;
	bool inl, remote, valid;

	if (len < SQ_SGES) {
		/* Not a whole WQE: its wr_id if it has one, and an opcode no WR has. */
		memset(slot, 0, SQ_HEAD);
		memset(&slot->num_sge, 0, SQ_SGES - SQ_COUNT);
		slot->wr_id = vdev_wqe_wr_id(wqe, len);
		slot->opcode = 0xff;
		return slot->wr_id;
	}
	memcpy(&req, wqe, SQ_HEAD);
	memcpy(&req.num_sge, wqe + SQ_COUNT, sizeof(req.num_sge));
	inl = req.send_flags & DP_SEND_INLINE;
	if (!inl)
		n = le32(req.num_sge);
	valid = len >= SQ_SGES && req.opcode <= DP_WR_RDMA_READ && !(req.send_flags & ~GUEST_SEND_FLAGS) &&
		(!inl || le16(req.inline_len) <= DP_INLINE_MAX) && n <= VDEV_WQE_SGES_MAX &&
		len >= SQ_SGES + n * sizeof(struct dp_sge);
	remote = dp_wr_has_remote(req.opcode);
	/* The fixed fields, then only what the WR uses: the slot's inline area may hold anything. */
	memset(slot, 0, SQ_HEAD);
	memset(&slot->num_sge, 0, SQ_SGES - SQ_COUNT);
	slot->wr_id = le64(req.wr_id);
	slot->opcode = valid ? req.opcode : 0xff;
	slot->send_flags = req.send_flags;
	slot->imm_data = req.imm_data;   /* network order, here as there */
	if (remote) {
		slot->rdma.remote_addr = le64(req.rdma.remote_addr);
		slot->rdma.rkey = le32(req.rdma.rkey);
	}
	if (!valid)
		return slot->wr_id;
	if (inl) {
		slot->inline_len = le16(req.inline_len);
		memcpy(slot->inline_data, wqe + SQ_HEAD, slot->inline_len);
		return slot->wr_id;
	}
	slot->num_sge = n;
	/* More than the slot holds: the worker refuses the count and reads none. */
	for (uint32_t i = 0; i < n && n <= max_sge; i++) {
		struct dp_sge g;

		memcpy(&g, wqe + SQ_SGES + i * sizeof(g), sizeof(g));
		slot->sg_list[i] = (struct dp_sge){ .addr = le64(g.addr), .length = le32(g.length),
						    .lkey = le32(g.lkey) };
	}
	return slot->wr_id;
}

int vdev_wqe_recv(const uint8_t *wqe, size_t len, vdev_key_iova_fn key_iova, void *data,
		  uint64_t *wr_id, struct rdma_dp_sge *sges, uint32_t *n)
{
	struct dp_rq_req req;

	*n = 0;
	*wr_id = 0;
	if (len < sizeof(req))
		return -EINVAL;
	memcpy(&req, wqe, sizeof(req));
	*wr_id = le64(req.wr_id);
	if (le32(req.num_sge) > VDEV_WQE_SGES_MAX ||
	    len < sizeof(req) + le32(req.num_sge) * sizeof(struct dp_sge))
		return -EINVAL;
	*n = le32(req.num_sge);
	sges_in(wqe + sizeof(req), *n, key_iova, data, sges);
	return 0;
}
