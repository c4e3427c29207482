/* SPDX-License-Identifier: MIT */
/*
 * RC ping-pong between two processes through librdmad, as rdma-core's
 * ibv_rc_pingpong: each side creates an RC QP, tells the other its QP number,
 * and the client (-c) and the server bounce a message back and forth N times,
 * each checking the bytes it received.
 *
 * The two exchange lines over stdin/stdout ("qpn N", then "ready"), so two
 * pipes or FIFOs connect them:
 *
 *     mkfifo a b
 *     rdmad_rc_pingpong <a >b &
 *     rdmad_rc_pingpong -c >a <b
 *
 * Both use the GID at -g (default 0) of port 1 as source and destination:
 * the two QPs are on the same rdmad; -r GID names the peer's GID instead
 * (IPv6 text, or an IPv4 address for its ::ffff: GID), a QP on another host
 * (or a virtual machine's).  Results go to stderr.  (The client opens a
 * first: each side opening its reading FIFO first would wait forever.)
 */
#include <rdmad/rdmad.h>

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LINE_MAX_LEN 64
#define POLL_TIMEOUT_SEC 10
#define RECV_WR_ID 1
#define SEND_WR_ID 2

struct options {
	const char *socket, *device, *remote_gid;
	unsigned gid_index, iters;
	size_t size;
	int client;
};

struct pingpong {
	struct rdmad_context *ctx;
	struct rdmad_pd *pd;
	struct rdmad_cq *cq;
	struct rdmad_qp *qp;
	struct rdmad_mr *mr;
	uint8_t *buf;             /* [0, size): what is sent; [size, 2 size): where it lands */
	size_t size;
	unsigned sends, recvs;     /* completed so far */
};

static void die(const char *what, int r)
{
	fprintf(stderr, "rdmad_rc_pingpong: %s: %s (%s)\n", what, strerror(-r), rdmad_last_error());
	exit(1);
}

static void usage(void)
{
	fprintf(stderr, "usage: rdmad_rc_pingpong [-c] [-s SOCKET] [-d DEVICE] [-g GID_INDEX] "
		"[-r PEER_GID] [-n ITERS] [-z SIZE]\n");
	exit(2);
}

static unsigned long number(const char *text, unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(text, &end, 0);
	if (errno || end == text || *end || v > max)
		usage();
	return v;
}

static void parse(int argc, char **argv, struct options *o)
{
	int c;

	*o = (struct options){ .iters = 1000, .size = 4096 };
	while ((c = getopt(argc, argv, "cs:d:g:r:n:z:")) != -1) {
		switch (c) {
		case 'c': o->client = 1; break;
		case 's': o->socket = optarg; break;
		case 'd': o->device = optarg; break;
		case 'g': o->gid_index = (unsigned)number(optarg, 255); break;
		case 'r': o->remote_gid = optarg; break;
		case 'n': o->iters = (unsigned)number(optarg, 100000000); break;
		case 'z': o->size = number(optarg, 1u << 20); break;
		default: usage();
		}
	}
	if (optind != argc || o->size == 0 || o->iters == 0)
		usage();
}

/* One line from the peer, without its newline. */
static void read_line(char line[LINE_MAX_LEN])
{
	if (!fgets(line, LINE_MAX_LEN, stdin))
		die("reading from the peer", -EPIPE);
	line[strcspn(line, "\n")] = '\0';
}

