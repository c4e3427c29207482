/* SPDX-License-Identifier: MIT */
/*
 * The RoCE v2 opcode table (reference roce_virtio.md §2.3, §2.5).  The opcode's top three
 * bits are the transport (RC 000, UC 001, RD 010, UD 011, CNP 100), the low five the
 * operation.  For each known opcode the table says which extension headers follow the BTH,
 * whether a payload may, and where the packet sits in a message; packet.c walks those flags
 * in one fixed order to build and to parse, so the two cannot disagree.
 *
 * RD is not in the table (no RD QPs), so its opcodes are refused as unknown.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

enum roce_transport {
	ROCE_TR_RC = 0x00,
	ROCE_TR_UC = 0x20,
	ROCE_TR_RD = 0x40,
	ROCE_TR_UD = 0x60,
	ROCE_TR_CNP = 0x80,
};

/* The operation, opcode & 0x1f (include/rdma/ib_pack.h's numbering, §2.3). */
enum roce_operation {
	ROCE_SEND_FIRST = 0x00,
	ROCE_SEND_MIDDLE = 0x01,
	ROCE_SEND_LAST = 0x02,
	ROCE_SEND_LAST_IMM = 0x03,
	ROCE_SEND_ONLY = 0x04,
	ROCE_SEND_ONLY_IMM = 0x05,
	ROCE_WRITE_FIRST = 0x06,
	ROCE_WRITE_MIDDLE = 0x07,
	ROCE_WRITE_LAST = 0x08,
	ROCE_WRITE_LAST_IMM = 0x09,
	ROCE_WRITE_ONLY = 0x0a,
	ROCE_WRITE_ONLY_IMM = 0x0b,
	ROCE_READ_REQUEST = 0x0c,
	ROCE_READ_RESPONSE_FIRST = 0x0d,
	ROCE_READ_RESPONSE_MIDDLE = 0x0e,
	ROCE_READ_RESPONSE_LAST = 0x0f,
	ROCE_READ_RESPONSE_ONLY = 0x10,
	ROCE_ACKNOWLEDGE = 0x11,
	ROCE_ATOMIC_ACKNOWLEDGE = 0x12,
	ROCE_COMPARE_SWAP = 0x13,
	ROCE_FETCH_ADD = 0x14,
	ROCE_SEND_LAST_INV = 0x16,
	ROCE_SEND_ONLY_INV = 0x17,
};

#define ROCE_OPCODE(transport, operation)	((uint8_t)((transport) | (operation)))
#define ROCE_OP_CNP				0x81

/* Flags of an opcode.  The header bits are listed in the order the headers appear. */
enum roce_op_flag {
	ROCE_F_DETH = 1 << 0,
	ROCE_F_RETH = 1 << 1,
	ROCE_F_ATOMIC_ETH = 1 << 2,
	ROCE_F_AETH = 1 << 3,
	ROCE_F_ATOMIC_ACK = 1 << 4,
	ROCE_F_IMMDT = 1 << 5,
	ROCE_F_IETH = 1 << 6,
	ROCE_F_CNP_RSVD = 1 << 7,
	ROCE_F_PAYLOAD = 1 << 8,	/* may carry a payload (and so pad) */
	ROCE_F_REQUEST = 1 << 9,	/* requester to responder */
	ROCE_F_RESPONSE = 1 << 10,	/* responder to requester */
	ROCE_F_FIRST = 1 << 11,		/* position in a multi-packet message */
	ROCE_F_MIDDLE = 1 << 12,
	ROCE_F_LAST = 1 << 13,
	ROCE_F_ONLY = 1 << 14,
};

struct roce_opcode_info {
	const char *name;	/* "RC_SEND_ONLY"; NULL for an unknown opcode */
	uint16_t flags;
	uint8_t hdr_len;	/* BTH and every extension header */
};

/* The entry of opcode, or NULL when the opcode is not one we speak. */
const struct roce_opcode_info *roce_opcode_info(uint8_t opcode);

static inline enum roce_transport roce_opcode_transport(uint8_t opcode)
{
	return opcode & 0xe0;
}
