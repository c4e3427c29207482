/* SPDX-License-Identifier: MIT */
/*
 * bench_roce: the RoCE v2 transport (dataplane/roce/) between two software
 * devices in two network namespaces joined by a veth pair, beside TCP on the
 * same veth pair in the same run.
 *
 *   namespace A: veth 10.233.0.1/24, device A (GID ::ffff:10.233.0.1)
 *   namespace B: veth 10.233.0.2/24, device B (GID ::ffff:10.233.0.2)
 *
 * The bench creates the namespaces and the veth pair itself (ip(8); root
 * needed: without it, a line says the bench is skipped and it exits 0) and
 * removes them when it exits, on failure and SIGINT/SIGTERM too
 * (tests/bench/lib/roce_pair.h: namespaces, devices, connections).  Each device has its own
 * started worker set of one worker (as rdmad: worker_set_start,
 * rdma_device_start, rdma_datapath_roce_start), started while the main
 * thread is inside the device's namespace: the worker thread, the
 * endpoint's sockets and the per-flow sockets it opens later all live
 * there.  Device A's worker is on the first CPU this process may use,
 * device B's on the second (the same one when only one is allowed); the
 * main thread, which posts on both devices and reaps both, is not pinned
 * and yields when it finds nothing to do.  No varlink in the loop.
 *
 * One RC QP on each device, connected to the other: dgid the peer's GID,
 * path MTU 1024 on the veth's MTU of 1500 (BENCH_PATH_MTU=4096: the veth's
 * MTU 4200, room for 4096 of payload and the headers), timeout 14 (67 ms),
 * retry_cnt 7, rnr_retry 7, PSNs starting 0xfff000 so that they wrap in
 * the first sample.  Rows, for 64 B, 4 KiB and 64 KiB:
 *
 *   RoCE WRITE bw, SEND bw: A -> B, PAIR_SQ_DEPTH (128) WRs outstanding, every
 *     SIGNAL_EVERY-th signaled (as ib_write_bw's tx-depth and cq-mod), or
 *     more often so that one completion covers at most 64 KiB (64 KiB:
 *     every WR); B's receive queue kept full.  MiB/s of payload completed.
 *   TCP bw: a plain socket loop, write() of the size in a loop from A, a
 *     thread in B reading (Nagle on, as iperf3 -l SIZE).  MiB/s of payload
 *     received.
 *   RoCE WRITE lat: post one signaled WRITE, wait for its completion (the
 *     data at B and its ACK back at A: one message and one ACK); us per WR.
 *   RoCE SEND lat: ping-pong as ib_send_lat does, a SEND A -> B then, once
 *     B's receive completed, a SEND B -> A; us per round trip (two messages).
 *   TCP lat: ping-pong, SIZE bytes to a thread in B echoing them back
 *     (TCP_NODELAY both ends); us per round trip.
 *   RoCE WRITE bw, 1% loss (4 KiB, 64 KiB): a second pair of devices in the
 *     same namespaces on UDP port 4792, A's endpoint dropping 10000 of every
 *     million packets it sends (struct dp_roce_faults).
 *   Every pair runs rdmad's default settings (config_defaults: segmentation
 *     offload on).  ", no offload" rows: the bandwidth and loss rows again,
 *     between two more pairs (UDP ports 4793, 4794) with segmentation offload
 *     off (rdmad.conf roce_segmentation_offload = 0), for comparison.
 *
 * Latency samples are the median of the round trips in the sample; every
 * row's figure is the median of NSAMPLE interleaved samples (A, B, C, A, B,
 * C, ...; each round starting one row later), as bench_datapath.  Printed
 * beside: the targets of issues 13 and 29, for the default settings
 * (bandwidth >= 0.5x TCP's, aim 0.8x; WRITE latency at 4 KiB and 64 KiB
 * <= 2x TCP ping-pong of the size; 1%-loss WRITE >= 0.5x loss-free at 4 KiB
 * and 64 KiB) and soft-RoCE's published figure (reference roce_virtio.md §6).
 *
 * A transfer that stops moving (no completion in 10 s) ends the bench with
 * each QP's transport state and its worker's (tests/bench/lib/roce_dump.h),
 * so that one failure tells where it is stuck.
 *
 * BENCH_MS (default 120): ms per sample; BENCH_ONLY: rows whose name
 * contains it; BENCH_PATH_MTU (default 1024): the QPs' path MTU;
 * BENCH_TIMEOUT (default 14): their RC timeout; BENCH_CPUS=A,B[,MAIN]: the
 * CPUs of device A's worker, device B's and the main thread (pinned)
 * instead.  ~40 s in all.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <syslog.h>
#include <unistd.h>
#include <systemd/sd-event.h>

#include "daemon/core/config.h"
#include "daemon/soft/datapath.h"
#include "daemon/soft/soft_device.h"
#include "daemon/soft/workers.h"
#include "daemon/verbs/cq.h"
#include "daemon/verbs/mr.h"
#include "daemon/verbs/qp.h"
#include "lib/cpulist.h"
#include "lib/log.h"
#include "tests/bench/lib/roce_dump.h"
#include "tests/bench/lib/roce_pair.h"
#include "tests/bench/lib/verbs.h"

#define NSAMPLE       11
#define SIGNAL_EVERY  16u      /* at most; and at least every 64 KiB (signal_every) */
#define ROCE_PORT     4791
#define LOSSY_PORT    4792
#define NOGSO_PORT    4793     /* the pairs without segmentation offload: 4793, and 4794 lossy */
#define LOSS_PPM      10000u
#define TCP_PORT      5201     /* streaming; TCP_PORT + 1: ping-pong */
#define DRAIN_SECONDS 10.0     /* a transfer without a completion for this long is stuck */
#define LAT_MAX       (1u << 20) /* round trips kept per sample */

