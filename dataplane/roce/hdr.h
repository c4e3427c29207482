/* SPDX-License-Identifier: MIT */
/*
 * The InfiniBand transport headers RoCE v2 carries after UDP (reference roce_virtio.md §2.2,
 * §2.4), as plain structs, all fields big-endian on the wire:
 *
 *   BTH   12 B  opcode | SE M PadCnt(2) TVer(4) | P_Key | FECN BECN Resv6a(6) | DestQP(24) |
 *               AckReq Resv7(7) | PSN(24)
 *   RETH  16 B  VA u64, R_Key u32, DMA length u32
 *   AETH   4 B  syndrome u8 (bit 7 = 0, bits 6-5 type, 4-0 value), MSN u24
 *   DETH   8 B  Q_Key u32, reserved u8, source QP u24
 *   ImmDt  4 B  opaque, passed through in network order
 *   IETH   4 B  the R_Key to invalidate (SEND_*_WITH_INVALIDATE)
 *   AtomicETH 28 B, AtomicAckETH 8 B: parsed so such packets are recognised; no atomics run.
 *
 * Every reserved field is kept, so a parsed header builds back to the same bytes.  Each
 * build function refuses a value wider than its field (ROCE_BAD_FIELD); each parse function
 * reads exactly its length from a buffer the caller has checked.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "dataplane/roce/reason.h"

#define ROCE_BTH_LEN		12
#define ROCE_RETH_LEN		16
#define ROCE_AETH_LEN		4
#define ROCE_DETH_LEN		8
#define ROCE_IMMDT_LEN		4
#define ROCE_IETH_LEN		4
#define ROCE_ATOMIC_ETH_LEN	28
#define ROCE_ATOMIC_ACK_LEN	8
#define ROCE_CNP_RSVD_LEN	16	/* CNP: 16 reserved bytes after the BTH */
#define ROCE_ICRC_LEN		4

#define DP_PSN_MASK		0xffffff
#define ROCE_QPN_MASK		0xffffff
#define ROCE_DEFAULT_PKEY	0xffff
#define ROCE_GSI_QKEY		0x80010000u

struct roce_bth {
	uint8_t opcode;
	bool se;		/* solicited event */
	bool mig_req;
	uint8_t pad_cnt;	/* 2 bits; the packet builder computes it from the payload */
	uint8_t tver;		/* 4 bits, 0 */
	uint16_t pkey;
	bool fecn;
	bool becn;
	uint8_t resv6a;		/* 6 bits */
	uint32_t dest_qp;	/* 24 bits */
	bool ack_req;
	uint8_t resv7;		/* 7 bits */
	uint32_t psn;		/* 24 bits */
};

struct roce_reth {
	uint64_t va;
	uint32_t rkey;
	uint32_t dma_len;
};

/* AETH syndrome: type in bits 6-5, value in bits 4-0 (§2.4). */
enum roce_aeth_type {
	ROCE_AETH_ACK = 0,	/* value: credit count, 0x1f = unlimited */
	ROCE_AETH_RNR_NAK = 1,	/* value: RNR timer code */
	ROCE_AETH_RESERVED = 2,
	ROCE_AETH_NAK = 3,	/* value: enum roce_nak_code */
};

enum roce_nak_code {
	ROCE_NAK_PSN_SEQ = 0,
	ROCE_NAK_INVALID_REQ = 1,
	ROCE_NAK_REMOTE_ACCESS = 2,
	ROCE_NAK_REMOTE_OP = 3,
	ROCE_NAK_INVALID_RD_REQ = 4,
};

#define ROCE_AETH_SYNDROME(type, value)	((uint8_t)((type) << 5 | ((value) & 0x1f)))
#define ROCE_AETH_ACK_UNLIMITED		ROCE_AETH_SYNDROME(ROCE_AETH_ACK, 0x1f)	/* 0x1f */

struct roce_aeth {
	uint8_t syndrome;
	uint32_t msn;		/* 24 bits */
};

struct roce_deth {
	uint32_t qkey;
	uint8_t resv8;
	uint32_t src_qp;	/* 24 bits */
};

struct roce_atomic_eth {
	uint64_t va;
	uint32_t rkey;
	uint64_t swap_add;
	uint64_t compare;
};

static inline enum roce_aeth_type roce_aeth_type(uint8_t syndrome)
{
	return (syndrome >> 5) & 3;
}

static inline uint8_t roce_aeth_value(uint8_t syndrome)
{
	return syndrome & 0x1f;
}

enum roce_reason roce_bth_build(const struct roce_bth *h, uint8_t *out);
void roce_bth_parse(const uint8_t *in, struct roce_bth *h);
void roce_reth_build(const struct roce_reth *h, uint8_t *out);
void roce_reth_parse(const uint8_t *in, struct roce_reth *h);
/* Refuses MSN > 24 bits, syndrome bit 7 and the reserved type (ROCE_BAD_SYNDROME). */
enum roce_reason roce_aeth_build(const struct roce_aeth *h, uint8_t *out);
enum roce_reason roce_aeth_parse(const uint8_t *in, struct roce_aeth *h);
enum roce_reason roce_deth_build(const struct roce_deth *h, uint8_t *out);
void roce_deth_parse(const uint8_t *in, struct roce_deth *h);
void roce_atomic_eth_build(const struct roce_atomic_eth *h, uint8_t *out);
void roce_atomic_eth_parse(const uint8_t *in, struct roce_atomic_eth *h);
