/* SPDX-License-Identifier: MIT */
/*
 * The VNIC data path (dataplane/opa/vnic_port.c over dataplane/opa/fabric.c): frames from a
 * socketpair "tap" on node A, encapsulated, over UDP on 127.0.0.1, demuxed and decapsulated
 * into the tap of node B; a plain socket as a third node sees the bytes on the wire.  Workers
 * are not started: the tests run the TX turn and the receive poll the watches would run.
 * Known answers from /work/shared/reference/opa_vnic.md §4.3 (the worked vector).
 */
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <linux/virtio_net.h>

#include "tests/unit/fabric_pair.h"
#include "dataplane/bytes.h"
#include "dataplane/opa/flow_hash.h"
#include "dataplane/opa/vnic_encap.h"
#include "dataplane/opa/vnic_gso.h"
#include "dataplane/opa/vnic_port.h"
#include "dataplane/worker.h"

#define VESW		0x123
#define MCAST_LID	0xf00001
#define KAT_DLID	0xabcdef

static const uint8_t mac_b[6] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55 };
static const uint8_t mac_a[6] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x66 };
static const uint8_t mac_kat[6] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x77 };
static const uint8_t mac_lost[6] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x88 };
static const uint8_t mac_nowhere[6] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x99 };
static const uint8_t mac_bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

/* Reference §4.3 (SLID 0x123456, DLID 0xABCDEF, SC 5, RC 3, PKEY 0x8001, entropy 0x5a,
 * vesw 0x123, 60-byte frame): header bytes 0-19 and the last 8 bytes of the 88. */
static const uint8_t kat_head[20] = {
	0x56, 0x34, 0xb2, 0x00, 0xef, 0xcd, 0x5b, 0xc6, 0x78, 0xa1,
	0x01, 0x80, 0x5a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x23, 0x01,
};
static const uint8_t kat_tail[8] = { 0, 0, 0, 0, 0, 0, 0, 0x03 };

struct node {
	struct opa_fabric *fab;
	struct opa_vport *port;
	int tap[2];		/* [0] the port's, [1] the test's ("the host stack") */
};

struct net {
	struct node a, b;
	struct dp_udp raw;
	struct opa_vnic_mac_entry macs[4];
};

/* What a test changes in a port's configuration; the rest is the fixture's. */
struct port_cfg {
	uint32_t slid;
	bool up;
	uint32_t mtu;
	uint8_t sc_uc;
	uint32_t rc_word;
};

static void publish(struct net *n, struct node *x, const struct port_cfg *pc)
{
	struct opa_vnic_port hdr = {
		.encap_slid = pc->slid, .pkey = 0x8001, .vesw_id = VESW, .rc_word = pc->rc_word,
		.non_vlan_sc_uc = pc->sc_uc, .non_vlan_sc_mc = 1,
	};
	struct opa_vnic_dlid_tables t = {
		.macs = n->macs, .n_macs = 4, .u_mcast_dlid = MCAST_LID,
	};
	struct opa_vport_config *c;

	opa_vnic_flow_table(0, t.flow_tbl);
	c = opa_vport_config_new(&hdr, &t, pc->mtu, pc->up);
	assert_non_null(c);
	/* No worker runs: nothing holds the old snapshot. */
	opa_vport_config_free(opa_vport_publish(x->port, c));
}

static void node_open(struct net *n, struct node *x, uint32_t lid)
{
	struct port_cfg pc = { .slid = lid, .up = true, .mtu = 1500 };
	struct opa_vesw_table *t = opa_vesw_table_new();

	x->fab = fabric_open(lid, 0, 1);
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, x->tap), 0);
	assert_int_equal(opa_vport_new(&x->port, x->fab, x->tap[0], NULL), 0);
	publish(n, x, &pc);
	assert_int_equal(opa_vesw_table_set(t, VESW, x->port), 0);
	assert_int_equal(opa_vesw_table_set(t, VESW, x->port), -EEXIST);
	assert_int_equal(opa_vesw_table_set(t, 0x1000, x->port), -EINVAL);
	assert_null(opa_fabric_publish_vesw(x->fab, t));
}

static void set_mac(struct opa_vnic_mac_entry *e, const uint8_t mac[6], uint32_t dlid)
{
	memcpy(e->mac, mac, 6);
	e->dlid_sd = dlid << 8;
}

static int net_setup(void **state)
{
	struct net *n = calloc(1, sizeof(*n));
	const uint32_t lids[] = { 1, 2, KAT_DLID, MCAST_LID, MCAST_LID, MCAST_LID };

	set_mac(&n->macs[0], mac_b, 2);
	set_mac(&n->macs[1], mac_a, 1);
	set_mac(&n->macs[2], mac_kat, KAT_DLID);
	set_mac(&n->macs[3], mac_lost, 99);
	node_open(n, &n->a, 1);
	node_open(n, &n->b, 2);
	raw_open(&n->raw);
	{
		const struct dp_udp_addr *addrs[] = {
			opa_fabric_local_addr(n->a.fab), opa_fabric_local_addr(n->b.fab),
			&n->raw.local, opa_fabric_local_addr(n->a.fab),
			opa_fabric_local_addr(n->b.fab), &n->raw.local,
		};

		fabric_set_map(n->a.fab, 6, lids, addrs);
		fabric_set_map(n->b.fab, 6, lids, addrs);
	}
	*state = n;
	return 0;
}

static void node_close(struct node *x)
{
	opa_vesw_table_free(opa_fabric_publish_vesw(x->fab, NULL));
	opa_vport_free(x->port);
	opa_fabric_free(x->fab);
	close(x->tap[0]);
	close(x->tap[1]);
}

static int net_teardown(void **state)
{
	struct net *n = *state;

	node_close(&n->a);
	node_close(&n->b);
	dp_udp_close(&n->raw);
	free(n);
	return 0;
}

