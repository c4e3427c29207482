/* SPDX-License-Identifier: MIT */
/*
 * The software fabric's UDP endpoint, map and MAD path (docs/opa-fabric.md): two fabrics on
 * 127.0.0.1 in one process, their workers not started (the tests call the receive poll the
 * socket watch would run), and a plain socket as a third node.
 */
#include <arpa/inet.h>
#include <stdlib.h>

#include "tests/unit/fabric_pair.h"
#include "daemon/vnic/mad_fabric.h"
#include "dataplane/opa/opa9b.h"
#include "dataplane/worker.h"

#define MAD_EVENT	0x4d41

/* Reference §1.2: Get VESWPortInfo, vport 3, TID 0x1122334455667788 (MAD bytes 0-39). */
static const uint8_t get_vesw_hdr[40] = {
	0x80, 0x34, 0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66,
	0x77, 0x88, 0x00, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x06, 0x6a,
};

/* ---------------------------------------------------------------- addresses */

static void test_addr_parse(void **state)
{
	struct dp_udp_addr a;
	char buf[DP_UDP_ADDR_STRLEN];
	const char *why;

	(void)state;
	assert_int_equal(dp_udp_addr_parse("10.0.0.1:4795", 0, &a, &why), 0);
	assert_int_equal(a.sa.sa_family, AF_INET);
	assert_int_equal(dp_udp_addr_port(&a), 4795);
	dp_udp_addr_format(&a, buf, sizeof(buf));
	assert_string_equal(buf, "10.0.0.1:4795");
	assert_int_equal(dp_udp_addr_parse("[fe80::1]:9", 0, &a, &why), 0);
	assert_int_equal(a.sa.sa_family, AF_INET6);
	dp_udp_addr_format(&a, buf, sizeof(buf));
	assert_string_equal(buf, "[fe80::1]:9");
	/* The default port fills in a missing ":PORT". */
	assert_int_equal(dp_udp_addr_parse("10.0.0.2", 4795, &a, &why), 0);
	assert_int_equal(dp_udp_addr_port(&a), 4795);
	assert_int_equal(dp_udp_addr_parse("[::1]", 4795, &a, &why), 0);
	assert_int_equal(dp_udp_addr_port(&a), 4795);
}

static void expect_refused(const char *s, const char *why_part)
{
	struct dp_udp_addr a;
	const char *why = NULL;

	assert_int_equal(dp_udp_addr_parse(s, 0, &a, &why), -EINVAL);
	assert_non_null(why);
	if (!strstr(why, why_part))
		fail_msg("\"%s\": \"%s\" does not say \"%s\"", s, why, why_part);
}

static void test_addr_refused(void **state)
{
	(void)state;
	expect_refused("10.0.0.1", "missing ':PORT'");
	expect_refused("10.0.0.1:", "missing port");
	expect_refused("10.0.0.1:65536", "out of range");
	expect_refused("10.0.0.1:12a", "not a decimal");
	expect_refused("10.0.0:1", "IPv4");
	expect_refused("host.example:1", "IPv4");
	expect_refused(":1", "missing host");
	expect_refused("fe80::1:5", "brackets");
	expect_refused("[fe80::1:5", "missing ']'");
	expect_refused("[fe80::1]5", "':PORT'");
	expect_refused("[10.0.0.1]:5", "IPv6");
	expect_refused("[]:5", "missing host");
}

/* ---------------------------------------------------------------- the map */

static struct dp_udp_addr addr_of(const char *s)
{
	struct dp_udp_addr a;
	const char *why;

	assert_int_equal(dp_udp_addr_parse(s, 0, &a, &why), 0);
	return a;
}

