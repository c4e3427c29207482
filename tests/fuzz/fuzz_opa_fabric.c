/* SPDX-License-Identifier: MIT */
/*
 * The fabric's receive path on hostile datagrams: the input is one datagram as the socket
 * would hand it to the fabric's worker (type byte, then a 9B or 16B packet, or junk), for a
 * node with LID 2, a multicast LID in its map and one VNIC port (vesw 0x123, up, MTU 1500)
 * whose "tap" is a socketpair.  Whatever arrives must be counted exactly once, a delivered
 * frame must be what the packet carried, and a queued MAD must be the packet's MAD.
 */
#include "tests/fuzz/fuzz.h"
#include "dataplane/opa/fabric.h"
#include "dataplane/opa/vnic_encap.h"
#include "dataplane/opa/vnic_port.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define VESW	0x123

static struct opa_fabric *fab;
static struct opa_vport *port;
static int tap[2];

static void setup(void)
{
	struct opa_fabric_config cfg = { .lid = 2 };
	struct dp_udp_addr peer;
	struct opa_vnic_port hdr = { .encap_slid = 2, .vesw_id = VESW };
	struct opa_vnic_dlid_tables t = { .n_macs = 0 };
	struct opa_fabric_map *m;
	struct opa_vesw_table *vt;
	const char *why;

	if (dp_udp_addr_parse("127.0.0.1:0", 0, &cfg.addr, &why) ||
	    dp_udp_addr_parse("127.0.0.1:9", 0, &peer, &why))
		abort();
	m = opa_fabric_map_new(2, &cfg.addr);
	if (!m || opa_fabric_map_add(m, 0xf00001, &peer) || opa_fabric_map_seal(m))
		abort();
	if (opa_fabric_new(&fab, &cfg, m))
		abort();
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, tap))
		abort();
	opa_vnic_flow_table(0, t.flow_tbl);
	if (opa_vport_new(&port, fab, tap[0], opa_vport_config_new(&hdr, &t, 1500, true)))
		abort();
	vt = opa_vesw_table_new();
	if (!vt || opa_vesw_table_set(vt, VESW, port))
		abort();
	opa_fabric_publish_vesw(fab, vt);
}

static uint64_t sum(const void *c, size_t bytes)
{
	const uint64_t *v = c;
	uint64_t s = 0;
	size_t i;

	for (i = 0; i < bytes / 8; i++)
		s += v[i];
	return s;
}

struct expect {
	const uint8_t *mad;
	size_t len;
	unsigned seen;
};

static void check_mad(void *arg, const struct opa9b_mad_addr *from, const uint8_t *mad,
		      size_t len)
{
	struct expect *e = arg;

	if (from->dlid != 2 || len != e->len || memcmp(mad, e->mad, len))
		abort();
	e->seen++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct opa_fabric_counters f0, f1;
	struct opa_vnic_counters v0, v1;
	static uint8_t got[OPA_VNIC_MAX_PKT];
	struct opa9b_mad_pkt p;
	struct opa_vnic_rx rx;
	struct expect e = { 0 };
	uint64_t outcomes;
	ssize_t n;

	if (!fab)
		setup();
	opa_fabric_read_counters(fab, &f0);
	opa_vport_read_counters(port, &v0);
	opa_fabric_rx_datagram(fab, data, size);
	opa_fabric_read_counters(fab, &f1);
	opa_vport_read_counters(port, &v1);

	/* One datagram: exactly one of the fabric's outcomes. */
	if (f1.rx_datagrams != f0.rx_datagrams + 1)
		abort();
	outcomes = (f1.rx_mads - f0.rx_mads) + (f1.rx_frames - f0.rx_frames) +
		   (f1.rx_bad_type - f0.rx_bad_type) + (f1.rx_bad_packet - f0.rx_bad_packet) +
		   (f1.rx_wrong_dlid - f0.rx_wrong_dlid) + (f1.rx_mad_overflow - f0.rx_mad_overflow);
	if (outcomes != 1)
		abort();
	/* Nothing for the port unless a frame was taken. */
	if (f1.rx_frames == f0.rx_frames && sum(&v1, sizeof(v1)) != sum(&v0, sizeof(v0)))
		abort();

	if (f1.rx_mads != f0.rx_mads) {
		if (opa9b_mad_parse(data + 1, size - 1, &p) != OPA_OK)
			abort();
		e.mad = p.mad;
		e.len = p.mad_len;
		if (opa_fabric_mad_drain(fab, check_mad, &e, 0) != 1 || e.seen != 1)
			abort();
	}
	n = read(tap[1], got, sizeof(got));
	if (n >= 0) {
		/* Delivered: the frame inside the packet, byte for byte. */
		if (v1.rx.unicast + v1.rx.mcastbcast != v0.rx.unicast + v0.rx.mcastbcast + 1)
			abort();
		if (opa_vnic_decap(data + 1, size - 1, VESW, 1500, &rx) != OPA_OK ||
		    (size_t)n != rx.frame_len || memcmp(got, rx.frame, n))
			abort();
	} else if (v1.rx.unicast + v1.rx.mcastbcast != v0.rx.unicast + v0.rx.mcastbcast) {
		abort();
	}
	return 0;
}
