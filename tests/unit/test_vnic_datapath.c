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

#include "tests/unit/fabric_pair.h"
#include "dataplane/opa/bytes.h"
#include "dataplane/opa/flow_hash.h"
#include "dataplane/opa/vnic_encap.h"
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
	opa_put_be16(f + 12, type);
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
	opa_put_be16(frame + 14, 0x0005);
	opa_put_be16(frame + 16, 0x0800);
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