static void setup(struct pingpong *pp, const struct options *o)
{
	struct rdmad_qp_init_attr init = { .qp_type = RDMAD_QPT_RC, .cap = { .max_send_wr = 4,
									       .max_recv_wr = 4 } };
	struct rdmad_qp_attr attr = { .qp_state = RDMAD_QPS_INIT,
				      .qp_access_flags = RDMAD_ACCESS_LOCAL_WRITE };

	pp->size = o->size;
	pp->ctx = rdmad_open(o->socket, o->device);
	if (!pp->ctx)
		die("rdmad_open", -errno);
	pp->pd = rdmad_alloc_pd(pp->ctx);
	if (!pp->pd)
		die("rdmad_alloc_pd", -errno);
	pp->buf = rdmad_alloc_buf(pp->ctx, 2 * o->size);
	if (!pp->buf)
		die("rdmad_alloc_buf", -errno);
	pp->mr = rdmad_reg_mr(pp->pd, pp->buf, 2 * o->size, RDMAD_ACCESS_LOCAL_WRITE);
	if (!pp->mr)
		die("rdmad_reg_mr", -errno);
	pp->cq = rdmad_create_cq(pp->ctx, 16);
	if (!pp->cq)
		die("rdmad_create_cq", -errno);
	init.send_cq = init.recv_cq = pp->cq;
	pp->qp = rdmad_create_qp(pp->pd, &init);
	if (!pp->qp)
		die("rdmad_create_qp", -errno);
	int r = rdmad_modify_qp(pp->qp, &attr, RDMAD_QP_STATE | RDMAD_QP_ACCESS_FLAGS);
	if (r < 0)
		die("INIT", r);
}

/* The peer's GID from its text: IPv6, or IPv4 for its IPv4-mapped GID (RoCE v2). */
static int peer_gid(const char *text, uint8_t gid[16])
{
	struct in_addr v4;

	if (inet_pton(AF_INET6, text, gid) == 1)
		return 0;
	if (inet_pton(AF_INET, text, &v4) != 1)
		return -EINVAL;
	memset(gid, 0, 10);
	gid[10] = gid[11] = 0xff;
	memcpy(gid + 12, &v4, 4);
	return 0;
}

static void connect_qp(struct pingpong *pp, const struct options *o, uint32_t peer)
{
	struct rdmad_qp_attr rtr = {
		.qp_state = RDMAD_QPS_RTR, .path_mtu = 1024, .dest_qp_num = peer, .rq_psn = 0,
		.max_dest_rd_atomic = 4, .min_rnr_timer = 1,
		.ah_attr = { .sgid_index = (uint8_t)o->gid_index },
	};
	struct rdmad_qp_attr rts = { .qp_state = RDMAD_QPS_RTS, .timeout = 14, .retry_cnt = 7,
				     .rnr_retry = 7, .sq_psn = 0, .max_rd_atomic = 4 };
	int r = o->remote_gid ? peer_gid(o->remote_gid, rtr.ah_attr.dgid) :
				rdmad_query_gid(pp->ctx, 1, o->gid_index, rtr.ah_attr.dgid);

	if (r < 0)
		die(o->remote_gid ? "-r: not an IPv6 or IPv4 address" : "rdmad_query_gid", r);
	r = rdmad_modify_qp(pp->qp, &rtr, RDMAD_QP_STATE | RDMAD_QP_AV | RDMAD_QP_PATH_MTU |
			    RDMAD_QP_DEST_QPN | RDMAD_QP_RQ_PSN | RDMAD_QP_MAX_DEST_RD_ATOMIC |
			    RDMAD_QP_MIN_RNR_TIMER);
	if (r < 0)
		die("RTR", r);
	r = rdmad_modify_qp(pp->qp, &rts, RDMAD_QP_STATE | RDMAD_QP_TIMEOUT | RDMAD_QP_RETRY_CNT |
			    RDMAD_QP_RNR_RETRY | RDMAD_QP_SQ_PSN | RDMAD_QP_MAX_QP_RD_ATOMIC);
	if (r < 0)
		die("RTS", r);
}

static void post_recv(struct pingpong *pp)
{
	struct rdmad_sge sge = { .addr = (uintptr_t)(pp->buf + pp->size), .length = (uint32_t)pp->size,
				 .lkey = pp->mr->lkey };
	struct rdmad_recv_wr wr = { .wr_id = RECV_WR_ID, .sg_list = &sge, .num_sge = 1 };
	int r = rdmad_post_recv(pp->qp, &wr, NULL);

	if (r < 0)
		die("rdmad_post_recv", r);
}

