/* SPDX-License-Identifier: MIT */
/*
 * What a TAP's virtio_net_hdr asks of a frame the host sent (IFF_VNET_HDR with TUNSETOFFLOAD
 * TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6): the data path does what a NIC with TX checksum
 * offload and TSO would.
 *
 *   NEEDS_CSUM, gso_type NONE: the checksum from csum_start to the end of the frame, stored
 *      at csum_start + csum_offset (where the kernel left the pseudo-header's sum).
 *   gso_type TCPV4 / TCPV6: a TCP super-frame cut into gso_size payloads, each behind a copy
 *      of the headers with IPv4 total length, id (+1 a segment) and header checksum, or the
 *      IPv6 payload length, fixed; TCP sequence number advanced; FIN and PSH on the last
 *      segment only, CWR on the first only; the TCP checksum computed in full (as the
 *      kernel's tcp_gso_segment + skb_checksum_help would send them).  IPv6 extension
 *      headers are not supported (the kernel's TCP sends none).
 *
 * The header is in the host's byte order (a legacy virtio header: the TAP is not switched
 * with TUNSETVNETLE/BE).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/virtio_net.h>

/* Internet checksum (RFC 1071) in the host's byte order: sum a region (even length but for
 * the last), then fold: the 16 bits to memcpy into the checksum field as they are. */
uint64_t opa_csum_add(uint64_t sum, const uint8_t *buf, size_t len);
uint16_t opa_csum_fold(uint64_t sum);

/* A super-frame's layout, from opa_gso_parse. */
struct opa_gso {
	size_t l3;		/* IP header offset */
	size_t l4;		/* TCP header offset */
	size_t hlen;		/* all headers */
	size_t mss;		/* payload bytes per segment */
	size_t payload;		/* payload bytes in all */
	unsigned nseg;
	bool v6;
};

/* NEEDS_CSUM on a frame that is no super-frame: completed in place.  -EINVAL for a gso_type
 * other than NONE or a csum_start/offset beyond the frame. */
int opa_vnet_csum(const struct virtio_net_hdr *h, uint8_t *frame, size_t len);

/* 0: frame[0 .. len) is a TCP super-frame of g->nseg (>= 1) segments; -EINVAL: not one
 * this can cut (another gso_type, headers that do not parse, gso_size 0). */
int opa_gso_parse(const struct virtio_net_hdr *h, const uint8_t *frame, size_t len,
		  struct opa_gso *g);
/* Segment i (< g->nseg) of frame into out (room for g->hlen + g->mss); its length. */
size_t opa_gso_segment(const struct opa_gso *g, const uint8_t *frame, unsigned i, uint8_t *out);
