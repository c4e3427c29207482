/* SPDX-License-Identifier: MIT */
/*
 * A VNIC port, worker side: Ethernet frames between a "tap" descriptor (one read() = one
 * frame, one write() = one frame: a TAP device in the daemon, a SOCK_SEQPACKET socketpair in
 * tests) and 16B packets on the fabric (reference opa_vnic.md §4, §5.3).
 *
 *   TX, on the port's worker: read up to OPA_VPORT_TX_BURST frames (a TCP super-frame is cut
 *      into segments first, see opa_vport_set_vnet_hdr), pad to 60, choose the
 *      header fields, encapsulate, send to the DLID's addresses with sendmmsg; count (§4.7).
 *   RX, on the fabric's worker (after the fabric demuxed the vesw_id): drop-state, decap
 *      (runt, oversize, trim), write() to the tap (TCP segments of a receive batch
 *      coalesced, see opa_vport_rx); count (§4.8).
 *
 * The port's configuration is an immutable snapshot the driver publishes (opa_vport_publish),
 * read by the port's worker (TX) and the fabric's worker (RX): the old one is freed after
 * dp_worker_barrier() on both.  The counters' TX fields are written by the port's worker
 * only, the RX fields by the fabric's worker only; opa_vport_read_counters copies them.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dataplane/worker.h"
#include "dataplane/opa/reason.h"
#include "dataplane/opa/vnic_counters.h"
#include "dataplane/opa/vnic_fields.h"

#define OPA_VPORT_TX_BURST	32	/* frames read per turn of the port's worker */
#define OPA_VPORT_FRAME_MAX	16384	/* the largest frame read from the tap */

struct opa_fabric;
struct opa_vport;

/* What the driver configures (VESWPortInfo, the MAC table, the netdev), as one snapshot. */
struct opa_vport_config;

/*
 * A snapshot: header inputs, DLID tables (t->macs copied into an exact-match index; entries
 * with the source-MAC bit are left out; with duplicate MACs the lowest index wins), MTU of
 * the interface, and up = operationally up (reference §5.1: admin up, carrier, vesw_id != 0,
 * FORWARDING; the driver decides).  NULL when out of memory.
 */
struct opa_vport_config *opa_vport_config_new(const struct opa_vnic_port *hdr,
					      const struct opa_vnic_dlid_tables *t, uint32_t mtu,
					      bool up);
void opa_vport_config_free(struct opa_vport_config *c);

/* A port on fabric f reading and writing frames on tap_fd (nonblocking; the caller's to close). */
int opa_vport_new(struct opa_vport **out, struct opa_fabric *f, int tap_fd,
		  struct opa_vport_config *initial);
/*
 * Before attaching: each frame on the tap comes and goes behind a virtio_net_hdr of len
 * bytes (a TAP opened with IFF_VNET_HDR, TUNSETVNETHDRSZ len: 10 or 12); 0 (the default)
 * for none.  TX completes a checksum the header asks for (NEEDS_CSUM) and cuts TCP
 * super-frames into segments (GSO TCPV4/TCPV6: the TAP may have TUNSETOFFLOAD TUN_F_CSUM |
 * TUN_F_TSO4 | TUN_F_TSO6; dataplane/opa/vnic_gso.h); RX writes DATA_VALID (the fabric's
 * ICRC protected the frame) and gso_type NONE, or coalesced TCP super-frames (opa_vport_rx).  -EINVAL for another size.
 */
int opa_vport_set_vnet_hdr(struct opa_vport *p, size_t len);
/* After opa_vport_detach has run and the port left the fabric's vesw table (barrier); frees
 * the configuration in force too. */
void opa_vport_free(struct opa_vport *p);

/* Main thread: the new snapshot is used from now; the old one is returned (see above). */
struct opa_vport_config *opa_vport_publish(struct opa_vport *p, struct opa_vport_config *c);

/* Worker commands on the port's worker: watch the tap / stop; the error after a barrier. */
void opa_vport_attach(struct dp_worker *w, void *port);
void opa_vport_detach(struct dp_worker *w, void *port);
int opa_vport_attach_error(const struct opa_vport *p);

/*
 * The per-frame work of TX: header fields (flow hash, MAC index, §4.4-4.6) and encapsulation
 * of frame[0 .. len) (len >= 60: the caller padded) into out; *dlid = the DLID chosen.
 * OPA_DLID_ZERO when there is none, else what opa_vnic_encap() refused.
 */
enum opa_reason opa_vport_encap(const struct opa_vport_config *c, const uint8_t *frame,
				size_t len, uint8_t *out, size_t size, size_t *out_len,
				uint32_t *dlid);

/* The port's worker: one turn of TX (what the tap watch runs); returns frames read. */
unsigned opa_vport_tx_turn(struct opa_vport *p);

/*
 * The fabric's worker: a 16B packet whose vesw_id selected this port.  What decap refused.
 * With a virtio_net_hdr (opa_vport_set_vnet_hdr), a TCP segment may be held back (receive
 * coalescing, software GRO): in-order segments of one flow (untagged IPv4 without options or
 * fragments, or IPv6 without extension headers; headers equal but for the IP length, id and
 * checksums; no flag but ACK, PSH on the last; each payload the first's size but the last;
 * at most 64 segments, 64 KiB of IP packet) go to the host as one super-frame: gso_type
 * TCPV4/TCPV6, gso_size the first's payload, NEEDS_CSUM at the TCP checksum holding the
 * pseudo-header's sum.  pkt must stay as it is until opa_vport_rx_flush; a frame that does
 * not merge writes what is held first, so the order is kept.  The counters count each
 * original frame, when it is written.
 */
enum opa_reason opa_vport_rx(struct opa_vport *p, const uint8_t *pkt, size_t len);
/* The fabric's worker, after a receive batch: writes what opa_vport_rx held back. */
void opa_vport_rx_flush(struct opa_vport *p);
/* The fabric's worker: a packet for an unknown vesw_id (counted here, reference §4.8). */
void opa_vport_count_nohandler(struct opa_vport *p);

/* Any thread: a copy of the counters (relaxed loads). */
void opa_vport_read_counters(const struct opa_vport *p, struct opa_vnic_counters *out);