static double sample_ms = 120;
static uint32_t rc_timeout = 14;  /* BENCH_TIMEOUT */
static uint32_t path_mtu = 1024;   /* BENCH_PATH_MTU; the veth's MTU is 1500, or 4200 for 4096 */

/* The connection the row being sampled runs on: what a transfer that stops moving shows. */
static struct pair_conn *sampled;

/* Gives up once deadline passed, with each QP's transport state, so that one failure tells why. */
static void give_up_after(double deadline, const char *what)
{
	if (bench_now() <= deadline)
		return;
	fprintf(stderr, "bench_roce: %s; the connection as it stands:\n", what);
	if (sampled) {
		static const char *const names[2] = { "device A's QP (requester of the bw rows)", "device B's QP" };
		struct rdma_qp *qps[2] = { sampled->e[0].qp, sampled->e[1].qp };
		struct dp_counters dev[2];

		bench_roce_dump(stderr, qps, names, 2);
		for (unsigned i = 0; i < 2; i++) {
			rdma_datapath_counters(sampled->e[i].s->soft.dev, &dev[i]);
			bench_roce_print_counters(stderr, i ? "device B's (every QP and the endpoint)" :
						  "device A's (every QP and the endpoint)", &dev[i].roce);
		}
		for (unsigned i = 0; i < 2; i++)
			fprintf(stderr, "end %c: send WRs posted %llu done %llu, receives posted %llu done %llu\n",
				'A' + i, (unsigned long long)sampled->e[i].posted,
				(unsigned long long)sampled->e[i].done, (unsigned long long)sampled->e[i].recv_posted,
				(unsigned long long)sampled->e[i].recv_done);
	}
	bench_die(what, NULL);
}

/* Waits until every send WR of a and b is complete and b has taken every SEND a posted. */
static void drain(struct pair_end *a, struct pair_end *b, uint64_t recvs_due, uint32_t len)
{
	double deadline = bench_now() + DRAIN_SECONDS;

	while (a->done < a->posted || b->done < b->posted || b->recv_done < recvs_due) {
		/*
		 * Stuck is no completion for DRAIN_SECONDS, not a drain longer than
		 * that: 128 WRs of 64 KiB at 1% loss beside busy loops drain slowly
		 * (a round trip of tens of ms at a window of about 12), but drain.
		 */
		if (pair_reap(a, len) + pair_reap(b, len))
			deadline = bench_now() + DRAIN_SECONDS;
		else
			sched_yield();
		give_up_after(deadline, "the queues do not drain (a completion lost?)");
	}
}