static void test_map(void **state)
{
	struct dp_udp_addr own = addr_of("10.0.0.1:4795"), b = addr_of("10.0.0.2:4795");
	struct dp_udp_addr c = addr_of("[::2]:4795");
	struct opa_fabric_map *m = opa_fabric_map_new(1, &own);
	const struct opa_fabric_route *r;

	(void)state;
	assert_int_equal(opa_fabric_map_add(m, 2, &b), 0);
	assert_int_equal(opa_fabric_map_add(m, 0xf00001, &own), 0);
	assert_int_equal(opa_fabric_map_add(m, 0xf00001, &b), 0);
	assert_int_equal(opa_fabric_map_add(m, 0xf00001, &c), 0);
	assert_int_equal(opa_fabric_map_add(m, 1, &own), 0);
	assert_int_equal(opa_fabric_map_add(m, 0xf00002, &own), 0);
	assert_int_equal(opa_fabric_map_add(m, 2, &b), -EEXIST);
	assert_int_equal(opa_fabric_map_add(m, 0, &b), -EINVAL);
	assert_int_equal(opa_fabric_map_add(m, 0x1000000, &b), -EINVAL);
	assert_int_equal(opa_fabric_map_seal(m), 0);
	assert_int_equal(opa_fabric_map_add(m, 3, &b), -EPERM);

	assert_int_equal(opa_fabric_map_count(m), 4);
	r = opa_fabric_map_lookup(m, 2);
	assert_non_null(r);
	assert_int_equal(r->n, 1);
	assert_true(dp_udp_addr_equal(&r->addrs[0], &b));
	/* The own address never appears in a route; the order given is kept. */
	r = opa_fabric_map_lookup(m, 0xf00001);
	assert_int_equal(r->n, 2);
	assert_true(dp_udp_addr_equal(&r->addrs[0], &b));
	assert_true(dp_udp_addr_equal(&r->addrs[1], &c));
	/* Our own LID: in the map, no address; unicast is then no route, multicast is a group. */
	assert_int_equal(opa_fabric_map_lookup(m, 1)->n, 0);
	assert_null(opa_fabric_route(m, 1));
	assert_non_null(opa_fabric_route(m, 0xf00002));
	assert_int_equal(opa_fabric_route(m, 0xf00002)->n, 0);
	assert_null(opa_fabric_map_lookup(m, 3));
	assert_null(opa_fabric_map_lookup(m, 0xffffff));
	opa_fabric_map_free(m);
}

static void test_map_large_lookup(void **state)
{
	struct dp_udp_addr own = addr_of("10.0.0.1:4795"), b = addr_of("10.0.0.2:4795");
	struct opa_fabric_map *m = opa_fabric_map_new(1, &own);
	uint32_t lid;

	(void)state;
	/* Added out of order: the seal sorts. */
	for (lid = 1000; lid >= 2; lid -= 2)
		assert_int_equal(opa_fabric_map_add(m, lid, &b), 0);
	assert_int_equal(opa_fabric_map_seal(m), 0);
	for (lid = 1; lid <= 1001; lid++) {
		const struct opa_fabric_route *r = opa_fabric_map_lookup(m, lid);

		if (lid % 2)
			assert_null(r);
		else
			assert_true(r && r->lid == lid);
	}
	opa_fabric_map_free(m);
}

/* ---------------------------------------------------------------- two nodes */

struct pair {
	struct opa_fabric *a, *b;
	struct dp_udp raw;			/* a third node */
	struct dp_worker wb;			/* B's worker, never started */
};

static void pair_maps(struct pair *p)
{
	const uint32_t lids[] = { 1, 2, 3 };
	const struct dp_udp_addr *addrs[] = {
		opa_fabric_local_addr(p->a), opa_fabric_local_addr(p->b), &p->raw.local,
	};

	fabric_set_map(p->a, 3, lids, addrs);
	fabric_set_map(p->b, 3, lids, addrs);
}

static int pair_setup(void **state)
{
	struct pair *p = calloc(1, sizeof(*p));

	p->a = fabric_open(1, 0, MAD_EVENT);
	p->b = fabric_open(2, 4, MAD_EVENT);
	raw_open(&p->raw);
	pair_maps(p);
	assert_int_equal(dp_worker_init(&p->wb, 1, -1), 0);
	*state = p;
	return 0;
}

static int pair_teardown(void **state)
{
	struct pair *p = *state;

	dp_worker_stop(&p->wb);
	opa_fabric_free(p->a);
	opa_fabric_free(p->b);
	dp_udp_close(&p->raw);
	free(p);
	return 0;
}

struct got {
	unsigned n;
	struct mad_addr from;
	uint8_t mad[OPA9B_MAD_MAX];
	size_t len;
	struct mad_transport *reply_on;		/* answer each MAD there, by the map */
};

static void on_mad(void *userdata, const struct mad_addr *from, const uint8_t *mad, size_t len)
{
	struct got *g = userdata;

	g->n++;
	g->from = *from;
	memcpy(g->mad, mad, len);
	g->len = len;
	if (g->reply_on) {
		uint8_t reply[OPA9B_MAD_MAX];

		memcpy(reply, mad, len);
		reply[3] = 0x81;	/* GetResp */
		assert_int_equal(mad_transport_send(g->reply_on, from, reply, len), 0);
	}
}

