/* SPDX-License-Identifier: MIT */
/*
 * roce_abi.h - the guest's view of seed 004's virtio-net RoCE device:
 * feature bits, the config space, the control class VIRTIO_NET_CTRL_ROCE
 * with its request and ack layouts, and the SQ/RQ/CQ entry formats.
 *
 * Written from the seed's text (RFC v2, "virtio-net: Add RoCE support"),
 * not from rdmad: the test front end must not share the back end's idea of
 * the layout, or a wrong offset would pass on both sides.  Every field is
 * little-endian on the wire; the sizes are checked below against the numbers
 * the seed and roce_virtio.md §1.4 give.
 */
#ifndef VHOST_GUEST_ROCE_ABI_H
#define VHOST_GUEST_ROCE_ABI_H

#include <stddef.h>
#include <stdint.h>

/* Virtio feature bits (virtio 1.x; ROCE from the seed). */
#define VIRTIO_NET_F_MAC		5
#define VIRTIO_NET_F_CTRL_VQ		17
#define VIRTIO_F_INDIRECT_DESC		28
#define VIRTIO_F_EVENT_IDX		29
#define VHOST_USER_F_PROTOCOL_FEATURES	30
#define VIRTIO_F_VERSION_1		32
#define VIRTIO_NET_F_ROCE		55

/* struct virtio_net_config with the seed's two RoCE fields at its end. */
struct virtio_net_config {
	uint8_t mac[6];
	uint16_t status;
	uint16_t max_virtqueue_pairs;
	uint16_t mtu;
	uint32_t speed;
	uint8_t duplex;
	uint8_t rss_max_key_size;
	uint16_t rss_max_indirection_table_length;
	uint32_t supported_hash_types;
	uint32_t max_rdma_qps;
	uint32_t max_rdma_cqs;	/* "max_rdma_cps" in the seed's struct, a typo its text corrects */
} __attribute__((packed));

/* virtio_net_hdr_v1: in front of every frame on receiveq/transmitq. */
struct virtio_net_hdr_v1 {
	uint8_t flags;
	uint8_t gso_type;
	uint16_t hdr_len;
	uint16_t gso_size;
	uint16_t csum_start;
	uint16_t csum_offset;
	uint16_t num_buffers;
};

/* The control queue: class and command out, ack byte back. */
#define VIRTIO_NET_OK	0
#define VIRTIO_NET_ERR	1

struct virtio_net_ctrl_hdr {
	uint8_t class;
	uint8_t cmd;
};

#define VIRTIO_NET_CTRL_ROCE			6
#define VIRTIO_NET_CTRL_ROCE_QUERY_DEVICE	0
#define VIRTIO_NET_CTRL_ROCE_QUERY_PORT		1
#define VIRTIO_NET_CTRL_ROCE_CREATE_CQ		2
#define VIRTIO_NET_CTRL_ROCE_DESTROY_CQ		3
#define VIRTIO_NET_CTRL_ROCE_CREATE_PD		4
#define VIRTIO_NET_CTRL_ROCE_DESTROY_PD		5
#define VIRTIO_NET_CTRL_ROCE_GET_DMA_MR		6
#define VIRTIO_NET_CTRL_ROCE_REG_USER_MR	7
#define VIRTIO_NET_CTRL_ROCE_DEREG_MR		8
#define VIRTIO_NET_CTRL_ROCE_CREATE_QP		9
#define VIRTIO_NET_CTRL_ROCE_MODIFY_QP		10
#define VIRTIO_NET_CTRL_ROCE_QUERY_QP		11
#define VIRTIO_NET_CTRL_ROCE_DESTROY_QP		12
#define VIRTIO_NET_CTRL_ROCE_CREATE_AH		13
#define VIRTIO_NET_CTRL_ROCE_DESTROY_AH		14
#define VIRTIO_NET_CTRL_ROCE_ADD_GID		15
#define VIRTIO_NET_CTRL_ROCE_DEL_GID		16
#define VIRTIO_NET_CTRL_ROCE_REQ_NOTIFY_CQ	17

