/* SPDX-License-Identifier: MIT */
/*
 * A frame the packet path's ring handed over (packet_ring.c), taken apart into the RoCE v2
 * datagrams it carries, each with the IP and UDP headers it had on the wire: the ICRC is then
 * checked against every bit of them (icrc.h, roce_icrc_check_wire).
 *
 * The bytes are hostile.  Checked here, in this order: the frame is whole (its bytes are its
 * length on the link), untagged (a VLAN's frames are its own interface's), an IPv4 or IPv6
 * EtherType matching the header's version; the IP header's length, options, protocol UDP,
 * no fragment, the IPv4 header checksum; UDP to the RoCE port, its length agreeing with the
 * IP length, its checksum where the kernel did not vouch for it; room for BTH and ICRC.
 *
 * A frame may be several datagrams: a UDP GSO buffer that crossed a veth or a bridge whole
 * (the virtio-net header says so, VIRTIO_NET_HDR_GSO_UDP_L4 and its segment size).  Each
 * segment is then the datagram the kernel would have cut, with the header the kernel would
 * have written for it: IPv4 ID the first's plus its index, its own IP and UDP lengths.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dataplane/roce/ip_udp.h"
#include "dataplane/roce/reason.h"

/* struct virtio_net_hdr, before each frame of a PACKET_VNET_HDR socket. */
#define ROCE_FRAME_VNET_LEN	10
/* An Ethernet header without a tag. */
#define ROCE_FRAME_ETH_LEN	14
/* The most a frame can be: Ethernet and the largest IP datagram. */
#define ROCE_FRAME_MAX		(ROCE_FRAME_ETH_LEN + 65535)

/* What the ring says of a frame besides its bytes, copied out of the ring's header. */
struct roce_frame_info {
	size_t wire_len;		/* its length on the link (tp_len) */
	bool vlan_tagged;		/* the kernel took a VLAN tag off it (TP_STATUS_VLAN_VALID) */
	bool csum_trusted;		/* UDP checksum verified, or not yet written (TP_STATUS_CSUM_VALID,
					 * TP_STATUS_CSUMNOTREADY): nothing to check */
	uint8_t vnet[ROCE_FRAME_VNET_LEN];	/* its virtio-net header (little-endian fields) */
};

/* One datagram of a frame. */
struct roce_frame_seg {
	uint8_t ip_udp[ROCE_IP_UDP_MAX];	/* its IP (with options) and UDP headers as on the wire */
	size_t ip_udp_len;
	const uint8_t *transport;		/* BTH .. ICRC, inside the frame */
	size_t transport_len;
};

typedef void (*roce_frame_seg_fn)(void *arg, const struct roce_frame_seg *s);

/*
 * Checks frame[0 .. len) (Ethernet onwards, a copy the caller owns) as above for UDP port, and
 * calls fn for each datagram; ROCE_OK, or why the whole frame was refused (fn not called).
 */
enum roce_reason roce_frame_rx(const uint8_t *frame, size_t len, const struct roce_frame_info *info,
			       uint16_t port, roce_frame_seg_fn fn, void *arg);
/*
 * The same from the IP header on (ip[0 .. len), len at least 1): for a datagram that came
 * without its Ethernet header, as a link endpoint's do (link_rx.c); info's wire_len and
 * vlan_tagged are not read.
 */
enum roce_reason roce_ip_rx(const uint8_t *ip, size_t len, const struct roce_frame_info *info,
			    uint16_t port, roce_frame_seg_fn fn, void *arg);
