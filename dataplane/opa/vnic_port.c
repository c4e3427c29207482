/* SPDX-License-Identifier: MIT */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/uio.h>
#include <unistd.h>

#include <linux/virtio_net.h>

#include "dataplane/opa/vnic_port.h"
#include "dataplane/opa/bytes.h"
#include "dataplane/opa/fabric.h"
#include "dataplane/opa/flow_hash.h"
#include "dataplane/opa/mac_index.h"
#include "dataplane/opa/stat.h"
#include "dataplane/opa/vnic_encap.h"
#include "dataplane/opa/vnic_gso.h"

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

struct opa_vport_config *opa_vport_config_new(const struct opa_vnic_port *hdr,
					      const struct opa_vnic_dlid_tables *t, uint32_t mtu,
					      bool up)
{
	struct opa_vport_config *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	if (opa_mac_index_build(&c->macs, t->macs, t->n_macs)) {
		free(c);
		return NULL;
	}
	c->hdr = *hdr;
	c->dlid = *t;
	c->dlid.macs = NULL;
	c->dlid.n_macs = 0;
	c->mtu = mtu;
	c->up = up;
	return c;
}

void opa_vport_config_free(struct opa_vport_config *c)
{
	if (!c)
		return;
	opa_mac_index_free(&c->macs);
	free(c);
}

int opa_vport_new(struct opa_vport **out, struct opa_fabric *f, int tap_fd,
		  struct opa_vport_config *initial)
{
	struct opa_vport *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->pkts = malloc((size_t)OPA_VPORT_TX_BURST * PKT_BUF_SIZE);
	if (!p->pkts) {
		free(p);
		return -ENOMEM;
	}
	p->tap_fd = tap_fd;
	p->fabric = f;
	atomic_init(&p->config, initial);
	*out = p;
	return 0;
}

int opa_vport_set_vnet_hdr(struct opa_vport *p, size_t len)
{
	if (len && len != sizeof(struct virtio_net_hdr) && len != sizeof(struct virtio_net_hdr_v1))
		return -EINVAL;
	p->vnet_hdr_len = len;
	return 0;
}

void opa_vport_free(struct opa_vport *p)
{
	if (!p)
		return;
	opa_vport_config_free(atomic_load(&p->config));
	free(p->pkts);
	free(p);
}

struct opa_vport_config *opa_vport_publish(struct opa_vport *p, struct opa_vport_config *c)
{
	return atomic_exchange_explicit(&p->config, c, memory_order_acq_rel);
}

static const struct opa_vport_config *config_of(struct opa_vport *p)
{
	return atomic_load_explicit(&p->config, memory_order_acquire);
}

void opa_vport_read_counters(const struct opa_vport *p, struct opa_vnic_counters *out)
{
	opa_stat_copy(out, &p->counters, sizeof(*out));
}

/* ---- counting (§5.3) ---- */

static bool frame_is_vlan(const uint8_t *frame, size_t len)
{
	return len >= 14 && opa_get_be16(frame + 12) == ETH_P_8021Q;
}

/* Every frame that reaches the decision: packets, bytes with FCS, size bucket. */
static void count_total(struct opa_vnic_dir_counters *d, uint32_t len)
{
	opa_stat_add(&d->packets, 1);
	opa_stat_add(&d->bytes, len + 4);
	opa_stat_add(&d->size[opa_vnic_size_bucket(len)], 1);
}

/* Good frames only: cast and tagging. */
static void count_good(struct opa_vnic_dir_counters *d, bool mcast, bool vlan)
{
	opa_stat_add(mcast ? &d->mcastbcast : &d->unicast, 1);
	opa_stat_add(vlan ? &d->vlan : &d->untagged, 1);
}

/* ---- TX (the port's worker) ---- */

/* The DLID: the MAC index first (§4.6 step 1), then what the field chooser finds without it. */
static enum opa_reason choose_fields(const struct opa_vport_config *c, const uint8_t *frame,
				     size_t len, struct opa_vnic_tx *tx)
{
	enum opa_reason r;
	uint32_t dlid;

	r = opa_vnic_tx_fields(&c->hdr, &c->dlid, frame, len, opa_vnic_flow_hash(frame, len), tx);
	if (opa_mac_index_lookup(&c->macs, frame, &dlid) && dlid) {
		tx->dlid = dlid;
		return OPA_OK;
	}
	return r;
}

