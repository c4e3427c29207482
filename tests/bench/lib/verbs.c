/* SPDX-License-Identifier: MIT */
#include "tests/bench/lib/verbs.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/verbs/gid.h"
#include "daemon/verbs/mr.h"
#include "daemon/verbs/qp.h"

#define PROBE_MAX 8

double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void bench_die(const char *what, const struct rdma_error *err)
{
	if (err)
		fprintf(stderr, "%s: %s: %s: %s\n", program_invocation_short_name, what, err->field,
			err->reason);
	else
		fprintf(stderr, "%s: %s\n", program_invocation_short_name, what);
	exit(1);
}

struct probe {
	pthread_t thread;
	int cpu;
	double seconds, lost, longest;
};

static void *probe_run(void *arg)
{
	struct probe *pr = arg;
	cpu_set_t set;
	double t0, prev, t;

	CPU_ZERO(&set);
	CPU_SET(pr->cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	t0 = prev = bench_now();
	do {
		t = bench_now();
		if (t - prev > 20e-6)
			pr->lost += t - prev;
		if (t - prev > pr->longest)
			pr->longest = t - prev;
		prev = t;
	} while (t - t0 < pr->seconds);
	return NULL;
}

void bench_cpu_probe(const int *cpus, unsigned n, double seconds)
{
	struct probe pr[PROBE_MAX];
	double longest = 0;

	if (n > PROBE_MAX)
		n = PROBE_MAX;
	for (unsigned i = 0; i < n; i++) {
		pr[i] = (struct probe){ .cpu = cpus[i], .seconds = seconds };
		if (pthread_create(&pr[i].thread, NULL, probe_run, &pr[i]) != 0)
			bench_die("cannot start a probe thread", NULL);
	}
	printf("# CPU check: %u thread(s) spinning at once on CPU", n);
	for (unsigned i = 0; i < n; i++) {
		pthread_join(pr[i].thread, NULL);
		if (pr[i].longest > longest)
			longest = pr[i].longest;
	}
	for (unsigned i = 0; i < n; i++)
		printf("%s %d", i ? "," : "", pr[i].cpu);
	printf(" lost");
	for (unsigned i = 0; i < n; i++)
		printf("%s %.1f%%", i ? "," : "", 100.0 * pr[i].lost / seconds);
	printf(" of the time in gaps > 20 us (longest %.1f ms)", longest * 1e3);
	for (unsigned i = 0; i < n; i++)
		if (pr[i].lost / seconds > 0.05) {
			printf(": the CPUs are not all ours (other load, or the hypervisor); expect spread");
			break;
		}
	printf("\n");
}

static void modify(struct rdma_device *dev, struct rdma_qp *qp, const struct rdma_qp_attr *values,
		   enum rdma_qp_state state, uint32_t mask)
{
	struct rdma_qp_attr attr = *values;
	struct rdma_error err;

	attr.state = state;
	if (rdma_qp_modify(dev, qp, &attr, mask | RDMA_QP_STATE, &err) < 0)
		bench_die("modify QP", &err);
}

void bench_qp_connect_rc(struct rdma_device *dev, struct rdma_qp *qp, const struct bench_rc_path *path)
{
	struct rdma_qp_attr a = {
		.access_flags = RDMA_ACCESS_ALL, .path_mtu = path->path_mtu,
		.max_dest_rd_atomic = path->max_rd_atomic, .min_rnr_timer = 1,
		.timeout = path->timeout ? path->timeout : 14,
		.retry_cnt = 7, .rnr_retry = 7, .max_rd_atomic = path->max_rd_atomic,
		.dest_qp_num = path->dest_qpn, .sq_psn = path->sq_psn, .rq_psn = path->rq_psn,
	};

	a.av.sgid_index = path->sgid_index;
	a.av.hop_limit = 64;
	memcpy(a.av.dgid, path->dgid, RDMA_GID_LEN);
	modify(dev, qp, &a, RDMA_QPS_INIT, RDMA_QP_ACCESS_FLAGS);
	modify(dev, qp, &a, RDMA_QPS_RTR, RDMA_QP_AV | RDMA_QP_PATH_MTU | RDMA_QP_DEST_QPN |
	       RDMA_QP_RQ_PSN | RDMA_QP_MAX_DEST_RD_ATOMIC | RDMA_QP_MIN_RNR_TIMER);
	modify(dev, qp, &a, RDMA_QPS_RTS, RDMA_QP_TIMEOUT | RDMA_QP_RETRY_CNT | RDMA_QP_RNR_RETRY |
	       RDMA_QP_SQ_PSN | RDMA_QP_MAX_QP_RD_ATOMIC);
}
