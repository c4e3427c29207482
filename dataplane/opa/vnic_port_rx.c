/* SPDX-License-Identifier: MIT */
/* A VNIC port's RX, on the fabric's worker: decapsulation, receive coalescing, the tap. */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "dataplane/bytes.h"
#include "dataplane/opa/stat.h"
#include "dataplane/opa/vnic_encap.h"
#include "dataplane/opa/vnic_gso.h"
#include "dataplane/opa/vnic_port_int.h"

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
		opa_vport_count_total(&k->rx, len);
		opa_vport_count_good(&k->rx, frame[0] & 1, opa_vport_frame_is_vlan(frame, len));
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
	type = dp_get_be16(f + 12);
	if (type == 0x0800) {
		if (f[14] != 0x45 || (dp_get_be16(f + 20) & 0x3fff) || f[23] != 6 ||
		    dp_get_be16(f + 16) != len - 14)
			return false;
		s->l4 = 14 + 20;
		s->v6 = false;
	} else if (type == 0x86dd) {
		if (f[14] >> 4 != 6 || f[20] != 6 || dp_get_be16(f + 18) != len - 54)
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
	s->seq = dp_get_be32(f + s->l4 + 4);
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
		dp_put_be16(f + 16, (uint16_t)(g->total - 14));
		f[24] = f[25] = 0;
		c = opa_csum_fold(opa_csum_add(0, f + 14, 20));
		memcpy(f + 24, &c, 2);
		sum = opa_csum_add(0, f + 26, 8);
	} else {
		dp_put_be16(f + 18, (uint16_t)(g->total - 54));
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
	const struct opa_vport_config *c = opa_vport_config_of(p);
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
		opa_vport_count_total(&k->rx, rx.frame_len);
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
