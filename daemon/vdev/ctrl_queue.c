/* SPDX-License-Identifier: MIT */
/*
 * The control queue of a vdev: each request is a chain whose readable part
 * is the class and command bytes and the command's data, and whose writable
 * part takes the ack byte and the ack's data (seed 004, "Control
 * Virtqueue").  The bytes are copied out of the guest's memory once, bounded,
 * before anything looks at them; the RoCE class goes to the control door
 * (roce_ctrl.c), every other class is refused, as no feature that would
 * bring one was offered.  A command changes nothing rdmad saves (a VM's
 * objects live as long as its session), so its ack leaves at once.
 */
#include "daemon/vdev/session_int.h"
#include "daemon/vdev/virtio_net.h"
#include "daemon/verbs/mr.h"
#include "lib/log.h"

#include <stdlib.h>
#include <string.h>

/*
 * The longest command data: REG_USER_MR with the most pages the seed's
 * guest driver sends (a two-level table of 512 x 512), 2 MiB and its head.
 */
#define CTRL_DATA_MAX (sizeof(struct virtio_roce_reg_user_mr) + 512u * 512u * sizeof(uint64_t))
/* The longest ack data (QUERY_DEVICE's). */
#define CTRL_ACK_MAX 128u

void vdev_ctrl_sync_mem(struct vdev_session *s)
{
	struct vhost_mem *now = vhost_user_session_mem(s->vu);
	struct rdma_object *obj;
	struct dp_dma_window w[DP_DMA_WINDOWS_MAX];
	unsigned n;

	if (!now || (s->dma_mem && vhost_mem_id(now) == vhost_mem_id(s->dma_mem))) {
		vhost_mem_unref(now);
		return;
	}
	/* The DMA MRs reach the new table before the old one may go (each change waits a barrier). */
	vhost_mem_unref(s->dma_mem);
	s->dma_mem = now;
	n = s->roce.mem.windows(s, w, DP_DMA_WINDOWS_MAX);
	for (uint32_t pos = 0; s->dev && (obj = object_table_next(&s->dev->tables[RDMA_OBJ_MR], &pos)); )
		if (rdma_mr(obj)->n_windows && rdma_mr_set_windows(s->dev, rdma_mr(obj), w, n) < 0)
			log_warning("vdev %s: MR %u cannot reach the new memory table", s->env.name,
				    obj->handle);
}

/* Runs the request of chain c; the bytes written into its writable part. */
static uint32_t run_request(struct vdev_session *s, struct virtqueue *vq, const struct vq_chain *c)
{
	uint8_t ack[1 + CTRL_ACK_MAX] = { VIRTIO_NET_ERR };
	struct virtio_net_ctrl_hdr hdr;
	size_t len, ack_len = 0, room;
	uint8_t *data = NULL;

	/* No room for the ack byte: nothing can be said, the request is only given back. */
	if (c->write_bytes == 0)
		return 0;
	room = c->write_bytes - 1 < CTRL_ACK_MAX ? (size_t)c->write_bytes - 1 : CTRL_ACK_MAX;
	if (c->read_bytes < sizeof(hdr) || c->read_bytes - sizeof(hdr) > CTRL_DATA_MAX ||
	    vq_chain_read(vq, c, 0, &hdr, sizeof(hdr)) < 0) {
		s->roce.malformed++;
		goto answer;
	}
	len = (size_t)c->read_bytes - sizeof(hdr);
	data = malloc(len ? len : 1);
	if (!data || vq_chain_read(vq, c, sizeof(hdr), data, len) < 0)
		goto answer;
	if (hdr.class == VIRTIO_NET_CTRL_ROCE && (s->features & (1ull << VIRTIO_NET_F_ROCE))) {
		ack[0] = vdev_roce_command(&s->roce, hdr.cmd, data, len, ack + 1, room, &ack_len);
		if (ack[0] != VIRTIO_NET_OK)
			log_debug("vdev %s: %s refused: %s: %s", s->env.name,
				  vdev_roce_command_name(hdr.cmd) ? vdev_roce_command_name(hdr.cmd) : "command",
				  s->roce.last_error.field, s->roce.last_error.reason);
	} else {
		s->roce.malformed++;
	}
answer:
	free(data);
	return vq_chain_write(vq, c, 0, ack, 1 + ack_len) < 0 ? 0 : (uint32_t)(1 + ack_len);
}

void vdev_ctrl_serve(struct vdev_session *s)
{
	struct virtqueue *vq = s->ctrl.vq;
	struct vq_chain c;
	int r;

	if (!vq)
		return;
	vdev_ctrl_sync_mem(s);
	/* What the workers reported of the device before the guest's commands look at it. */
	if (s->dev)
		rdma_device_sync(s->dev);
	while ((r = vq_pop(vq, &c)) > 0)
		vq_push(vq, c.head, run_request(s, vq, &c));
	if (r < 0)
		log_warning("vdev %s: the control queue broke: %s", s->env.name, vq_broken(vq));
	vq_signal(vq);
}
