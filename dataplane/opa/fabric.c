/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "dataplane/opa/fabric.h"
#include "dataplane/bytes.h"
#include "dataplane/opa/opa16b.h"
#include "dataplane/opa/stat.h"
#include "dataplane/opa/vnic_encap.h"
#include "dataplane/opa/vnic_port.h"

/* The longest datagram: type byte + the longest 16B packet (a 9B MAD packet is shorter). */
#define DGRAM_MAX	(1 + OPA_VNIC_MAX_PKT)
#define RX_BUF_SIZE	DP_UDP_GRO_BUF_SIZE	/* UDP GRO: several datagrams in one buffer */
#define RX_BATCHES	4	/* per readiness report: then let the worker look at the rest */
/*
 * The receive buffer asked for: the kernel's default (net.core.rmem_default, about 200 KiB,
 * some 60 full-size frames as the kernel accounts them) overflows while the receiving worker
 * is busy writing the previous batch to the TAP, and each datagram lost there is a TCP segment
 * the VNIC's users retransmit.  SO_RCVBUFFORCE where rdmad may (CAP_NET_ADMIN), else what
 * net.core.rmem_max allows.
 */
#define RCVBUF		(4 << 20)

_Static_assert(RX_BUF_SIZE >= DGRAM_MAX, "a receive buffer holds any datagram");
_Static_assert(RX_BUF_SIZE >= 1 + OPA9B_MAX_PKT, "a receive buffer holds any MAD packet");

struct mad_entry {
	struct opa9b_mad_addr from;
	uint32_t len;
	uint8_t mad[OPA9B_MAD_MAX];
};

struct opa_fabric {
	uint32_t lid;
	uint32_t mad_event;
	struct dp_udp udp;
	_Atomic(struct opa_fabric_map *) map;
	_Atomic(struct opa_vesw_table *) vesw;
	struct dp_queue mads;		/* fabric's worker -> main thread */
	struct opa_fabric_counters counters;
	int attach_error;
	/* The fabric's worker only. */
	bool mads_unannounced;		/* queued since the last event the worker could emit */
	struct opa_vport *rx_port;	/* the port that received last: may hold frames */
	struct dp_udp_rx_batch rx;
	uint8_t *rx_bufs[DP_UDP_BATCH];
	uint8_t *rx_mem;
};

/* Best effort: a smaller buffer only costs drops under load, counted by the kernel. */
static void set_rcvbuf(int fd)
{
	int size = RCVBUF;

	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
}

int opa_fabric_new(struct opa_fabric **out, const struct opa_fabric_config *cfg,
		   struct opa_fabric_map *map)
{
	struct opa_fabric *f;
	int r, i;

	if (!cfg->lid || cfg->lid > OPA_FABRIC_LID_MAX)
		return -EINVAL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->lid = cfg->lid;
	f->mad_event = cfg->mad_event;
	f->udp.fd = -1;
	f->rx_mem = malloc((size_t)DP_UDP_BATCH * RX_BUF_SIZE);
	if (!f->rx_mem) {
		r = -ENOMEM;
		goto fail;
	}
	for (i = 0; i < DP_UDP_BATCH; i++)
		f->rx_bufs[i] = f->rx_mem + (size_t)i * RX_BUF_SIZE;
	r = dp_queue_init(&f->mads, cfg->mad_queue ? cfg->mad_queue : OPA_FABRIC_MAD_QUEUE,
			  sizeof(struct mad_entry), 0);
	if (r)
		goto fail;
	r = dp_udp_open(&f->udp, &cfg->addr);
	if (r) {
		dp_queue_release(&f->mads);
		goto fail;
	}
	set_rcvbuf(f->udp.fd);
	/* Best effort: without GRO (a kernel before 5.0) each datagram is received alone. */
	(void)dp_udp_enable_gro(&f->udp);
	atomic_init(&f->map, map);
	atomic_init(&f->vesw, NULL);
	*out = f;
	return 0;
fail:
	free(f->rx_mem);
	free(f);
	return r;
}

void opa_fabric_free(struct opa_fabric *f)
{
	if (!f)
		return;
	dp_udp_close(&f->udp);
	dp_queue_release(&f->mads);
	opa_fabric_map_free(atomic_load(&f->map));
	opa_vesw_table_free(atomic_load(&f->vesw));
	free(f->rx_mem);
	free(f);
}

uint32_t opa_fabric_lid(const struct opa_fabric *f)
{
	return f->lid;
}

const struct dp_udp_addr *opa_fabric_local_addr(const struct opa_fabric *f)
{
	return &f->udp.local;
}

const struct dp_udp_counters *opa_fabric_udp_stats(const struct opa_fabric *f)
{
	return &f->udp.stats;
}

struct opa_fabric_map *opa_fabric_publish_map(struct opa_fabric *f, struct opa_fabric_map *m)
{
	return atomic_exchange_explicit(&f->map, m, memory_order_acq_rel);
}

struct opa_vesw_table *opa_fabric_publish_vesw(struct opa_fabric *f, struct opa_vesw_table *t)
{
	return atomic_exchange_explicit(&f->vesw, t, memory_order_acq_rel);
}