/* A frame dst, src, type, then bytes 0, 1, 2, ... up to len. */
static size_t make_frame(uint8_t *f, size_t len, const uint8_t dst[6], uint16_t type)
{
	size_t i;

	memcpy(f, dst, 6);
	memcpy(f + 6, mac_a, 6);
	dp_put_be16(f + 12, type);
	for (i = 14; i < len; i++)
		f[i] = i;
	return len;
}

static void host_send(struct node *x, const uint8_t *frame, size_t len)
{
	assert_int_equal(write(x->tap[1], frame, len), (ssize_t)len);
}

static size_t host_recv(struct node *x, uint8_t *buf, size_t size)
{
	ssize_t n = read(x->tap[1], buf, size);

	assert_true(n > 0);
	return n;
}

static bool host_pending(struct node *x)
{
	uint8_t b[1];

	return recv(x->tap[1], b, 1, MSG_PEEK | MSG_DONTWAIT) >= 0;
}

static struct opa_vnic_counters counters(struct node *x)
{
	struct opa_vnic_counters c;

	opa_vport_read_counters(x->port, &c);
	return c;
}

static void test_wire_bytes_kat(void **state)
{
	struct net *n = *state;
	struct port_cfg pc = { .slid = 0x123456, .up = true, .mtu = 1500, .sc_uc = 5,
			       .rc_word = 3 };
	uint8_t frame[60], wire[256];
	uint16_t type;
	size_t len;

	publish(n, &n->a, &pc);
	/* The vector's entropy is 0x5a: pick the (non-IP) EtherType whose flow hash gives it. */
	for (type = 0x9000; type < 0xffff; type++) {
		make_frame(frame, sizeof(frame), mac_kat, type);
		if (opa_vnic_entropy(opa_vnic_flow_hash(frame, sizeof(frame))) == 0x5a)
			break;
	}
	assert_true(type < 0xffff);
	host_send(&n->a, frame, sizeof(frame));
	assert_int_equal(opa_vport_tx_turn(n->a.port), 1);
	len = raw_recv(&n->raw, wire, sizeof(wire));
	assert_int_equal(len, 1 + 88);
	assert_int_equal(wire[0], OPA_FABRIC_TYPE_16B);
	assert_memory_equal(wire + 1, kat_head, sizeof(kat_head));
	assert_memory_equal(wire + 1 + 20, frame, sizeof(frame));
	assert_memory_equal(wire + 1 + 80, kat_tail, sizeof(kat_tail));
}

static void test_frame_through(void **state)
{
	struct net *n = *state;
	uint8_t frame[1514], got[2048], arp[42];
	struct opa_vnic_counters ca, cb;
	size_t len;

	host_send(&n->a, frame, make_frame(frame, sizeof(frame), mac_b, 0x0800));
	/* A 42-byte ARP goes out padded to 60, and arrives so. */
	host_send(&n->a, arp, make_frame(arp, sizeof(arp), mac_b, 0x0806));
	assert_int_equal(opa_vport_tx_turn(n->a.port), 2);
	fabric_poll_n(n->b.fab, NULL, 2);
	len = host_recv(&n->b, got, sizeof(got));
	assert_int_equal(len, sizeof(frame));
	assert_memory_equal(got, frame, sizeof(frame));
	len = host_recv(&n->b, got, sizeof(got));
	assert_int_equal(len, 60);
	assert_memory_equal(got, arp, sizeof(arp));
	for (size_t i = sizeof(arp); i < 60; i++)
		assert_int_equal(got[i], 0);

	ca = counters(&n->a);
	cb = counters(&n->b);
	assert_int_equal(ca.tx.packets, 2);
	assert_int_equal(ca.tx.bytes, 1514 + 4 + 60 + 4);
	assert_int_equal(ca.tx.unicast, 2);
	assert_int_equal(ca.tx.untagged, 2);
	assert_int_equal(ca.tx.size[OPA_VNIC_SIZE_64], 1);
	assert_int_equal(ca.tx.size[OPA_VNIC_SIZE_1024_1518], 1);
	assert_int_equal(opa_vnic_tx_errors(&ca), 0);
	assert_int_equal(cb.rx.packets, 2);
	assert_int_equal(cb.rx.bytes, ca.tx.bytes);
	assert_int_equal(cb.rx.unicast, 2);
	assert_int_equal(cb.rx.size[OPA_VNIC_SIZE_64], 1);
	assert_int_equal(cb.rx.size[OPA_VNIC_SIZE_1024_1518], 1);
	assert_int_equal(opa_vnic_rx_errors(&cb), 0);
}

static void test_many_frames_counted(void **state)
{
	struct net *n = *state;
	static const size_t sizes[] = { 64, 65, 128, 256, 512, 1024, 1518, 100, 70, 1400 };
	struct opa_vnic_counters ca, cb;
	struct opa_fabric_counters fa, fb;
	uint8_t frame[1518], got[2048];
	uint64_t bytes = 0;
	unsigned i, round;

	/* 5 rounds of 10: more than one TX burst's worth is waiting at times. */
	for (round = 0; round < 5; round++) {
		for (i = 0; i < 10; i++) {
			host_send(&n->a, frame, make_frame(frame, sizes[i], mac_b, 0x88b5));
			bytes += sizes[i] + 4;
		}
		assert_int_equal(opa_vport_tx_turn(n->a.port), 10);
		fabric_poll_n(n->b.fab, NULL, 10);
		for (i = 0; i < 10; i++)
			assert_int_equal(host_recv(&n->b, got, sizeof(got)), sizes[i]);
	}
	ca = counters(&n->a);
	cb = counters(&n->b);
	assert_int_equal(ca.tx.packets, 50);
	assert_int_equal(cb.rx.packets, 50);
	assert_int_equal(ca.tx.bytes, bytes);
	assert_int_equal(cb.rx.bytes, bytes);
	assert_memory_equal(ca.tx.size, cb.rx.size, sizeof(ca.tx.size));
	/* §5.3's thresholds: 64 >= 61 is in 65_127, 1518 >= 1515 in 1519_max. */
	assert_int_equal(ca.tx.size[OPA_VNIC_SIZE_64], 0);
	assert_int_equal(ca.tx.size[OPA_VNIC_SIZE_65_127], 20);
	assert_int_equal(ca.tx.size[OPA_VNIC_SIZE_1519_MAX], 5);
	opa_fabric_read_counters(n->a.fab, &fa);
	opa_fabric_read_counters(n->b.fab, &fb);
	assert_int_equal(fa.tx_frames, 50);
	assert_int_equal(fa.tx_datagrams, 50);
	assert_int_equal(fb.rx_frames, 50);
	assert_int_equal(fb.rx_datagrams, 50);
}