static void make_mad(uint8_t *mad, size_t len)
{
	size_t i;

	/* A 24-byte MAD is the common header alone. */
	memcpy(mad, get_vesw_hdr, len < sizeof(get_vesw_hdr) ? len : sizeof(get_vesw_hdr));
	for (i = sizeof(get_vesw_hdr); i < len; i++)
		mad[i] = i;
}

static void test_mad_round_trip(void **state)
{
	struct pair *p = *state;
	struct mad_transport *ta, *tb;
	struct got ga = { 0 }, gb = { 0 };
	struct mad_addr to_b = { .lid = 2, .sl = 3, .pkey = 0xffff, .qpn = 1 };
	struct opa_fabric_counters ca, cb;
	struct dp_event ev;
	uint8_t mad[272];

	make_mad(mad, sizeof(mad));
	assert_int_equal(mad_fabric_open(&ta, p->a, on_mad, &ga), 0);
	assert_int_equal(mad_fabric_open(&tb, p->b, on_mad, &gb), 0);
	assert_string_equal(ta->ops->name, "fabric");
	assert_int_equal(ta->ops->lid(ta), 1);
	gb.reply_on = tb;

	/* B's socket is watched by B's worker: attach it as the driver would. */
	assert_int_equal(dp_worker_submit(&p->wb, opa_fabric_attach, p->b), 0);
	dp_worker_run_commands(&p->wb);
	assert_int_equal(opa_fabric_attach_error(p->b), 0);

	assert_int_equal(mad_transport_send(ta, &to_b, mad, sizeof(mad)), 0);
	fabric_poll_n(p->b, &p->wb, 1);
	/* The worker told the main thread, once, with the type the driver chose. */
	assert_true(dp_queue_pop(&p->wb.events, &ev));
	assert_int_equal(ev.type, MAD_EVENT);
	assert_ptr_equal(ev.ptr, p->b);
	assert_int_equal(ev.cookie, (uintptr_t)p->b);
	assert_false(dp_queue_pop(&p->wb.events, &ev));
	assert_ptr_equal(mad_fabric_of(tb), p->b);

	assert_int_equal(mad_fabric_dispatch(tb), 1);
	assert_int_equal(gb.n, 1);
	assert_int_equal(gb.len, sizeof(mad));
	assert_memory_equal(gb.mad, mad, sizeof(mad));
	assert_int_equal(gb.from.lid, 1);
	assert_int_equal(gb.from.sl, 3);
	assert_int_equal(gb.from.pkey, 0xffff);
	assert_int_equal(gb.from.qpn, 1);

	/* B answered by the map: A gets the reply from LID 2. */
	fabric_poll_n(p->a, NULL, 1);
	assert_int_equal(mad_fabric_dispatch(ta), 1);
	assert_int_equal(ga.from.lid, 2);
	assert_int_equal(ga.from.sl, 3);
	assert_int_equal(ga.mad[3], 0x81);
	assert_memory_equal(ga.mad + 4, mad + 4, sizeof(mad) - 4);

	opa_fabric_read_counters(p->a, &ca);
	opa_fabric_read_counters(p->b, &cb);
	assert_int_equal(ca.tx_mads, 1);
	assert_int_equal(ca.tx_datagrams, 1);
	assert_int_equal(ca.rx_mads, 1);
	assert_int_equal(cb.rx_datagrams, 1);
	assert_int_equal(cb.rx_mads, 1);
	assert_int_equal(cb.tx_mads, 1);
	assert_int_equal(cb.rx_bad_packet + cb.rx_bad_type + cb.rx_wrong_dlid, 0);

	dp_worker_submit_wait(&p->wb, opa_fabric_detach, p->b);
	dp_worker_run_commands(&p->wb);
	mad_transport_free(ta);
	mad_transport_free(tb);
}