const struct opa_fabric_map *opa_fabric_map_current(const struct opa_fabric *f)
{
	return atomic_load_explicit(&((struct opa_fabric *)f)->map, memory_order_acquire);
}

struct opa_vesw_table *opa_vesw_table_new(void)
{
	return calloc(1, sizeof(struct opa_vesw_table));
}

int opa_vesw_table_set(struct opa_vesw_table *t, uint16_t vesw_id, struct opa_vport *port)
{
	if (vesw_id >= OPA_FABRIC_VESW_IDS)
		return -EINVAL;
	if (t->ports[vesw_id])
		return -EEXIST;
	t->ports[vesw_id] = port;
	if (!t->nohandler)
		t->nohandler = port;
	return 0;
}

void opa_vesw_table_free(struct opa_vesw_table *t)
{
	free(t);
}

const struct opa_fabric_route *opa_fabric_route(const struct opa_fabric_map *m, uint32_t lid)
{
	const struct opa_fabric_route *r = opa_fabric_map_lookup(m, lid);

	if (!r || (!r->n && lid < OPA_LID_MCAST_BASE))
		return NULL;
	return r;
}

/* ---- receive (the fabric's worker) ---- */

static void rx_mad(struct opa_fabric *f, const uint8_t *pkt, size_t len)
{
	struct opa9b_mad_pkt p;
	struct mad_entry *e;
	uint32_t index;

	if (opa9b_mad_parse(pkt, len, &p) != OPA_OK) {
		opa_stat_add(&f->counters.rx_bad_packet, 1);
		return;
	}
	if (p.addr.dlid != f->lid) {
		opa_stat_add(&f->counters.rx_wrong_dlid, 1);
		return;
	}
	e = dp_queue_reserve(&f->mads, &index);
	if (!e) {
		opa_stat_add(&f->counters.rx_mad_overflow, 1);
		return;
	}
	e->from = p.addr;
	e->len = p.mad_len;
	memcpy(e->mad, p.mad, p.mad_len);
	dp_queue_publish(&f->mads, 1);
	opa_stat_add(&f->counters.rx_mads, 1);
	f->mads_unannounced = true;
}

static bool dlid_is_ours(const struct opa_fabric *f, uint32_t dlid)
{
	if (dlid == f->lid)
		return true;
	return dlid >= OPA_LID_MCAST_BASE && opa_fabric_map_lookup(opa_fabric_map_current(f), dlid);
}

static void rx_frame(struct opa_fabric *f, const uint8_t *pkt, size_t len)
{
	const struct opa_vesw_table *t;
	struct opa16b_hdr h;
	struct opa_vport *port;
	uint16_t vesw_id;

	if (opa16b_parse(pkt, len, &h) != OPA_OK) {
		opa_stat_add(&f->counters.rx_bad_packet, 1);
		return;
	}
	if (!dlid_is_ours(f, h.dlid)) {
		opa_stat_add(&f->counters.rx_wrong_dlid, 1);
		return;
	}
	/* Reference §4.8 step 1: not VNIC Ethernet, dropped before any port sees it. */
	if (h.l4 != OPA_VNIC_L4_ETHR || len < OPA_VNIC_HDR_LEN + OPA_VNIC_ICRC_TAIL_LEN) {
		opa_stat_add(&f->counters.rx_bad_packet, 1);
		return;
	}
	opa_stat_add(&f->counters.rx_frames, 1);
	vesw_id = dp_get_le16(pkt + OPA16B_HDR_LEN + 2) & OPA_VNIC_VESW_MASK;
	t = atomic_load_explicit(&f->vesw, memory_order_acquire);
	port = t ? t->ports[vesw_id] : NULL;
	if (port) {
		/* Coalescing is per port: a frame for another writes what this one held. */
		if (f->rx_port != port) {
			if (f->rx_port)
				opa_vport_rx_flush(f->rx_port);
			f->rx_port = port;
		}
		opa_vport_rx(port, pkt, len);
	}
	else if (t && t->nohandler)
		opa_vport_count_nohandler(t->nohandler);
}

/* The end of a receive batch: the frames a port held back go to its host. */
static void rx_flush(struct opa_fabric *f)
{
	if (f->rx_port)
		opa_vport_rx_flush(f->rx_port);
	f->rx_port = NULL;
}

static void rx_datagram(struct opa_fabric *f, const uint8_t *buf, size_t len)
{
	opa_stat_add(&f->counters.rx_datagrams, 1);
	if (len < 1) {
		opa_stat_add(&f->counters.rx_bad_type, 1);
		return;
	}
	switch (buf[0]) {
	case OPA_FABRIC_TYPE_9B:
		rx_mad(f, buf + 1, len - 1);
		break;
	case OPA_FABRIC_TYPE_16B:
		rx_frame(f, buf + 1, len - 1);
		break;
	default:
		opa_stat_add(&f->counters.rx_bad_type, 1);
	}
}

void opa_fabric_rx_datagram(struct opa_fabric *f, const uint8_t *buf, size_t len)
{
	rx_datagram(f, buf, len);
	rx_flush(f);
}

