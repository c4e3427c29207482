/* SPDX-License-Identifier: MIT */
/*
 * The software Omni-Path fabric endpoint of one node (docs/opa-fabric.md): a UDP socket, the
 * fabric map, the vesw_id -> VNIC port table, and the counters of the page's "Counters".
 *
 * Threads.  The fabric's receive side runs on one dataplane worker (opa_fabric_attach, a
 * worker command): 9B MADs go to a bounded single-producer single-consumer queue the main
 * thread drains (opa_fabric_mad_drain) when the worker's event says so; 16B VNIC frames are
 * demultiplexed by vesw_id and decapsulated into their port right there.  MADs are sent from
 * the main thread (opa_fabric_send_mad), frames from each VNIC port's worker; several threads
 * may send at once.
 *
 * Replacing what workers read (the map, the vesw table): publish the new one, get the old one
 * back, dp_worker_barrier() every worker that may hold it, then free it:
 *   - the map: the fabric's worker and the worker of every VNIC port on this fabric;
 *   - the vesw table: the fabric's worker.
 * The main thread, which publishes, may read either at any time.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dataplane/queue.h"
#include "dataplane/udp.h"
#include "dataplane/worker.h"
#include "dataplane/opa/fabric_map.h"
#include "dataplane/opa/opa9b.h"

#define OPA_FABRIC_PORT		4795	/* the default UDP port */
#define OPA_FABRIC_TYPE_9B	0x09	/* byte 0 of a datagram: a MAD on QP1 */
#define OPA_FABRIC_TYPE_16B	0x10	/* byte 0 of a datagram: a VNIC frame */
#define OPA_FABRIC_LID_MAX	0xbfff	/* a node's LID: unicast and 9B-addressable */
#define OPA_FABRIC_VESW_IDS	4096	/* 12-bit vesw_id */
#define OPA_FABRIC_MAD_QUEUE	64	/* default MADs waiting for the main thread */

struct opa_vport;

struct opa_fabric_counters {
	uint64_t rx_datagrams;
	uint64_t rx_mads;		/* queued for the main thread */
	uint64_t rx_frames;		/* 16B packets for this node, handed to a port or counted there */
	uint64_t rx_bad_type;		/* byte 0 neither 0x09 nor 0x10 */
	uint64_t rx_bad_packet;		/* a 9B or 16B packet its parser refused, or too long */
	uint64_t rx_wrong_dlid;		/* for another LID */
	uint64_t rx_mad_overflow;	/* MAD queue full: dropped */
	uint64_t tx_datagrams;
	uint64_t tx_mads;
	uint64_t tx_frames;
	uint64_t tx_no_route;		/* a DLID the map does not know (MADs and frames) */
	uint64_t tx_errors;		/* datagrams the socket refused */
};

/* vesw_id -> VNIC port, immutable once published. */
struct opa_vesw_table {
	struct opa_vport *ports[OPA_FABRIC_VESW_IDS];
	/* Where an unknown vesw_id is counted (rx_nohandler, reference §4.8); NULL: nowhere. */
	struct opa_vport *nohandler;
};

struct opa_fabric_config {
	uint32_t lid;			/* 1 .. OPA_FABRIC_LID_MAX */
	struct dp_udp_addr addr;	/* to bind (port 0: the kernel picks) */
	uint32_t mad_event;		/* dp_event.type emitted when MADs wait; the driver's */
	unsigned mad_queue;		/* entries; 0: OPA_FABRIC_MAD_QUEUE */
};

/* A received MAD as the main thread sees it. */
typedef void (*opa_fabric_mad_fn)(void *arg, const struct opa9b_mad_addr *from,
				  const uint8_t *mad, size_t len);

struct opa_fabric;

/*
 * Opens the socket.  map (sealed) becomes the fabric's; its own address should be cfg->addr
 * as the peers know it.  -EINVAL for a LID out of range, else what socket/bind say.
 */