static void test_multicast_and_vlan(void **state)
{
	struct net *n = *state;
	uint8_t frame[100], got[256], wire[256];
	struct opa_vnic_counters ca, cb;
	struct opa16b_hdr h;
	size_t len;

	/* Broadcast, VLAN-tagged (PCP 0): to the multicast LID, i.e. B and the raw node, not A. */
	make_frame(frame, sizeof(frame), mac_bcast, 0x8100);
	dp_put_be16(frame + 14, 0x0005);
	dp_put_be16(frame + 16, 0x0800);
	host_send(&n->a, frame, sizeof(frame));
	assert_int_equal(opa_vport_tx_turn(n->a.port), 1);
	fabric_poll_n(n->b.fab, NULL, 1);
	assert_int_equal(host_recv(&n->b, got, sizeof(got)), sizeof(frame));
	assert_memory_equal(got, frame, sizeof(frame));
	len = raw_recv(&n->raw, wire, sizeof(wire));
	opa16b_decode(wire + 1, &h);
	assert_int_equal(h.dlid, MCAST_LID);
	assert_int_equal(h.length * 8, len - 1);
	assert_int_equal(opa_fabric_poll(n->a.fab, NULL), 0);

	ca = counters(&n->a);
	cb = counters(&n->b);
	assert_int_equal(ca.tx.mcastbcast, 1);
	assert_int_equal(ca.tx.vlan, 1);
	assert_int_equal(cb.rx.mcastbcast, 1);
	assert_int_equal(cb.rx.vlan, 1);
}

static void test_tx_drops(void **state)
{
	struct net *n = *state;
	struct port_cfg down = { .slid = 1, .up = false, .mtu = 1500 };
	struct port_cfg up = { .slid = 1, .up = true, .mtu = 1500 };
	struct opa_fabric_counters fa;
	struct opa_vnic_counters c;
	uint8_t frame[80];

	publish(n, &n->a, &down);
	host_send(&n->a, frame, make_frame(frame, sizeof(frame), mac_b, 0x0800));
	assert_int_equal(opa_vport_tx_turn(n->a.port), 1);
	publish(n, &n->a, &up);
	/* Global unicast, not in the MAC table, no default port: DLID 0. */
	host_send(&n->a, frame, make_frame(frame, sizeof(frame), mac_nowhere, 0x0800));
	/* In the MAC table, DLID 99: not in the map. */
	host_send(&n->a, frame, make_frame(frame, sizeof(frame), mac_lost, 0x0800));
	assert_int_equal(opa_vport_tx_turn(n->a.port), 2);
	assert_int_equal(raw_pending(&n->raw), 0);
	assert_int_equal(opa_fabric_poll(n->b.fab, NULL), 0);

	c = counters(&n->a);
	assert_int_equal(c.tx_drop_state, 1);
	assert_int_equal(c.tx_dlid_zero, 1);
	assert_int_equal(c.tx_no_route, 1);
	/* §4.7 step 5: dropped frames are in the totals (with their Ethernet length)... */
	assert_int_equal(c.tx.packets, 3);
	assert_int_equal(c.tx.bytes, 3 * 84);
	/* ...but not in the good-frame counters. */
	assert_int_equal(c.tx.unicast + c.tx.untagged, 0);
	assert_int_equal(opa_vnic_tx_errors(&c), 3);
	opa_fabric_read_counters(n->a.fab, &fa);
	assert_int_equal(fa.tx_no_route, 1);
	assert_int_equal(fa.tx_frames, 0);
}

/* A 16B datagram for B built by hand: frame of len bytes, vesw_id, then the tail rewritten. */
static size_t craft(uint8_t *buf, size_t size, size_t len, uint16_t vesw, int tail)
{
	struct opa_vnic_tx tx = { .slid = 1, .dlid = 2, .pkey = 0x8001, .vesw_id = vesw };
	uint8_t frame[2048];
	size_t n;

	make_frame(frame, len, mac_b, 0x0800);
	buf[0] = OPA_FABRIC_TYPE_16B;
	assert_int_equal(opa_vnic_encap(&tx, frame, len, buf + 1, size - 1, &n), OPA_OK);
	if (tail >= 0)
		buf[n] = tail;
	return n + 1;
}