static void on_datagram(void *arg, const uint8_t *buf, size_t len, const struct dp_udp_addr *from,
			const struct dp_udp_addr *to)
{
	/* The source address is not used: replies go by the map (docs/opa-fabric.md). */
	(void)from;
	rx_datagram(arg, buf, len);
}

unsigned opa_fabric_poll(struct opa_fabric *f, struct dp_worker *w)
{
	unsigned seen = 0;
	int i, got;

	for (i = 0; i < RX_BATCHES; i++) {
		got = dp_udp_recv(&f->udp, &f->rx, f->rx_bufs, RX_BUF_SIZE, DP_UDP_BATCH,
				  on_datagram, f);
		/* Before the buffers are received into again: ports hold frames in them. */
		rx_flush(f);
		if (got <= 0)
			break;
		seen += got;
		if (f->rx.msgs_got < DP_UDP_BATCH)
			break;
	}
	/* One event per poll, not per MAD; a full event queue is retried at the next poll. */
	if (f->mads_unannounced && w) {
		struct dp_event ev = {
			.type = f->mad_event, .cookie = (uintptr_t)f, .ptr = f,
			.value = dp_queue_count(&f->mads),
		};

		if (dp_worker_emit(w, &ev))
			f->mads_unannounced = false;
	}
	return seen;
}

static void on_readable(struct dp_worker *w, int fd, uint32_t revents, void *arg)
{
	(void)fd;
	(void)revents;	/* a UDP socket reports errors through recvmmsg */
	opa_fabric_poll(arg, w);
}

void opa_fabric_attach(struct dp_worker *w, void *fabric)
{
	struct opa_fabric *f = fabric;

	f->attach_error = dp_worker_add_fd(w, f->udp.fd, EPOLLIN, on_readable, f);
}

void opa_fabric_detach(struct dp_worker *w, void *fabric)
{
	struct opa_fabric *f = fabric;

	dp_worker_remove_fd(w, f->udp.fd);
}

int opa_fabric_attach_error(const struct opa_fabric *f)
{
	return f->attach_error;
}

/* ---- the main thread's side of the MAD queue ---- */

unsigned opa_fabric_mad_drain(struct opa_fabric *f, opa_fabric_mad_fn fn, void *arg,
			      unsigned max)
{
	unsigned n = 0;

	if (!max)
		max = dp_queue_capacity(&f->mads);
	while (n < max) {
		uint32_t cons = dp_queue_cons(&f->mads);
		const struct mad_entry *e;

		if (!dp_queue_ready(&f->mads, cons))
			break;
		/* The producer is our own worker, not another process: the slot is used in place. */
		e = dp_queue_slot(&f->mads, cons);
		fn(arg, &e->from, e->mad, e->len);
		dp_queue_consume(&f->mads, 1);
		n++;
	}
	return n;
}

/* ---- send ---- */

int opa_fabric_send_mad(struct opa_fabric *f, const struct opa9b_mad_addr *to,
			const uint8_t *mad, size_t len)
{
	uint8_t buf[1 + OPA9B_MAX_PKT];
	struct opa9b_mad_addr a = *to;
	const struct opa_fabric_route *route;
	size_t pkt_len;
	uint32_t i;
	int r, first_err = 0, sent = 0;

	a.slid = f->lid;
	buf[0] = OPA_FABRIC_TYPE_9B;
	if (opa9b_mad_build(&a, mad, len, buf + 1, sizeof(buf) - 1, &pkt_len) != OPA_OK)
		return -EINVAL;
	route = opa_fabric_route(opa_fabric_map_current(f), a.dlid);
	if (!route || !route->n) {
		opa_stat_add_shared(&f->counters.tx_no_route, 1);
		return -EHOSTUNREACH;
	}
	for (i = 0; i < route->n; i++) {
		r = dp_udp_send(&f->udp, &route->addrs[i], buf, pkt_len + 1);
		if (r) {
			opa_stat_add_shared(&f->counters.tx_errors, 1);
			if (!first_err)
				first_err = r;
			continue;
		}
		opa_stat_add_shared(&f->counters.tx_datagrams, 1);
		sent++;
	}
	if (sent)
		opa_stat_add_shared(&f->counters.tx_mads, 1);
	return first_err;
}

unsigned opa_fabric_send_batch(struct opa_fabric *f, struct dp_udp_tx_batch *b)
{
	unsigned sent = dp_udp_send_batch(&f->udp, b);

	opa_stat_add_shared(&f->counters.tx_datagrams, sent);
	if (sent < b->n)
		opa_stat_add_shared(&f->counters.tx_errors, b->n - sent);
	return sent;
}

void opa_fabric_count_frames(struct opa_fabric *f, uint64_t sent, uint64_t no_route)
{
	if (sent)
		opa_stat_add_shared(&f->counters.tx_frames, sent);
	if (no_route)
		opa_stat_add_shared(&f->counters.tx_no_route, no_route);
}

void opa_fabric_read_counters(const struct opa_fabric *f, struct opa_fabric_counters *out)
{
	opa_stat_copy(out, &f->counters, sizeof(*out));
}