struct virtio_rdma_ack_query_device {
	uint64_t device_cap_flags;
	uint64_t max_mr_size;
	uint64_t page_size_cap;
	uint32_t hw_ver;
	uint32_t max_qp_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_sge_rd;
	uint32_t max_cqe;
	uint32_t max_mr;
	uint32_t max_pd;
	uint32_t max_qp_rd_atom;
	uint32_t max_qp_init_rd_atom;
	uint32_t max_ah;
	uint8_t local_ca_ack_delay;
	uint8_t padding[3];
	uint32_t reserved[14];
};

struct virtio_rdma_ack_query_port {
	uint32_t gid_tbl_len;
	uint32_t max_msg_sz;
	uint32_t reserved[6];
};

struct virtio_rdma_cmd_create_cq { uint32_t cqe; };
struct virtio_rdma_ack_create_cq { uint32_t cqn; };
struct virtio_rdma_cmd_destroy_cq { uint32_t cqn; };
struct virtio_rdma_ack_create_pd { uint32_t pdn; };
struct virtio_rdma_cmd_destroy_pd { uint32_t pdn; };

#define VIRTIO_IB_ACCESS_LOCAL_WRITE	(1 << 0)
#define VIRTIO_IB_ACCESS_REMOTE_WRITE	(1 << 1)
#define VIRTIO_IB_ACCESS_REMOTE_READ	(1 << 2)

struct virtio_rdma_cmd_get_dma_mr {
	uint32_t pdn;
	uint32_t access_flags;
};

/* The ack of GET_DMA_MR and of REG_USER_MR. */
struct virtio_rdma_ack_mr {
	uint32_t mrn;
	uint32_t lkey;
	uint32_t rkey;
};

struct virtio_rdma_cmd_reg_user_mr {
	uint32_t pdn;
	uint32_t access_flags;
	uint64_t virt_addr;
	uint64_t length;
	uint32_t npages;
	uint32_t padding;
	uint64_t pages[];
};

struct virtio_rdma_cmd_dereg_mr { uint32_t mrn; };

struct virtio_rdma_qp_cap {
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline_data;
	uint32_t padding;
};

#define VIRTIO_IB_QPT_SMI	0
#define VIRTIO_IB_QPT_GSI	1
#define VIRTIO_IB_QPT_RC	2
#define VIRTIO_IB_QPT_UC	3
#define VIRTIO_IB_QPT_UD	4

struct virtio_rdma_cmd_create_qp {
	uint32_t pdn;
	uint8_t qp_type;
	uint8_t sq_sig_all;
	uint8_t padding[2];
	uint32_t send_cqn;
	uint32_t recv_cqn;
	struct virtio_rdma_qp_cap cap;
	uint32_t reserved[4];
};

struct virtio_rdma_ack_create_qp { uint32_t qpn; };

struct virtio_rdma_global_route {
	uint8_t dgid[16];
	uint32_t flow_label;
	uint8_t sgid_index;
	uint8_t hop_limit;
	uint8_t traffic_class;
	uint8_t padding;
};

struct virtio_rdma_ah_attr {
	struct virtio_rdma_global_route grh;
	uint8_t dmac[6];
	uint8_t reserved[10];
};

