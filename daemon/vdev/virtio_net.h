/* SPDX-License-Identifier: MIT */
/*
 * The virtio-net device a vdev is (virtio 1.x "Network Device", with seed
 * 004's RoCE additions): feature bits, the configuration space, the control
 * queue's header, and the numbering of the virtqueues.
 */
#pragma once

#include <stdint.h>

/* Feature bits offered (virtio-net's, and the ring's that vhost_user.h knows). */
#define VIRTIO_NET_F_MAC      5
#define VIRTIO_NET_F_STATUS   16
#define VIRTIO_NET_F_CTRL_VQ  17
#define VIRTIO_NET_F_ROCE     55      /* seed 004; requires CTRL_VQ */

/* The configuration space: struct virtio_net_config with the seed's two fields at its end. */
#define VIRTIO_NET_CFG_MAC          0   /* u8[6] */
#define VIRTIO_NET_CFG_STATUS       6   /* le16 */
#define VIRTIO_NET_CFG_MAX_VQ_PAIRS 8   /* le16 */
#define VIRTIO_NET_CFG_MTU          10  /* le16 */
#define VIRTIO_NET_CFG_MAX_RDMA_QPS 24  /* le32 */
#define VIRTIO_NET_CFG_MAX_RDMA_CQS 28  /* le32 */
#define VIRTIO_NET_CFG_SIZE         32
#define VIRTIO_NET_S_LINK_UP        1

/* The header before every frame with VIRTIO_F_VERSION_1: struct virtio_net_hdr_v1. */
#define VIRTIO_NET_HDR_LEN 12

/* The control queue's request: class and command, then the command's data; then the ack byte and its data. */
struct virtio_net_ctrl_hdr {
	uint8_t class, cmd;
};

/* Queues one device may have: vhost-user names a queue in 8 bits (SET_VRING_KICK/CALL/ERR). */
#define VDEV_QUEUES_MAX 256
/* The device's virtqueues: receiveq1, transmitq1, controlq, the CQs', the QPs' pairs. */
#define VDEV_QUEUES(max_qps, max_cqs) (3u + (max_cqs) + 2u * (max_qps))

/* The virtqueues, one queue pair (no VIRTIO_NET_F_MQ): seed 004's numbering. */
enum {
	VDEV_VQ_RX,
	VDEV_VQ_TX,
	VDEV_VQ_CTRL,
	VDEV_VQ_FIRST_CQ,              /* CQ c: VDEV_VQ_FIRST_CQ + c */
};

/* The send queue of QP q (its receive queue is the next). */
static inline unsigned vdev_vq_sq(unsigned max_cqs, unsigned qpn)
{
	return VDEV_VQ_FIRST_CQ + max_cqs + 2 * qpn;
}
