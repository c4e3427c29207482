/* SPDX-License-Identifier: MIT */
#include "tests/bench/lib/verbs.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include <systemd/sd-event.h>

#include "daemon/soft/soft_device.h"
#include "daemon/soft/workers.h"
#include "daemon/verbs/gid.h"
#include "daemon/verbs/mr.h"
#include "daemon/verbs/qp.h"
#include "lib/cpulist.h"
#include "lib/log.h"

#define PROBE_MAX 8

unsigned bench_init(int *cpus, size_t max)
{
	int n;

	log_set_max_level(LOG_WARNING);
	n = cpulist_allowed(cpus, max);
	if (n <= 0)
		bench_die("cannot read the CPUs this process may run on", NULL);
	return (unsigned)n;
}

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

void bench_interleave(const struct bench_rows *r, double seconds, unsigned nsample)
{
	double *s = calloc((size_t)r->n * nsample + 1, sizeof(*s));

	if (!s)
		bench_die("out of memory", NULL);
	/* Warm-up: a short run of each (first touches, the workers' first turns). */
	for (unsigned i = 0; i < r->n; i++)
		(void)r->sample((char *)r->rows + i * r->size, seconds / 4);
	for (unsigned i = 0; i < r->n; i++)
		memset((char *)r->rows + i * r->size + r->forget_offset, 0, r->forget_size);
	for (unsigned k = 0; k < nsample; k++)
		for (unsigned j = 0; j < r->n; j++) {
			unsigned i = (j + k) % r->n;

			s[(size_t)i * nsample + k] = r->sample((char *)r->rows + i * r->size, seconds);
		}
	for (unsigned i = 0; i < r->n; i++) {
		double *v = s + (size_t)i * nsample;
		struct bench_stat *out = (struct bench_stat *)((char *)r->rows + i * r->size + r->stat_offset);

		qsort(v, nsample, sizeof(double), bench_cmp_double);
		*out = (struct bench_stat){ .median = v[nsample / 2], .min = v[0], .max = v[nsample - 1] };
	}
	free(s);
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

void bench_soft_start(struct bench_soft *s, unsigned index, const int *cpus, unsigned n, const uint8_t *gid)
{
	struct rdma_error err;
	struct rdma_object *pd;

	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "soft%u", index);
	if (sd_event_new(&s->event) < 0)
		bench_die("sd_event_new", NULL);
	if (worker_set_start(&s->ws, s->event, cpus, n) < 0)
		bench_die("worker_set_start failed", NULL);
	if (soft_device_create(&s->dev, s->name, index) < 0)
		bench_die("soft_device_create failed", NULL);
	if (rdma_device_start(s->dev, s->ws) < 0)
		bench_die("rdma_device_start failed", NULL);
	pd = rdma_object_create(s->dev, RDMA_OBJ_PD, &err);
	if (!pd)
		bench_die("PD", &err);
	s->pd = pd->handle;
	if (rdma_gid_add(s->dev, RDMA_QP_PORT, 0, gid, &err) < 0)
		bench_die("GID", &err);
}

void bench_soft_stop(struct bench_soft *s)
{
	s->ws = worker_set_free(s->ws);
	rdma_device_workers_stopped(s->dev);
	rdma_device_free(s->dev);
	sd_event_unref(s->event);
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