#define VIRTIO_IB_QP_STATE		(1 << 0)
#define VIRTIO_IB_QP_CUR_STATE		(1 << 1)
#define VIRTIO_IB_QP_ACCESS_FLAGS	(1 << 2)
#define VIRTIO_IB_QP_QKEY		(1 << 3)
#define VIRTIO_IB_QP_AV			(1 << 4)
#define VIRTIO_IB_QP_PATH_MTU		(1 << 5)
#define VIRTIO_IB_QP_TIMEOUT		(1 << 6)
#define VIRTIO_IB_QP_RETRY_CNT		(1 << 7)
#define VIRTIO_IB_QP_RNR_RETRY		(1 << 8)
#define VIRTIO_IB_QP_RQ_PSN		(1 << 9)
#define VIRTIO_IB_QP_MAX_QP_RD_ATOMIC	(1 << 10)
#define VIRTIO_IB_QP_MIN_RNR_TIMER	(1 << 11)
#define VIRTIO_IB_QP_SQ_PSN		(1 << 12)
#define VIRTIO_IB_QP_MAX_DEST_RD_ATOMIC	(1 << 13)
#define VIRTIO_IB_QP_CAP		(1 << 14)
#define VIRTIO_IB_QP_DEST_QPN		(1 << 15)
#define VIRTIO_IB_QP_RATE_LIMIT		(1 << 16)

/* The attributes MODIFY_QP sets and QUERY_QP returns, from qp_state on:
 * the two structs differ only in their first bytes (cur_qp_state in one,
 * sq_draining in the other, in a different place). */
struct virtio_rdma_cmd_modify_qp {
	uint32_t qpn;
	uint32_t attr_mask;
	uint8_t qp_state;
	uint8_t cur_qp_state;
	uint8_t path_mtu;
	uint8_t max_rd_atomic;
	uint8_t max_dest_rd_atomic;
	uint8_t min_rnr_timer;
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t padding[7];
	uint32_t qkey;
	uint32_t rq_psn;
	uint32_t sq_psn;
	uint32_t dest_qp_num;
	uint32_t qp_access_flags;
	uint32_t rate_limit;
	struct virtio_rdma_qp_cap cap;
	struct virtio_rdma_ah_attr ah_attr;
	uint32_t reserved[4];
};

struct virtio_rdma_cmd_query_qp {
	uint32_t qpn;
	uint32_t attr_mask;
};

struct virtio_rdma_ack_query_qp {
	uint8_t qp_state;
	uint8_t path_mtu;
	uint8_t sq_draining;
	uint8_t max_rd_atomic;
	uint8_t max_dest_rd_atomic;
	uint8_t min_rnr_timer;
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t padding[7];
	uint32_t qkey;
	uint32_t rq_psn;
	uint32_t sq_psn;
	uint32_t dest_qp_num;
	uint32_t qp_access_flags;
	uint32_t rate_limit;
	struct virtio_rdma_qp_cap cap;
	struct virtio_rdma_ah_attr ah_attr;
	uint32_t reserved[4];
};

struct virtio_rdma_cmd_destroy_qp { uint32_t qpn; };

struct virtio_rdma_cmd_create_ah {
	uint32_t pdn;
	uint32_t padding;
	struct virtio_rdma_ah_attr ah_attr;
};

struct virtio_rdma_ack_create_ah { uint32_t ah; };

struct virtio_rdma_cmd_destroy_ah {
	uint32_t pdn;
	uint32_t ah;
};

struct virtio_rdma_cmd_add_gid {
	uint16_t index;
	uint16_t padding[3];
	uint8_t gid[16];
};

struct virtio_rdma_cmd_del_gid { uint16_t index; };

#define VIRTIO_IB_NOTIFY_SOLICITED		(1 << 0)
#define VIRTIO_IB_NOTIFY_NEXT_COMPLETION	(1 << 1)

struct virtio_rdma_cmd_req_notify {
	uint32_t cqn;
	uint32_t flags;
};

/* Send, receive and completion queue entries. */
#define VIRTIO_IB_WR_RDMA_WRITE			0
#define VIRTIO_IB_WR_RDMA_WRITE_WITH_IMM	1
#define VIRTIO_IB_WR_SEND			2
#define VIRTIO_IB_WR_SEND_WITH_IMM		3
#define VIRTIO_IB_WR_RDMA_READ			4

#define VIRTIO_IB_SEND_FENCE		(1 << 0)
#define VIRTIO_IB_SEND_SIGNALED		(1 << 1)
#define VIRTIO_IB_SEND_SOLICITED	(1 << 2)
#define VIRTIO_IB_SEND_INLINE		(1 << 3)