static void test_rx_drops(void **state)
{
	struct net *n = *state;
	struct port_cfg down = { .slid = 2, .up = false, .mtu = 100 };
	struct port_cfg small = { .slid = 2, .up = true, .mtu = 100 };
	struct opa_fabric_counters fb;
	struct opa_vnic_counters c;
	uint8_t buf[4096];
	size_t len;

	publish(n, &n->b, &down);
	len = craft(buf, sizeof(buf), 60, VESW, -1);
	opa_fabric_rx_datagram(n->b.fab, buf, len);
	publish(n, &n->b, &small);
	/* 60 bytes, 3 of pad, but the tail says 7: the frame left is 56 bytes, a runt. */
	len = craft(buf, sizeof(buf), 60, VESW, 7);
	opa_fabric_rx_datagram(n->b.fab, buf, len);
	/* MTU 100: 118 is the most a frame may have. */
	len = craft(buf, sizeof(buf), 119, VESW, -1);
	opa_fabric_rx_datagram(n->b.fab, buf, len);
	/* 20 + 118 + 5 needs 1 byte of pad; LT (0x40) set in the tail too: accepted. */
	len = craft(buf, sizeof(buf), 118, VESW, 0x40 | 1);
	opa_fabric_rx_datagram(n->b.fab, buf, len);
	/* Nobody has vesw 0x456: counted on B's one port. */
	len = craft(buf, sizeof(buf), 60, 0x456, -1);
	opa_fabric_rx_datagram(n->b.fab, buf, len);
	/* Not for LID 2, nor a multicast LID B knows. */
	len = craft(buf, sizeof(buf), 60, VESW, -1);
	buf[1 + 4] = 3;
	opa_fabric_rx_datagram(n->b.fab, buf, len);
	/* L4 not 0x78. */
	len = craft(buf, sizeof(buf), 60, VESW, -1);
	buf[1 + 8] = 0x77;
	opa_fabric_rx_datagram(n->b.fab, buf, len);
	/* Length field disagrees with the datagram. */
	len = craft(buf, sizeof(buf), 60, VESW, -1);
	opa_fabric_rx_datagram(n->b.fab, buf, len - 8);

	c = counters(&n->b);
	assert_int_equal(c.rx_drop_state, 1);
	assert_int_equal(c.rx_runt, 1);
	assert_int_equal(c.rx_oversize, 1);
	assert_int_equal(c.rx_nohandler, 1);
	/* §4.8 step 8: runts and oversize frames are in the totals, not in the good counters. */
	assert_int_equal(c.rx.packets, 3);
	assert_int_equal(c.rx.bytes, 56 + 4 + 119 + 4 + 118 + 4);
	assert_int_equal(c.rx.unicast, 1);
	assert_int_equal(opa_vnic_rx_errors(&c), 4);
	assert_int_equal(host_recv(&n->b, buf, sizeof(buf)), 118);
	assert_false(host_pending(&n->b));
	opa_fabric_read_counters(n->b.fab, &fb);
	assert_int_equal(fb.rx_datagrams, 8);
	assert_int_equal(fb.rx_frames, 5);
	assert_int_equal(fb.rx_wrong_dlid, 1);
	assert_int_equal(fb.rx_bad_packet, 2);
}

static void test_rx_fifo_full(void **state)
{
	struct net *n = *state;
	uint8_t buf[2048];
	size_t len = craft(buf, sizeof(buf), 1500, VESW, -1);
	unsigned i;

	/* Nobody reads B's tap: sooner or later the write fails and the frame is counted. */
	for (i = 0; i < 100000 && !counters(&n->b).rx_fifo_errors; i++)
		opa_fabric_rx_datagram(n->b.fab, buf, len);
	assert_int_equal(counters(&n->b).rx_fifo_errors, 1);
	assert_int_equal(counters(&n->b).rx.packets, i - 1);
}

static void test_map_swap(void **state)
{
	struct net *n = *state;
	const uint32_t lids[] = { 2 };
	const struct dp_udp_addr *addrs[] = { &n->raw.local };
	uint8_t frame[64], wire[256];
	struct opa16b_hdr h;

	/* Reload: LID 2 is now served at the raw socket's address. */
	fabric_set_map(n->a.fab, 1, lids, addrs);
	host_send(&n->a, frame, make_frame(frame, sizeof(frame), mac_b, 0x0800));
	assert_int_equal(opa_vport_tx_turn(n->a.port), 1);
	assert_int_equal(raw_recv(&n->raw, wire, sizeof(wire)), 1 + opa_vnic_wire_len(64));
	opa16b_decode(wire + 1, &h);
	assert_int_equal(h.dlid, 2);
	assert_int_equal(opa_fabric_poll(n->b.fab, NULL), 0);
}

static void test_attach_on_worker(void **state)
{
	struct net *n = *state;
	struct dp_worker w;

	assert_int_equal(dp_worker_init(&w, 0, -1), 0);
	assert_int_equal(dp_worker_submit(&w, opa_vport_attach, n->a.port), 0);
	assert_int_equal(dp_worker_submit(&w, opa_fabric_attach, n->a.fab), 0);
	dp_worker_run_commands(&w);
	assert_int_equal(opa_vport_attach_error(n->a.port), 0);
	assert_int_equal(opa_fabric_attach_error(n->a.fab), 0);
	assert_int_equal(dp_worker_submit(&w, opa_vport_attach, n->a.port), 0);
	dp_worker_run_commands(&w);
	assert_int_equal(opa_vport_attach_error(n->a.port), -EEXIST);
	assert_int_equal(dp_worker_submit(&w, opa_vport_detach, n->a.port), 0);
	assert_int_equal(dp_worker_submit(&w, opa_fabric_detach, n->a.fab), 0);
	dp_worker_run_commands(&w);
	assert_int_equal(w.fds[0].fd, -1);
	dp_worker_stop(&w);
}

static void test_flow_hash(void **state)
{
	uint8_t f1[80], f2[80];

	(void)state;
	/* IPv4 UDP: same addresses and ports, same hash; another port, (almost surely) another. */
	make_frame(f1, sizeof(f1), mac_b, 0x0800);
	f1[14] = 0x45;
	f1[14 + 6] = 0;
	f1[14 + 7] = 0;
	f1[14 + 9] = 17;
	memcpy(f2, f1, sizeof(f2));
	f2[40] ^= 0xff;		/* payload: not hashed */
	assert_int_equal(opa_vnic_flow_hash(f1, sizeof(f1)), opa_vnic_flow_hash(f2, sizeof(f2)));
	f2[14 + 20 + 1] ^= 1;	/* source port */
	assert_int_not_equal(opa_vnic_flow_hash(f1, sizeof(f1)), opa_vnic_flow_hash(f2, sizeof(f2)));
	/* A fragment hashes without ports, so all fragments of a datagram agree. */
	f1[14 + 6] = 0x20;
	f2[14 + 6] = 0x20;
	assert_int_equal(opa_vnic_flow_hash(f1, sizeof(f1)), opa_vnic_flow_hash(f2, sizeof(f2)));
	/* Short input: still a value, no read past it. */
	(void)opa_vnic_flow_hash(f1, 5);
}

/* ---- the TAP's virtio_net_hdr: checksum offload and TSO (dataplane/opa/vnic_gso.h) ---- */

