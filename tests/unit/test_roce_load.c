/* SPDX-License-Identifier: MIT */
/*
 * RoCE v2 makes progress whatever the scheduler does (issue 26): RC with a
 * 67 ms timeout and retries sends again whatever was lost or late, so a
 * transfer beside a CPU hog is slower, never stuck.  Two software devices
 * in two network namespaces joined by a veth pair (tests/bench/lib/
 * roce_pair.h), their workers on the first two CPUs this process may use,
 * and beside them one busy process pinned to each of those CPUs.  Two
 * connections: one clean, one whose devices both drop 2% of the packets
 * they send (requests, ACKs, READ responses), so that timeouts, NAKs and
 * late ACKs come often.  On each, in each direction, WRITE, SEND and READ:
 *
 *   bw: 4 KiB messages (4 packets), 128 outstanding, every 8th signaled;
 *   ping-pong: one 64 KiB message (64 packets) at a time, SEND answered by
 *     a SEND the other way, WRITE and READ by their completion.
 *
 * The test fails when a phase goes STALL_SECONDS without a completion while
 * something is outstanding, and prints both QPs' transport state and their
 * workers' (tests/bench/lib/roce_dump.h).  Before the fix of the requester's
 * go-back (an ACK that overtook it stopped sending for good: dataplane/roce/
 * req.c) it stopped in 4 runs of 4, each time within its first phases, on
 * the clean connection.  Needs root (network namespaces): skipped without.
 * About 25 s.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/cpulist.h"
#include "tests/bench/lib/roce_dump.h"
#include "tests/bench/lib/roce_pair.h"

#define PHASE_SECONDS 1.0
#define STALL_SECONDS 4.0
#define RC_TIMEOUT    14       /* 4.096 us << 14: 67 ms */
#define PATH_MTU      1024
#define LOSS_PPM      20000u
#define BW_LEN        4096u
#define PINGPONG_LEN  65536u
#define SIGNAL_EVERY  8u
#define PORT          4791

static struct pair_side sides[4];
static struct pair_conn conns[2];   /* clean, lossy */
static const char *const conn_names[2] = { "clean", "2% loss" };
static pid_t hogs[2];
static unsigned n_hogs;

static void hogs_stop(void)
{
	for (unsigned i = 0; i < n_hogs; i++) {
		kill(hogs[i], SIGKILL);
		waitpid(hogs[i], NULL, 0);
	}
	n_hogs = 0;
}

/* One busy process pinned to each CPU: what the workers share their CPUs with. */
static void hogs_start(const int *cpus, unsigned n)
{
	atexit(hogs_stop);
	for (unsigned i = 0; i < n && i < 2; i++) {
		pid_t pid = fork();

		if (pid < 0)
			bench_die("fork", NULL);
		if (pid == 0) {
			cpu_set_t set;

			/* Gone with the test, however it ends (a crash runs no atexit). */
			if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() == 1)
				_exit(0);
			CPU_ZERO(&set);
			CPU_SET(cpus[i], &set);
			(void)sched_setaffinity(0, sizeof(set), &set);
			for (volatile unsigned long spin = 0;; spin++)
				;
		}
		hogs[n_hogs++] = pid;
	}
}

/* What a phase runs on, and when it last saw a completion. */
struct phase {
	struct pair_conn *c;
	struct pair_end *a, *b;   /* a sends (or reads), b answers */
	enum dp_wr_opcode op;
	uint32_t len;
	const char *what;
	double progress;
};

static const char *op_name(enum dp_wr_opcode op)
{
	return op == DP_WR_SEND ? "SEND" : op == DP_WR_RDMA_WRITE ? "WRITE" : "READ";
}

/* Fails the test, with the connection as it stands, when no completion came for STALL_SECONDS. */
static void watch(struct phase *p, unsigned took)
{
	static const char *const names[2] = { "end A's QP", "end B's QP" };
	double now = bench_now();
	struct rdma_qp *qps[2];

	if (took) {
		p->progress = now;
		return;
	}
	sched_yield();
	if (now - p->progress < STALL_SECONDS)
		return;
	fprintf(stderr, "%s: no completion for %.0f s; the connection as it stands:\n", p->what, STALL_SECONDS);
	for (unsigned i = 0; i < 2; i++) {
		qps[i] = p->c->e[i].qp;
		fprintf(stderr, "end %c: send WRs posted %llu done %llu, receives posted %llu done %llu\n", 'A' + i,
			(unsigned long long)p->c->e[i].posted, (unsigned long long)p->c->e[i].done,
			(unsigned long long)p->c->e[i].recv_posted, (unsigned long long)p->c->e[i].recv_done);
	}
	bench_roce_dump(stderr, qps, names, 2);
	fail_msg("%s: a transfer made no progress for %.0f s", p->what, STALL_SECONDS);
}

static unsigned reap_both(struct phase *p)
{
	return pair_reap(p->a, p->len) + pair_reap(p->b, p->len);
}

