/* SPDX-License-Identifier: MIT */
/*
 * SEND, RDMA WRITE and RDMA READ bandwidth and SEND latency between two
 * processes through librdmad, as perftest's ib_send_bw, ib_write_bw,
 * ib_read_bw and ib_send_lat measure them.  For each test and size the
 * program forks a responder; the two exchange QP numbers and the remote
 * buffer's key over a socketpair, connect RC QPs on the same rdmad and run.
 *
 *     rdmad_perftest [-s SOCKET] [-t send,write,read,lat] [-z 64,4096,65536]
 *                    [-n ITERS] [-w WINDOW] [-m none|sig|crypto|sig+crypto -k DEK]
 *                    [-c CPU] [-e] [-j]
 *
 * -c pins both processes to CPU (put them beside rdmad's workers, not on
 * their CPUs); pinned, a side that finds no completion yields the CPU, so
 * that two processes on one CPU take turns instead of each spinning out its
 * time slice while the other holds what it waits for.  -e makes the
 * receiving side of send and lat wait on a completion channel instead of
 * polling, which leaves the CPU to the others when there are fewer CPUs than
 * busy threads.
 *
 * The bytes are checked: the requester sends and writes a pattern the
 * responder finds in its buffer at the end, and reads one the responder put
 * there (not through an MKEY, which changes them on their way).  Each row is
 * printed as its test ends.
 *
 * With -m the responder's buffer is reached through an MKEY of that kind
 * (T10-DIF on the wire with 512-byte blocks, AES-XTS with DEK -k): the
 * transfer is checked, stripped and decrypted on its way, as it would be
 * into a storage target's memory.  Results: a table on stdout, or JSON (-j).
 */
#include <rdmad/rdmad.h>

#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SIGNAL_EVERY 16
#define TIMEOUT_SEC 30
#define MAX_RUNS 64

enum test { T_SEND, T_WRITE, T_READ, T_LAT };
static const char *const test_names[] = { "send", "write", "read", "lat" };
enum mkey_kind { M_NONE, M_SIG, M_CRYPTO, M_BOTH };
static const char *const mkey_names[] = { "none", "sig", "crypto", "sig+crypto" };

struct options {
	const char *socket, *dek;
	unsigned tests;           /* 1 << enum test */
	size_t sizes[16];
	unsigned n_sizes, iters, window;
	enum mkey_kind mkey;
	int json, events, cpu;
};

/* What one side tells the other. */
struct hello {
	uint32_t qpn, rkey;
	uint64_t addr;
};

struct side {
	struct rdmad_context *ctx;
	struct rdmad_pd *pd;
	struct rdmad_cq *cq;
	struct rdmad_comp_channel *channel;   /* -e: the receiver waits here */
	struct rdmad_qp *qp;
	struct rdmad_mr *mr;
	struct rdmad_mkey *mkey;
	uint8_t *buf;
	size_t size, buf_size;
	int sock;
};

struct result {
	enum test test;
	size_t size;
	unsigned iters;
	double seconds;
	double lat_avg_us, lat_p50_us, lat_p99_us;
};

/* -c: both processes on one CPU, where waiting must leave it to the other (and to a worker). */
static bool yield_when_idle;

static void die(const char *what, int r)
{
	fprintf(stderr, "rdmad_perftest: %s: %s (%s)\n", what, strerror(r < 0 ? -r : r), rdmad_last_error());
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void usage(void)
{
	fprintf(stderr, "usage: rdmad_perftest [-s SOCKET] [-t send,write,read,lat] [-z SIZES] [-n ITERS] "
		"[-w WINDOW] [-m none|sig|crypto|sig+crypto] [-k DEK] [-c CPU] [-e] [-j]\n");
	exit(2);
}

/* A decimal number from min to max, else the usage. */
static unsigned long number_in(const char *s, unsigned long min, unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		usage();
	return v;
}

static unsigned long number(const char *s, unsigned long max)
{
	return number_in(s, 1, max);
}

static int word_index(const char *w, const char *const *words, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(w, words[i]))
			return (int)i;
	usage();
	return -1;
}

