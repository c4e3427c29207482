/* SPDX-License-Identifier: MIT */
#include "tests/bench/lib/roce_pair.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/soft/datapath.h"
#include "daemon/soft/workers.h"
#include "daemon/verbs/cq.h"
#include "daemon/verbs/mr.h"
#include "daemon/verbs/qp.h"

#define POLL_BATCH 64u

const char *const pair_addr[2] = { "10.233.0.1", "10.233.0.2" };
static char ns_name[2][32], veth_name[2][16];
static bool ns_made[2];
int pair_ns_fd[2] = { -1, -1 }, pair_root_ns = -1;

static bool ip_quiet;   /* ip's errors not shown (teardown: the names may be gone already) */

/* Runs ip with the arguments given (NULL-terminated); its exit status, or -1. */
static int ip_cmd(const char *arg, ...)
{
	const char *argv[24] = { "ip" };
	unsigned n = 1;
	va_list ap;
	int status;
	pid_t pid;

	va_start(ap, arg);
	for (const char *a = arg; a && n < 23; a = va_arg(ap, const char *))
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0)
			dup2(null, STDOUT_FILENO);
		if (null >= 0 && ip_quiet)
			dup2(null, STDERR_FILENO);
		execvp("ip", (char *const *)argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* At exit, and on SIGINT/SIGTERM: the namespaces go, and the veth pair with them. */
static void net_teardown(void)
{
	ip_quiet = true;
	for (unsigned i = 0; i < 2; i++)
		if (ns_made[i]) {
			ns_made[i] = false;
			(void)ip_cmd("netns", "del", ns_name[i], NULL);
		}
}

static void on_signal(int sig)
{
	net_teardown();
	signal(sig, SIG_DFL);
	raise(sig);
}

void pair_enter_ns(int fd)
{
	if (setns(fd, CLONE_NEWNET) < 0)
		bench_die("setns", NULL);
}

void pair_net_setup(unsigned veth_mtu)
{
	char addr[2][32], path[64], mtu[16];
	pid_t pid = getpid();

	for (unsigned i = 0; i < 2; i++) {
		snprintf(ns_name[i], sizeof(ns_name[i]), "rdmab-%c-%d", 'a' + i, (int)pid);
		snprintf(veth_name[i], sizeof(veth_name[i]), "rb%c%d", 'a' + i, (int)pid % 1000000);
		snprintf(addr[i], sizeof(addr[i]), "%s/24", pair_addr[i]);
	}
	snprintf(mtu, sizeof(mtu), "%u", veth_mtu);
	atexit(net_teardown);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	for (unsigned i = 0; i < 2; i++) {
		if (ip_cmd("netns", "add", ns_name[i], NULL) != 0)
			bench_die("ip netns add failed", NULL);
		ns_made[i] = true;
	}
	if (ip_cmd("link", "add", veth_name[0], "netns", ns_name[0], "type", "veth", "peer", "name",
		   veth_name[1], "netns", ns_name[1], NULL) != 0)
		bench_die("ip link add ... type veth failed", NULL);
	for (unsigned i = 0; i < 2; i++) {
		if (ip_cmd("-n", ns_name[i], "addr", "add", addr[i], "dev", veth_name[i], NULL) != 0 ||
		    ip_cmd("-n", ns_name[i], "link", "set", veth_name[i], "mtu", mtu, "up", NULL) != 0 ||
		    ip_cmd("-n", ns_name[i], "link", "set", "lo", "up", NULL) != 0)
			bench_die("configuring the veth pair failed", NULL);
		snprintf(path, sizeof(path), "/var/run/netns/%s", ns_name[i]);
		pair_ns_fd[i] = open(path, O_RDONLY | O_CLOEXEC);
		if (pair_ns_fd[i] < 0)
			bench_die("cannot open a namespace", NULL);
	}
	pair_root_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (pair_root_ns < 0)
		bench_die("cannot open this process's namespace", NULL);
}

/*
 * BENCH_ROCE_RECEIVE=auto|packet|socket: the way the devices receive, on the namespace's
 * veth (rdmad.conf roce_receive; auto, the default, is the packet path as root).
 */
static enum dp_roce_receive receive_from_env(void)
{
	const char *e = getenv("BENCH_ROCE_RECEIVE");

	if (!e || !strcmp(e, "auto"))
		return DP_ROCE_RECEIVE_AUTO;
	if (!strcmp(e, "packet"))
		return DP_ROCE_RECEIVE_PACKET;
	if (!strcmp(e, "socket"))
		return DP_ROCE_RECEIVE_SOCKET;
	bench_die("BENCH_ROCE_RECEIVE: auto, packet or socket", NULL);
	return DP_ROCE_RECEIVE_AUTO;
}

void pair_side_start(struct pair_side *s, unsigned index, unsigned ns, int cpu, const struct dp_roce_config *cfg)
{
	struct dp_roce_config on_veth = *cfg;
	struct in_addr a;
	int why;

	/* Index 0 of port 1: the source GID of the QPs, the address of the namespace's veth. */
	inet_pton(AF_INET, pair_addr[ns], &a);
	rdma_gid_from_ipv4(&a, s->gid);
	/* The worker thread inherits the namespace: the sockets it opens for flows are there too. */
	pair_enter_ns(pair_ns_fd[ns]);
	bench_soft_start(&s->soft, index, &cpu, 1, s->gid);
	on_veth.receive = receive_from_env();
	snprintf(on_veth.netdev, sizeof(on_veth.netdev), "%s", veth_name[ns]);
	if (rdma_datapath_roce_start(s->soft.dev, &on_veth) < 0)
		bench_die("rdma_datapath_roce_start failed", NULL);
	if (index == 0)
		printf("# RoCE receive path: %s\n",
		       dp_roce_receive_name(rdma_datapath_roce_receive(s->soft.dev, &why)));
	pair_enter_ns(pair_root_ns);
}

static void end_new(struct pair_end *e, struct pair_side *s, uint8_t seed)
{
	struct rdma_qp_init init = {
		.type = RDMA_QPT_RC, .pd = s->soft.pd,
		.cap = { .max_send_wr = PAIR_SQ_DEPTH, .max_recv_wr = PAIR_RQ_DEPTH, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct rdma_error err;

	memset(e, 0, sizeof(*e));
	e->s = s;
	if (rdma_cq_create(s->soft.dev, 2 * PAIR_SQ_DEPTH, false, &e->scq, &err) < 0 ||
	    rdma_cq_create(s->soft.dev, 2 * PAIR_RQ_DEPTH, false, &e->rcq, &err) < 0)
		bench_die("CQ", &err);
	init.send_cq = e->scq->obj.handle;
	init.recv_cq = e->rcq->obj.handle;
	if (rdma_qp_create(s->soft.dev, &init, &e->qp, &err) < 0)
		bench_die("QP", &err);
	if (rdma_mr_create(s->soft.dev, s->soft.pd, PAIR_MR_SIZE, RDMA_ACCESS_ALL, PAIR_MR_SIZE, &e->mr, &err) < 0)
		bench_die("MR", &err);
	for (uint32_t i = 0; i < PAIR_MR_SIZE; i++)
		e->mr->addr[i] = (uint8_t)(i * 131 + seed);
}

void pair_post_recvs(struct pair_end *e)
{
	while (e->recv_posted - e->recv_done < PAIR_RQ_DEPTH) {
		struct rdma_dp_sge sge = { .key = e->mr->obj.handle, .length = PAIR_MSG_MAX,
					   .offset = PAIR_AREA + (e->recv_posted % PAIR_N_SLOTS) * PAIR_MSG_MAX };
		struct rdma_error err;
		int r = rdma_dp_post_recv(e->s->soft.dev, e->qp, e->recv_posted, &sge, 1, &err);

		if (r == -ENOBUFS)
			return;   /* a completion seen before its slot was given back: next turn */
		if (r < 0)
			bench_die("post recv", &err);
		e->recv_posted++;
	}
}

void pair_conn_new(struct pair_conn *c, struct pair_side *a, struct pair_side *b, uint32_t path_mtu, uint32_t timeout)
{
	struct pair_side *s[2] = { a, b };

	for (unsigned i = 0; i < 2; i++)
		end_new(&c->e[i], s[i], (uint8_t)(7 + 92 * i));
	for (unsigned i = 0; i < 2; i++) {
		struct pair_end *me = &c->e[i], *peer = &c->e[1 - i];
		struct bench_rc_path path = {
			.dest_qpn = peer->qp->obj.handle, .dgid = peer->s->gid, .path_mtu = path_mtu,
			.sq_psn = PAIR_START_PSN + i, .rq_psn = PAIR_START_PSN + 1 - i, .max_rd_atomic = 4,
			.timeout = timeout,
		};

		bench_qp_connect_rc(me->s->soft.dev, me->qp, &path);
		pair_post_recvs(me);
	}
	/* Both on their device's RoCE worker (the one endpoint's), so on the wire. */
	for (unsigned i = 0; i < 2; i++)
		if (soft_qp(c->e[i].qp)->worker != &c->e[i].s->soft.ws->workers[0])
			bench_die("a QP is not on its device's RoCE worker", NULL);
}

static void check_cqe(const struct pair_end *e, const struct dp_cqe *cqe, const char *which)
{
	if (cqe->status != DP_WC_SUCCESS) {
		fprintf(stderr, "bench_roce: %s: %s completion of QP %u wr_id %llu: status %u\n",
			e->s->soft.name, which, cqe->qp_num, (unsigned long long)cqe->wr_id, cqe->status);
		exit(1);
	}
}

unsigned pair_reap(struct pair_end *e, uint32_t len)
{
	struct dp_cqe cqe[POLL_BATCH];
	unsigned n, total = 0;

	do {
		n = dp_cq_poll(soft_cq(e->scq->ring), cqe, POLL_BATCH);
		for (unsigned i = 0; i < n; i++) {
			check_cqe(e, &cqe[i], "send");
			if (cqe[i].wr_id + 1 <= e->done || cqe[i].wr_id >= e->posted)
				bench_die("send completion out of order", NULL);
			e->done = cqe[i].wr_id + 1;
		}
		total += n;
	} while (n == POLL_BATCH);
	do {
		n = dp_cq_poll(soft_cq(e->rcq->ring), cqe, POLL_BATCH);
		for (unsigned i = 0; i < n; i++) {
			check_cqe(e, &cqe[i], "receive");
			if (cqe[i].byte_len != len)
				bench_die("a receive completed with the wrong length", NULL);
		}
		e->recv_done += n;
		total += n;
	} while (n == POLL_BATCH);
	if (total)
		pair_post_recvs(e);
	return total;
}

bool pair_post_one(struct pair_end *e, const struct pair_end *peer, enum dp_wr_opcode op, uint32_t len,
		   bool signaled)
{
	uint64_t off = (e->posted % PAIR_N_SLOTS) * len;
	struct rdma_dp_sge sge = { .key = e->mr->obj.handle, .offset = off, .length = len };
	struct rdma_dp_send_wr wr = {
		.wr_id = e->posted, .opcode = op, .send_flags = signaled ? DP_SEND_SIGNALED : 0,
		.sges = &sge, .n_sges = 1,
	};
	struct rdma_error err;
	int r;

	if (op == DP_WR_RDMA_WRITE || op == DP_WR_RDMA_READ) {
		/* The peer's address, as its MR gives it (the peer is another host to the device). */
		wr.remote_key = peer->mr->rkey;
		wr.has_remote_addr = true;
		wr.remote_addr = peer->mr->iova + off;
	}
	r = rdma_dp_post_sends(e->s->soft.dev, e->qp, &wr, 1, &(uint32_t){ 0 }, &err);
	if (r == -ENOBUFS)
		return false;
	if (r < 0)
		bench_die("post send", &err);
	e->posted++;
	return true;
}