int opa_fabric_new(struct opa_fabric **out, const struct opa_fabric_config *cfg,
		   struct opa_fabric_map *map);
/* After opa_fabric_detach has run and every port is gone; frees the map and vesw table too. */
void opa_fabric_free(struct opa_fabric *f);

uint32_t opa_fabric_lid(const struct opa_fabric *f);
/* The socket's address as bound. */
const struct dp_udp_addr *opa_fabric_local_addr(const struct opa_fabric *f);
const struct dp_udp_counters *opa_fabric_udp_stats(const struct opa_fabric *f);

/* Main thread: the new map (sealed) or vesw table (may be NULL) is used from now; the old returned. */
struct opa_fabric_map *opa_fabric_publish_map(struct opa_fabric *f, struct opa_fabric_map *m);
struct opa_vesw_table *opa_fabric_publish_vesw(struct opa_fabric *f, struct opa_vesw_table *t);

/* A zeroed table; opa_vesw_table_set: -EINVAL vesw_id > 0xfff, -EEXIST taken.  The first port
 * set also becomes t->nohandler unless the caller chose one. */
struct opa_vesw_table *opa_vesw_table_new(void);
int opa_vesw_table_set(struct opa_vesw_table *t, uint16_t vesw_id, struct opa_vport *port);
void opa_vesw_table_free(struct opa_vesw_table *t);

/*
 * Worker commands (dp_worker_submit(w, opa_fabric_attach, f)): watch the socket on w / stop.
 * After a barrier, opa_fabric_attach_error() says whether watching failed (negative errno).
 */
void opa_fabric_attach(struct dp_worker *w, void *fabric);
void opa_fabric_detach(struct dp_worker *w, void *fabric);
int opa_fabric_attach_error(const struct opa_fabric *f);

/*
 * The fabric's worker: receives what waits (a few batches at most) and handles each datagram;
 * emits one mad_event (cookie = the fabric) when MADs were queued.  Returns datagrams seen.
 * Called by the socket watch; tests call it directly with w = NULL (no event).
 */
unsigned opa_fabric_poll(struct opa_fabric *f, struct dp_worker *w);
/* The fabric's worker: one datagram (hostile bytes), a receive batch of its own. */
void opa_fabric_rx_datagram(struct opa_fabric *f, const uint8_t *buf, size_t len);

/* Main thread: hands up to max (0: a queue's worth) queued MADs to fn, oldest first; how many. */
unsigned opa_fabric_mad_drain(struct opa_fabric *f, opa_fabric_mad_fn fn, void *arg,
			      unsigned max);

/*
 * Main thread: sends a MAD (24..2048 bytes) in a 9B packet to to->dlid by the map; the SLID
 * is always this node's LID.  0, -EINVAL (bad length or field), -EHOSTUNREACH (no route,
 * counted tx_no_route), or the first send error.
 */
int opa_fabric_send_mad(struct opa_fabric *f, const struct opa9b_mad_addr *to,
			const uint8_t *mad, size_t len);

/* Any thread: a copy of the counters (relaxed loads). */
void opa_fabric_read_counters(const struct opa_fabric *f, struct opa_fabric_counters *out);

/* ---- for VNIC ports (their worker) ---- */

/* The map in force; valid until the caller's worker next passes a barrier. */
const struct opa_fabric_map *opa_fabric_map_current(const struct opa_fabric *f);
/* Sends the batch (sendmmsg), counting tx_datagrams and tx_errors; returns datagrams sent. */
unsigned opa_fabric_send_batch(struct opa_fabric *f, struct dp_udp_tx_batch *b);
/* Counts frames sent and frames without a route. */
void opa_fabric_count_frames(struct opa_fabric *f, uint64_t sent, uint64_t no_route);
/* The addresses to send lid's packets to: NULL when none (unicast served only by ourselves
 * counts as none; a multicast LID in the map never is, even with no address). */
const struct opa_fabric_route *opa_fabric_route(const struct opa_fabric_map *m, uint32_t lid);
