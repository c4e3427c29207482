/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/udp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dataplane/roce/packet_ring.h"

/*
 * A slot holds the largest frame a GSO buffer can make (64 KiB of IP datagram) behind the
 * ring's header and the virtio-net header: per-frame slots (TPACKET_V2) rather than
 * TPACKET_V3's blocks, which wake the reader only when a block fills or its timer (a
 * millisecond at least) runs out, a latency no request-response can pay.  The kernel
 * allocates blocks in powers of two pages: three slots fill a block of 256 KiB.
 */
#define BLOCK_SIZE	(256u * 1024)
#define SLOTS_PER_BLOCK	3
#define SLOT_SIZE	(BLOCK_SIZE / SLOTS_PER_BLOCK / 16 * 16)
#define BLOCKS		43
#define SNAP_ALL	0xffffffffu

_Static_assert(SLOT_SIZE >= TPACKET_ALIGN(TPACKET2_HDRLEN) + ROCE_FRAME_VNET_LEN + ROCE_FRAME_MAX,
	       "a slot holds the largest frame");

/*
 * Frames to this host (not another's, not our own going out), IPv4 not a fragment or IPv6,
 * UDP to port; the parser checks all of it again.  Offsets are of the Ethernet frame.
 */
static int attach_filter(int fd, uint16_t port)
{
	struct sock_filter code[] = {
		/* 0 */ BPF_STMT(BPF_LD | BPF_B | BPF_ABS, SKF_AD_OFF + SKF_AD_PKTTYPE),
		/* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PACKET_HOST, 0, 15),
		/* 2 */ BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 12),
		/* 3 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_IP, 0, 7),
		/* 4 */ BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 23),
		/* 5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 17, 0, 11),
		/* 6 */ BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 20),
		/* 7 */ BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x3fff, 9, 0),
		/* 8 */ BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 14),
		/* 9 */ BPF_STMT(BPF_LD | BPF_H | BPF_IND, 14 + 2),
		/* 10 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, port, 5, 6),
		/* 11 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_IPV6, 0, 5),
		/* 12 */ BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 14 + 6),
		/* 13 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 17, 0, 3),
		/* 14 */ BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 14 + 40 + 2),
		/* 15 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, port, 0, 1),
		/* 16 */ BPF_STMT(BPF_RET | BPF_K, SNAP_ALL),
		/* 17 */ BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_fprog prog = { .len = sizeof(code) / sizeof(code[0]), .filter = code };

	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) < 0)
		return -errno;
	return 0;
}

static int set_int(int fd, int level, int name, int v)
{
	return setsockopt(fd, level, name, &v, sizeof(v)) < 0 ? -errno : 0;
}

int roce_ring_deafen(struct dp_udp *u)
{
	struct sock_filter none = BPF_STMT(BPF_RET | BPF_K, 0);
	struct sock_fprog prog = { .len = 1, .filter = &none };
	/*
	 * GRO on: a socket without it has the kernel cut every GSO buffer that
	 * crossed a veth whole into datagrams, only for the filter to drop each
	 * one (64 KiB WRITEs moved at about two thirds the rate).  What GRO on
	 * a NIC could merge for it is UDP with a checksum (the kernel's UDP GRO
	 * takes none without), which RoCE v2 over IPv4 does not carry (rxe, NICs
	 * and rdmad send 0), and over IPv6 there is no ID to lose; a merge whose
	 * IDs the ring's cut did not give back would fail its ICRC and be
	 * dropped, never passed (docs/decisions.md).
	 */
	int r = set_int(u->fd, SOL_UDP, UDP_GRO, 1);

	if (r)
		return r;
	u->gro = true;
	if (setsockopt(u->fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) < 0)
		return -errno;
	return 0;
}