/*
 * Every how many WRs of len one is signaled: SIGNAL_EVERY, or fewer so that
 * a completion covers at most 64 KiB (what a sample counts moves in steps
 * of what one completion covers).
 */
static uint64_t signal_every(uint32_t len)
{
	return len >= PAIR_MSG_MAX / SIGNAL_EVERY ? (PAIR_MSG_MAX + len - 1) / len : SIGNAL_EVERY;
}

/* RoCE WRITE or SEND from A to B for seconds, PAIR_SQ_DEPTH outstanding: MiB/s of payload completed. */
static double roce_bw(struct pair_conn *c, enum dp_wr_opcode op, uint32_t len, double seconds)
{
	struct pair_end *a = &c->e[0], *b = &c->e[1];
	uint64_t recv0 = b->recv_done, every = signal_every(len);
	double t0, t, end;
	uint64_t done;

	a->posted = a->done = b->posted = b->done = 0;
	t = t0 = bench_now();
	end = t0 + seconds;
	do {
		unsigned took = pair_reap(a, len);

		if (op == DP_WR_SEND)
			took += pair_reap(b, len);
		while (a->posted - a->done < PAIR_SQ_DEPTH &&
		       pair_post_one(a, b, op, len, a->posted % every == every - 1))
			took++;
		if (!took)
			sched_yield();
		t = bench_now();
	} while (t < end);
	done = a->done;
	/* Untimed: up to the next signaled WR, then everything complete. */
	for (double deadline = t + DRAIN_SECONDS; a->posted % every;) {
		give_up_after(deadline, "the send queue does not drain");
		if (a->posted - a->done < PAIR_SQ_DEPTH)
			pair_post_one(a, b, op, len, a->posted % every == every - 1);
		if (pair_reap(a, len) + pair_reap(b, len))
			deadline = bench_now() + DRAIN_SECONDS;
	}
	drain(a, b, op == DP_WR_SEND ? recv0 + a->posted : b->recv_done, len);
	return (double)done * len / (t - t0) / (1024.0 * 1024.0);
}

static double median_of(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), bench_cmp_double);
	return n ? v[n / 2] : 0;
}

static double *lat;   /* LAT_MAX round trips of a sample, seconds */

/* Waits for e to take a completion of the kind *counter counts, past old. */
static void wait_past(struct pair_end *e, const uint64_t *counter, uint64_t old, uint32_t len, double deadline)
{
	while (*counter == old)
		if (!pair_reap(e, len)) {
			sched_yield();
			give_up_after(deadline, "no completion (lost?)");
		}
}

/*
 * RoCE latency, us (median of the sample's): WRITE, one signaled WRITE A ->
 * B until its completion at A; SEND, a SEND A -> B, then B -> A once B
 * received it, until A received that.
 */
static double roce_lat(struct pair_conn *c, enum dp_wr_opcode op, uint32_t len, double seconds)
{
	struct pair_end *a = &c->e[0], *b = &c->e[1];
	double t0 = bench_now(), end = t0 + seconds, deadline = t0 + seconds + DRAIN_SECONDS, t = t0;
	size_t n = 0;

	a->posted = a->done = b->posted = b->done = 0;
	while (t < end && n < LAT_MAX) {
		double start = t;

		if (op == DP_WR_RDMA_WRITE) {
			if (!pair_post_one(a, b, op, len, true))
				bench_die("send queue full", NULL);
			wait_past(a, &a->done, a->posted - 1, len, deadline);
		} else {
			uint64_t b_recv = b->recv_done, a_recv = a->recv_done;

			if (!pair_post_one(a, b, op, len, true))
				bench_die("send queue full", NULL);
			wait_past(b, &b->recv_done, b_recv, len, deadline);
			if (!pair_post_one(b, a, op, len, true))
				bench_die("send queue full", NULL);
			wait_past(a, &a->recv_done, a_recv, len, deadline);
		}
		t = bench_now();
		lat[n++] = t - start;
	}
	drain(a, b, b->recv_done, len);
	return median_of(lat, n) * 1e6;
}

