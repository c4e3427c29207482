/* SPDX-License-Identifier: MIT */
/*
 * The entries of the send, receive and completion queues, in the formats of
 * the virtio-net RoCE RFC (seed 004: struct virtio_rdma_sq_req, rq_req,
 * cq_req), which applications will write and read through the client library.
 * Little-endian hosts only, as the rest of rdmad: le32 is uint32_t here.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/*
 * enum virtio_ib_wr_opcode, then what the RFC lacks and ibv_post_send(3) has:
 * LOCAL_INV and SEND_WITH_INV carry the key to invalidate where the
 * immediate goes (host order, as ibv_send_wr's invalidate_rkey shares
 * imm_data).
 */
enum dp_wr_opcode {
	DP_WR_RDMA_WRITE,
	DP_WR_RDMA_WRITE_WITH_IMM,
	DP_WR_SEND,
	DP_WR_SEND_WITH_IMM,
	DP_WR_RDMA_READ,
	DP_WR_LOCAL_INV,
	DP_WR_SEND_WITH_INV,
	/*
	 * mlx5dv_wr_mkey_configure (a UMR): the MKEY's new context, which the
	 * driver built and keeps in the private slot (dp_sq_slot.configure),
	 * goes into the key table here; imm_data is the MKEY's key, host order.
	 */
	DP_WR_CONFIGURE,
	DP_WR_OPCODE_COUNT,
};

/* RDMA WRITE (with immediate) and READ name the peer's memory (rdma.remote_addr, rkey). */
static inline bool dp_wr_has_remote(unsigned opcode)
{
	return opcode == DP_WR_RDMA_WRITE || opcode == DP_WR_RDMA_WRITE_WITH_IMM || opcode == DP_WR_RDMA_READ;
}

/* send_flags */
#define DP_SEND_FENCE     (1u << 0)
#define DP_SEND_SIGNALED  (1u << 1)
#define DP_SEND_SOLICITED (1u << 2)
#define DP_SEND_INLINE    (1u << 3)

#define DP_INLINE_MAX 512

struct dp_sge {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
};

struct dp_sq_req {
	uint64_t wr_id;
	uint8_t opcode;
	uint8_t send_flags;
	uint16_t padding;
	uint32_t imm_data;        /* network byte order; LOCAL_INV, SEND_WITH_INV: the key, host order */
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
	uint8_t inline_data[DP_INLINE_MAX];
	union {
		uint32_t num_sge;
		uint16_t inline_len;
	};
	uint32_t reserved2[3];
	struct dp_sge sg_list[];
};

struct dp_rq_req {
	uint64_t wr_id;
	uint32_t num_sge;
	uint32_t reserved[3];
	struct dp_sge sg_list[];
};

/* enum virtio_ib_wc_opcode, then IBV_WC_LOCAL_INV, which the RFC lacks. */
enum dp_wc_opcode {
	DP_WC_SEND,
	DP_WC_RDMA_WRITE,
	DP_WC_RDMA_READ,
	DP_WC_RECV,
	DP_WC_RECV_RDMA_WITH_IMM,
	DP_WC_LOCAL_INV,
	DP_WC_CONFIGURE,          /* IBV_WC_DRIVER1: an MKEY configure WR */
	DP_WC_OPCODE_COUNT,
};

/* enum virtio_ib_wc_status (the RFC's numbers, not the kernel's) */
enum dp_wc_status {
	DP_WC_SUCCESS,
	DP_WC_LOC_LEN_ERR,
	DP_WC_LOC_QP_OP_ERR,
	DP_WC_LOC_PROT_ERR,
	DP_WC_WR_FLUSH_ERR,
	DP_WC_BAD_RESP_ERR,
	DP_WC_LOC_ACCESS_ERR,
	DP_WC_REM_INV_REQ_ERR,
	DP_WC_REM_ACCESS_ERR,
	DP_WC_REM_OP_ERR,
	DP_WC_RETRY_EXC_ERR,
	DP_WC_RNR_RETRY_EXC_ERR,
	DP_WC_REM_ABORT_ERR,
	DP_WC_FATAL_ERR,
	DP_WC_RESP_TIMEOUT_ERR,
	DP_WC_GENERAL_ERR,
	DP_WC_STATUS_COUNT,
};

/* wc_flags */
#define DP_WC_GRH      (1u << 0)
#define DP_WC_WITH_IMM (1u << 1)
/* A SEND_WITH_INV invalidated the key imm_data names (network order, as an immediate). */
#define DP_WC_WITH_INV (1u << 2)

struct dp_cqe {
	uint64_t wr_id;
	uint8_t status;
	uint8_t opcode;
	uint16_t padding;
	uint32_t vendor_err;
	uint32_t byte_len;
	uint32_t imm_data;        /* network byte order */
	uint32_t qp_num;
	uint32_t src_qp;
	uint32_t wc_flags;
	uint32_t reserved[3];
};

_Static_assert(sizeof(struct dp_sq_req) == 576, "virtio_rdma_sq_req is 576 bytes + SGEs");
_Static_assert(sizeof(struct dp_rq_req) == 24, "virtio_rdma_rq_req is 24 bytes + SGEs");
_Static_assert(sizeof(struct dp_cqe) == 48, "virtio_rdma_cq_req is 48 bytes");

/* The area before a UD receive's payload (IBA: the GRH; RoCEv2: the IP header). */
#define DP_GRH_LEN 40

/*
 * The 40 bytes a UD receive starts with, as rxe places them: the IPv6 header
 * of the RoCEv2 packet, or for IPv4-mapped GIDs 20 zero bytes and the IPv4
 * header.  payload_len: the message; imm: whether it carries ImmDt.
 */
void dp_grh_build(uint8_t out[DP_GRH_LEN], const uint8_t sgid[16], const uint8_t dgid[16],
		  uint8_t traffic_class, uint32_t flow_label, uint8_t hop_limit, uint32_t payload_len,
		  bool imm);

/* Lower-case names as ibv_wc_status_str and rdma tool print them ("loc_len_err"), or NULL. */
const char *dp_wr_opcode_name(unsigned opcode);
const char *dp_wc_opcode_name(unsigned opcode);
const char *dp_wc_status_name(unsigned status);
/* The number of a name, or -1. */
int dp_wr_opcode_from_name(const char *name);