/* A datagram from the raw socket, as some node that claims a SLID. */
static void raw_send_mad(struct pair *p, uint16_t slid, uint16_t dlid, const uint8_t *mad,
			 size_t len, bool corrupt)
{
	struct opa9b_mad_addr a = { .sl = 1, .dlid = dlid, .slid = slid, .pkey = 0x7fff,
				    .src_qp = 1 };
	uint8_t buf[1 + OPA9B_MAX_PKT];
	size_t n;

	buf[0] = OPA_FABRIC_TYPE_9B;
	assert_int_equal(opa9b_mad_build(&a, mad, len, buf + 1, sizeof(buf) - 1, &n), OPA_OK);
	if (corrupt)
		buf[1 + OPA9B_HDRS_LEN + 30] ^= 1;
	assert_int_equal(dp_udp_send(&p->raw, opa_fabric_local_addr(p->b), buf, n + 1), 0);
}

static void test_reply_goes_by_map(void **state)
{
	struct pair *p = *state;
	struct mad_transport *ta, *tb;
	struct got ga = { 0 }, gb = { 0 };
	uint8_t mad[64];

	make_mad(mad, sizeof(mad));
	assert_int_equal(mad_fabric_open(&ta, p->a, on_mad, &ga), 0);
	assert_int_equal(mad_fabric_open(&tb, p->b, on_mad, &gb), 0);
	gb.reply_on = tb;
	/* The raw socket sends a request with SLID 1: the reply goes to LID 1's address (A). */
	raw_send_mad(p, 1, 2, mad, sizeof(mad), false);
	fabric_poll_n(p->b, NULL, 1);
	assert_int_equal(mad_fabric_dispatch(tb), 1);
	fabric_poll_n(p->a, NULL, 1);
	assert_int_equal(mad_fabric_dispatch(ta), 1);
	assert_int_equal(ga.from.lid, 2);
	assert_int_equal(ga.from.pkey, 0x7fff);
	assert_int_equal(raw_pending(&p->raw), 0);
	mad_transport_free(ta);
	mad_transport_free(tb);
}

static void test_rx_refusals(void **state)
{
	struct pair *p = *state;
	struct opa_fabric_counters c;
	uint8_t mad[64], junk[40] = { 0x42 };

	make_mad(mad, sizeof(mad));
	assert_int_equal(dp_udp_send(&p->raw, opa_fabric_local_addr(p->b), junk, sizeof(junk)), 0);
	assert_int_equal(dp_udp_send(&p->raw, opa_fabric_local_addr(p->b), junk, 0), 0);
	raw_send_mad(p, 3, 2, mad, sizeof(mad), true);		/* bad ICRC */
	raw_send_mad(p, 3, 7, mad, sizeof(mad), false);		/* not for LID 2 */
	junk[0] = OPA_FABRIC_TYPE_16B;				/* not a 16B packet */
	assert_int_equal(dp_udp_send(&p->raw, opa_fabric_local_addr(p->b), junk, sizeof(junk)), 0);
	fabric_poll_n(p->b, NULL, 5);
	opa_fabric_read_counters(p->b, &c);
	assert_int_equal(c.rx_datagrams, 5);
	assert_int_equal(c.rx_bad_type, 2);
	assert_int_equal(c.rx_bad_packet, 2);
	assert_int_equal(c.rx_wrong_dlid, 1);
	assert_int_equal(c.rx_mads, 0);
}

static void ignore_mad(void *arg, const struct opa9b_mad_addr *from, const uint8_t *mad,
		       size_t len)
{
	(void)from;
	(void)mad;
	(void)len;
	(*(unsigned *)arg)++;
}

static void test_mad_queue_full(void **state)
{
	struct pair *p = *state;
	struct opa_fabric_counters c;
	uint8_t mad[24];
	unsigned i, n = 0;

	make_mad(mad, sizeof(mad));
	/* B's queue holds 4. */
	for (i = 0; i < 6; i++)
		raw_send_mad(p, 3, 2, mad, sizeof(mad), false);
	fabric_poll_n(p->b, NULL, 6);
	opa_fabric_read_counters(p->b, &c);
	assert_int_equal(c.rx_mads, 4);
	assert_int_equal(c.rx_mad_overflow, 2);
	assert_int_equal(opa_fabric_mad_drain(p->b, ignore_mad, &n, 0), 4);
	assert_int_equal(n, 4);
}