/* ---------------------------------------------------------------- TCP */

static int tcp_stream = -1, tcp_pingpong = -1;   /* A's ends */
static _Atomic uint64_t tcp_received;             /* by B's streaming thread */
static uint64_t tcp_sent;
static uint8_t tcp_buf[PAIR_MSG_MAX];

static void *tcp_sink(void *arg)
{
	int fd = (int)(intptr_t)arg;
	static uint8_t buf[1 << 18];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		atomic_fetch_add_explicit(&tcp_received, (uint64_t)n, memory_order_relaxed);
	close(fd);
	return NULL;
}

static void *tcp_echo(void *arg)
{
	int fd = (int)(intptr_t)arg;
	static uint8_t buf[PAIR_MSG_MAX];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t off = 0, w; off < n; off += w)
			if ((w = write(fd, buf + off, (size_t)(n - off))) <= 0)
				goto out;
out:
	close(fd);
	return NULL;
}

static void nodelay(int fd)
{
	int one = 1;

	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0)
		bench_die("TCP_NODELAY", NULL);
}

/*
 * Two connections A -> B: streaming into a thread that reads and counts,
 * and ping-pong with a thread that echoes.  Each socket is created inside
 * its namespace (a socket keeps the one it was created in).
 */
static void tcp_setup(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int listener[2], peer[2];
	pthread_t t;

	inet_pton(AF_INET, pair_addr[1], &sa.sin_addr);
	pair_enter_ns(pair_ns_fd[1]);
	for (unsigned i = 0; i < 2; i++) {
		int one = 1;

		sa.sin_port = htons(TCP_PORT + i);
		listener[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (listener[i] < 0 || setsockopt(listener[i], SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
		    bind(listener[i], (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(listener[i], 1) < 0)
			bench_die("TCP listen in namespace B", NULL);
	}
	pair_enter_ns(pair_ns_fd[0]);
	for (unsigned i = 0; i < 2; i++) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		sa.sin_port = htons(TCP_PORT + i);
		if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
			bench_die("TCP connect from namespace A", NULL);
		*(i ? &tcp_pingpong : &tcp_stream) = fd;
	}
	pair_enter_ns(pair_root_ns);
	for (unsigned i = 0; i < 2; i++) {
		peer[i] = accept4(listener[i], NULL, NULL, SOCK_CLOEXEC);
		if (peer[i] < 0)
			bench_die("TCP accept", NULL);
		close(listener[i]);
	}
	nodelay(tcp_pingpong);
	nodelay(peer[1]);
	if (pthread_create(&t, NULL, tcp_sink, (void *)(intptr_t)peer[0]) != 0 ||
	    pthread_detach(t) != 0 ||
	    pthread_create(&t, NULL, tcp_echo, (void *)(intptr_t)peer[1]) != 0 || pthread_detach(t) != 0)
		bench_die("cannot start the TCP threads", NULL);
}

static void write_all(int fd, const uint8_t *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n <= 0)
			bench_die("TCP write", NULL);
		buf += n;
		len -= (size_t)n;
	}
}

/* TCP streaming for seconds, write() of len at a time: MiB/s received by B. */
static double tcp_bw(uint32_t len, double seconds)
{
	double deadline = bench_now() + DRAIN_SECONDS, t0, t;
	uint64_t r0;

	/* What an earlier sample sent is all in first. */
	while (atomic_load(&tcp_received) != tcp_sent) {
		sched_yield();
		give_up_after(deadline, "TCP does not drain");
	}
	r0 = tcp_sent;
	t = t0 = bench_now();
	while (t - t0 < seconds) {
		write_all(tcp_stream, tcp_buf, len);
		tcp_sent += len;
		t = bench_now();
	}
	return (double)(atomic_load(&tcp_received) - r0) / (t - t0) / (1024.0 * 1024.0);
}

/* TCP ping-pong, len bytes each way: us per round trip (median of the sample's). */
static double tcp_lat(uint32_t len, double seconds)
{
	static uint8_t back[PAIR_MSG_MAX];
	double t0 = bench_now(), t = t0;
	size_t n = 0;

	while (t - t0 < seconds && n < LAT_MAX) {
		double start = t;

		write_all(tcp_pingpong, tcp_buf, len);
		for (size_t got = 0; got < len;) {
			ssize_t r = read(tcp_pingpong, back + got, len - got);

			if (r <= 0)
				bench_die("TCP read", NULL);
			got += (size_t)r;
		}
		t = bench_now();
		lat[n++] = t - start;
	}
	return median_of(lat, n) * 1e6;
}

/* ---------------------------------------------------------------- rows */

enum kind { ROCE_BW, ROCE_LAT, TCP_BW, TCP_LAT };

struct row {
	char name[48];
	enum kind kind;
	enum dp_wr_opcode op;
	uint32_t len;
	struct pair_conn *c;
	struct bench_stat stat;
	struct dp_roce_counters sum;   /* both devices of c, over the samples */
};

static void roce_counters(struct pair_conn *c, struct dp_counters *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned i = 0; i < 2; i++) {
		struct dp_counters one;

		rdma_datapath_counters(c->e[i].s->soft.dev, &one);
		dp_counters_add(out, &one);
	}
}

