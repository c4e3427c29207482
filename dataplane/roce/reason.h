/* SPDX-License-Identifier: MIT */
/*
 * Why a RoCE v2 packet was refused, by a builder, a parser or the ICRC check.  One enum for
 * the whole codec so the transport counts drops by one key.  ROCE_OK is 0; every other value
 * names exactly one check.
 */
#pragma once

enum roce_reason {
	ROCE_OK = 0,
	ROCE_SHORT,		/* buffer shorter than the headers the opcode needs (+ ICRC) */
	ROCE_BAD_LENGTH,	/* BTH .. ICRC is not a whole number of dwords, or an IP/UDP
				 * length field disagrees with the buffer */
	ROCE_BAD_FIELD,		/* builder: a field does not fit its bit width */
	ROCE_NO_ROOM,		/* builder: output buffer too small */
	ROCE_TOO_LONG,		/* more than a UDP datagram can carry */
	ROCE_BAD_OPCODE,	/* opcode not in the table (RD, reserved, unknown) */
	ROCE_BAD_TVER,		/* BTH transport version is not 0 */
	ROCE_BAD_PAD,		/* PadCnt larger than the payload, or pad on a packet without one */
	ROCE_UNEXPECTED_PAYLOAD,/* payload on an opcode that carries none (READ request, ACK) */
	ROCE_BAD_SYNDROME,	/* AETH syndrome bit 7 set or the reserved type 10 */
	ROCE_BAD_IP,		/* not IPv4 (IHL >= 5) or IPv6, or next protocol not UDP */
	ROCE_BAD_ICRC,		/* invariant CRC mismatch */
	ROCE_ICRC_OTHER_ID,	/* the ICRC is right only for another IPv4 Identification than the
				 * packet's own (seen where the IP header is: the packet path) */
	ROCE_FRAGMENT,		/* an IPv4 fragment (MF or an offset) */
	ROCE_BAD_CSUM,		/* the IPv4 header or UDP checksum is wrong */
	ROCE_BAD_LINK,		/* a frame: VLAN tag, EtherType not the IP version's, truncated,
				 * or an offload the parser does not know */
	ROCE_REASON_COUNT
};

/* A short stable name ("bad_icrc") for logs and counters. */
const char *roce_reason_name(enum roce_reason r);