#define VH	sizeof(struct virtio_net_hdr)

/* RFC 1071 one byte pair at a time, big-endian words: the test's own, unfolded. */
static uint32_t ref_sum(uint32_t s, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i += 2)
		s += (uint32_t)b[i] << 8 | (i + 1 < n ? b[i + 1] : 0);
	return s;
}

static uint16_t ref_fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* The sum of the TCP/UDP pseudo-header of the L4 bytes at l4 .. l4 + l4_len. */
static uint32_t ref_pseudo(const uint8_t *f, size_t l3, bool v6, uint8_t proto, size_t l4_len)
{
	uint32_t s = v6 ? ref_sum(0, f + l3 + 8, 32) : ref_sum(0, f + l3 + 12, 8);

	return s + proto + (uint32_t)l4_len;
}

static void vnet_on(struct net *n)
{
	assert_int_equal(opa_vport_set_vnet_hdr(n->a.port, 7), -EINVAL);
	assert_int_equal(opa_vport_set_vnet_hdr(n->a.port, VH), 0);
	assert_int_equal(opa_vport_set_vnet_hdr(n->b.port, VH), 0);
}

static void host_send_vnet(struct node *x, const struct virtio_net_hdr *h, const uint8_t *f,
			   size_t len)
{
	struct iovec iov[2] = { { (void *)h, VH }, { (void *)f, len } };

	assert_int_equal(writev(x->tap[1], iov, 2), (ssize_t)(VH + len));
}

/* A frame B's host received: its header says DATA_VALID, no GSO. */
static size_t host_recv_vnet(struct node *x, uint8_t *buf, size_t size)
{
	struct virtio_net_hdr h;
	uint8_t all[VH + 2048];
	size_t len = host_recv(x, all, sizeof(all));

	assert_true(len > VH && len - VH <= size);
	memcpy(&h, all, VH);
	assert_int_equal(h.flags, VIRTIO_NET_HDR_F_DATA_VALID);
	assert_int_equal(h.gso_type, VIRTIO_NET_HDR_GSO_NONE);
	memcpy(buf, all + VH, len - VH);
	return len - VH;
}

/*
 * A TCP super-frame to mac_b as the kernel hands it over (IPv4 or IPv6, TCP with 12 bytes of
 * options, payload bytes i * 7): the TCP checksum field holds the pseudo-header's sum.
 * Returns its length; *l3, *l4 the header offsets.
 */
static size_t tso_frame(uint8_t *f, bool v6, size_t payload, uint8_t flags, size_t *l4_out)
{
	size_t l3 = 14, l4 = v6 ? l3 + 40 : l3 + 20, hlen = l4 + 32, len = hlen + payload;

	memset(f, 0, hlen);
	memcpy(f, mac_b, 6);
	memcpy(f + 6, mac_a, 6);
	dp_put_be16(f + 12, v6 ? 0x86dd : 0x0800);
	if (!v6) {
		f[l3] = 0x45;
		dp_put_be16(f + l3 + 2, len - l3);
		dp_put_be16(f + l3 + 4, 0xfffe);	/* the id wraps within the frame */
		f[l3 + 6] = 0x40;			/* DF */
		f[l3 + 8] = 64;
		f[l3 + 9] = 6;
		memcpy(f + l3 + 12, "\x0a\xe8\x01\x01\x0a\xe8\x01\x02", 8);
		dp_put_be16(f + l3 + 10, (uint16_t)~ref_fold(ref_sum(0, f + l3, 20)));
	} else {
		f[l3] = 0x60;
		dp_put_be16(f + l3 + 4, len - l4);
		f[l3 + 6] = 6;
		f[l3 + 7] = 64;
		f[l3 + 8] = 0xfd;
		f[l3 + 23] = 1;
		f[l3 + 24] = 0xfd;
		f[l3 + 39] = 2;
	}
	dp_put_be16(f + l4, 40000);
	dp_put_be16(f + l4 + 2, 5201);
	dp_put_be32(f + l4 + 4, 0xfffff000);		/* the sequence number wraps too */
	dp_put_be32(f + l4 + 8, 0x01020304);
	f[l4 + 12] = 8 << 4;
	f[l4 + 13] = flags;
	dp_put_be16(f + l4 + 14, 512);
	memcpy(f + l4 + 20, "\x01\x01\x08\x0a\x00\x00\x00\x01\x00\x00\x00\x02", 12);
	for (size_t i = 0; i < payload; i++)
		f[hlen + i] = (uint8_t)(i * 7);
	dp_put_be16(f + l4 + 16, ref_fold(ref_pseudo(f, l3, v6, 6, len - l4)));
	*l4_out = l4;
	return len;
}

/* Segment i of the super-frame f as Linux's tcp_gso_segment sends it, built here. */
static size_t expect_segment(const uint8_t *f, bool v6, size_t l4, size_t payload, size_t mss,
			     unsigned i, unsigned nseg, uint8_t *out)
{
	size_t l3 = 14, hlen = l4 + 32, off = i * mss;
	size_t n = payload - off < mss ? payload - off : mss, len = hlen + n;

	memcpy(out, f, hlen);
	memcpy(out + hlen, f + hlen + off, n);
	if (!v6) {
		dp_put_be16(out + l3 + 2, len - l3);
		dp_put_be16(out + l3 + 4, dp_get_be16(f + l3 + 4) + i);
		dp_put_be16(out + l3 + 10, 0);
		dp_put_be16(out + l3 + 10, (uint16_t)~ref_fold(ref_sum(0, out + l3, 20)));
	} else {
		dp_put_be16(out + l3 + 4, len - l4);
	}
	dp_put_be32(out + l4 + 4, dp_get_be32(f + l4 + 4) + off);
	if (i + 1 < nseg)
		out[l4 + 13] &= ~(0x01 | 0x08);		/* FIN, PSH: the last only */
	if (i)
		out[l4 + 13] &= ~0x80;			/* CWR: the first only */
	dp_put_be16(out + l4 + 16, 0);
	dp_put_be16(out + l4 + 16,
		     (uint16_t)~ref_fold(ref_sum(ref_pseudo(out, l3, v6, 6, len - l4), out + l4,
						 len - l4)));
	return len;
}

