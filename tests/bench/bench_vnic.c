/* SPDX-License-Identifier: MIT */
/*
 * bench_vnic: the VNIC data path on one thread (the work one worker does), frames/s, median
 * of SAMPLES runs of BENCH_MS each ($BENCH_MS to change), for 64- and 1500-byte frames:
 *
 *   encap       the per-frame CPU work of TX: flow hash, MAC-index DLID, SC/RC, 16B
 *               encapsulation (opa_vport_encap), no system call;
 *   rx          demux + decap + counters of a received datagram (opa_fabric_rx_datagram into
 *               a port); the frame is written to /dev/null, so one write() per frame is in;
 *   full path   host frames written to a socketpair "tap", the port's TX turn (read, encap,
 *               sendmmsg over UDP on 127.0.0.1), the receiving fabric's poll (recvmmsg,
 *               demux, decap, write to its tap), the host reading them: every system call
 *               of both nodes on this one thread.
 *
 * Target: encap >= 2 million 64-byte frames/s.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "dataplane/bytes.h"
#include "dataplane/opa/fabric.h"
#include "dataplane/opa/vnic_encap.h"
#include "dataplane/opa/vnic_port.h"

#define SAMPLES		5
#define VESW		0x123
#define BURST		32
#define TARGET_ENCAP64	2e6

static double budget_s = 0.2;
static volatile uint64_t sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void die(const char *what)
{
	fprintf(stderr, "bench_vnic: %s\n", what);
	exit(1);
}

/* Runs op(arg) (which handles `per_call` frames) for the budget; the median rate of SAMPLES. */
static double measure(unsigned (*op)(void *), void *arg)
{
	double rates[SAMPLES];
	int s;

	for (s = 0; s < SAMPLES; s++) {
		double t0 = now(), t;
		uint64_t frames = 0;

		do {
			for (int i = 0; i < 64; i++)
				frames += op(arg);
			t = now() - t0;
		} while (t < budget_s);
		rates[s] = frames / t;
	}
	qsort(rates, SAMPLES, sizeof(rates[0]), cmp_d);
	return rates[SAMPLES / 2];
}

/* An IPv4/UDP frame of len bytes to dmac, flow varied by `flow`. */
static void make_frame(uint8_t *f, size_t len, const uint8_t dmac[6], unsigned flow)
{
	memset(f, 0, len);
	memcpy(f, dmac, 6);
	f[6] = 0x02;
	dp_put_be16(f + 12, 0x0800);
	f[14] = 0x45;
	dp_put_be16(f + 16, len - 14);
	f[14 + 8] = 64;
	f[14 + 9] = 17;
	dp_put_be32(f + 14 + 12, 0x0a000001);
	dp_put_be32(f + 14 + 16, 0x0a000002);
	dp_put_be16(f + 34, 10000 + flow);
	dp_put_be16(f + 36, 4791);
}

static const uint8_t dmac[6] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55 };

static struct opa_vport_config *config(void)
{
	struct opa_vnic_mac_entry macs[64];
	struct opa_vnic_port hdr = { .encap_slid = 1, .pkey = 0x8001, .vesw_id = VESW,
				     .rc_word = 0x01234567, .non_vlan_sc_uc = 2 };
	struct opa_vnic_dlid_tables t = { .macs = macs, .n_macs = 64, .u_mcast_dlid = 0xf00001 };
	struct opa_vport_config *c;
	unsigned i;

	/* A MAC table of 64 entries, the frame's destination among them (DLID 2). */
	for (i = 0; i < 64; i++) {
		memcpy(macs[i].mac, dmac, 6);
		macs[i].mac[5] = 0x55 + i;
		macs[i].dlid_sd = (100 + i) << 8;
	}
	macs[0].dlid_sd = 2 << 8;
	opa_vnic_flow_table(0x3, t.flow_tbl);
	c = opa_vport_config_new(&hdr, &t, 1500, true);
	if (!c)
		die("config");
	return c;
}

struct encap_arg {
	const struct opa_vport_config *c;
	uint8_t frames[BURST][1500];
	size_t len;
	uint8_t out[2048];
};

static unsigned run_encap(void *p)
{
	struct encap_arg *a = p;
	size_t n;
	uint32_t dlid;

	for (unsigned i = 0; i < BURST; i++) {
		if (opa_vport_encap(a->c, a->frames[i], a->len, a->out, sizeof(a->out), &n, &dlid))
			die("encap refused");
		sink += a->out[n - 1];
	}
	return BURST;
}

struct node {
	struct opa_fabric *fab;
	struct opa_vport *port;
	int tap[2];
};

static void node_open(struct node *x, uint32_t lid, int tap_fd)
{
	struct opa_fabric_config cfg = { .lid = lid };
	struct opa_vesw_table *t = opa_vesw_table_new();
	const char *why;

	if (dp_udp_addr_parse("127.0.0.1:0", 0, &cfg.addr, &why))
		die(why);
	{
		struct opa_fabric_map *m = opa_fabric_map_new(lid, &cfg.addr);

		if (!m || opa_fabric_map_seal(m) || opa_fabric_new(&x->fab, &cfg, m))
			die("fabric");
	}
	if (tap_fd < 0) {
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, x->tap))
			die("socketpair");
		tap_fd = x->tap[0];
	}
	if (opa_vport_new(&x->port, x->fab, tap_fd, config()) || !t ||
	    opa_vesw_table_set(t, VESW, x->port))
		die("port");
	opa_fabric_publish_vesw(x->fab, t);
}