/* The message of round i: every byte says which round and where. */
static void fill(uint8_t *b, size_t size, unsigned i)
{
	for (size_t j = 0; j < size; j++)
		b[j] = (uint8_t)(i * 31 + j);
}

static void post_send(struct pingpong *pp, unsigned round)
{
	struct rdmad_sge sge = { .addr = (uintptr_t)pp->buf, .length = (uint32_t)pp->size,
				 .lkey = pp->mr->lkey };
	struct rdmad_send_wr wr = { .wr_id = SEND_WR_ID, .opcode = RDMAD_WR_SEND,
				    .send_flags = RDMAD_SEND_SIGNALED, .sg_list = &sge, .num_sge = 1 };
	int r;

	fill(pp->buf, pp->size, round);
	r = rdmad_post_send(pp->qp, &wr, NULL);
	if (r < 0)
		die("rdmad_post_send", r);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Checks a message received: round's bytes, all of them. */
static void check_received(struct pingpong *pp, const struct rdmad_wc *wc, unsigned round)
{
	uint8_t *want = malloc(pp->size);

	if (!want)
		die("malloc", -ENOMEM);
	fill(want, pp->size, round);
	if (wc->byte_len != pp->size || memcmp(want, pp->buf + pp->size, pp->size)) {
		fprintf(stderr, "rdmad_rc_pingpong: round %u: the message received is not the one "
			"sent\n", round);
		exit(1);
	}
	free(want);
}

/*
 * Polls until sends and receives completed reach the counts wanted.  They may
 * come in either order: the peer's next message can arrive before the ACK
 * of our send completes it.
 */
static void await(struct pingpong *pp, unsigned sends, unsigned recvs)
{
	double deadline = now() + POLL_TIMEOUT_SEC;
	struct rdmad_wc wc;
	int n;

	while (pp->sends < sends || pp->recvs < recvs) {
		n = rdmad_poll_cq(pp->cq, 1, &wc);
		if (n < 0)
			die("rdmad_poll_cq", n);
		if (n == 0) {
			if (now() > deadline)
				die("no completion came", -ETIMEDOUT);
			usleep(50);
			continue;
		}
		if (wc.status != RDMAD_WC_SUCCESS) {
			fprintf(stderr, "rdmad_rc_pingpong: completion of wr_id %" PRIu64
				" with status %u\n", wc.wr_id, wc.status);
			exit(1);
		}
		if (wc.wr_id == RECV_WR_ID)
			check_received(pp, &wc, pp->recvs++);
		else
			pp->sends++;
	}
}

int main(int argc, char **argv)
{
	struct options o;
	struct pingpong pp = { 0 };
	char line[LINE_MAX_LEN];
	unsigned long peer;
	double start;

	parse(argc, argv, &o);
	setup(&pp, &o);
	post_recv(&pp);
	printf("qpn %u\n", pp.qp->qp_num);
	fflush(stdout);
	read_line(line);
	if (sscanf(line, "qpn %lu", &peer) != 1 || peer > 0xffffff)
		die("the peer's line is no \"qpn N\"", -EPROTO);
	connect_qp(&pp, &o, (uint32_t)peer);
	/* The client sends only once the server's QP can take it. */
	printf("ready\n");
	fflush(stdout);
	read_line(line);
	if (strcmp(line, "ready"))
		die("the peer's line is no \"ready\"", -EPROTO);
	start = now();
	for (unsigned i = 0; i < o.iters; i++) {
		if (o.client) {
			post_send(&pp, i);
			await(&pp, i + 1, i + 1);
			post_recv(&pp);
		} else {
			await(&pp, i, i + 1);
			post_recv(&pp);
			post_send(&pp, i);
			await(&pp, i + 1, pp.recvs);
		}
	}
	double took = now() - start;
	fprintf(stderr, "%s: %u iters of %zu bytes in %.3f s: %.1f us/iter\n",
		o.client ? "client" : "server", o.iters, o.size, took, took * 1e6 / o.iters);
	rdmad_close(pp.ctx);
	return 0;
}