static void test_no_route(void **state)
{
	struct pair *p = *state;
	struct opa9b_mad_addr to = { .dlid = 77, .src_qp = 1 };
	struct opa_fabric_counters c;
	uint8_t mad[24];

	make_mad(mad, sizeof(mad));
	assert_int_equal(opa_fabric_send_mad(p->a, &to, mad, sizeof(mad)), -EHOSTUNREACH);
	/* Our own LID is served by our own address only: no route either. */
	to.dlid = 1;
	assert_int_equal(opa_fabric_send_mad(p->a, &to, mad, sizeof(mad)), -EHOSTUNREACH);
	to.dlid = 2;
	assert_int_equal(opa_fabric_send_mad(p->a, &to, mad, 23), -EINVAL);
	opa_fabric_read_counters(p->a, &c);
	assert_int_equal(c.tx_no_route, 2);
	assert_int_equal(c.tx_mads, 0);
}

static void test_map_swap(void **state)
{
	struct pair *p = *state;
	struct opa9b_mad_addr to = { .dlid = 2, .src_qp = 1, .sl = 5 };
	const uint32_t lids[] = { 2 };
	const struct dp_udp_addr *addrs[] = { &p->raw.local };
	uint8_t mad[24], buf[256];
	struct opa9b_mad_pkt pkt;
	size_t n;

	make_mad(mad, sizeof(mad));
	/* Reload: LID 2 moved to the raw socket's address. */
	fabric_set_map(p->a, 1, lids, addrs);
	assert_int_equal(opa_fabric_send_mad(p->a, &to, mad, sizeof(mad)), 0);
	n = raw_recv(&p->raw, buf, sizeof(buf));
	assert_int_equal(buf[0], OPA_FABRIC_TYPE_9B);
	assert_int_equal(opa9b_mad_parse(buf + 1, n - 1, &pkt), OPA_OK);
	assert_int_equal(pkt.addr.slid, 1);
	assert_int_equal(pkt.addr.dlid, 2);
	assert_int_equal(pkt.addr.sl, 5);
	assert_int_equal(pkt.addr.src_qp, 1);
	assert_memory_equal(pkt.mad, mad, sizeof(mad));
	/* Nothing reached B. */
	assert_int_equal(opa_fabric_poll(p->b, NULL), 0);
}

static void test_udp_batch(void **state)
{
	struct pair *p = *state;
	struct dp_udp_tx_batch b;
	struct dp_udp_addr nowhere = addr_of("[::1]:9");	/* wrong family for a v4 socket */
	uint8_t d[3][8] = { { 1 }, { 2 }, { 3 } }, buf[16];
	unsigned i;

	dp_udp_tx_reset(&b);
	assert_true(dp_udp_tx_add(&b, &p->raw.local, d[0], 8, 10));
	assert_true(dp_udp_tx_add(&b, &nowhere, d[1], 8, 11));
	assert_true(dp_udp_tx_add(&b, &p->raw.local, d[2], 8, 12));
	/* The refused datagram in the middle does not stop the one after it. */
	assert_int_equal(dp_udp_send_batch(&p->raw, &b), 2);
	assert_int_equal(b.err[0], 0);
	assert_true(b.err[1] < 0);
	assert_int_equal(b.err[2], 0);
	assert_int_equal(b.tag[1], 11);
	assert_int_equal(raw_recv(&p->raw, buf, sizeof(buf)), 8);
	assert_int_equal(buf[0], 1);
	assert_int_equal(raw_recv(&p->raw, buf, sizeof(buf)), 8);
	assert_int_equal(buf[0], 3);
	assert_int_equal(atomic_load(&p->raw.stats.tx_datagrams), 2);
	assert_int_equal(atomic_load(&p->raw.stats.tx_errors), 1);
	for (i = 0; i < DP_UDP_BATCH - 3; i++)
		assert_true(dp_udp_tx_add(&b, &p->raw.local, d[0], 8, 0));
	assert_true(dp_udp_tx_full(&b));
	assert_false(dp_udp_tx_add(&b, &p->raw.local, d[0], 8, 0));
}

static void test_fabric_refused_lid(void **state)
{
	struct opa_fabric_config cfg = { .lid = 0xc000, .addr = loopback_any() };
	struct opa_fabric_map *m = empty_map(1);
	struct opa_fabric *f;

	(void)state;
	assert_int_equal(opa_fabric_new(&f, &cfg, m), -EINVAL);
	cfg.lid = 0;
	assert_int_equal(opa_fabric_new(&f, &cfg, m), -EINVAL);
	opa_fabric_map_free(m);
}

/* ---------------------------------------------------------------- UDP GSO and GRO */

struct rx_log {
	unsigned n;
	size_t len[64];
	uint8_t first[64];
};

