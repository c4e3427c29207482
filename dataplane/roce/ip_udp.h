/* SPDX-License-Identifier: MIT */
/*
 * The IPv4 or IPv6 and UDP headers in front of a RoCE v2 packet (reference roce_virtio.md
 * §2.1, §2.9).  Addresses are GIDs; an IPv4-mapped GID (::ffff:a.b.c.d) means IPv4.
 *
 * A daemon sending through a UDP socket does not write these headers, the kernel does; it
 * still builds them (with the values the kernel will use: ID 0, DF) because the ICRC covers
 * them.  The whole-frame builder is for captures, tests and raw sockets.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dataplane/roce/packet.h"
#include "dataplane/roce/reason.h"

#define ROCE_UDP_PORT		4791
#define ROCE_IPV4_HDR_LEN	20
#define ROCE_IPV6_HDR_LEN	40
#define ROCE_UDP_HDR_LEN	8
#define ROCE_IP_UDP_MAX		(60 + ROCE_UDP_HDR_LEN)	/* IPv4 with every option */

struct roce_ip_udp {
	uint8_t sgid[16];
	uint8_t dgid[16];
	uint8_t tclass;		/* IPv4 TOS / IPv6 traffic class */
	uint8_t hop_limit;	/* IPv4 TTL / IPv6 hop limit */
	uint32_t flow_label;	/* IPv6 only, 20 bits */
	uint16_t ip_id;		/* IPv4 only; 0 from an unconnected socket with DF (§2.9) */
	bool df;		/* IPv4 only */
	uint16_t sport;
	uint16_t dport;
};

/* Where the transport packet sits in an IP datagram. */
struct roce_ip_view {
	size_t ip_udp_len;	/* IP header (with options) + UDP header */
	const uint8_t *transport;	/* BTH .. ICRC */
	size_t transport_len;
};

bool roce_gid_is_ipv4(const uint8_t gid[16]);

/* 28 (IPv4) or 48 (IPv6); 0 when one GID is IPv4-mapped and the other is not. */
size_t roce_ip_udp_len(const struct roce_ip_udp *a);

/* Writes the IP and UDP headers for a transport packet of transport_len bytes (BTH .. ICRC):
 * IPv4 header checksum filled, UDP checksum 0 (roce_frame_build fills it for IPv6). */
enum roce_reason roce_ip_udp_build(const struct roce_ip_udp *a, size_t transport_len, uint8_t *out);

/* Finds the UDP payload of an IPv4/IPv6 datagram: version, IHL, protocol 17 (no IPv6
 * extension headers), IP and UDP lengths agreeing with each other and fitting len (bytes
 * past the IP length, such as Ethernet padding, are ignored), room for BTH and ICRC. */
enum roce_reason roce_ip_locate(const uint8_t *ip, size_t len, struct roce_ip_view *v);

/* The fields of IP and UDP headers as received (ip_udp_len bytes, as roce_ip_locate found
 * them): the inverse of roce_ip_udp_build, IPv4 options skipped. */
enum roce_reason roce_ip_udp_parse(const uint8_t *ip_udp, size_t ip_udp_len, struct roce_ip_udp *a);

/* IP + UDP + roce_pkt_build() + ICRC, and the IPv6 UDP checksum. */
enum roce_reason roce_frame_build(const struct roce_ip_udp *a, const struct roce_pkt *p,
				  const void *payload, size_t payload_len,
				  uint8_t *out, size_t out_size, size_t *out_len);