static double sample_row(void *row, double seconds)
{
	struct row *r = row;
	struct dp_counters c0, c1;
	double v = 0;

	if (r->c)
		roce_counters(r->c, &c0);
	sampled = r->c;
	switch (r->kind) {
	case ROCE_BW:
		v = roce_bw(r->c, r->op, r->len, seconds);
		break;
	case ROCE_LAT:
		v = roce_lat(r->c, r->op, r->len, seconds);
		break;
	case TCP_BW:
		v = tcp_bw(r->len, seconds);
		break;
	case TCP_LAT:
		v = tcp_lat(r->len, seconds);
		break;
	}
	if (r->c) {
		_Atomic uint64_t *from0 = (_Atomic uint64_t *)&c0.roce, *from1 = (_Atomic uint64_t *)&c1.roce;
		_Atomic uint64_t *sum = (_Atomic uint64_t *)&r->sum;

		roce_counters(r->c, &c1);
		for (unsigned i = 0; i < sizeof(r->sum) / sizeof(uint64_t); i++)
			sum[i] += atomic_load(&from1[i]) - atomic_load(&from0[i]);
		/* What the workers reported (errors, none expected), as the event loop would. */
		rdma_datapath_sync(r->c->e[0].s->soft.dev);
		rdma_datapath_sync(r->c->e[1].s->soft.dev);
	}
	return v;
}


static const struct row *find_row(const struct row *rows, unsigned n, const char *name)
{
	for (unsigned i = 0; i < n; i++)
		if (strcmp(rows[i].name, name) == 0)
			return &rows[i];
	return NULL;
}

static const char *size_text(uint32_t len)
{
	return len == 64 ? "64 B" : len == 4096 ? "4 KiB" : "64 KiB";
}

/* The WRITEs landed: B's RDMA area holds A's bytes in the slots written. */
static void check_written(const struct pair_conn *c)
{
	if (memcmp(c->e[1].mr->addr, c->e[0].mr->addr, PAIR_N_SLOTS * 4096) != 0)
		bench_die("RDMA WRITE: B's memory is not what A wrote", NULL);
}

/* Appends r to rows, named from what it measures ("RoCE WRITE bw 4 KiB" and suffix). */
static void add_row(struct row *rows, unsigned *n, struct row r, const char *suffix)
{
	static const char *const kinds[] = {
		[ROCE_BW] = "RoCE %s bw %s%s", [ROCE_LAT] = "RoCE %s lat %s%s",
		[TCP_BW] = "TCP%s bw %s%s", [TCP_LAT] = "TCP%s lat %s%s",
	};
	bool roce = r.kind == ROCE_BW || r.kind == ROCE_LAT;

	snprintf(r.name, sizeof(r.name), kinds[r.kind], roce ? (r.op == DP_WR_SEND ? "SEND" : "WRITE") : "",
		 size_text(r.len), suffix);
	rows[(*n)++] = r;
}

