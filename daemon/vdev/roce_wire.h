/* SPDX-License-Identifier: MIT */
/*
 * The control commands of the virtio-net RoCE device (seed 004: class
 * VIRTIO_NET_CTRL_ROCE, commands 0-17) as they lie in guest memory: each
 * request's command-specific data and each ack's ack-specific data, every
 * field little-endian.  The sizes and offsets are the seed's; the asserts
 * below hold them to it.  Only roce_ctrl.c reads or writes these, through
 * the le*() accessors: a guest's bytes are copied out before any of them is
 * looked at.
 */
#pragma once

#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define VIRTIO_NET_CTRL_ROCE 6

enum virtio_roce_cmd {
	VIRTIO_ROCE_QUERY_DEVICE, VIRTIO_ROCE_QUERY_PORT, VIRTIO_ROCE_CREATE_CQ,
	VIRTIO_ROCE_DESTROY_CQ, VIRTIO_ROCE_CREATE_PD, VIRTIO_ROCE_DESTROY_PD,
	VIRTIO_ROCE_GET_DMA_MR, VIRTIO_ROCE_REG_USER_MR, VIRTIO_ROCE_DEREG_MR,
	VIRTIO_ROCE_CREATE_QP, VIRTIO_ROCE_MODIFY_QP, VIRTIO_ROCE_QUERY_QP,
	VIRTIO_ROCE_DESTROY_QP, VIRTIO_ROCE_CREATE_AH, VIRTIO_ROCE_DESTROY_AH,
	VIRTIO_ROCE_ADD_GID, VIRTIO_ROCE_DEL_GID, VIRTIO_ROCE_REQ_NOTIFY_CQ,
	VIRTIO_ROCE_COMMANDS,
};

/* The ack byte of every control command (virtio-net). */
#define VIRTIO_NET_OK  0
#define VIRTIO_NET_ERR 1

/* The QP types of CREATE_QP (VIRTIO_IB_QPT_*). */
enum { VIRTIO_IB_QPT_SMI, VIRTIO_IB_QPT_GSI, VIRTIO_IB_QPT_RC, VIRTIO_IB_QPT_UC, VIRTIO_IB_QPT_UD };

struct virtio_roce_query_device_ack {
	uint64_t device_cap_flags, max_mr_size, page_size_cap;
	uint32_t hw_ver, max_qp_wr, max_send_sge, max_recv_sge, max_sge_rd, max_cqe, max_mr,
		max_pd, max_qp_rd_atom, max_qp_init_rd_atom, max_ah;
	uint8_t local_ca_ack_delay, padding[3];
	uint32_t reserved[14];
};

struct virtio_roce_query_port_ack {
	uint32_t gid_tbl_len, max_msg_sz, reserved[6];
};

/* CREATE_CQ (cqe), DESTROY_CQ / CREATE_PD ack / DESTROY_PD / DEREG_MR / DESTROY_QP / acks of CQ, QP, AH. */
struct virtio_roce_u32 {
	uint32_t value;
};

struct virtio_roce_get_dma_mr {
	uint32_t pdn, access_flags;
};

struct virtio_roce_mr_ack {
	uint32_t mrn, lkey, rkey;
};

struct virtio_roce_reg_user_mr {
	uint32_t pdn, access_flags;
	uint64_t virt_addr, length;
	uint32_t npages, padding;
	/* uint64_t pages[npages] follow */
};

struct virtio_roce_qp_cap {
	uint32_t max_send_wr, max_recv_wr, max_send_sge, max_recv_sge, max_inline_data, padding;
};

struct virtio_roce_create_qp {
	uint32_t pdn;
	uint8_t qp_type, sq_sig_all, padding[2];
	uint32_t send_cqn, recv_cqn;
	struct virtio_roce_qp_cap cap;
	uint32_t reserved[4];
};

struct virtio_roce_global_route {
	uint8_t dgid[16];
	uint32_t flow_label;
	uint8_t sgid_index, hop_limit, traffic_class, padding;
};

struct virtio_roce_ah_attr {
	struct virtio_roce_global_route grh;
	uint8_t dmac[6], reserved[10];
};

/* The attributes MODIFY_QP sets and QUERY_QP returns, in the order both carry them after their heads. */
struct virtio_roce_qp_attrs {
	uint32_t qkey, rq_psn, sq_psn, dest_qp_num, qp_access_flags, rate_limit;
	struct virtio_roce_qp_cap cap;
	struct virtio_roce_ah_attr ah_attr;
	uint32_t reserved[4];
};

struct virtio_roce_modify_qp {
	uint32_t qpn, attr_mask;
	uint8_t qp_state, cur_qp_state, path_mtu, max_rd_atomic, max_dest_rd_atomic, min_rnr_timer,
		timeout, retry_cnt, rnr_retry, padding[7];
	struct virtio_roce_qp_attrs a;
};

struct virtio_roce_query_qp {
	uint32_t qpn, attr_mask;
};

struct virtio_roce_query_qp_ack {
	uint8_t qp_state, path_mtu, sq_draining, max_rd_atomic, max_dest_rd_atomic, min_rnr_timer,
		timeout, retry_cnt, rnr_retry, padding[7];
	struct virtio_roce_qp_attrs a;
};

struct virtio_roce_create_ah {
	uint32_t pdn, padding;
	struct virtio_roce_ah_attr ah_attr;
};

struct virtio_roce_destroy_ah {
	uint32_t pdn, ah;
};

struct virtio_roce_add_gid {
	uint16_t index, padding[3];
	uint8_t gid[16];
};

struct virtio_roce_del_gid {
	uint16_t index;
};

struct virtio_roce_req_notify {
	uint32_t cqn, flags;
};

_Static_assert(sizeof(struct virtio_roce_query_device_ack) == 128, "seed: ack_query_device");
_Static_assert(offsetof(struct virtio_roce_query_device_ack, local_ca_ack_delay) == 68, "seed");
_Static_assert(sizeof(struct virtio_roce_query_port_ack) == 32, "seed: ack_query_port");
_Static_assert(sizeof(struct virtio_roce_reg_user_mr) == 32, "seed: cmd_reg_user_mr before pages[]");
_Static_assert(sizeof(struct virtio_roce_create_qp) == 56, "seed: cmd_create_qp");
_Static_assert(sizeof(struct virtio_roce_ah_attr) == 40, "seed: virtio_rdma_ah_attr");
_Static_assert(sizeof(struct virtio_roce_modify_qp) == 128, "seed: cmd_modify_qp");
_Static_assert(offsetof(struct virtio_roce_modify_qp, a.ah_attr) == 72, "seed: modify_qp.ah_attr");
_Static_assert(sizeof(struct virtio_roce_query_qp_ack) == 120, "seed: ack_query_qp");
_Static_assert(sizeof(struct virtio_roce_create_ah) == 48, "seed: cmd_create_ah");
_Static_assert(sizeof(struct virtio_roce_add_gid) == 24, "seed: cmd_add_gid");

/* Guest fields are little-endian, whatever the host is. */
static inline uint16_t le16(uint16_t v) { return le16toh(v); }
static inline uint32_t le32(uint32_t v) { return le32toh(v); }
static inline uint64_t le64(uint64_t v) { return le64toh(v); }