static void node_close(struct node *x)
{
	opa_vesw_table_free(opa_fabric_publish_vesw(x->fab, NULL));
	opa_vport_free(x->port);
	opa_fabric_free(x->fab);
}

static void node_map(struct node *x, const struct node *peer, uint32_t peer_lid)
{
	struct opa_fabric_map *m = opa_fabric_map_new(opa_fabric_lid(x->fab),
						      opa_fabric_local_addr(x->fab));

	if (!m || opa_fabric_map_add(m, peer_lid, opa_fabric_local_addr(peer->fab)) ||
	    opa_fabric_map_seal(m))
		die("map");
	/* Nothing runs yet: the old map is nobody's. */
	opa_fabric_map_free(opa_fabric_publish_map(x->fab, m));
}

struct rx_arg {
	struct opa_fabric *fab;
	uint8_t dgram[2048];
	size_t len;
};

static unsigned run_rx(void *p)
{
	struct rx_arg *a = p;

	for (unsigned i = 0; i < BURST; i++)
		opa_fabric_rx_datagram(a->fab, a->dgram, a->len);
	return BURST;
}

struct full_arg {
	struct node *a, *b;
	uint8_t frame[1500];
	size_t len;
	uint8_t got[2048];
};

static unsigned run_full(void *p)
{
	struct full_arg *f = p;
	unsigned i, n = 0;

	for (i = 0; i < BURST; i++)
		if (write(f->a->tap[1], f->frame, f->len) != (ssize_t)f->len)
			break;
	opa_vport_tx_turn(f->a->port);
	while (opa_fabric_poll(f->b->fab, NULL))
		;
	while (read(f->b->tap[1], f->got, sizeof(f->got)) > 0)
		n++;
	return n;
}

int main(void)
{
	static const size_t sizes[] = { 64, 1500 };
	static struct encap_arg ea;
	static struct rx_arg ra;
	static struct full_arg fa;
	struct node rx_node, a, b;
	const char *ms = getenv("BENCH_MS");
	double t0 = now(), encap64 = 0;
	int devnull = open("/dev/null", O_WRONLY);
	unsigned i;

	if (ms && atoi(ms) > 0)
		budget_s = atoi(ms) / 1000.0;
	if (devnull < 0)
		die("/dev/null");
	printf("# bench_vnic: one thread, median of %d samples of %.0f ms, frames/s\n", SAMPLES,
	       budget_s * 1e3);

	ea.c = config();
	node_open(&rx_node, 2, devnull);
	ra.fab = rx_node.fab;
	node_open(&a, 1, -1);
	node_open(&b, 2, -1);
	node_map(&a, &b, 2);
	node_map(&b, &a, 1);
	fa.a = &a;
	fa.b = &b;

	for (i = 0; i < 2; i++) {
		size_t len = sizes[i], n;
		double r_encap, r_rx, r_full;
		uint32_t dlid;

		/* 32 flows, so the entropy varies as it would. */
		ea.len = len;
		for (unsigned k = 0; k < BURST; k++)
			make_frame(ea.frames[k], len, dmac, k);
		r_encap = measure(run_encap, &ea);
		if (len == 64)
			encap64 = r_encap;

		ra.dgram[0] = OPA_FABRIC_TYPE_16B;
		if (opa_vport_encap(ea.c, ea.frames[0], len, ra.dgram + 1, sizeof(ra.dgram) - 1,
				    &n, &dlid) || dlid != 2)
			die("rx packet");
		ra.len = n + 1;
		r_rx = measure(run_rx, &ra);

		make_frame(fa.frame, len, dmac, 1);
		fa.len = len;
		r_full = measure(run_full, &fa);

		printf("%4zu-byte frames: encap %6.2f M/s (%5.1f ns)  rx %6.2f M/s (%5.1f ns)  "
		       "full path %6.3f M/s (%5.2f Gbit/s of frames)\n",
		       len, r_encap / 1e6, 1e9 / r_encap, r_rx / 1e6, 1e9 / r_rx, r_full / 1e6,
		       r_full * len * 8 / 1e9);
	}
	{
		struct opa_vnic_counters c;

		opa_vport_read_counters(b.port, &c);
		if (opa_vnic_rx_errors(&c))
			die("the full path dropped frames");
	}
	printf("  target encap 64-byte >= %.1f M/s: %.2f M/s  %s\n", TARGET_ENCAP64 / 1e6,
	       encap64 / 1e6, encap64 >= TARGET_ENCAP64 ? "met" : "NOT MET");
	node_close(&rx_node);
	node_close(&a);
	node_close(&b);
	close(a.tap[0]);
	close(a.tap[1]);
	close(b.tap[0]);
	close(b.tap[1]);
	close(devnull);
	opa_vport_config_free((struct opa_vport_config *)ea.c);
	printf("# total %.1f s\n", now() - t0);
	return 0;
}