enum opa_reason opa_vport_encap(const struct opa_vport_config *c, const uint8_t *frame,
				size_t len, uint8_t *out, size_t size, size_t *out_len,
				uint32_t *dlid)
{
	struct opa_vnic_tx tx;

	*dlid = 0;
	if (choose_fields(c, frame, len, &tx) != OPA_OK)
		return OPA_DLID_ZERO;
	*dlid = tx.dlid;
	return opa_vnic_encap(&tx, frame, len, out, size, out_len);
}

static void flush(struct opa_vport *p)
{
	struct dp_udp_tx_batch *b = &p->batch;
	unsigned i;

	if (!b->n)
		return;
	opa_fabric_send_batch(p->fabric, b);
	for (i = 0; i < b->n; i++)
		if (b->err[i] && !p->frames[b->tag[i]].err)
			p->frames[b->tag[i]].err = b->err[i];
	dp_udp_tx_reset(b);
}

/* One frame (room for 60 bytes in it): decide, count the drops, queue its datagrams. */
static void tx_one(struct opa_vport *p, const struct opa_vport_config *c,
		   const struct opa_fabric_map *map, unsigned slot, uint8_t *frame, size_t len)
{
	struct tx_frame *fr = &p->frames[slot];
	struct opa_vnic_counters *k = &p->counters;
	uint8_t *pkt = p->pkts + (size_t)slot * PKT_BUF_SIZE;
	const struct opa_fabric_route *route;
	enum opa_reason r;
	size_t pkt_len;
	uint32_t i, dlid;

	/* Short frames go out padded to 60 (reference §4.2) and are counted so. */
	if (len < OPA_VNIC_MIN_FRAME) {
		memset(frame + len, 0, OPA_VNIC_MIN_FRAME - len);
		len = OPA_VNIC_MIN_FRAME;
	}
	*fr = (struct tx_frame){
		.len = len, .mcast = frame[0] & 1, .vlan = frame_is_vlan(frame, len),
	};
	count_total(&k->tx, len);
	if (!c || !c->up) {
		opa_stat_add(&k->tx_drop_state, 1);
		return;
	}
	r = opa_vport_encap(c, frame, len, pkt + 1, PKT_BUF_SIZE - 1, &pkt_len, &dlid);
	if (r == OPA_DLID_ZERO) {
		opa_stat_add(&k->tx_dlid_zero, 1);
		return;
	}
	/* Refused only for an SC wider than 5 bits or a frame beyond the 11-bit Length. */
	if (r != OPA_OK) {
		opa_stat_add(&k->tx_carrier_errors, 1);
		return;
	}
	route = opa_fabric_route(map, dlid);
	if (!route) {
		opa_stat_add(&k->tx_no_route, 1);
		opa_fabric_count_frames(p->fabric, 0, 1);
		return;
	}
	pkt[0] = OPA_FABRIC_TYPE_16B;
	fr->queued = true;
	for (i = 0; i < route->n; i++) {
		if (dp_udp_tx_full(&p->batch))
			flush(p);
		dp_udp_tx_add(&p->batch, &route->addrs[i], pkt, pkt_len + 1, slot);
	}
}

/* After the batch went out: what happened to each queued frame. */
static void tx_account(struct opa_vport *p, unsigned n)
{
	struct opa_vnic_counters *k = &p->counters;
	uint64_t sent = 0;
	unsigned i;

	for (i = 0; i < n; i++) {
		struct tx_frame *fr = &p->frames[i];

		if (!fr->queued)
			continue;
		if (fr->err == -EAGAIN || fr->err == -ENOBUFS) {
			opa_stat_add(&k->tx_fifo_errors, 1);
		} else if (fr->err) {
			opa_stat_add(&k->tx_carrier_errors, 1);
		} else {
			count_good(&k->tx, fr->mcast, fr->vlan);
			sent++;
		}
	}
	opa_fabric_count_frames(p->fabric, sent, 0);
}

/* One frame into p->frame (its virtio_net_hdr, if any, into p->vnet_hdr): its length, 0 for
 * a frame shorter than its header, -1 when there is none to read. */
static ssize_t tap_read(struct opa_vport *p)
{
	struct iovec iov[2] = {
		{ .iov_base = p->vnet_hdr, .iov_len = p->vnet_hdr_len },
		{ .iov_base = p->frame, .iov_len = sizeof(p->frame) },
	};
	ssize_t got;

	if (!p->vnet_hdr_len) {
		got = read(p->tap_fd, p->frame, sizeof(p->frame));
		return got > 0 ? got : -1;
	}
	got = readv(p->tap_fd, iov, 2);
	if (got <= 0)
		return -1;
	return got > (ssize_t)p->vnet_hdr_len ? got - (ssize_t)p->vnet_hdr_len : 0;
}