static void tso_through(struct net *n, bool v6)
{
	const size_t payload = 3000, mss = 1400;
	const unsigned nseg = 3;
	uint8_t f[4096], got[2048], want[2048];
	struct virtio_net_hdr h = {
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
		.gso_type = v6 ? VIRTIO_NET_HDR_GSO_TCPV6 : VIRTIO_NET_HDR_GSO_TCPV4,
		.gso_size = mss, .csum_offset = 16,
	};
	struct opa_vnic_counters c;
	size_t l4, len, seg_len;
	unsigned i;

	/* ACK | PSH | FIN | CWR */
	len = tso_frame(f, v6, payload, 0x10 | 0x08 | 0x01 | 0x80, &l4);
	h.hdr_len = l4 + 32;
	h.csum_start = l4;
	host_send_vnet(&n->a, &h, f, len);
	assert_int_equal(opa_vport_tx_turn(n->a.port), 1);
	fabric_poll_n(n->b.fab, NULL, nseg);
	for (i = 0; i < nseg; i++) {
		seg_len = host_recv_vnet(&n->b, got, sizeof(got));
		assert_int_equal(seg_len, expect_segment(f, v6, l4, payload, mss, i, nseg, want));
		assert_memory_equal(got, want, seg_len);
		/* Checked once more as a receiver would: the sums come out as all ones. */
		if (!v6)
			assert_int_equal(ref_fold(ref_sum(0, got + 14, 20)), 0xffff);
		assert_int_equal(ref_fold(ref_sum(ref_pseudo(got, 14, v6, 6, seg_len - l4),
						  got + l4, seg_len - l4)), 0xffff);
	}
	assert_false(host_pending(&n->b));
	c = counters(&n->a);
	assert_int_equal(c.tx.packets, nseg);
	assert_int_equal(opa_vnic_tx_errors(&c), 0);
}

static void test_tso_v4(void **state)
{
	vnet_on(*state);
	tso_through(*state, false);
}

static void test_tso_v6(void **state)
{
	vnet_on(*state);
	tso_through(*state, true);
}

/*
 * A message B's host received, any size: its virtio_net_hdr into *h (checked: DATA_VALID
 * without GSO, or a coalesced TCP super-frame with NEEDS_CSUM at the TCP checksum, which
 * holds the pseudo-header's sum, and a valid IPv4 header checksum), the frame into buf.
 */