#define VIRTIO_RDMA_INLINE_MAX		512

struct virtio_rdma_sge {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
};

struct virtio_rdma_sq_req {
	uint64_t wr_id;
	uint8_t opcode;
	uint8_t send_flags;
	uint16_t padding;
	uint32_t imm_data;	/* network byte order, as the seed says */
	union {
		struct {
			uint64_t remote_addr;
			uint32_t rkey;
		} rdma;
		struct {
			uint32_t remote_qpn;
			uint32_t remote_qkey;
			uint32_t ah;
		} ud;
		uint64_t reserved[4];
	};
	uint8_t inline_data[VIRTIO_RDMA_INLINE_MAX];
	union {
		uint32_t num_sge;
		uint16_t inline_len;
	};
	uint32_t reserved2[3];
	struct virtio_rdma_sge sg_list[];
};

struct virtio_rdma_rq_req {
	uint64_t wr_id;
	uint32_t num_sge;
	uint32_t reserved[3];
	struct virtio_rdma_sge sg_list[];
};

/* enum virtio_ib_wc_opcode */
enum { VIRTIO_IB_WC_SEND, VIRTIO_IB_WC_RDMA_WRITE, VIRTIO_IB_WC_RDMA_READ, VIRTIO_IB_WC_RECV,
       VIRTIO_IB_WC_RECV_RDMA_WITH_IMM };

#define VIRTIO_IB_WC_GRH	(1 << 0)
#define VIRTIO_IB_WC_WITH_IMM	(1 << 1)

struct virtio_rdma_cq_req {
	uint64_t wr_id;
	uint8_t status;
	uint8_t opcode;
	uint16_t padding;
	uint32_t vendor_err;
	uint32_t byte_len;
	uint32_t imm_data;
	uint32_t qp_num;
	uint32_t src_qp;
	uint32_t wc_flags;
	uint32_t reserved[3];
};

/* The numbers the seed and roce_virtio.md §1.4 give. */
_Static_assert(sizeof(struct virtio_net_config) == 32, "virtio_net_config");
_Static_assert(offsetof(struct virtio_net_config, max_rdma_qps) == 24, "max_rdma_qps");
_Static_assert(sizeof(struct virtio_net_hdr_v1) == 12, "virtio_net_hdr_v1");
_Static_assert(sizeof(struct virtio_rdma_sq_req) == 576, "sq_req");
_Static_assert(offsetof(struct virtio_rdma_sq_req, inline_data) == 48, "inline_data");
_Static_assert(offsetof(struct virtio_rdma_sq_req, num_sge) == 560, "num_sge");
_Static_assert(sizeof(struct virtio_rdma_rq_req) == 24, "rq_req");
_Static_assert(sizeof(struct virtio_rdma_sge) == 16, "sge");
_Static_assert(sizeof(struct virtio_rdma_cq_req) == 48, "cq_req");
_Static_assert(sizeof(struct virtio_rdma_ack_query_device) == 128, "ack_query_device");
_Static_assert(sizeof(struct virtio_rdma_ack_query_port) == 32, "ack_query_port");
_Static_assert(sizeof(struct virtio_rdma_cmd_create_qp) == 56, "cmd_create_qp");
_Static_assert(sizeof(struct virtio_rdma_global_route) == 24, "global_route");
_Static_assert(sizeof(struct virtio_rdma_ah_attr) == 40, "ah_attr");
_Static_assert(sizeof(struct virtio_rdma_cmd_modify_qp) == 128, "cmd_modify_qp");
_Static_assert(sizeof(struct virtio_rdma_ack_query_qp) == 120, "ack_query_qp");
_Static_assert(sizeof(struct virtio_rdma_cmd_reg_user_mr) == 32, "cmd_reg_user_mr");
_Static_assert(sizeof(struct virtio_rdma_cmd_add_gid) == 24, "cmd_add_gid");

#endif