/* Until every send WR of both ends is complete and b took every SEND a posted. */
static void drain(struct phase *p, uint64_t recvs_due)
{
	while (p->a->done < p->a->posted || p->b->done < p->b->posted || p->b->recv_done < recvs_due)
		watch(p, reap_both(p));
}

/*
 * PAIR_SQ_DEPTH WRs outstanding for PHASE_SECONDS, then up to the next
 * signaled one (completions free room 8 at a time: posting only what fits
 * would never reach it), then drained.
 */
static void bandwidth(struct phase *p)
{
	uint64_t recvs_due = p->b->recv_done;
	double end = bench_now() + PHASE_SECONDS;

	for (;;) {
		bool more = bench_now() < end;
		unsigned took = reap_both(p);

		while (p->a->posted - p->a->done < PAIR_SQ_DEPTH && (more || p->a->posted % SIGNAL_EVERY) &&
		       pair_post_one(p->a, p->b, p->op, p->len, p->a->posted % SIGNAL_EVERY == SIGNAL_EVERY - 1))
			if (p->op == DP_WR_SEND)
				recvs_due++;
		if (!more && p->a->posted % SIGNAL_EVERY == 0)
			break;
		watch(p, took);
	}
	drain(p, recvs_due);
}

/* Waits for *counter to pass old. */
static void wait_past(struct phase *p, const uint64_t *counter, uint64_t old)
{
	while (*counter == old)
		watch(p, reap_both(p));
}

/* One message at a time for PHASE_SECONDS: a SEND answered by a SEND back, a WRITE or READ by its completion. */
static void pingpong(struct phase *p)
{
	double end = bench_now() + PHASE_SECONDS;

	while (bench_now() < end) {
		uint64_t a_recv = p->a->recv_done, b_recv = p->b->recv_done;

		if (!pair_post_one(p->a, p->b, p->op, p->len, true))
			fail_msg("%s: the send queue is full", p->what);
		if (p->op != DP_WR_SEND) {
			wait_past(p, &p->a->done, p->a->posted - 1);
			continue;
		}
		wait_past(p, &p->b->recv_done, b_recv);
		if (!pair_post_one(p->b, p->a, p->op, p->len, true))
			fail_msg("%s: the send queue is full", p->what);
		wait_past(p, &p->a->recv_done, a_recv);
	}
	drain(p, p->b->recv_done);
}

static int setup(void **state)
{
	int cpus[CPULIST_MAX];
	unsigned n;

	if (geteuid() != 0) {
		*state = NULL;
		return 0;
	}
	n = bench_init(cpus, CPULIST_MAX);
	pair_net_setup(1500);
	for (unsigned i = 0; i < 2; i++) {
		struct dp_roce_config cfg = { .port = (uint16_t)(PORT + i), .faults.drop = i ? LOSS_PPM : 0 };

		pair_side_start(&sides[2 * i], 2 * i, 0, cpus[0], &cfg);
		pair_side_start(&sides[2 * i + 1], 2 * i + 1, 1, cpus[n > 1 ? 1 : 0], &cfg);
		pair_conn_new(&conns[i], &sides[2 * i], &sides[2 * i + 1], PATH_MTU, RC_TIMEOUT);
	}
	hogs_start(cpus, n);
	*state = conns;
	return 0;
}

static int teardown(void **state)
{
	hogs_stop();
	if (*state)
		for (unsigned i = 0; i < 4; i++)
			bench_soft_stop(&sides[i].soft);
	return 0;
}

static void test_progress_beside_a_cpu_hog(void **state)
{
	static const enum dp_wr_opcode ops[3] = { DP_WR_RDMA_WRITE, DP_WR_SEND, DP_WR_RDMA_READ };
	char what[96];

	if (!*state)
		skip();
	for (unsigned c = 0; c < 2; c++)
		for (unsigned dir = 0; dir < 2; dir++)
			for (unsigned o = 0; o < 3; o++)
				for (unsigned bw = 0; bw < 2; bw++) {
					uint64_t posted;
					struct phase p = {
						.c = &conns[c], .a = &conns[c].e[dir], .b = &conns[c].e[1 - dir],
						.op = ops[o], .len = bw ? BW_LEN : PINGPONG_LEN, .what = what,
						.progress = bench_now(),
					};

					snprintf(what, sizeof(what), "%s connection, %s %s %s", conn_names[c],
						 dir ? "B -> A" : "A -> B", op_name(ops[o]), bw ? "bw" : "ping-pong");
					posted = p.a->posted + p.b->posted;
					if (bw)
						bandwidth(&p);
					else
						pingpong(&p);
					print_message("%s: %llu WRs\n", what,
						      (unsigned long long)(p.a->posted + p.b->posted - posted));
				}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_progress_beside_a_cpu_hog, setup, teardown),
	};

	return cmocka_run_group_tests_name("RoCE v2: progress beside a CPU hog", tests, NULL, NULL);
}