/* The next slot of the turn; when all are taken, the batch goes out and they are free. */
static unsigned next_slot(struct opa_vport *p)
{
	if (p->n_slots == OPA_VPORT_TX_BURST) {
		flush(p);
		tx_account(p, p->n_slots);
		p->n_slots = 0;
	}
	return p->n_slots++;
}

/* The frame read into p->frame, as its virtio_net_hdr asks (dataplane/opa/vnic_gso.h). */
static void tx_read_frame(struct opa_vport *p, const struct opa_vport_config *c,
			  const struct opa_fabric_map *map, size_t len)
{
	struct virtio_net_hdr h;
	struct opa_gso g;
	unsigned i;

	if (!p->vnet_hdr_len) {
		tx_one(p, c, map, next_slot(p), p->frame, len);
		return;
	}
	memcpy(&h, p->vnet_hdr, sizeof(h));
	if (h.gso_type == VIRTIO_NET_HDR_GSO_NONE) {
		if (opa_vnet_csum(&h, p->frame, len) == 0) {
			tx_one(p, c, map, next_slot(p), p->frame, len);
			return;
		}
	} else if (opa_gso_parse(&h, p->frame, len, &g) == 0 && g.hlen + g.mss <= sizeof(p->seg)) {
		for (i = 0; i < g.nseg; i++)
			tx_one(p, c, map, next_slot(p), p->seg,
			       opa_gso_segment(&g, p->frame, i, p->seg));
		return;
	}
	/* A header the frame cannot satisfy: the kernel sends none. */
	opa_stat_add(&p->counters.tx_carrier_errors, 1);
}

unsigned opa_vport_tx_turn(struct opa_vport *p)
{
	const struct opa_vport_config *c = config_of(p);
	const struct opa_fabric_map *map = opa_fabric_map_current(p->fabric);
	unsigned n;
	ssize_t got;

	p->n_slots = 0;
	for (n = 0; n < OPA_VPORT_TX_BURST; n++) {
		got = tap_read(p);
		if (got < 0)
			break;	/* EAGAIN: drained; 0 or an error: the watch reports it */
		if (!got) {
			opa_stat_add(&p->counters.tx_carrier_errors, 1);
			continue;	/* shorter than its virtio_net_hdr */
		}
		tx_read_frame(p, c, map, got);
	}
	flush(p);
	tx_account(p, p->n_slots);
	return n;
}

static void on_tap(struct dp_worker *w, int fd, uint32_t revents, void *arg)
{
	struct opa_vport *p = arg;

	if (opa_vport_tx_turn(p))
		return;
	/* Hung up with nothing more to read: stop watching, or the worker could never sleep. */
	if (revents & (EPOLLHUP | EPOLLERR))
		dp_worker_remove_fd(w, fd);
}

void opa_vport_attach(struct dp_worker *w, void *port)
{
	struct opa_vport *p = port;

	p->attach_error = dp_worker_add_fd(w, p->tap_fd, EPOLLIN, on_tap, p);
}

void opa_vport_detach(struct dp_worker *w, void *port)
{
	struct opa_vport *p = port;

	dp_worker_remove_fd(w, p->tap_fd);
}

int opa_vport_attach_error(const struct opa_vport *p)
{
	return p->attach_error;
}

/* ---- RX (the fabric's worker) ---- */

/*
 * One frame to the host.  With a virtio_net_hdr its flags say VIRTIO_NET_HDR_F_DATA_VALID:
 * the frame crossed the fabric under the 16B ICRC, so the host skips verifying its TCP/UDP
 * checksum, as behind a NIC with RX checksum offload (docs/decisions.md); gso_type NONE.
 */
static int tap_write(struct opa_vport *p, const uint8_t *frame, size_t len)
{
	static const struct virtio_net_hdr_v1 h = { .flags = VIRTIO_NET_HDR_F_DATA_VALID };
	struct iovec iov[2] = {
		{ .iov_base = (void *)&h, .iov_len = p->vnet_hdr_len },
		{ .iov_base = (void *)frame, .iov_len = len },
	};

	if (!p->vnet_hdr_len)
		return write(p->tap_fd, frame, len) == (ssize_t)len ? 0 : -1;
	return writev(p->tap_fd, iov, 2) == (ssize_t)(p->vnet_hdr_len + len) ? 0 : -1;
}

