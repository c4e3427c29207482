/* SPDX-License-Identifier: MIT */
/*
 * Why an Omni-Path packet was refused, by a builder or a parser.  One enum for the three
 * codecs (16B header, 9B MAD packet, VNIC encapsulation) so a caller counts drops by one key.
 * OPA_OK is 0; every other value names exactly one check.
 */
#pragma once

enum opa_reason {
	OPA_OK = 0,
	OPA_SHORT,		/* buffer shorter than the headers it must hold */
	OPA_BAD_LENGTH,		/* header length field disagrees with the buffer length */
	OPA_BAD_FIELD,		/* builder: a field does not fit its bit width */
	OPA_NO_ROOM,		/* builder: output buffer too small */
	OPA_TOO_LONG,		/* payload does not fit the 11-bit length field */
	OPA_BAD_L2,		/* 16B: L2 is not 2 (16B) */
	OPA_BAD_LT,		/* 16B: LT (head flit) bit clear */
	OPA_BAD_L4,		/* 16B: L4 type is not 0x78 (VNIC Ethernet) */
	OPA_BAD_VESW,		/* VNIC: vesw_id is not the expected one */
	OPA_RUNT,		/* VNIC: decapsulated frame < 60 bytes */
	OPA_OVERSIZE,		/* VNIC: decapsulated frame > MTU + 18 */
	OPA_DLID_ZERO,		/* VNIC: no DLID found for the destination MAC */
	OPA_BAD_LNH,		/* 9B: LNH is not 2 (local, no GRH) */
	OPA_BAD_LVER,		/* 9B: link version is not 0 */
	OPA_BAD_OPCODE,		/* 9B: BTH opcode is not UD SEND-only */
	OPA_BAD_TVER,		/* 9B: BTH transport version is not 0 */
	OPA_BAD_QP,		/* 9B: destination QP is not 1 (GSI) */
	OPA_BAD_QKEY,		/* 9B: Q_Key is not 0x80010000 */
	OPA_BAD_MAD_LEN,	/* 9B: MAD shorter than its 24-byte header or longer than 2048 */
	OPA_BAD_ICRC,		/* 9B: invariant CRC mismatch */
	OPA_REASON_COUNT
};

/* A short stable name ("bad_icrc") for logs and counters. */
const char *opa_reason_name(enum opa_reason r);
