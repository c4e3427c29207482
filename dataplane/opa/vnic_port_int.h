/* SPDX-License-Identifier: MIT */
/*
 * What the two halves of a VNIC port share (vnic_port.c: configuration, lifetime,
 * counting, TX on the port's worker; vnic_port_rx.c: RX and receive coalescing on the
 * fabric's worker).  Not for anyone else: the port is opaque (vnic_port.h).
 */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include <linux/virtio_net.h>

#include "dataplane/bytes.h"
#include "dataplane/udp.h"
#include "dataplane/opa/mac_index.h"
#include "dataplane/opa/stat.h"
#include "dataplane/opa/vnic_counters.h"
#include "dataplane/opa/vnic_port.h"

#define ETH_P_8021Q	0x8100
/* Type byte + the longest packet a frame of OPA_VPORT_FRAME_MAX bytes could need. */
#define PKT_BUF_SIZE	(1 + OPA_VNIC_MAX_PKT)
/* A TSO super-frame: 64 KiB of IP packet behind an Ethernet header, VLAN tag included. */
#define OPA_VPORT_READ_MAX	(65536 + 18)

struct opa_vport_config {
	struct opa_vnic_port hdr;
	struct opa_vnic_dlid_tables dlid;	/* macs unused: the index stands for them */
	struct opa_mac_index macs;
	uint32_t mtu;
	bool up;
};

/* RX coalescing: at most this many TCP segments in one super-frame to the host. */
#define RX_GRO_SEGS	64

/*
 * The RX batch context (the fabric's worker): frames held back since the last flush.  n = 0:
 * none; n = 1: one frame that may become the first of a TCP super-frame; n > 1: first[]
 * then the payloads iov[2 .. n] of in-order segments of its flow.  The bytes stay where the
 * fabric received them until opa_vport_rx_flush (see vnic_port.h).
 */
struct rx_gro {
	unsigned n;
	const uint8_t *first;	/* the first frame */
	size_t first_len;	/* its length = the length of each but the last */
	size_t last_len;	/* the last frame's length */
	size_t l4, hlen;	/* TCP header offset, all headers */
	size_t mss;		/* the first's payload */
	size_t total;		/* Ethernet bytes of the super-frame */
	uint32_t next_seq;
	bool v6;
	bool closed;		/* PSH or a short segment: nothing more merges */
	bool psh;		/* the last had PSH: the super-frame's header says so */
	uint8_t hdr[sizeof(struct virtio_net_hdr_v1) + 14 + 40 + 60];
	struct iovec iov[1 + RX_GRO_SEGS];
};

/* What the TX turn remembers of each frame until the batch is sent. */
struct tx_frame {
	uint32_t len;		/* Ethernet length after padding to 60 */
	bool queued;		/* has datagrams in the batch */
	bool mcast;
	bool vlan;
	int err;		/* the first send error of its datagrams */
};

struct opa_vport {
	int tap_fd;
	size_t vnet_hdr_len;			/* 0, or the TAP's virtio_net_hdr size */
	struct opa_fabric *fabric;
	_Atomic(struct opa_vport_config *) config;
	struct opa_vnic_counters counters;
	int attach_error;
	struct rx_gro gro;			/* the fabric's worker only */
	/* The port's worker only. */
	struct dp_udp_tx_batch batch;
	struct tx_frame frames[OPA_VPORT_TX_BURST];
	uint8_t *pkts;				/* OPA_VPORT_TX_BURST packet buffers */
	unsigned n_slots;			/* frames[] and pkts taken this turn */
	uint8_t vnet_hdr[sizeof(struct virtio_net_hdr_v1)];	/* of the frame read */
	uint8_t frame[OPA_VPORT_READ_MAX];	/* a frame, or a TCP super-frame to cut */
	uint8_t seg[OPA_VPORT_FRAME_MAX];	/* one segment of it */
};

/*
 * What both halves use, here rather than in vnic_port.c: the RX half sits
 * below the fabric, which vnic_port.c's TX calls, so it calls nothing of
 * vnic_port.c (no circle fabric -> RX -> port -> fabric).
 */

/* The configuration in force (acquire: the snapshot's bytes are seen whole). */
static inline const struct opa_vport_config *opa_vport_config_of(struct opa_vport *p)
{
	return atomic_load_explicit(&p->config, memory_order_acquire);
}

/* ---- counting (§5.3), for both directions */
static inline bool opa_vport_frame_is_vlan(const uint8_t *frame, size_t len)
{
	return len >= 14 && dp_get_be16(frame + 12) == ETH_P_8021Q;
}

/* Every frame that reaches the decision: packets, bytes with FCS, size bucket. */
static inline void opa_vport_count_total(struct opa_vnic_dir_counters *d, uint32_t len)
{
	opa_stat_add(&d->packets, 1);
	opa_stat_add(&d->bytes, len + 4);
	opa_stat_add(&d->size[opa_vnic_size_bucket(len)], 1);
}

/* Good frames only: cast and tagging. */
static inline void opa_vport_count_good(struct opa_vnic_dir_counters *d, bool mcast, bool vlan)
{
	opa_stat_add(mcast ? &d->mcastbcast : &d->unicast, 1);
	opa_stat_add(vlan ? &d->vlan : &d->untagged, 1);
}