/* A frame written (or not): counted as before coalescing existed, once per original frame. */
static void rx_count(struct opa_vport *p, const uint8_t *frame, size_t len, uint64_t n, bool ok)
{
	struct opa_vnic_counters *k = &p->counters;

	if (!ok) {
		opa_stat_add(&k->rx_fifo_errors, n);
		return;
	}
	while (n--) {
		count_total(&k->rx, len);
		count_good(&k->rx, frame[0] & 1, frame_is_vlan(frame, len));
	}
}

#define TCP_ACK_	0x10
#define TCP_PSH_	0x08

/* A TCP segment as coalescing sees it. */
struct tcp_seg {
	size_t l4, hlen, payload;
	uint32_t seq;
	bool v6;
	bool psh;
};

/*
 * A frame that may be merged: untagged IPv4 without options or fragmentation, or IPv6
 * without extension headers, carrying TCP with payload and no flag but ACK (and PSH); the IP
 * length exactly the frame's (no Ethernet padding).
 */
static bool tcp_seg_parse(const uint8_t *f, size_t len, struct tcp_seg *s)
{
	uint16_t type;
	size_t doff;

	if (len < 14 + 40 + 20)
		return false;
	type = opa_get_be16(f + 12);
	if (type == 0x0800) {
		if (f[14] != 0x45 || (opa_get_be16(f + 20) & 0x3fff) || f[23] != 6 ||
		    opa_get_be16(f + 16) != len - 14)
			return false;
		s->l4 = 14 + 20;
		s->v6 = false;
	} else if (type == 0x86dd) {
		if (f[14] >> 4 != 6 || f[20] != 6 || opa_get_be16(f + 18) != len - 54)
			return false;
		s->l4 = 14 + 40;
		s->v6 = true;
	} else {
		return false;
	}
	doff = (size_t)(f[s->l4 + 12] >> 4) * 4;
	if (doff < 20 || (f[s->l4 + 12] & 0x0f) || len <= s->l4 + doff)
		return false;
	if ((f[s->l4 + 13] & ~TCP_PSH_) != TCP_ACK_)
		return false;
	s->hlen = s->l4 + doff;
	s->payload = len - s->hlen;
	s->seq = opa_get_be32(f + s->l4 + 4);
	s->psh = f[s->l4 + 13] & TCP_PSH_;
	return true;
}

static bool same(const uint8_t *a, const uint8_t *b, size_t from, size_t to)
{
	return !memcmp(a + from, b + from, to - from);
}

/* Whether segment s of frame f continues the held super-frame g. */
static bool gro_fits(const struct rx_gro *g, const uint8_t *f, const struct tcp_seg *s)
{
	const uint8_t *h = g->first;
	size_t l4 = g->l4;

	if (g->closed || g->n >= RX_GRO_SEGS || s->v6 != g->v6 || s->hlen != g->hlen ||
	    s->payload > g->mss || s->seq != g->next_seq || g->total + s->payload - 14 > 65535)
		return false;
	/* Ethernet; IPv4 but for total length, id and checksum; IPv6 but for payload length. */
	if (!same(h, f, 0, 16))
		return false;
	if (!g->v6 ? !same(h, f, 20, 24) || !same(h, f, 26, 34) : !same(h, f, 16, 18) ||
						       !same(h, f, 20, 54))
		return false;
	/* Ports; ACK number, offset, window; urgent pointer and options (not the sum, flags). */
	return same(h, f, l4, l4 + 4) && same(h, f, l4 + 8, l4 + 13) &&
	       same(h, f, l4 + 14, l4 + 16) && same(h, f, l4 + 18, g->hlen);
}