int roce_ring_open(struct roce_ring *ring, const char *ifname, uint16_t port)
{
	struct tpacket_req req = {
		.tp_block_size = BLOCK_SIZE, .tp_block_nr = BLOCKS,
		.tp_frame_size = SLOT_SIZE, .tp_frame_nr = BLOCKS * SLOTS_PER_BLOCK,
	};
	struct sockaddr_ll ll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	int fd, r;

	memset(ring, 0, sizeof(*ring));
	ring->fd = -1;
	ll.sll_ifindex = (int)if_nametoindex(ifname);
	if (!ll.sll_ifindex)
		return -ENODEV;
	/* Protocol 0: nothing is received until the filter is on and the socket bound. */
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	r = set_int(fd, SOL_PACKET, PACKET_VERSION, TPACKET_V2);
	if (!r)
		r = set_int(fd, SOL_PACKET, PACKET_VNET_HDR, 1);
	if (!r)
		r = set_int(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, 1);
	if (!r)
		r = attach_filter(fd, port);
	if (!r && setsockopt(fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)) < 0)
		r = -errno;
	if (r)
		goto fail;
	ring->map_len = (size_t)BLOCK_SIZE * BLOCKS;
	ring->map = mmap(NULL, ring->map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
	if (ring->map == MAP_FAILED) {
		r = -errno;
		ring->map = NULL;
		goto fail;
	}
	if (bind(fd, (struct sockaddr *)&ll, sizeof(ll)) < 0) {
		r = -errno;
		goto fail;
	}
	ring->fd = fd;
	snprintf(ring->ifname, sizeof(ring->ifname), "%s", ifname);
	ring->frame_size = SLOT_SIZE;
	ring->frames = BLOCKS * SLOTS_PER_BLOCK;
	return 0;
fail:
	if (ring->map)
		munmap(ring->map, ring->map_len);
	ring->map = NULL;
	close(fd);
	return r;
}

void roce_ring_close(struct roce_ring *ring)
{
	if (ring->map)
		munmap(ring->map, ring->map_len);
	if (ring->fd >= 0)
		close(ring->fd);
	ring->map = NULL;
	ring->fd = -1;
}

int roce_ring_rebind(struct roce_ring *ring)
{
	struct sockaddr_ll ll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	socklen_t len = sizeof(int);
	int err;

	(void)getsockopt(ring->fd, SOL_SOCKET, SO_ERROR, &err, &len);
	ll.sll_ifindex = (int)if_nametoindex(ring->ifname);
	if (!ll.sll_ifindex)
		return -ENODEV;
	if (bind(ring->fd, (struct sockaddr *)&ll, sizeof(ll)) < 0)
		return -errno;
	return 0;
}

void roce_ring_hear(struct dp_udp *u)
{
	int off = 0;

	(void)setsockopt(u->fd, SOL_SOCKET, SO_DETACH_FILTER, &off, sizeof(off));
	(void)dp_udp_enable_gro(u);
}

unsigned roce_ring_drops(struct roce_ring *ring)
{
	struct tpacket_stats st = { 0 };
	socklen_t len = sizeof(st);

	if (getsockopt(ring->fd, SOL_PACKET, PACKET_STATISTICS, &st, &len) < 0)
		return 0;
	return st.tp_drops;
}

/* The slot's status word, shared with the kernel: acquire to read what it wrote before. */
static uint32_t slot_status(struct tpacket2_hdr *h)
{
	return __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);
}

unsigned roce_ring_take(struct roce_ring *ring, unsigned max, roce_ring_fn fn, void *arg)
{
	unsigned taken = 0;

	while (taken < max) {
		uint8_t *slot = ring->map + (size_t)(ring->next / SLOTS_PER_BLOCK) * BLOCK_SIZE +
				(size_t)(ring->next % SLOTS_PER_BLOCK) * ring->frame_size;
		struct tpacket2_hdr *h = (struct tpacket2_hdr *)slot;
		uint32_t status = slot_status(h), len, snap, mac;
		struct roce_frame_info info = { 0 };
		bool fits;

		if (!(status & TP_STATUS_USER))
			break;
		/* Once each, then bounded: the slot's offsets are the kernel's word, not a proof. */
		len = h->tp_len;
		snap = h->tp_snaplen;
		mac = h->tp_mac;
		fits = mac >= TPACKET2_HDRLEN + ROCE_FRAME_VNET_LEN && mac <= ring->frame_size &&
		       snap <= ring->frame_size - mac && snap <= ROCE_FRAME_MAX;
		/*
		 * Read in its slot: the kernel writes a slot only once it is given
		 * back (TP_STATUS_KERNEL), so the frame stays as it was while fn reads
		 * it, and nothing of it is kept past fn (what a QP keeps it copies).
		 */
		if (fits) {
			memcpy(info.vnet, slot + mac - ROCE_FRAME_VNET_LEN, ROCE_FRAME_VNET_LEN);
			info.wire_len = len;
			info.vlan_tagged = status & TP_STATUS_VLAN_VALID;
			info.csum_trusted = status & (TP_STATUS_CSUM_VALID | TP_STATUS_CSUMNOTREADY);
			fn(arg, slot + mac, snap, &info);
		}
		__atomic_store_n(&h->tp_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
		ring->next = (ring->next + 1) % ring->frames;
		taken++;
	}
	return taken;
}
