/* SPDX-License-Identifier: MIT */
/*
 * The Omni-Path 16B header (reference opa_vnic.md §4.1): four little-endian 32-bit words.
 *
 *   W0  0-19 SLID[19:0]   20-30 Length (8-byte flits, whole packet)   31 BECN
 *   W1  0-19 DLID[19:0]   20-24 SC   25-27 RC   28 FECN   29-30 L2   31 LT
 *   W2  0-7  L4 type      8-11 SLID[23:20]   12-15 DLID[23:20]   16-31 PKEY
 *   W3  0-15 Entropy      16-23 Age          24-31 reserved
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "dataplane/opa/reason.h"

#define OPA16B_HDR_LEN		16
#define OPA16B_FLIT		8	/* the Length field counts these */
#define OPA16B_MAX_FLITS	0x7ff	/* 11-bit Length */
#define OPA16B_L2_16B		2
#define OPA16B_LID_MAX		0xffffff

struct opa16b_hdr {
	uint32_t slid;		/* 24 bits */
	uint32_t dlid;		/* 24 bits */
	uint16_t length;	/* 11 bits, in flits */
	uint8_t becn;		/* 1 bit */
	uint8_t fecn;		/* 1 bit */
	uint8_t sc;		/* 5 bits */
	uint8_t rc;		/* 3 bits */
	uint8_t l2;		/* 2 bits */
	uint8_t lt;		/* 1 bit: head flit */
	uint8_t l4;
	uint16_t pkey;
	uint16_t entropy;
	uint8_t age;
};

/* Writes the 16 header bytes; OPA_BAD_FIELD if a field exceeds its width (nothing written). */
enum opa_reason opa16b_build(const struct opa16b_hdr *h, uint8_t out[OPA16B_HDR_LEN]);

/* Reads every field, without judging them. len >= OPA16B_HDR_LEN. */
void opa16b_decode(const uint8_t *buf, struct opa16b_hdr *h);

/*
 * Decodes and validates the header of a whole packet of pkt_len bytes: long enough,
 * L2 = 16B, LT set, Length * 8 = pkt_len.  The L4 type is the caller's to judge.
 */
enum opa_reason opa16b_parse(const uint8_t *pkt, size_t pkt_len, struct opa16b_hdr *h);