/* A target line: ratio, what it is against, and whether it holds. */
static void target(const struct row *rows, unsigned n, const char *what, const char *ref, bool higher,
		   double need, double aim)
{
	const struct row *r = find_row(rows, n, what), *q = find_row(rows, n, ref);
	double x;

	if (!r || !q || q->stat.median <= 0)
		return;
	x = r->stat.median / q->stat.median;
	printf("%-34s x%-6.2f of %-24s target %s %.1fx%s: %s\n", what, x, ref, higher ? ">=" : "<=", need,
	       aim > 0 ? " (aim 0.8x)" : "", (higher ? x >= need : x <= need) ?
	       (aim > 0 && x < aim ? "met, below the aim" : "met") : "NOT MET");
}

int main(void)
{
	static const uint32_t sizes[] = { 64, 4096, 65536 };
	const char *e, *only = getenv("BENCH_ONLY");
	int allowed[CPULIST_MAX], n_allowed, cpu_a, cpu_b, main_cpu = -1;
	struct pair_side *sides = calloc(8, sizeof(*sides));
	struct pair_conn *conns = calloc(4, sizeof(*conns));
	/* rdmad's default settings, and each packet alone (roce_segmentation_offload = 0). */
	struct pair_conn *conn = &conns[0], *lossy = &conns[1], *nogso = &conns[2], *nogso_lossy = &conns[3];
	struct rdmad_config defaults;
	struct row all[40], rows[40];
	unsigned n_all = 0, n_rows = 0;
	double t_start = bench_now();
	char text[128], main_text[32] = "not pinned";

	if (geteuid() != 0) {
		printf("# bench_roce: skipped: needs root (network namespaces and a veth pair)\n");
		return 0;
	}
	if ((e = getenv("BENCH_MS")) && atof(e) > 0)
		sample_ms = atof(e);
	if ((e = getenv("BENCH_TIMEOUT")) && atoi(e) > 0 && atoi(e) < 32)
		rc_timeout = (uint32_t)atoi(e);
	if ((e = getenv("BENCH_PATH_MTU"))) {
		path_mtu = (uint32_t)atoi(e);
		if (path_mtu != 256 && path_mtu != 512 && path_mtu != 1024 && path_mtu != 2048 && path_mtu != 4096)
			bench_die("BENCH_PATH_MTU: 256, 512, 1024, 2048 or 4096", NULL);
	}
	lat = calloc(LAT_MAX, sizeof(*lat));
	if (!sides || !conns || !lat)
		bench_die("out of memory", NULL);
	n_allowed = (int)bench_init(allowed, CPULIST_MAX);
	cpu_a = allowed[0];
	cpu_b = allowed[n_allowed > 1 ? 1 : 0];
	/* For looking at placement: BENCH_CPUS=A,B[,MAIN] (device A's worker, B's, the main thread pinned). */
	if ((e = getenv("BENCH_CPUS")) && *e && sscanf(e, "%d,%d,%d", &cpu_a, &cpu_b, &main_cpu) < 2)
		bench_die("BENCH_CPUS: A,B[,MAIN]", NULL);
	if (main_cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(main_cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0)
			bench_die("cannot pin the main thread", NULL);
	}

	pair_net_setup(path_mtu > 1024 ? path_mtu + 104 : 1500);
	config_defaults(&defaults);
	for (unsigned i = 0; i < 4; i++) {
		uint16_t port = (uint16_t)((i < 2 ? ROCE_PORT : NOGSO_PORT) + i % 2);
		bool segmentation = i < 2 && defaults.roce_segmentation_offload;
		struct dp_roce_config cfg_a = { .port = port, .segmentation = segmentation,
						.faults.drop = i % 2 ? LOSS_PPM : 0 };
		struct dp_roce_config cfg_b = { .port = port, .segmentation = segmentation };

		pair_side_start(&sides[2 * i], 2 * i, 0, cpu_a, &cfg_a);
		pair_side_start(&sides[2 * i + 1], 2 * i + 1, 1, cpu_b, &cfg_b);
		pair_conn_new(&conns[i], &sides[2 * i], &sides[2 * i + 1], path_mtu, rc_timeout);
	}
	tcp_setup();
	memset(tcp_buf, 0x5a, sizeof(tcp_buf));

	for (unsigned i = 0; i < 3; i++) {
		uint32_t len = sizes[i];

		add_row(all, &n_all, (struct row){ .kind = ROCE_BW, .op = DP_WR_RDMA_WRITE, .len = len, .c = conn }, "");
		add_row(all, &n_all, (struct row){ .kind = ROCE_BW, .op = DP_WR_SEND, .len = len, .c = conn }, "");
		add_row(all, &n_all, (struct row){ .kind = TCP_BW, .len = len }, "");
		add_row(all, &n_all, (struct row){ .kind = ROCE_LAT, .op = DP_WR_RDMA_WRITE, .len = len, .c = conn }, "");
		add_row(all, &n_all, (struct row){ .kind = ROCE_LAT, .op = DP_WR_SEND, .len = len, .c = conn }, "");
		add_row(all, &n_all, (struct row){ .kind = TCP_LAT, .len = len }, "");
		if (len >= 4096)
			add_row(all, &n_all, (struct row){ .kind = ROCE_BW, .op = DP_WR_RDMA_WRITE, .len = len,
							   .c = lossy }, ", 1% loss");
		add_row(all, &n_all, (struct row){ .kind = ROCE_BW, .op = DP_WR_RDMA_WRITE, .len = len, .c = nogso },
			", no offload");
		add_row(all, &n_all, (struct row){ .kind = ROCE_BW, .op = DP_WR_SEND, .len = len, .c = nogso }, ", no offload");
		if (len >= 4096)
			add_row(all, &n_all, (struct row){ .kind = ROCE_BW, .op = DP_WR_RDMA_WRITE, .len = len,
							   .c = nogso_lossy }, ", no offload, 1% loss");
	}
	for (unsigned i = 0; i < n_all; i++)
		if (!only || strstr(all[i].name, only))
			rows[n_rows++] = all[i];

	cpulist_format(allowed, (size_t)n_allowed, text, sizeof(text));
	if (main_cpu >= 0)
		snprintf(main_text, sizeof(main_text), "on CPU %d", main_cpu);
	printf("# bench_roce: RoCE v2 between two soft devices in two network namespaces over a veth pair "
	       "(MTU %u, path MTU %u), TCP on the same pair; RC timeout %u (%.1f ms); median of %d interleaved "
	       "samples of %.0f ms\n", path_mtu > 1024 ? path_mtu + 104 : 1500, path_mtu, rc_timeout,
	       4.096e-3 * (double)(1u << rc_timeout), NSAMPLE, sample_ms);
	printf("# CPUs allowed: %s; device A's worker on CPU %d, device B's on CPU %d (the 1%%-loss pair's "
	       "the same); main thread (posts and reaps both, TCP's A end) %s, TCP's B threads not pinned\n",
	       text, cpu_a, cpu_b, main_text);
	printf("# bw: %u WRs outstanding, every %uth signaled or at least one per 64 KiB (TCP: write() of "
	       "the size in a loop, Nagle on); "
	       "lat: WRITE = post -> its completion (data there + ACK back), SEND and TCP = ping-pong round "
	       "trip, the size each way\n", PAIR_SQ_DEPTH, SIGNAL_EVERY);
	bench_cpu_probe(allowed, n_allowed < 2 ? (unsigned)n_allowed : 2, 0.3);
	fflush(stdout);

	bench_interleave(&(struct bench_rows){ .rows = rows, .size = sizeof(rows[0]), .n = n_rows, .sample = sample_row,
					   .forget_offset = offsetof(struct row, sum), .forget_size = sizeof(rows[0].sum),
					   .stat_offset = offsetof(struct row, stat) }, sample_ms / 1000.0, NSAMPLE);
	for (unsigned i = 0; i < n_rows; i++)
		if (rows[i].kind == ROCE_BW && rows[i].op == DP_WR_RDMA_WRITE && rows[i].len >= 4096)
			check_written(rows[i].c);

	printf("%-32s %9s %9s %9s %-5s %7s %7s %6s %6s %6s %6s %6s %6s\n", "row", "median", "min", "max", "unit",
	       "vs TCP", "retx", "timeo", "NAK-r", "dup", "oos", "drop", "fault");
	for (unsigned i = 0; i < n_rows; i++) {
		const struct row *r = &rows[i];
		bool bw = r->kind == ROCE_BW || r->kind == TCP_BW;
		char ref[48], ratio[16] = "", c[7][24] = { "", "", "", "", "", "", "" };
		const struct row *q;

		snprintf(ref, sizeof(ref), "TCP %s %s", bw ? "bw" : "lat", size_text(r->len));
		q = find_row(rows, n_rows, ref);
		if (r->c && q && q->stat.median > 0)
			snprintf(ratio, sizeof(ratio), "x%.2f", r->stat.median / q->stat.median);
		if (r->c) {
			const uint64_t v[7] = { r->sum.retransmits, r->sum.timeouts, r->sum.naks_received,
						r->sum.duplicates, r->sum.out_of_sequence, r->sum.rx_dropped + r->sum.icrc_errors,
						r->sum.faults };

			for (unsigned k = 0; k < 7; k++)
				snprintf(c[k], sizeof(c[k]), "%llu", (unsigned long long)v[k]);
		}
		printf("%-32s %9.*f %9.*f %9.*f %-5s %7s %7s %6s %6s %6s %6s %6s %6s\n", r->name, bw ? 1 : 2,
		       r->stat.median, bw ? 1 : 2, r->stat.min, bw ? 1 : 2, r->stat.max, bw ? "MiB/s" : "us", ratio, c[0], c[1],
		       c[2], c[3], c[4], c[5], c[6]);
	}
	printf("# vs TCP: bw rows against TCP bw of the size (higher is better), lat rows against TCP "
	       "ping-pong of the size (lower is better); retx: request packets sent again, timeo: "
	       "retransmission timer expiries, NAK-r: NAKs received, dup: duplicate requests answered, oos: "
	       "request packets after a gap, drop: packets dropped on receipt (malformed, bad ICRC, no QP), "
	       "fault: packets dropped on purpose (1%% loss); "
	       "both devices of the pair, summed over the samples\n");
	printf("# targets (issues 13 and 29), default settings (segmentation offload %s):\n",
	       defaults.roce_segmentation_offload ? "on" : "off");
	for (unsigned i = 0; i < 3; i++) {
		char what[48], ref[48];

		snprintf(ref, sizeof(ref), "TCP bw %s", size_text(sizes[i]));
		snprintf(what, sizeof(what), "RoCE WRITE bw %s", size_text(sizes[i]));
		target(rows, n_rows, what, ref, true, 0.5, 0.8);
		snprintf(what, sizeof(what), "RoCE SEND bw %s", size_text(sizes[i]));
		target(rows, n_rows, what, ref, true, 0.5, 0.8);
	}
	target(rows, n_rows, "RoCE WRITE lat 4 KiB", "TCP lat 4 KiB", false, 2.0, 0);
	target(rows, n_rows, "RoCE WRITE lat 64 KiB", "TCP lat 64 KiB", false, 2.0, 0);
	target(rows, n_rows, "RoCE SEND lat 64 KiB", "TCP lat 64 KiB", false, 2.0, 0);
	target(rows, n_rows, "RoCE WRITE bw 4 KiB, 1% loss", "RoCE WRITE bw 4 KiB", true, 0.5, 0);
	target(rows, n_rows, "RoCE WRITE bw 64 KiB, 1% loss", "RoCE WRITE bw 64 KiB", true, 0.5, 0);
	printf("# context: soft-RoCE (Linux rxe), two hosts on 10 GbE, ib_send_bw ~582 MiB/s (~0.6 GiB/s) "
	       "beside TCP's 9.3 Gb/s on the same link, x0.52 (reference roce_virtio.md §6)\n");
	printf("# %.1f s\n", bench_now() - t_start);
	fflush(stdout);

	for (unsigned i = 0; i < 8; i++)
		bench_soft_stop(&sides[i].soft);
	close(tcp_stream);
	close(tcp_pingpong);
	free(sides);
	free(conns);
	free(lat);
	return 0;
}
