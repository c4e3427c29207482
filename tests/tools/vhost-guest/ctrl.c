/* SPDX-License-Identifier: MIT */
/*
 * ctrl.c - one control command on controlq, as the seed's guest driver
 * sends it: out {class, command}, out command-specific-data, in ack byte,
 * in ack-specific-data; the used entry waited for, the ack copied out.
 * The buffers live in the pages session.c set aside at start:
 * page 0 header (at 0) and ack byte (at 64), page 1 ack data, pages 2.. request.
 */
#include "guest.h"

#include <errno.h>
#include <string.h>

#define CTRL_ACK_OFF		64
#define CTRL_ACK_DATA_OFF	GUEST_PAGE
#define CTRL_REQ_OFF		(2 * GUEST_PAGE)

int ctrl_exec(struct guest *g, uint8_t cls, uint8_t cmd, const void *req, size_t req_len,
	      void *ack_data, size_t ack_len, struct ctrl_result *res)
{
	struct vq *q = vq_get(g, VQ_CTRL, VQ_KIND_CTRL);
	struct virtio_net_ctrl_hdr *hdr;
	struct vring_seg segs[4];
	uint8_t *ack;
	unsigned n = 0;
	uint32_t len = 0;
	int head, r;

	if (!q)
		return -ENOTCONN;
	if (req_len > (g->ctrl_pages - 2) * GUEST_PAGE || ack_len > GUEST_PAGE)
		return -E2BIG;
	hdr = guest_mem_host(&g->mem, g->ctrl_gpa, sizeof(*hdr));
	ack = guest_mem_host(&g->mem, g->ctrl_gpa + CTRL_ACK_OFF, 1);
	hdr->class = cls;
	hdr->cmd = cmd;
	/* Not an ack value: a device that never writes it is seen. */
	*ack = 0xff;
	memset(guest_mem_host(&g->mem, g->ctrl_gpa + CTRL_ACK_DATA_OFF, GUEST_PAGE), 0, GUEST_PAGE);
	if (req_len)
		memcpy(guest_mem_host(&g->mem, g->ctrl_gpa + CTRL_REQ_OFF, req_len), req, req_len);

	segs[n++] = (struct vring_seg){ g->ctrl_gpa, sizeof(*hdr), false };
	if (req_len)
		segs[n++] = (struct vring_seg){ g->ctrl_gpa + CTRL_REQ_OFF, (uint32_t)req_len, false };
	segs[n++] = (struct vring_seg){ g->ctrl_gpa + CTRL_ACK_OFF, 1, true };
	if (ack_len)
		segs[n++] = (struct vring_seg){ g->ctrl_gpa + CTRL_ACK_DATA_OFF, (uint32_t)ack_len, true };
	head = vring_add(&q->ring, segs, n, NULL);
	if (head < 0)
		return head;
	vq_kick_if_needed(q);
	/* A command that timed out before may come back first: skip it. */
	do
		r = vq_wait_used(g, q, CTRL_TIMEOUT_MS, &len);
	while (r >= 0 && r != head);
	if (r < 0)
		return r;
	res->ack = *ack;
	res->used_len = len;
	if (ack_len)
		memcpy(ack_data, guest_mem_host(&g->mem, g->ctrl_gpa + CTRL_ACK_DATA_OFF, ack_len),
		       ack_len);
	return 0;
}
