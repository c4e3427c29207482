/* SPDX-License-Identifier: MIT */
/*
 * The RoCE v2 invariant CRC (reference roce_virtio.md §2.7): CRC-32 (IEEE 802.3, reflected,
 * init ~0, final ~0: zlib's crc32()) over
 *
 *   8 x 0xff | IP header | UDP header | BTH | rest of the transport packet up to the ICRC
 *
 * with the fields a router may change set to ones: IPv4 TOS, TTL, header checksum; IPv6
 * traffic class, flow label, hop limit; the UDP checksum; BTH byte 4 (FECN, BECN, Resv6a).
 * Stored least significant byte first.  The IPv4 Identification and flags ARE covered, which
 * is why a daemon sends with ID 0 and DF (§2.9).
 *
 * The IP+UDP headers and the transport packet are separate arguments because a socket
 * receiver has them apart: the kernel kept the headers, the daemon rebuilds them.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dataplane/roce/ip_udp.h"
#include "dataplane/roce/reason.h"

/* The CRC of ip_udp (IP header with options + UDP header, ip_udp_len <= ROCE_IP_UDP_MAX, the
 * IP version in its first nibble) and transport[0 .. transport_len - 4); transport_len >=
 * BTH + ICRC.  Callers check the lengths (roce_ip_locate() does). */
uint32_t roce_icrc(const uint8_t *ip_udp, size_t ip_udp_len, const uint8_t *transport,
		   size_t transport_len);

/* Writes the ICRC into the last 4 bytes of transport. */
void roce_icrc_seal(const uint8_t *ip_udp, size_t ip_udp_len, uint8_t *transport,
		    size_t transport_len);

/* Checks the ICRC of a whole IPv4/IPv6 datagram (roce_ip_locate's checks first). */
enum roce_reason roce_icrc_check_ip(const uint8_t *ip, size_t len);

/*
 * The ICRC of a transport packet against the IP and UDP headers it came with (ip_udp_len
 * bytes, with options), every bit of them: ROCE_OK, ROCE_ICRC_OTHER_ID when it would be
 * right with another IPv4 Identification (the damage the socket path's solving cannot see),
 * or ROCE_BAD_ICRC.  Callers check the lengths (roce_ip_locate() does).
 */
enum roce_reason roce_icrc_check_wire(const uint8_t *ip_udp, size_t ip_udp_len,
				      const uint8_t *transport, size_t transport_len);

/* The same for a UDP payload received on a socket, with the headers the peer's kernel sent
 * given as a.  A socket does not see the IPv4 Identification: when the ICRC is wrong for
 * a->ip_id, the ID that makes it right is looked for (roce_icrc_solve_ipv4_id), so that
 * packets of senders that number them (rxe, NICs) are accepted too. */
enum roce_reason roce_icrc_check_payload(const struct roce_ip_udp *a, const uint8_t *transport,
					 size_t transport_len);
/*
 * The IPv4 Identification that makes an ICRC right when the one computed with ID 0 differs
 * from the packet's by delta (carried ^ computed), for a transport packet of transport_len
 * bytes (BTH .. ICRC); false when none does: the packet is damaged (icrc_id.c).
 */
bool roce_icrc_solve_ipv4_id(uint32_t delta, size_t transport_len, uint16_t *id);

/* Seals a transport packet for sending through a socket whose kernel writes the headers a. */
enum roce_reason roce_icrc_seal_payload(const struct roce_ip_udp *a, uint8_t *transport,
					size_t transport_len);
