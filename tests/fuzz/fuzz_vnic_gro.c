/* SPDX-License-Identifier: MIT */
/*
 * Receive coalescing on hostile frames: the input is a run of Ethernet frames (each a
 * 2-byte length, then its bytes), as a peer would send them in one receive batch.  Each is
 * encapsulated as a valid 16B packet and handed to a port whose tap (a socketpair) takes a
 * virtio_net_hdr, then the batch is flushed.  What the host reads, super-frames cut back
 * with opa_gso_segment, must be the frames sent, in order, one for one: byte for byte but
 * for what segmentation rewrites (IPv4 id and header checksum, the TCP checksum).
 */
#include "tests/fuzz/fuzz.h"
#include "dataplane/opa/fabric.h"
#include "dataplane/opa/vnic_encap.h"
#include "dataplane/opa/vnic_gso.h"
#include "dataplane/opa/vnic_port.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define VESW		0x123
#define MTU		9000
#define FRAMES_MAX	80

static struct opa_fabric *fab;
static struct opa_vport *port;
static int tap[2];

static void setup(void)
{
	struct opa_fabric_config cfg = { .lid = 2 };
	struct opa_vnic_port hdr = { .encap_slid = 2, .vesw_id = VESW };
	struct opa_vnic_dlid_tables t = { .n_macs = 0 };
	struct opa_fabric_map *m;
	const char *why;
	int size = 1 << 22;

	if (dp_udp_addr_parse("127.0.0.1:0", 0, &cfg.addr, &why))
		abort();
	m = opa_fabric_map_new(2, &cfg.addr);
	if (!m || opa_fabric_map_seal(m) || opa_fabric_new(&fab, &cfg, m))
		abort();
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, tap))
		abort();
	setsockopt(tap[0], SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	setsockopt(tap[1], SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	opa_vnic_flow_table(0, t.flow_tbl);
	if (opa_vport_new(&port, fab, tap[0], opa_vport_config_new(&hdr, &t, MTU, true)) ||
	    opa_vport_set_vnet_hdr(port, sizeof(struct virtio_net_hdr)))
		abort();
}

struct frame {
	const uint8_t *bytes;	/* padded to 60 in pad[] when shorter */
	size_t len;
	uint8_t pad[OPA_VNIC_MIN_FRAME];
};

/* Frame i as the host must see it, against what came out; masked: what segmentation rewrites. */
static void check(const struct frame *f, const uint8_t *got, size_t len, const struct opa_gso *g)
{
	if (len != f->len)
		abort();
	for (size_t i = 0; i < len; i++) {
		bool masked = g && ((!g->v6 && (i == g->l3 + 4 || i == g->l3 + 5 ||
						i == g->l3 + 10 || i == g->l3 + 11)) ||
				    i == g->l4 + 16 || i == g->l4 + 17);

		if (!masked && got[i] != f->bytes[i])
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t pkts[FRAMES_MAX][OPA_VNIC_MAX_PKT], got[sizeof(struct virtio_net_hdr) + 65536 + 64];
	static uint8_t seg[65536 + 64];
	static struct frame frames[FRAMES_MAX];
	const struct opa_vnic_tx tx = { .slid = 1, .dlid = 2, .pkey = 0x8001, .vesw_id = VESW };
	size_t pkt_len[FRAMES_MAX];
	unsigned n = 0, seen = 0;
	struct opa_vnic_counters c0, c1;
	ssize_t r;

	if (!port)
		setup();
	while (size >= 2 && n < FRAMES_MAX) {
		size_t len = data[0] | data[1] << 8;

		data += 2;
		size -= 2;
		if (len > size)
			len = size;
		if (len > MTU + 14)
			len = MTU + 14;
		frames[n].bytes = data;
		frames[n].len = len;
		if (len < OPA_VNIC_MIN_FRAME) {
			memset(frames[n].pad, 0, sizeof(frames[n].pad));
			memcpy(frames[n].pad, data, len);
			frames[n].bytes = frames[n].pad;
			frames[n].len = OPA_VNIC_MIN_FRAME;
		}
		if (opa_vnic_encap(&tx, data, len, pkts[n], sizeof(pkts[n]), &pkt_len[n]) != OPA_OK)
			abort();
		data += len;
		size -= len;
		n++;
	}
	opa_vport_read_counters(port, &c0);
	for (unsigned i = 0; i < n; i++)
		if (opa_vport_rx(port, pkts[i], pkt_len[i]) != OPA_OK)
			abort();
	opa_vport_rx_flush(port);
	opa_vport_read_counters(port, &c1);
	if (c1.rx.packets != c0.rx.packets + n || c1.rx_fifo_errors != c0.rx_fifo_errors)
		abort();

	while ((r = read(tap[1], got, sizeof(got))) >= 0) {
		const struct virtio_net_hdr *h = (const void *)got;
		const uint8_t *frame = got + sizeof(*h);
		size_t len = (size_t)r - sizeof(*h);
		struct opa_gso g;

		if ((size_t)r < sizeof(*h))
			abort();
		if (h->gso_type == VIRTIO_NET_HDR_GSO_NONE) {
			if (seen >= n)
				abort();
			check(&frames[seen++], frame, len, NULL);
			continue;
		}
		if (opa_gso_parse(h, frame, len, &g) < 0 || g.nseg < 2 || seen + g.nseg > n)
			abort();
		for (unsigned i = 0; i < g.nseg; i++)
			check(&frames[seen++], seg, opa_gso_segment(&g, frame, i, seg), &g);
	}
	if (seen != n)
		abort();
	return 0;
}
