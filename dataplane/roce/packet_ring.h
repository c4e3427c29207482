/* SPDX-License-Identifier: MIT */
/*
 * The packet path's way in: an AF_PACKET socket on the RoCE interface with a receive ring
 * mapped into rdmad (TPACKET_V2, PACKET_RX_RING), a classic BPF filter letting only UDP to
 * the RoCE port addressed to this host through, and a virtio-net header before each frame
 * (PACKET_VNET_HDR) that says when a frame is several datagrams (frame_rx.h).  Unlike a
 * UDP socket, it sees the IP header: the IPv4 Identification the ICRC covers.  Needs
 * CAP_NET_RAW (docs/decisions.md, "RoCE v2 receive path").
 *
 * The ring is shared with the kernel only; still, a frame's header fields and bytes are
 * copied out and bounded before anything reads them, and the frame goes back to the kernel
 * before it is parsed.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "dataplane/roce/frame_rx.h"
#include "dataplane/udp.h"

struct roce_ring {
	int fd;                   /* -1: none */
	char ifname[16];          /* IF_NAMESIZE: bound by name, followed when it comes back */
	uint8_t *map;
	size_t map_len;
	unsigned frame_size, frames, next;
};

/*
 * Opens the ring on interface ifname for UDP port: 0, or -errno (-EPERM without CAP_NET_RAW,
 * -ENODEV without the interface).  Outgoing frames are not seen (PACKET_IGNORE_OUTGOING).
 */
int roce_ring_open(struct roce_ring *ring, const char *ifname, uint16_t port);
void roce_ring_close(struct roce_ring *ring);
/*
 * The interface went away (the socket reports ENETDOWN) or came back, maybe under another
 * index: clears the socket's error and binds to the interface of that name now, if there
 * is one.  0 or -errno (-ENODEV: none yet).
 */
int roce_ring_rebind(struct roce_ring *ring);
/* A UDP socket that sends for the packet path: GRO on (a GSO buffer dropped whole), and a
 * filter that keeps no datagram. */
int roce_ring_deafen(struct dp_udp *u);
/* Undoes roce_ring_deafen: the socket receives again, with GRO (the socket path's). */
void roce_ring_hear(struct dp_udp *u);

/*
 * Frames the kernel had no room for in the ring since the last call (PACKET_STATISTICS
 * tp_drops, which reading resets): each is lost, a GSO buffer with all its datagrams.
 * 0 where the kernel does not say.
 */
unsigned roce_ring_drops(struct roce_ring *ring);

typedef void (*roce_ring_fn)(void *arg, const uint8_t *frame, size_t len,
			     const struct roce_frame_info *info);

/*
 * Takes up to max frames the kernel filled: each is handed to fn in its slot (at most
 * ROCE_FRAME_MAX bytes; one whose offsets do not fit its slot is skipped), then given back.
 * fn keeps nothing of the frame.  How many frames were taken.
 */
unsigned roce_ring_take(struct roce_ring *ring, unsigned max, roce_ring_fn fn, void *arg);
