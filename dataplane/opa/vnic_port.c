/* SPDX-License-Identifier: MIT */
/* A VNIC port: its configuration snapshots, its life on the workers, its counting, and TX on
 * the port's worker (reads the tap, cuts super-frames, encapsulates, sends in batches). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/uio.h>
#include <unistd.h>

#include <linux/virtio_net.h>

#include "dataplane/opa/vnic_port.h"
#include "dataplane/opa/vnic_port_int.h"
#include "dataplane/bytes.h"
#include "dataplane/opa/fabric.h"
#include "dataplane/opa/flow_hash.h"
#include "dataplane/opa/mac_index.h"
#include "dataplane/opa/stat.h"
#include "dataplane/opa/vnic_encap.h"
#include "dataplane/opa/vnic_gso.h"

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

void opa_vport_read_counters(const struct opa_vport *p, struct opa_vnic_counters *out)
{
	opa_stat_copy(out, &p->counters, sizeof(*out));
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
		.len = len, .mcast = frame[0] & 1, .vlan = opa_vport_frame_is_vlan(frame, len),
	};
	opa_vport_count_total(&k->tx, len);
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
			opa_vport_count_good(&k->tx, fr->mcast, fr->vlan);
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
	const struct opa_vport_config *c = opa_vport_config_of(p);
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
