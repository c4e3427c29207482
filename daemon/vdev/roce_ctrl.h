/* SPDX-License-Identifier: MIT */
/*
 * The RoCE control commands of a virtual machine's virtio-net device (seed
 * 004, class VIRTIO_NET_CTRL_ROCE): a door of the driver beside daemon/api/,
 * which turns the seed's binary commands into the same model calls a varlink
 * method makes, on the VM's own device (docs/decisions.md, "A VM's RoCE
 * device").  Nothing here reads guest memory or a virtqueue: the caller
 * copies a command's bytes out of the control queue, and copies the ack back.
 *
 * Every object a command makes is the VM's (owner, owner_uid); a handle
 * that names something the VM does not own is refused as if it named
 * nothing.  The handles the guest sees are the ones its queues are numbered
 * by: a CQ's cqn is its completion virtqueue (below max_rdma_cqs), a QP's
 * qpn its send/receive virtqueue pair (below max_rdma_qps), as the seed's
 * guest driver takes them.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/verbs/device.h"
#include "daemon/verbs/reclaim.h"
#include "daemon/vdev/roce_wire.h"
#include "dataplane/keytab.h"

struct rdma_cq;
struct rdma_qp;

/* Where the guest's memory is, for MRs: REG_USER_MR maps guest pages, GET_DMA_MR reaches all of it. */
struct vdev_guest_pages {
	/*
	 * The memory of guest physical [gpa, gpa + len): a descriptor to map
	 * it from and gpa's offset there; -EFAULT when no region holds all of it.
	 */
	int (*locate)(void *data, uint64_t gpa, uint64_t len, int *fd, uint64_t *offset);
	/* The guest's memory as windows (at most max): how many. */
	unsigned (*windows)(void *data, struct dp_dma_window *out, unsigned max);
	void *data;
};

/* What the virtqueue side hears of the objects it serves; any member may be NULL. */
struct vdev_roce_hooks {
	void (*cq_created)(void *data, struct rdma_cq *cq);
	void (*cq_destroying)(void *data, struct rdma_cq *cq);
	void (*qp_created)(void *data, struct rdma_qp *qp);
	void (*qp_destroying)(void *data, struct rdma_qp *qp);
	/* Around MODIFY_QP, whether it succeeds or not. */
	void (*qp_modifying)(void *data, struct rdma_qp *qp);
	void (*qp_modified)(void *data, struct rdma_qp *qp);
	void (*cq_armed)(void *data, struct rdma_cq *cq, uint32_t flags);
};

struct vdev_roce {
	struct rdma_device *dev;  /* the VM's device */
	const void *owner;        /* what the VM's objects are owned by (its session) */
	uint32_t owner_uid;       /* the front end's uid */
	uint32_t max_qps, max_cqs;   /* max_rdma_qps, max_rdma_cqs of the config space */
	struct vdev_guest_pages mem;
	const struct vdev_roce_hooks *hooks;
	void *hooks_data;
	/* Per command: how many ran, how many were refused; the last refusal. */
	uint64_t commands[VIRTIO_ROCE_COMMANDS], refused[VIRTIO_ROCE_COMMANDS];
	uint64_t malformed;       /* unknown command, or its data not the seed's size */
	struct rdma_error last_error;
	int last_refused;         /* the command refused last, -1: none */
};

/* The seed's name of a command ("CREATE_QP"), or NULL. */
const char *vdev_roce_command_name(unsigned cmd);

/*
 * Runs command cmd with its command-specific data req (req_len bytes,
 * the caller's copy) and writes its ack-specific data into ack (ack_cap
 * bytes; *ack_len the bytes written).  Returns the ack byte: VIRTIO_NET_OK,
 * or VIRTIO_NET_ERR with the refusal in r->last_error (and nothing changed).
 */
uint8_t vdev_roce_command(struct vdev_roce *r, unsigned cmd, const void *req, size_t req_len,
			  void *ack, size_t ack_cap, size_t *ack_len);

/*
 * The VM went: every object it owned on its device is destroyed, users
 * first; how many of each kind, in rdma_reclaim_order (daemon/verbs/reclaim.h).
 */
void vdev_roce_reclaim(struct vdev_roce *r, unsigned reclaimed[RDMA_RECLAIM_KINDS]);