static size_t host_recv_any(struct node *x, struct virtio_net_hdr *h, uint8_t *buf, size_t size)
{
	static uint8_t all[VH + 70000];
	size_t len = host_recv(x, all, sizeof(all)), flen, l4;
	bool v6;

	assert_true(len > VH && len - VH <= size);
	memcpy(h, all, VH);
	flen = len - VH;
	memcpy(buf, all + VH, flen);
	if (h->gso_type == VIRTIO_NET_HDR_GSO_NONE) {
		assert_int_equal(h->flags, VIRTIO_NET_HDR_F_DATA_VALID);
		return flen;
	}
	v6 = h->gso_type == VIRTIO_NET_HDR_GSO_TCPV6;
	assert_true(v6 || h->gso_type == VIRTIO_NET_HDR_GSO_TCPV4);
	l4 = v6 ? 14 + 40 : 14 + 20;
	assert_int_equal(h->flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
	assert_int_equal(h->csum_start, l4);
	assert_int_equal(h->csum_offset, 16);
	assert_int_equal(h->hdr_len, l4 + (buf[l4 + 12] >> 4) * 4);
	assert_true(h->gso_size > 0 && flen - h->hdr_len > h->gso_size);
	if (!v6) {
		assert_int_equal(dp_get_be16(buf + 16), flen - 14);
		assert_int_equal(ref_fold(ref_sum(0, buf + 14, 20)), 0xffff);
	} else {
		assert_int_equal(dp_get_be16(buf + 18), flen - 54);
	}
	assert_int_equal(dp_get_be16(buf + l4 + 16),
			 ref_fold(ref_pseudo(buf, 14, v6, 6, flen - l4)));
	return flen;
}

/*
 * B's host reads until it has n segments of what A sent: a super-frame counts as the
 * segments the host's TCP would see in it (cut as tcp_gso_segment would); each is compared
 * with want(i).  Returns the super-frames read.
 */
typedef size_t (*want_fn)(unsigned i, uint8_t *out, void *arg);

static unsigned host_recv_segments(struct node *x, unsigned n, want_fn want, void *arg)
{
	static uint8_t frame[70000];
	uint8_t seg[2048], w[2048];
	struct virtio_net_hdr h;
	struct opa_gso g;
	unsigned i = 0, j, supers = 0;
	size_t len, seg_len;

	while (i < n) {
		len = host_recv_any(x, &h, frame, sizeof(frame));
		if (h.gso_type == VIRTIO_NET_HDR_GSO_NONE) {
			assert_int_equal(len, want(i, w, arg));
			assert_memory_equal(frame, w, len);
			i++;
			continue;
		}
		supers++;
		assert_int_equal(opa_gso_parse(&h, frame, len, &g), 0);
		assert_true(g.nseg > 1 && i + g.nseg <= n);
		for (j = 0; j < g.nseg; j++, i++) {
			seg_len = opa_gso_segment(&g, frame, j, seg);
			assert_int_equal(seg_len, want(i, w, arg));
			assert_memory_equal(seg, w, seg_len);
		}
	}
	return supers;
}

struct tso_want {
	const uint8_t *f;
	bool v6;
	size_t l4, payload, mss;
	unsigned nseg;
};

static size_t tso_want_seg(unsigned i, uint8_t *out, void *arg)
{
	const struct tso_want *t = arg;

	return expect_segment(t->f, t->v6, t->l4, t->payload, t->mss, i, t->nseg, out);
}

/* A super-frame of more segments than a turn has slots: all go out, in order; B's host gets
 * them coalesced again (one super-frame or a few, by receive batch). */
static void test_tso_many_segments(void **state)
{
	struct net *n = *state;
	static uint8_t f[65536];
	const size_t mss = 1000;
	size_t l4, len, payload = 60000;
	unsigned nseg = 60;
	struct virtio_net_hdr h = {
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM, .gso_type = VIRTIO_NET_HDR_GSO_TCPV4,
		.gso_size = mss, .csum_offset = 16,
	};
	struct tso_want t = { f, false, 0, payload, mss, nseg };
	struct opa_vnic_counters cb;

	vnet_on(n);
	len = tso_frame(f, false, payload, 0x10, &l4);
	t.l4 = l4;
	h.hdr_len = l4 + 32;
	h.csum_start = l4;
	host_send_vnet(&n->a, &h, f, len);
	assert_int_equal(opa_vport_tx_turn(n->a.port), 1);
	fabric_poll_n(n->b.fab, NULL, nseg);
	assert_true(host_recv_segments(&n->b, nseg, tso_want_seg, &t) >= 1);
	assert_false(host_pending(&n->b));
	assert_int_equal(counters(&n->a).tx.packets, nseg);
	cb = counters(&n->b);
	assert_int_equal(cb.rx.packets, nseg);
	assert_int_equal(cb.rx.bytes, counters(&n->a).tx.bytes);
	assert_int_equal(cb.rx.size[OPA_VNIC_SIZE_1024_1518], nseg);
	assert_int_equal(cb.rx.unicast, nseg);
}

/* A's host sends frames one by one (no GSO); B receives them in one poll. */
static void send_frames(struct net *n, uint8_t (*frames)[2048], const size_t *lens, unsigned k)
{
	struct virtio_net_hdr h = { 0 };
	unsigned i;

	for (i = 0; i < k; i++)
		host_send_vnet(&n->a, &h, frames[i], lens[i]);
	assert_int_equal(opa_vport_tx_turn(n->a.port), k);
	fabric_poll_n(n->b.fab, NULL, k);
}

/* B's receive counters are A's send counters, frame by frame, coalesced or not. */
static void assert_counted_alike(struct net *n)
{
	struct opa_vnic_counters ca = counters(&n->a), cb = counters(&n->b);
	unsigned i;

	assert_int_equal(cb.rx.packets, ca.tx.packets);
	assert_int_equal(cb.rx.bytes, ca.tx.bytes);
	assert_int_equal(cb.rx.unicast, ca.tx.unicast);
	assert_int_equal(cb.rx.mcastbcast, ca.tx.mcastbcast);
	assert_int_equal(cb.rx.untagged, ca.tx.untagged);
	for (i = 0; i < OPA_VNIC_SIZE_BUCKETS; i++)
		assert_int_equal(cb.rx.size[i], ca.tx.size[i]);
	assert_int_equal(opa_vnic_rx_errors(&cb), 0);
}

/*
 * Receive coalescing: a run of in-order segments of one flow (the last with PSH) reaches
 * the host as one super-frame: the sender's super-frame again, byte for byte (the TCP
 * checksum field holding the pseudo-header's sum as the sender's kernel left it).
 */
static void gro_run(struct net *n, bool v6)
{
	static uint8_t f[8192], got[70000];
	uint8_t frames[5][2048];
	size_t lens[5], l4, len, payload = 4500, mss = 1000;
	struct virtio_net_hdr h;
	unsigned i;

	vnet_on(n);
	len = tso_frame(f, v6, payload, 0x10 | 0x08, &l4);
	for (i = 0; i < 5; i++)
		lens[i] = expect_segment(f, v6, l4, payload, mss, i, 5, frames[i]);
	send_frames(n, frames, lens, 5);
	assert_int_equal(host_recv_any(&n->b, &h, got, sizeof(got)), len);
	assert_int_equal(h.gso_type, v6 ? VIRTIO_NET_HDR_GSO_TCPV6 : VIRTIO_NET_HDR_GSO_TCPV4);
	assert_int_equal(h.gso_size, mss);
	assert_int_equal(h.hdr_len, l4 + 32);
	assert_memory_equal(got, f, len);
	assert_false(host_pending(&n->b));
	assert_int_equal(counters(&n->b).rx.packets, 5);
	assert_counted_alike(n);
}

static void test_gro_v4(void **state)
{
	gro_run(*state, false);
}

static void test_gro_v6(void **state)
{
	gro_run(*state, true);
}

struct mixed_want {
	uint8_t (*frames)[2048];
	const size_t *lens;
	const unsigned *order;	/* the frame sent i-th segment of B's host is */
};

static size_t mixed_want_seg(unsigned i, uint8_t *out, void *arg)
{
	const struct mixed_want *m = arg;

	memcpy(out, m->frames[m->order[i]], m->lens[m->order[i]]);
	return m->lens[m->order[i]];
}

/*
 * What does not continue the held run is not merged, and what was held is written first:
 * an ARP between segments, another flow (port), a gap in the sequence, a FIN, a segment
 * after a PSH, another ACK number, an IPv4 frame with options, another TTL.  The host sees every frame, in the order sent.
 */
static void test_gro_mixed_kept_in_order(void **state)
{
	struct net *n = *state;
	static uint8_t f[16384];
	static uint8_t frames[17][2048];
	size_t lens[17], l4, payload = 11500, mss = 1000;
	const unsigned nseg = 12;
	unsigned i, k = 0, order[17];
	uint8_t seg[12][2048];
	size_t seg_len[12];
	struct mixed_want m = { frames, lens, order };

	vnet_on(n);
	tso_frame(f, false, payload, 0x10, &l4);
	for (i = 0; i < nseg; i++)
		seg_len[i] = expect_segment(f, false, l4, payload, mss, i, nseg, seg[i]);
#define ADD(src, l) do { memcpy(frames[k], (src), (l)); lens[k] = (l); k++; } while (0)
	ADD(seg[0], seg_len[0]);				/* 0, 1: merged */
	ADD(seg[1], seg_len[1]);
	lens[k] = make_frame(frames[k], 42, mac_b, 0x0806);	/* ARP: no */
	k++;
	ADD(seg[2], seg_len[2]);				/* alone: the next is ... */
	ADD(seg[3], seg_len[3]);				/* ... another flow */
	dp_put_be16(frames[k - 1] + l4, 40001);
	ADD(seg[3], seg_len[3]);				/* 3 */
	ADD(seg[5], seg_len[5]);				/* a gap: 4 is missing */
	ADD(seg[6], seg_len[6]);				/* FIN */
	frames[k - 1][l4 + 13] |= 0x01;
	ADD(seg[7], seg_len[7]);				/* PSH ends a run ... */
	frames[k - 1][l4 + 13] |= 0x08;
	ADD(seg[8], seg_len[8]);				/* ... this starts one */
	ADD(seg[9], seg_len[9]);				/* another ACK number */
	dp_put_be32(frames[k - 1] + l4 + 8, 0x01020305);
	ADD(seg[10], seg_len[10]);				/* an IPv4 option (NOP x4) */
	{
		uint8_t *p = frames[k - 1];

		memmove(p + 38, p + 34, seg_len[10] - 34);
		memset(p + 34, 1, 4);
		p[14] = 0x46;
		dp_put_be16(p + 16, seg_len[10] + 4 - 14);
		lens[k - 1] += 4;
	}
	ADD(seg[11], seg_len[11]);				/* 11 (short), then ... */
	ADD(seg[11], seg_len[11]);				/* ... another TTL */
	dp_put_be32(frames[k - 1] + l4 + 4, dp_get_be32(seg[11] + l4 + 4) + 500);
	frames[k - 1][22] = 63;
#undef ADD
	for (i = 0; i < k; i++)
		order[i] = i;
	send_frames(n, frames, lens, k);
	/* The ARP arrives padded to 60: compared as sent, padded. */
	memset(frames[2] + 42, 0, 18);
	lens[2] = 60;
	/* One super-frame only: segments 0 and 1. */
	assert_int_equal(host_recv_segments(&n->b, k, mixed_want_seg, &m), 1);
	assert_false(host_pending(&n->b));
	assert_int_equal(counters(&n->b).rx.packets, k);
	assert_counted_alike(n);
}

/* Without the virtio_net_hdr nothing is coalesced: segments arrive one by one. */
static void test_gro_off_without_vnet_hdr(void **state)
{
	struct net *n = *state;
	static uint8_t f[8192];
	uint8_t seg[2048], got[2048];
	size_t l4, len;
	unsigned i;

	tso_frame(f, false, 3000, 0x10, &l4);
	for (i = 0; i < 3; i++)
		host_send(&n->a, seg, expect_segment(f, false, l4, 3000, 1000, i, 3, seg));
	assert_int_equal(opa_vport_tx_turn(n->a.port), 3);
	fabric_poll_n(n->b.fab, NULL, 3);
	for (i = 0; i < 3; i++) {
		len = host_recv(&n->b, got, sizeof(got));
		assert_int_equal(len, expect_segment(f, false, l4, 3000, 1000, i, 3, seg));
		assert_memory_equal(got, seg, len);
	}
	assert_false(host_pending(&n->b));
	assert_counted_alike(n);
}

/* NEEDS_CSUM without GSO: a UDP checksum completed; a header that does not fit: dropped. */
static void test_vnet_csum_and_bad(void **state)
{
	struct net *n = *state;
	uint8_t f[200], got[2048];
	struct virtio_net_hdr h = {
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM, .csum_start = 34, .csum_offset = 6,
	};
	size_t len = 14 + 20 + 8 + 101, l4 = 34;

	vnet_on(n);
	make_frame(f, len, mac_b, 0x0800);
	f[14] = 0x45;
	dp_put_be16(f + 16, len - 14);
	f[23] = 17;
	dp_put_be16(f + l4 + 4, len - l4);
	dp_put_be16(f + l4 + 6, ref_fold(ref_pseudo(f, 14, false, 17, len - l4)));
	host_send_vnet(&n->a, &h, f, len);
	/* csum_offset beyond the frame; a UDP super-frame (not offered to the host). */
	h.csum_offset = 200;
	host_send_vnet(&n->a, &h, f, len);
	h.csum_offset = 6;
	h.gso_type = VIRTIO_NET_HDR_GSO_UDP;
	h.gso_size = 50;
	host_send_vnet(&n->a, &h, f, len);
	assert_int_equal(opa_vport_tx_turn(n->a.port), 3);
	fabric_poll_n(n->b.fab, NULL, 1);
	assert_int_equal(host_recv_vnet(&n->b, got, sizeof(got)), len);
	assert_int_equal(ref_fold(ref_sum(ref_pseudo(got, 14, false, 17, len - l4), got + l4,
					  len - l4)), 0xffff);
	assert_memory_equal(got, f, l4 + 6);
	assert_memory_equal(got + l4 + 8, f + l4 + 8, len - l4 - 8);
	assert_false(host_pending(&n->b));
	assert_int_equal(counters(&n->a).tx_carrier_errors, 2);
	assert_int_equal(counters(&n->a).tx.packets, 1);
}

int main(void)
{
#define T(t) cmocka_unit_test_setup_teardown(t, net_setup, net_teardown)
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flow_hash),
		T(test_wire_bytes_kat),
		T(test_frame_through),
		T(test_many_frames_counted),
		T(test_multicast_and_vlan),
		T(test_tx_drops),
		T(test_rx_drops),
		T(test_rx_fifo_full),
		T(test_map_swap),
		T(test_attach_on_worker),
		T(test_tso_v4),
		T(test_tso_v6),
		T(test_tso_many_segments),
		T(test_vnet_csum_and_bad),
		T(test_gro_v4),
		T(test_gro_v6),
		T(test_gro_mixed_kept_in_order),
		T(test_gro_off_without_vnet_hdr),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