static void log_datagram(void *arg, const uint8_t *buf, size_t len, const struct dp_udp_addr *from,
			 const struct dp_udp_addr *to)
{
	struct rx_log *l = arg;

	(void)from;
	assert_true(l->n < 64);
	l->len[l->n] = len;
	l->first[l->n] = buf[0];
	l->n++;
}

/* Receives from u (GRO on) until n datagrams arrived; how many buffers they came in. */
static unsigned gro_recv_n(struct dp_udp *u, struct rx_log *l, unsigned n)
{
	static uint8_t mem[4][DP_UDP_GRO_BUF_SIZE];
	uint8_t *const bufs[4] = { mem[0], mem[1], mem[2], mem[3] };
	struct dp_udp_rx_batch *b = calloc(1, sizeof(*b));
	unsigned buffers = 0;
	int tries, got;

	for (tries = 0; l->n < n && tries < 200; tries++) {
		got = dp_udp_recv(u, b, bufs, DP_UDP_GRO_BUF_SIZE, 4, log_datagram, l);
		assert_true(got >= 0);
		buffers += b->msgs_got;
		if (l->n < n)
			wait_readable(u->fd);
	}
	free(b);
	assert_int_equal(l->n, n);
	return buffers;
}

/*
 * Runs of one size to one address leave as one GSO entry (the last datagram may be shorter;
 * another address, a larger size or a shorter datagram ends a run); a GRO receiver gets each
 * run as one buffer and dp_udp_recv() cuts it back into datagrams, in order.
 */
static void test_udp_gso_gro(void **state)
{
	struct dp_udp s, r, other;
	struct dp_udp_addr any = loopback_any();
	struct dp_udp_tx_batch *b = calloc(1, sizeof(*b));
	/* Datagram i starts with byte i; its length and destination: */
	static const size_t lens[] = { 100, 100, 100, 40, 100, 100, 100, 100, 200 };
	const unsigned to_other = 6, n = sizeof(lens) / sizeof(lens[0]);
	static uint8_t d[9][200];
	struct rx_log lr = { 0 };
	unsigned i, buffers;

	(void)state;
	assert_int_equal(dp_udp_open(&s, &any), 0);
	assert_int_equal(dp_udp_open(&r, &any), 0);
	assert_int_equal(dp_udp_open(&other, &any), 0);
	assert_int_equal(dp_udp_enable_gro(&r), 0);
	dp_udp_tx_reset(b);
	for (i = 0; i < n; i++) {
		memset(d[i], i, sizeof(d[i]));
		assert_true(dp_udp_tx_add(b, i == to_other ? &other.local : &r.local, d[i], lens[i],
					  i));
	}
	/* Runs: [0-3] (3 is shorter), [4-5], [6] (other), [7], [8] (larger): two GSO entries. */
	assert_int_equal(dp_udp_send_batch(&s, b), n);
	for (i = 0; i < n; i++)
		assert_int_equal(b->err[i], 0);
	assert_false(atomic_load(&s.gso_off));
	assert_int_equal(atomic_load(&s.stats.tx_gso), 2);
	assert_int_equal(atomic_load(&s.stats.tx_datagrams), n);
	assert_int_equal(atomic_load(&s.stats.tx_bytes), 940);

	buffers = gro_recv_n(&r, &lr, n - 1);
	assert_int_equal(buffers, 4);
	assert_int_equal(atomic_load(&r.stats.rx_gro), 2);
	assert_int_equal(atomic_load(&r.stats.rx_datagrams), n - 1);
	for (i = 0; i < n - 1; i++) {
		unsigned k = i < to_other ? i : i + 1;

		assert_int_equal(lr.first[i], k);
		assert_int_equal(lr.len[i], lens[k]);
	}
	assert_int_equal(raw_recv(&other, d[0], sizeof(d[0])), 100);
	assert_int_equal(d[0][0], to_other);
	dp_udp_close(&s);
	dp_udp_close(&r);
	dp_udp_close(&other);
	free(b);
}

/*
 * Datagrams sent from a source address (dp_udp_tx_add_from) run together only with the same
 * source; dp_udp_tx_plan() says each one's place in its run, and the send follows the plan.
 */