static void parse(int argc, char **argv, struct options *o)
{
	char *tok, *save;
	int c;

	*o = (struct options){ .tests = 1u << T_WRITE, .sizes = { 4096 }, .n_sizes = 1, .iters = 10000,
			       .window = 64, .cpu = -1 };
	while ((c = getopt(argc, argv, "s:t:z:n:w:m:k:c:ej")) != -1)
		switch (c) {
		case 's': o->socket = optarg; break;
		case 't':
			o->tests = 0;
			for (tok = strtok_r(optarg, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
				o->tests |= 1u << word_index(tok, test_names, 4);
			break;
		case 'z':
			o->n_sizes = 0;
			for (tok = strtok_r(optarg, ",", &save); tok && o->n_sizes < 16; tok = strtok_r(NULL, ",", &save))
				o->sizes[o->n_sizes++] = number(tok, 1u << 20);
			break;
		case 'n': o->iters = (unsigned)number(optarg, 100000000); break;
		case 'w': o->window = (unsigned)number(optarg, 512); break;
		case 'm': o->mkey = (enum mkey_kind)word_index(optarg, mkey_names, 4); break;
		case 'k': o->dek = optarg; break;
		case 'j': o->json = 1; break;
		case 'e': o->events = 1; break;
		case 'c': o->cpu = (int)number_in(optarg, 0, CPU_SETSIZE - 1); break;
		default: usage();
		}
	if (optind != argc || (o->mkey != M_NONE && o->mkey != M_SIG && !o->dek))
		usage();
}

/* False when the peer is gone (SIGPIPE is ignored: a write to it fails with EPIPE). */
static bool exchange(int sock, const struct hello *mine, struct hello *theirs)
{
	return write(sock, mine, sizeof(*mine)) == (ssize_t)sizeof(*mine) &&
	       read(sock, theirs, sizeof(*theirs)) == (ssize_t)sizeof(*theirs);
}

/* The responder ended early: it said why on standard error. */
static void responder_failed(pid_t pid)
{
	int status;

	waitpid(pid, &status, 0);
	die("the responder failed", -EIO);
}

/* Byte i of the pattern side who ('q' requester, 'r' responder) puts in its buffer of size bytes. */
static uint8_t pattern_byte(size_t i, size_t size, char who)
{
	return (uint8_t)(i * 31 + size + (size_t)who);
}

static void fill(uint8_t *buf, size_t size, char who)
{
	for (size_t i = 0; i < size; i++)
		buf[i] = pattern_byte(i, size, who);
}

/* Exits 1 unless buf holds the other side's pattern: a figure of bytes that did not move is no figure. */
static void check_moved(const uint8_t *buf, size_t size, char who, enum test t)
{
	for (size_t i = 0; i < size; i++)
		if (buf[i] != pattern_byte(i, size, who)) {
			fprintf(stderr, "rdmad_perftest: %s %zu: byte %zu is not what the %s put there\n",
				test_names[t], size, i, who == 'q' ? "requester sent" : "responder");
			exit(1);
		}
}

/*
 * The MKEY the responder's memory is reached through: T10-DIF generated into
 * memory (8 bytes after each 512-byte block) and/or AES-XTS, so that what
 * the requester writes is checked, protected and decrypted on its way in.
 * Its addresses start at 0.
 */
static void mkey_setup(struct side *s, const struct options *o)
{
	static const char sig[] = "\"mem\":{\"sig_type\":\"t10dif\",\"block_size\":512,\"t10dif\":"
		"{\"bg_type\":\"crc\",\"bg\":65535,\"app_tag\":0,\"ref_tag\":0,\"flags\":[]}},\"wire\":null";
	struct rdmad_mkey_layout_entry layout = { .mr = s->mr, .offset = 0, .length = s->buf_size };
	struct rdmad_dek_attr dek = { 0 };
	unsigned flags = 0;
	char config[512];
	int r, at;

	if (o->mkey == M_SIG || o->mkey == M_BOTH)
		flags |= RDMAD_MKEY_BLOCK_SIGNATURE;
	if (o->mkey == M_CRYPTO || o->mkey == M_BOTH) {
		flags |= RDMAD_MKEY_CRYPTO;
		r = rdmad_dek_lookup(s->ctx, o->dek, &dek);
		if (r < 0)
			die("rdmad_dek_lookup", r);
	}
	at = snprintf(config, sizeof(config), "{%s", flags & RDMAD_MKEY_BLOCK_SIGNATURE ? sig : "");
	if (flags & RDMAD_MKEY_CRYPTO)
		snprintf(config + at, sizeof(config) - (size_t)at, "%s\"crypto\":{\"standard\":\"aes_xts\","
			 "\"encrypt_on_tx\":true,\"data_unit_size\":512,\"dek\":%u}}",
			 flags & RDMAD_MKEY_BLOCK_SIGNATURE ? "," : "", dek.handle);
	else
		snprintf(config + at, sizeof(config) - (size_t)at, "}");
	s->mkey = rdmad_create_mkey(s->pd, flags, 1);
	if (!s->mkey)
		die("rdmad_create_mkey", -errno);
	r = rdmad_configure_mkey(s->mkey, RDMAD_ACCESS_LOCAL_WRITE | RDMAD_ACCESS_REMOTE_WRITE |
				 RDMAD_ACCESS_REMOTE_READ, &layout, 1, config, 0);
	if (r < 0)
		die("rdmad_configure_mkey", r);
}

/* Closes the side's context (rdmad reclaims its objects), then its channel, which outlives CQs. */
static void teardown(struct side *s)
{
	rdmad_close(s->ctx);
	rdmad_destroy_comp_channel(s->channel);
}

static void setup(struct side *s, const struct options *o, size_t size, int sock)
{
	struct rdmad_qp_init_attr init = { .qp_type = RDMAD_QPT_RC,
					   .cap = { .max_send_wr = o->window, .max_recv_wr = o->window,
						    .max_send_sge = 1, .max_recv_sge = 1 } };
	struct rdmad_qp_attr attr = { .qp_state = RDMAD_QPS_INIT,
				      .qp_access_flags = RDMAD_ACCESS_LOCAL_WRITE | RDMAD_ACCESS_REMOTE_WRITE |
							 RDMAD_ACCESS_REMOTE_READ };
	int r;

	memset(s, 0, sizeof(*s));
	s->size = size;
	s->sock = sock;
	/* Room for a window of messages (SEND) or of READ targets, plus T10-DIF's 8 bytes per block. */
	s->buf_size = size * 2 + size / 64 + 4096;
	s->ctx = rdmad_open(o->socket, NULL);
	if (!s->ctx)
		die("rdmad_open", -errno);
	s->pd = rdmad_alloc_pd(s->ctx);
	s->buf = s->pd ? rdmad_alloc_buf(s->ctx, s->buf_size) : NULL;
	s->mr = s->buf ? rdmad_reg_mr(s->pd, s->buf, s->buf_size, attr.qp_access_flags) : NULL;
	s->channel = o->events ? rdmad_create_comp_channel(s->ctx) : NULL;
	s->cq = s->mr ? rdmad_create_cq_with_channel(s->ctx, 2 * o->window, s->channel) : NULL;
	init.send_cq = init.recv_cq = s->cq;
	s->qp = s->cq ? rdmad_create_qp(s->pd, &init) : NULL;
	if (!s->qp)
		die("setting up", -errno);
	r = rdmad_modify_qp(s->qp, &attr, RDMAD_QP_STATE | RDMAD_QP_ACCESS_FLAGS);
	if (r < 0)
		die("INIT", r);
}

static void connect_qp(struct side *s, uint32_t peer)
{
	struct rdmad_qp_attr rtr = {
		.qp_state = RDMAD_QPS_RTR, .path_mtu = 4096, .dest_qp_num = peer, .max_dest_rd_atomic = 16,
		.min_rnr_timer = 1,
	};
	struct rdmad_qp_attr rts = { .qp_state = RDMAD_QPS_RTS, .timeout = 14, .retry_cnt = 7,
				     .rnr_retry = 7, .max_rd_atomic = 16 };
	int r = rdmad_query_gid(s->ctx, 1, 0, rtr.ah_attr.dgid);

	if (r < 0)
		die("rdmad_query_gid", r);
	r = rdmad_modify_qp(s->qp, &rtr, RDMAD_QP_STATE | RDMAD_QP_AV | RDMAD_QP_PATH_MTU |
			    RDMAD_QP_DEST_QPN | RDMAD_QP_RQ_PSN | RDMAD_QP_MAX_DEST_RD_ATOMIC |
			    RDMAD_QP_MIN_RNR_TIMER);
	if (r == 0)
		r = rdmad_modify_qp(s->qp, &rts, RDMAD_QP_STATE | RDMAD_QP_TIMEOUT | RDMAD_QP_RETRY_CNT |
				    RDMAD_QP_RNR_RETRY | RDMAD_QP_SQ_PSN | RDMAD_QP_MAX_QP_RD_ATOMIC);
	if (r < 0)
		die("connecting the QP", r);
}

static void post_recvs(struct side *s, unsigned n)
{
	struct rdmad_sge sge = { .addr = (uintptr_t)s->buf, .length = (uint32_t)s->size, .lkey = s->mr->lkey };
	struct rdmad_recv_wr wr = { .sg_list = &sge, .num_sge = 1 };

	for (unsigned i = 0; i < n; i++) {
		int r = rdmad_post_recv(s->qp, &wr, NULL);

		if (r < 0)
			die("rdmad_post_recv", r);
	}
}

/* The next completion event (ibv_req_notify_cq, poll again, ibv_get_cq_event). */
static void wait_event(struct side *s, struct rdmad_wc *wc, int max, int *n)
{
	struct rdmad_cq *cq;
	int r = rdmad_req_notify_cq(s->cq, 0);

	/* One that came before the arming is no event: poll once more first. */
	if (r == 0 && (*n = rdmad_poll_cq(s->cq, max, wc)) == 0)
		r = rdmad_get_cq_event(s->channel, &cq);
	if (r < 0)
		die("waiting for a completion event", r);
}

/* Polls (or waits, -e) until at least one completion; all must succeed.  How many came. */
static int poll_some(struct side *s, struct rdmad_wc *wc, int max)
{
	double deadline = now() + TIMEOUT_SEC;
	int n;

	while ((n = rdmad_poll_cq(s->cq, max, wc)) == 0) {
		if (s->channel)
			wait_event(s, wc, max, &n);
		if (n)
			break;
		if (yield_when_idle)
			sched_yield();
		if (now() > deadline)
			die("no completion came", -ETIMEDOUT);
	}
	if (n < 0)
		die("rdmad_poll_cq", n);
	for (int i = 0; i < n; i++)
		if (wc[i].status != RDMAD_WC_SUCCESS) {
			fprintf(stderr, "rdmad_perftest: wr_id %" PRIu64 " completed with status %u\n",
				wc[i].wr_id, wc[i].status);
			exit(1);
		}
	return n;
}

/* The responder: receives (SEND), answers (lat), or only waits while the requester reads or writes. */
static void respond(const struct options *o, enum test t, size_t size, int sock)
{
	struct side s;
	struct hello mine, theirs;
	struct rdmad_wc wc[64];
	char byte;

	setup(&s, o, size, sock);
	fill(s.buf, size, 'r');
	mine = (struct hello){ .qpn = s.qp->qp_num, .rkey = s.mr->rkey, .addr = (uintptr_t)s.buf };
	if (o->mkey != M_NONE) {
		mkey_setup(&s, o);
		mine.rkey = s.mkey->rkey;
		mine.addr = 0;
	}
	if (!exchange(sock, &mine, &theirs))
		die("exchanging QP numbers with the peer", -EPIPE);
	if (t == T_SEND || t == T_LAT)
		post_recvs(&s, o->window);
	connect_qp(&s, theirs.qpn);
	if (write(sock, "r", 1) != 1)
		die("telling the peer", -EPIPE);
	if (t == T_SEND) {
		for (unsigned got = 0; got < o->iters; ) {
			int n = poll_some(&s, wc, 64);

			got += (unsigned)n;
			post_recvs(&s, (unsigned)n);
		}
	} else if (t == T_LAT) {
		struct rdmad_sge sge = { .addr = (uintptr_t)s.buf, .length = (uint32_t)size, .lkey = s.mr->lkey };
		struct rdmad_send_wr wr = { .opcode = RDMAD_WR_SEND, .sg_list = &sge, .num_sge = 1,
					    .send_flags = RDMAD_SEND_SIGNALED };

		for (unsigned i = 0; i < o->iters; i++) {
			int seen_recv = 0, seen_send = 0;

			while (!seen_recv) {
				int n = poll_some(&s, wc, 2);

				for (int k = 0; k < n; k++)
					seen_recv |= wc[k].opcode == RDMAD_WC_RECV;
			}
			post_recvs(&s, 1);
			if (rdmad_post_send(s.qp, &wr, NULL) < 0)
				die("rdmad_post_send", -EIO);
			while (!seen_send) {
				int n = poll_some(&s, wc, 1);

				seen_send |= wc[0].opcode == RDMAD_WC_SEND;
				(void)n;
			}
		}
	}
	/* The requester says when it is done with this side's memory. */
	if (read(sock, &byte, 1) != 1)
		die("waiting for the peer", -EPIPE);
	/* An MKEY changes what is written on its way; SENDs land in the plain MR. */
	if (t == T_SEND || (t == T_WRITE && o->mkey == M_NONE))
		check_moved(s.buf, size, 'q', t);
	teardown(&s);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The requester's side of a bandwidth test: a window of WRs in flight, every SIGNAL_EVERY-th signaled. */
static void run_bw(struct side *s, const struct options *o, enum test t, const struct hello *peer,
		   struct result *res)
{
	struct rdmad_sge sge = { .addr = (uintptr_t)s->buf, .length = (uint32_t)s->size, .lkey = s->mr->lkey };
	struct rdmad_send_wr wr = { .sg_list = &sge, .num_sge = 1 };
	struct rdmad_wc wc[64];
	unsigned posted = 0, done = 0, window = o->window - o->window % SIGNAL_EVERY;
	double start;

	if (window < SIGNAL_EVERY)
		window = SIGNAL_EVERY;
	wr.opcode = t == T_SEND ? RDMAD_WR_SEND : t == T_WRITE ? RDMAD_WR_RDMA_WRITE : RDMAD_WR_RDMA_READ;
	wr.wr.rdma.remote_addr = peer->addr;
	wr.wr.rdma.rkey = peer->rkey;
	start = now();
	while (done < o->iters) {
		while (posted < o->iters && posted - done < window) {
			wr.wr_id = posted;
			wr.send_flags = (posted + 1) % SIGNAL_EVERY == 0 || posted + 1 == o->iters ?
					RDMAD_SEND_SIGNALED : 0;
			if (rdmad_post_send(s->qp, &wr, NULL) < 0)
				die("rdmad_post_send", -EIO);
			posted++;
		}
		int n = poll_some(s, wc, 64);

		for (int i = 0; i < n; i++)
			done = (unsigned)wc[i].wr_id + 1;
	}
	res->seconds = now() - start;
}

static void run_lat(struct side *s, const struct options *o, struct result *res)
{
	struct rdmad_sge sge = { .addr = (uintptr_t)s->buf, .length = (uint32_t)s->size, .lkey = s->mr->lkey };
	struct rdmad_send_wr wr = { .opcode = RDMAD_WR_SEND, .sg_list = &sge, .num_sge = 1,
				    .send_flags = RDMAD_SEND_SIGNALED };
	double *lat = malloc(o->iters * sizeof(*lat)), start = now(), sum = 0;
	struct rdmad_wc wc[2];

	if (!lat)
		die("malloc", -ENOMEM);
	for (unsigned i = 0; i < o->iters; i++) {
		double t0 = now();
		int got_recv = 0, got_send = 0;

		if (rdmad_post_send(s->qp, &wr, NULL) < 0)
			die("rdmad_post_send", -EIO);
		while (!got_recv || !got_send) {
			int n = poll_some(s, wc, 2);

			for (int k = 0; k < n; k++) {
				got_recv |= wc[k].opcode == RDMAD_WC_RECV;
				got_send |= wc[k].opcode == RDMAD_WC_SEND;
			}
		}
		post_recvs(s, 1);
		/* Half a round trip, as ib_send_lat reports it. */
		lat[i] = (now() - t0) * 1e6 / 2;
		sum += lat[i];
	}
	res->seconds = now() - start;
	qsort(lat, o->iters, sizeof(*lat), cmp_double);
	res->lat_avg_us = sum / o->iters;
	res->lat_p50_us = lat[o->iters / 2];
	res->lat_p99_us = lat[(size_t)(o->iters * 0.99)];
	free(lat);
}

static void run_one(const struct options *o, enum test t, size_t size, struct result *res)
{
	int sv[2], status;
	struct side s;
	struct hello mine, theirs;
	pid_t pid;
	char byte;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		die("socketpair", -errno);
	pid = fork();
	if (pid < 0)
		die("fork", -errno);
	if (pid == 0) {
		close(sv[0]);
		respond(o, t, size, sv[1]);
		_exit(0);
	}
	close(sv[1]);
	setup(&s, o, size, sv[0]);
	fill(s.buf, size, 'q');
	mine = (struct hello){ .qpn = s.qp->qp_num, .rkey = s.mr->rkey, .addr = (uintptr_t)s.buf };
	if (!exchange(sv[0], &mine, &theirs))
		responder_failed(pid);
	if (t == T_LAT)
		post_recvs(&s, 1);
	connect_qp(&s, theirs.qpn);
	if (read(sv[0], &byte, 1) != 1)
		responder_failed(pid);
	*res = (struct result){ .test = t, .size = size, .iters = o->iters };
	if (t == T_LAT)
		run_lat(&s, o, res);
	else
		run_bw(&s, o, t, &theirs, res);
	if (t == T_READ && o->mkey == M_NONE)
		check_moved(s.buf, size, 'r', t);
	if (write(sv[0], "d", 1) != 1)
		die("telling the responder", -EPIPE);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		die("the responder failed", -EIO);
	close(sv[0]);
	teardown(&s);
}

/* The table's header, or the JSON's opening; rows follow as their tests end. */
static void print_start(const struct options *o)
{
	if (o->json)
		printf("{\"mkey\":\"%s\",\"results\":[", mkey_names[o->mkey]);
	else
		printf("%-6s %8s %10s %12s %12s %10s %10s %10s\n", "test", "bytes", "iters", "GB/s", "msgs/s",
		       "lat_avg", "lat_p50", "lat_p99");
	fflush(stdout);
}

/* Row i: a table line is out at once (a long run is never silent); JSON is one document at the end. */
static void print_row(const struct options *o, const struct result *r, unsigned i)
{
	double msgs = r->iters / r->seconds, gbs = msgs * (double)r->size / 1e9;

	if (o->json)
		printf("%s{\"test\":\"%s\",\"size\":%zu,\"iters\":%u,\"gbps\":%.4f,\"msgs_per_sec\":%.0f,"
		       "\"lat_avg_us\":%.3f,\"lat_p50_us\":%.3f,\"lat_p99_us\":%.3f}", i ? "," : "",
		       test_names[r->test], r->size, r->iters, gbs, msgs, r->lat_avg_us, r->lat_p50_us,
		       r->lat_p99_us);
	else if (r->test == T_LAT)
		printf("%-6s %8zu %10u %12s %12.0f %8.2fus %8.2fus %8.2fus\n", test_names[r->test], r->size,
		       r->iters, "-", msgs, r->lat_avg_us, r->lat_p50_us, r->lat_p99_us);
	else
		printf("%-6s %8zu %10u %12.3f %12.0f %10s %10s %10s\n", test_names[r->test], r->size, r->iters,
		       gbs, msgs, "-", "-", "-");
	if (!o->json)
		fflush(stdout);
}

/* -k names a DEK this program may use: said once, before any test, not by a responder that dies. */
static void check_dek(const struct options *o)
{
	struct rdmad_dek_attr attr;
	struct rdmad_context *ctx;
	char what[160];
	int r;

	if (o->mkey != M_CRYPTO && o->mkey != M_BOTH)
		return;
	ctx = rdmad_open(o->socket, NULL);
	if (!ctx)
		die("rdmad_open", -errno);
	r = rdmad_dek_lookup(ctx, o->dek, &attr);
	if (r < 0) {
		char detail[512];

		/* The context goes before the exit (a leak checker would say so); its error stays. */
		snprintf(what, sizeof(what), "-k %s", o->dek);
		snprintf(detail, sizeof(detail), "%s", rdmad_last_error());
		rdmad_close(ctx);
		fprintf(stderr, "rdmad_perftest: %s: %s (%s)\n", what, strerror(-r), detail);
		exit(1);
	}
	rdmad_close(ctx);
}

int main(int argc, char **argv)
{
	struct result res;
	struct options o;
	unsigned n = 0;

	parse(argc, argv, &o);
	/* A peer that is gone is an error to report, not a signal that ends the program silently. */
	signal(SIGPIPE, SIG_IGN);
	if (o.cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(o.cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0)
			die("pinning to the CPU of -c", -errno);
		yield_when_idle = true;
	}
	check_dek(&o);
	print_start(&o);
	for (unsigned t = 0; t < 4; t++)
		for (unsigned i = 0; (o.tests & (1u << t)) && i < o.n_sizes && n < MAX_RUNS; i++) {
			run_one(&o, (enum test)t, o.sizes[i], &res);
			print_row(&o, &res, n++);
		}
	if (o.json)
		printf("]}\n");
	return 0;
}
