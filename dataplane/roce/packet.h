/* SPDX-License-Identifier: MIT */
/*
 * A RoCE v2 transport packet: the UDP payload, BTH .. ICRC (reference roce_virtio.md §2.1,
 * §2.5, §2.6):
 *
 *   BTH | extension headers the opcode needs | payload | pad 0-3 | ICRC 4
 *
 * The parser checks the header stack against the opcode table and the lengths, and points
 * into the buffer; it does not check the ICRC, which covers the IP and UDP headers too
 * (icrc.h).  The builder writes the same layout with PadCnt computed from the payload, zero
 * pad bytes and a zero ICRC for icrc.h to fill.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "dataplane/roce/hdr.h"
#include "dataplane/roce/opcode.h"
#include "dataplane/roce/reason.h"

/* Most a UDP datagram can carry: 65535 less the UDP header. */
#define ROCE_MAX_PKT		(65535 - 8)

struct roce_pkt {
	struct roce_bth bth;
	/* Only the headers the opcode's flags name are read (build) or written (parse). */
	struct roce_deth deth;
	struct roce_reth reth;
	struct roce_atomic_eth atomic;
	struct roce_aeth aeth;
	uint64_t atomic_orig;	/* AtomicAckETH */
	uint32_t imm;		/* ImmDt, as the 32 bits appear on the wire (big-endian read) */
	uint32_t inv_rkey;	/* IETH */
	/* Set by the parser: */
	const struct roce_opcode_info *op;
	const uint8_t *payload;	/* inside the parsed buffer; NULL-free even when empty */
	size_t payload_len;	/* without pad */
	const uint8_t *icrc;	/* the 4 ICRC bytes as received */
};

/* Bytes a packet of this opcode and payload takes, BTH to ICRC; 0 for an unknown opcode. */
size_t roce_pkt_len(uint8_t opcode, size_t payload_len);

enum roce_reason roce_pkt_parse(const uint8_t *buf, size_t len, struct roce_pkt *p);

/* Builds p's headers (p->bth.pad_cnt is ignored: the payload decides it), payload, zero pad
 * and a zero ICRC into out; *out_len = bytes written. */
enum roce_reason roce_pkt_build(const struct roce_pkt *p, const void *payload, size_t payload_len,
				uint8_t *out, size_t out_size, size_t *out_len);