static void test_udp_gso_runs_from(void **state)
{
	struct dp_udp s, r;
	struct dp_udp_addr any = loopback_any(), lo = loopback_any(), lo2 = loopback_any();
	struct dp_udp_tx_batch *b = calloc(1, sizeof(*b));
	static uint8_t d[6][100];
	/* Sources: 127.0.0.1 for 0-2, 127.0.0.2 for 3-4, none for 5. */
	static const uint8_t want_pos[6] = { 0, 1, 2, 0, 1, 0 };
	struct rx_log lr = { 0 };

	(void)state;
	lo2.in.sin_addr.s_addr = htonl(0x7f000002);
	lo.in.sin_addr.s_addr = htonl(0x7f000001);
	assert_int_equal(dp_udp_open(&s, &any), 0);
	assert_int_equal(dp_udp_open(&r, &any), 0);
	assert_int_equal(dp_udp_enable_gro(&r), 0);
	dp_udp_tx_reset(b);
	for (unsigned i = 0; i < 6; i++) {
		memset(d[i], (int)i, sizeof(d[i]));
		if (i < 5)
			assert_true(dp_udp_tx_add_from(b, &r.local, i < 3 ? &lo : &lo2, d[i], 100, i));
		else
			assert_true(dp_udp_tx_add(b, &r.local, d[i], 100, i));
	}
	assert_int_equal(dp_udp_tx_plan(&s, b), 3);
	for (unsigned i = 0; i < 6; i++)
		assert_int_equal(b->gpos[i], want_pos[i]);
	assert_int_equal(dp_udp_send_batch(&s, b), 6);
	assert_int_equal(atomic_load(&s.stats.tx_gso), 2);
	gro_recv_n(&r, &lr, 6);
	for (unsigned i = 0; i < 6; i++)
		assert_int_equal(lr.first[i], i);
	/* GSO off: every datagram alone, each first in its "run". */
	dp_udp_tx_reset(b);
	atomic_store(&s.gso_off, true);
	for (unsigned i = 0; i < 3; i++)
		assert_true(dp_udp_tx_add_from(b, &r.local, &lo, d[i], 100, i));
	assert_int_equal(dp_udp_tx_plan(&s, b), 3);
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(b->gpos[i], 0);
	dp_udp_close(&s);
	dp_udp_close(&r);
	free(b);
}

/* A socket the kernel refuses GSO on (no UDP checksum): the run goes one by one, GSO off. */
static void test_udp_gso_refused(void **state)
{
	struct dp_udp s, r;
	struct dp_udp_addr any = loopback_any();
	struct dp_udp_tx_batch *b = calloc(1, sizeof(*b));
	static uint8_t d[3][64];
	uint8_t buf[128];
	int one = 1;
	unsigned i;

	(void)state;
	assert_int_equal(dp_udp_open(&s, &any), 0);
	assert_int_equal(dp_udp_open(&r, &any), 0);
	assert_int_equal(setsockopt(s.fd, SOL_SOCKET, SO_NO_CHECK, &one, sizeof(one)), 0);
	dp_udp_tx_reset(b);
	for (i = 0; i < 3; i++) {
		memset(d[i], i, sizeof(d[i]));
		assert_true(dp_udp_tx_add(b, &r.local, d[i], sizeof(d[i]), i));
	}
	assert_int_equal(dp_udp_send_batch(&s, b), 3);
	for (i = 0; i < 3; i++)
		assert_int_equal(b->err[i], 0);
	assert_true(atomic_load(&s.gso_off));
	assert_int_equal(atomic_load(&s.stats.tx_gso), 0);
	assert_int_equal(atomic_load(&s.stats.tx_datagrams), 3);
	assert_int_equal(atomic_load(&s.stats.tx_errors), 0);
	for (i = 0; i < 3; i++) {
		assert_int_equal(raw_recv(&r, buf, sizeof(buf)), 64);
		assert_int_equal(buf[0], i);
	}
	dp_udp_close(&s);
	dp_udp_close(&r);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_addr_parse),
		cmocka_unit_test(test_addr_refused),
		cmocka_unit_test(test_map),
		cmocka_unit_test(test_map_large_lookup),
		cmocka_unit_test(test_fabric_refused_lid),
		cmocka_unit_test(test_udp_gso_gro),
		cmocka_unit_test(test_udp_gso_runs_from),
		cmocka_unit_test(test_udp_gso_refused),
		cmocka_unit_test_setup_teardown(test_mad_round_trip, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_reply_goes_by_map, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_rx_refusals, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_mad_queue_full, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_no_route, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_map_swap, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_udp_batch, pair_setup, pair_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
