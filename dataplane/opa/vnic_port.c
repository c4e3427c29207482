/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "dataplane/opa/vnic_port.h"
#include "dataplane/opa/bytes.h"
#include "dataplane/opa/fabric.h"
#include "dataplane/opa/flow_hash.h"
#include "dataplane/opa/mac_index.h"
#include "dataplane/opa/stat.h"
#include "dataplane/opa/vnic_encap.h"

#define ETH_P_8021Q	0x8100
/* Type byte + the longest packet a frame of OPA_VPORT_FRAME_MAX bytes could need. */
#define PKT_BUF_SIZE	(1 + OPA_VNIC_MAX_PKT)

struct opa_vport_config {
	struct opa_vnic_port hdr;
	struct opa_vnic_dlid_tables dlid;	/* macs unused: the index stands for them */
	struct opa_mac_index macs;
	uint32_t mtu;
	bool up;
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
	struct opa_fabric *fabric;
	_Atomic(struct opa_vport_config *) config;
	struct opa_vnic_counters counters;
	int attach_error;
	/* The port's worker only. */
	struct dp_udp_tx_batch batch;
	struct tx_frame frames[OPA_VPORT_TX_BURST];
	uint8_t *pkts;				/* OPA_VPORT_TX_BURST packet buffers */
	uint8_t frame[OPA_VPORT_FRAME_MAX];
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

/* One frame read into p->frame: decide, count the drops, queue its datagrams. */
static void tx_one(struct opa_vport *p, const struct opa_vport_config *c,
		   const struct opa_fabric_map *map, unsigned slot, size_t len)
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
		memset(p->frame + len, 0, OPA_VNIC_MIN_FRAME - len);
		len = OPA_VNIC_MIN_FRAME;
	}
	*fr = (struct tx_frame){
		.len = len, .mcast = p->frame[0] & 1, .vlan = frame_is_vlan(p->frame, len),
	};
	count_total(&k->tx, len);
	if (!c || !c->up) {
		opa_stat_add(&k->tx_drop_state, 1);
		return;
	}
	r = opa_vport_encap(c, p->frame, len, pkt + 1, PKT_BUF_SIZE - 1, &pkt_len, &dlid);
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

unsigned opa_vport_tx_turn(struct opa_vport *p)
{
	const struct opa_vport_config *c = config_of(p);
	const struct opa_fabric_map *map = opa_fabric_map_current(p->fabric);
	unsigned n;
	ssize_t got;

	for (n = 0; n < OPA_VPORT_TX_BURST; n++) {
		got = read(p->tap_fd, p->frame, sizeof(p->frame));
		if (got <= 0)
			break;	/* EAGAIN: drained; 0 or an error: the watch reports it */
		tx_one(p, c, map, n, got);
	}
	flush(p);
	tx_account(p, n);
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
	if (write(p->tap_fd, rx.frame, rx.frame_len) != (ssize_t)rx.frame_len) {
		opa_stat_add(&k->rx_fifo_errors, 1);
		return OPA_OK;
	}
	count_total(&k->rx, rx.frame_len);
	count_good(&k->rx, rx.frame[0] & 1, frame_is_vlan(rx.frame, rx.frame_len));
	return OPA_OK;
}

void opa_vport_count_nohandler(struct opa_vport *p)
{
	opa_stat_add(&p->counters.rx_nohandler, 1);
}