/* The held super-frame (n > 1): the first's headers fixed for the merged length. */
static bool gro_write(struct opa_vport *p, struct rx_gro *g)
{
	struct virtio_net_hdr_v1 vh = {
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
		.gso_type = g->v6 ? VIRTIO_NET_HDR_GSO_TCPV6 : VIRTIO_NET_HDR_GSO_TCPV4,
		.hdr_len = (uint16_t)g->hlen,
		.gso_size = (uint16_t)g->mss,
		.csum_start = (uint16_t)g->l4,
		.csum_offset = 16,
	};
	uint8_t *f = g->hdr + p->vnet_hdr_len;
	size_t tcp_len = g->total - g->l4;
	uint64_t sum;
	uint16_t c;

	memcpy(g->hdr, &vh, p->vnet_hdr_len);
	memcpy(f, g->first, g->hlen);
	if (g->psh)
		f[g->l4 + 13] |= TCP_PSH_;	/* as the kernel's tcp_gro_receive */
	if (!g->v6) {
		opa_put_be16(f + 16, (uint16_t)(g->total - 14));
		f[24] = f[25] = 0;
		c = opa_csum_fold(opa_csum_add(0, f + 14, 20));
		memcpy(f + 24, &c, 2);
		sum = opa_csum_add(0, f + 26, 8);
	} else {
		opa_put_be16(f + 18, (uint16_t)(g->total - 54));
		sum = opa_csum_add(0, f + 22, 32);
	}
	/* NEEDS_CSUM: the TCP field holds the pseudo-header's sum, as the host's own TSO
	 * leaves it (CHECKSUM_PARTIAL: the host trusts the payload, re-sums if it forwards). */
	sum += htons(6) + htons((uint16_t)tcp_len);
	c = (uint16_t)~opa_csum_fold(sum);
	memcpy(f + g->l4 + 16, &c, 2);
	g->iov[0].iov_base = g->hdr;
	g->iov[0].iov_len = p->vnet_hdr_len + g->hlen;
	return writev(p->tap_fd, g->iov, (int)g->n + 1) ==
	       (ssize_t)(p->vnet_hdr_len + g->total);
}

void opa_vport_rx_flush(struct opa_vport *p)
{
	struct rx_gro *g = &p->gro;
	bool ok;

	if (!g->n)
		return;
	if (g->n == 1) {
		rx_count(p, g->first, g->first_len, 1, tap_write(p, g->first, g->first_len) == 0);
	} else {
		ok = gro_write(p, g);
		rx_count(p, g->first, g->first_len, g->n - 1, ok);
		rx_count(p, g->first, g->last_len, 1, ok);
	}
	g->n = 0;
}

/* A good frame: merged into the held super-frame, held as the start of one, or written. */
static void rx_deliver(struct opa_vport *p, const uint8_t *frame, size_t len)
{
	struct rx_gro *g = &p->gro;
	struct tcp_seg s;

	if (!p->vnet_hdr_len || !tcp_seg_parse(frame, len, &s)) {
		opa_vport_rx_flush(p);
		rx_count(p, frame, len, 1, tap_write(p, frame, len) == 0);
		return;
	}
	if (g->n && gro_fits(g, frame, &s)) {
		g->iov[g->n + 1].iov_base = (void *)(frame + s.hlen);
		g->iov[g->n + 1].iov_len = s.payload;
		g->n++;
		g->total += s.payload;
		g->last_len = len;
		g->next_seq += (uint32_t)s.payload;
		g->closed = s.psh || s.payload < g->mss;
		g->psh = s.psh;
		return;
	}
	opa_vport_rx_flush(p);
	*g = (struct rx_gro){
		.n = 1, .first = frame, .first_len = len, .last_len = len, .l4 = s.l4,
		.hlen = s.hlen, .mss = s.payload, .total = len, .v6 = s.v6, .closed = s.psh,
		.psh = s.psh,
		.next_seq = s.seq + (uint32_t)s.payload,
	};
	g->iov[1].iov_base = (void *)(frame + s.hlen);
	g->iov[1].iov_len = s.payload;
}

enum opa_reason opa_vport_rx(struct opa_vport *p, const uint8_t *pkt, size_t len)
{
	const struct opa_vport_config *c = config_of(p);
	struct opa_vnic_counters *k = &p->counters;
	struct opa_vnic_rx rx;
	enum opa_reason r;

	if (!c || !c->up) {
		opa_stat_add(&k->rx_drop_state, 1);
		return OPA_OK;
	}
	/* The fabric demuxed on the vesw_id already: any is accepted here. */
	r = opa_vnic_decap(pkt, len, OPA_VNIC_ANY_VESW, c->mtu, &rx);
	switch (r) {
	case OPA_OK:
		break;
	case OPA_RUNT:
	case OPA_OVERSIZE:
		/* §4.8 step 8: such frames are in the totals, then dropped. */
		count_total(&k->rx, rx.frame_len);
		opa_stat_add(r == OPA_RUNT ? &k->rx_runt : &k->rx_oversize, 1);
		return r;
	default:
		return r;
	}
	rx_deliver(p, rx.frame, rx.frame_len);
	return OPA_OK;
}

void opa_vport_count_nohandler(struct opa_vport *p)
{
	opa_stat_add(&p->counters.rx_nohandler, 1);
}
