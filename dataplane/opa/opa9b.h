/* SPDX-License-Identifier: MIT */
/*
 * A 9B MAD packet on the GSI (reference opa_vnic.md §1.1, §6.2 recipe A), all big-endian:
 *
 *   LRH  8 B   byte0 SC<<4 | LVer, byte1 SL<<4 | LNH (2 = local, no GRH), DLID,
 *              5 reserved bits + 11-bit PktLen in dwords (LRH .. ICRC), SLID
 *   BTH 12 B   opcode 0x64 (UD SEND-only), SE|M|PadCnt|TVer, P_Key, resv8, DestQP (1),
 *              A|resv7, PSN
 *   DETH 8 B   Q_Key 0x80010000, resv8, SrcQP
 *   MAD        24 .. 2048 bytes (OPA MADs need not be 2048; traps are 272)
 *   pad        0-3 bytes to a dword (BTH PadCnt)
 *   ICRC 4 B   see opa9b_icrc()
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "dataplane/opa/reason.h"

#define OPA9B_LRH_LEN		8
#define OPA9B_BTH_LEN		12
#define OPA9B_DETH_LEN		8
#define OPA9B_ICRC_LEN		4
#define OPA9B_HDRS_LEN		(OPA9B_LRH_LEN + OPA9B_BTH_LEN + OPA9B_DETH_LEN)
#define OPA9B_LNH_LOCAL		2
#define OPA9B_OP_UD_SEND_ONLY	0x64
#define OPA9B_GSI_QP		1
#define OPA9B_GSI_QKEY		0x80010000u
#define OPA9B_LID_UNICAST_MAX	0xbfff	/* 16-bit LIDs above are multicast/permissive */
#define OPA9B_MAD_MIN		24	/* the common MAD header */
#define OPA9B_MAD_MAX		2048	/* OPA_MGMT_MAD_SIZE */
#define OPA9B_MAX_PKT		(OPA9B_HDRS_LEN + OPA9B_MAD_MAX + 3 + OPA9B_ICRC_LEN)

/* What varies between MAD packets; the rest (LNH, opcode, QP 1, Q_Key) is fixed. */
struct opa9b_mad_addr {
	uint8_t sc;		/* 4 bits, in the LRH VL position */
	uint8_t sl;		/* 4 bits */
	uint16_t dlid;
	uint16_t slid;
	uint16_t pkey;
	uint32_t src_qp;	/* 24 bits; 1 for the GSI */
	uint32_t psn;		/* 24 bits */
};

struct opa9b_mad_pkt {
	struct opa9b_mad_addr addr;
	const uint8_t *mad;	/* inside the parsed buffer */
	size_t mad_len;
};

/* Bytes a packet around a MAD of mad_len bytes takes. */
size_t opa9b_mad_pkt_len(size_t mad_len);

/* The ICRC of pkt[0 .. len-4): CRC-32 over the packet with the variant fields set to ones.
 * len >= OPA9B_HDRS_LEN + OPA9B_ICRC_LEN (opa9b_mad_parse() checks before calling). */
uint32_t opa9b_icrc(const uint8_t *pkt, size_t len);

/* Builds LRH+BTH+DETH+MAD+pad+ICRC into out; *out_len = bytes written. */
enum opa_reason opa9b_mad_build(const struct opa9b_mad_addr *a, const uint8_t *mad, size_t mad_len,
				uint8_t *out, size_t out_size, size_t *out_len);

/* Validates a whole packet (lengths, LNH, opcode, QP, Q_Key, ICRC) and points p->mad into it. */
enum opa_reason opa9b_mad_parse(const uint8_t *pkt, size_t len, struct opa9b_mad_pkt *p);
