/* SPDX-License-Identifier: MIT */
/*
 * A virtual machine's QPs through the virtqueues of its virtio-net RoCE
 * device (issue #28), driven by the test front end tests/tools/vhost-guest
 * (a guest's two RC QPs, each WQE and completion through a virtqueue),
 * beside two processes through librdmad's shared-memory rings
 * (rdmad_perftest) on the same daemon in the same run:
 *   - 64 B SEND messages/s;
 *   - 4 KiB RDMA WRITE GB/s;
 * target >= 0.5x the rings each.  The worker runs on the last CPU, the
 * front end or the processes on the first.
 */
#include "tests/bench/lib/perftest.h"
#include "tests/bench/lib/rdmad.h"
#include "tests/bench/lib/verbs.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The guest: a PD, a CQ, a GID, two RC QPs connected through it, two buffers. */
static const char guest_setup[] =
	"negotiate\nstart\ncreate_pd\ncreate_cq cqe=1024\nadd_gid index=0 gid=10.77.0.2\n"
	"create_qp pdn=1 type=rc send_cqn=1 recv_cqn=1 max_send_wr=256 max_recv_wr=256 "
	"max_send_sge=1 max_recv_sge=1 max_inline_data=64\n"
	"create_qp pdn=1 type=rc send_cqn=1 recv_cqn=1 max_send_wr=256 max_recv_wr=256 "
	"max_send_sge=1 max_recv_sge=1 max_inline_data=64\n"
	"alloc a 65536\nalloc b 65536\n"
	"reg_user_mr a pdn=1 access=local_write,remote_write,remote_read\n"
	"reg_user_mr b pdn=1 access=local_write,remote_write,remote_read\n"
	"modify_qp qpn=2 state=init access=local_write,remote_write,remote_read\n"
	"modify_qp qpn=3 state=init access=local_write,remote_write,remote_read\n"
	"modify_qp qpn=2 state=rtr dgid=10.77.0.2 sgid_index=0 path_mtu=4096 dest_qpn=3 rq_psn=0 "
	"max_dest_rd_atomic=4 min_rnr_timer=1\n"
	"modify_qp qpn=3 state=rtr dgid=10.77.0.2 sgid_index=0 path_mtu=4096 dest_qpn=2 rq_psn=0 "
	"max_dest_rd_atomic=4 min_rnr_timer=1\n"
	"modify_qp qpn=2 state=rts timeout=14 retry_cnt=7 rnr_retry=7 sq_psn=0 max_rd_atomic=4\n"
	"modify_qp qpn=3 state=rts timeout=14 retry_cnt=7 rnr_retry=7 sq_psn=0 max_rd_atomic=4\n";

/* The keys reg_user_mr gives on a new device: the first two MR slots, tag 1. */
#define KEY_A "0x101"
#define KEY_B "0x201"

/* A row: one kind of run, sampled in turn with the others. */
struct row {
	const char *label, *unit;
	bool guest;              /* through the guest's virtqueues, or librdmad's rings */
	bool write;              /* 4 KiB RDMA WRITE, or 64 B SEND */
	const char *wait;        /* the guest's: poll or event */
	const struct bench_rdmad *d;
	int cpu;
	struct bench_stat stat;
};

/* A value of the "ok ... key=value" line of a bench command, or -1. */
static double value(const char *line, const char *key)
{
	char pattern[64];
	const char *p;

	snprintf(pattern, sizeof(pattern), " %s=", key);
	p = strstr(line, pattern);
	return p ? strtod(p + strlen(pattern), NULL) : -1;
}

/* One run of vhost-guest: the setup, then the row's bench; msgs/s or GB/s. */
static double guest_sample(const struct row *r)
{
	char script[PATH_MAX + 16], cmd[3 * PATH_MAX], line[1024];
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	double figure = -1;
	FILE *f;

	snprintf(script, sizeof(script), "%s/guest.script", r->d->dir);
	f = fopen(script, "w");
	if (!f || fputs(guest_setup, f) < 0 ||
	    (r->write ? fprintf(f, "bench_write wait=%s qpn=2 cqn=1 n=1000000 size=4096 buf=a lkey=" KEY_A
			       " remote_addr=b rkey=" KEY_B "\n", r->wait)
		      : fprintf(f, "bench_send wait=%s qpn=2 cqn=1 n=1000000 size=64 recv_qpn=3 "
			       "recv_buf=b recv_lkey=" KEY_B "\n", r->wait)) < 0 ||
	    fclose(f) != 0)
		bench_die("the guest's script", NULL);
	snprintf(cmd, sizeof(cmd), "taskset -c %d %s/tools/vhost-guest %s/bench.vhost <%s", r->cpu, build,
		 r->d->dir, script);
	f = popen(cmd, "r");
	if (!f)
		bench_die("vhost-guest", NULL);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "fail", 4) == 0) {
			fprintf(stderr, "bench_vdev: vhost-guest: %s", line);
			exit(1);
		}
		if (strstr(line, "msgs_per_s="))
			figure = r->write ? value(line, "bytes_per_s") / 1e9 : value(line, "msgs_per_s");
	}
	if (pclose(f) != 0 || figure < 0) {
		fprintf(stderr, "bench_vdev: %s failed\n", cmd);
		exit(1);
	}
	return figure;
}

static double rings_sample(const struct row *r)
{
	struct json_object *o = bench_perftest(r->d->socket, r->cpu, r->write ?
					       "-t write -z 4096 -n 1000000" :
					       "-e -w 256 -t send -z 64 -n 1000000");
	double figure = bench_perftest_field(o, 0, r->write ? "gbps" : "msgs_per_sec");

	json_object_put(o);
	return figure;
}

static double sample(void *row, double seconds)
{
	const struct row *r = row;

	(void)seconds;   /* a run is so many messages, not so long */
	return r->guest ? guest_sample(r) : rings_sample(r);
}

static void print_row(const struct row *r, const struct row *rings)
{
	int digits = r->write ? 3 : 0;

	printf("%-46s %12.*f %-6s (%.*f-%.*f)", r->label, digits, r->stat.median, r->unit, digits,
	       r->stat.min, digits, r->stat.max);
	if (rings)
		printf("  x%.2f rings (target >= 0.5)", r->stat.median / rings->stat.median);
	printf("\n");
}

int main(void)
{
	int cpus[1024];
	unsigned n = bench_init(cpus, 1024);
	struct row rows[] = {
		{ "64 B SEND, librdmad rings", "msgs/s", false, false, NULL, NULL, 0, { 0, 0, 0 } },
		{ "64 B SEND, guest QP, polling guest", "msgs/s", true, false, "poll", NULL, 0, { 0, 0, 0 } },
		{ "64 B SEND, guest QP, interrupt-driven guest", "msgs/s", true, false, "event", NULL, 0, { 0, 0, 0 } },
		{ "4 KiB RDMA WRITE, librdmad rings", "GB/s", false, true, NULL, NULL, 0, { 0, 0, 0 } },
		{ "4 KiB RDMA WRITE, guest QP, polling guest", "GB/s", true, true, "poll", NULL, 0, { 0, 0, 0 } },
		{ "4 KiB RDMA WRITE, guest QP, interrupt-driven", "GB/s", true, true, "event", NULL, 0, { 0, 0, 0 } },
	};
	struct bench_rows set_of_rows = {
		.rows = rows, .size = sizeof(rows[0]), .n = sizeof(rows) / sizeof(rows[0]), .sample = sample,
		.forget_offset = 0, .forget_size = 0, .stat_offset = offsetof(struct row, stat),
	};
	struct bench_rdmad d;
	char worker[16], vdev[PATH_MAX + 128];
	cpu_set_t set;

	printf("# a VM's QPs through virtqueues (vhost-guest) beside librdmad's rings (rdmad_perftest), "
	       "%u CPU(s) allowed\n", n);
	if (n < 2) {
		printf("# one CPU: the worker and the front end share it; figures are not meaningful\n");
		return 0;
	}
	snprintf(worker, sizeof(worker), "%d", cpus[n - 1]);
	if (bench_rdmad_start_on(&d, bench_rdmad_parent(), worker) < 0)
		exit(1);
	snprintf(vdev, sizeof(vdev), "{\"name\":\"bench\",\"socket\":\"%s/bench.vhost\",\"max_qps\":8,"
		 "\"max_cqs\":4}", d.dir);
	bench_call(d.socket, "io.rdmad.Vdev.Create", vdev);
	/*
	 * rdmad's main thread serves the guest's virtqueues: it shares the
	 * guest's CPU, which the guest gives up while it waits, and leaves the
	 * worker its own, as the processes do (two CPUs either way).  Beside
	 * the spinning worker it would wait for the worker's time slices.
	 */
	CPU_ZERO(&set);
	CPU_SET(cpus[0], &set);
	if (sched_setaffinity(d.pid, sizeof(set), &set) < 0)
		bench_die("sched_setaffinity of rdmad's main thread", NULL);
	for (unsigned i = 0; i < set_of_rows.n; i++) {
		rows[i].d = &d;
		rows[i].cpu = cpus[0];
	}
	bench_cpu_probe(cpus, n < 8 ? n : 8, 0.5);
	bench_interleave(&set_of_rows, 0, 5);
	printf("# 1 worker on CPU %s; the processes, or the front end and rdmad's main thread, on CPU %d\n",
	       worker, cpus[0]);
	printf("# a polling guest spins on its CQ; an interrupt-driven one arms it (REQ_NOTIFY_CQ) and sleeps\n");
	printf("# medians of 5 interleaved runs (min-max)\n");
	for (unsigned i = 0; i < set_of_rows.n; i++)
		print_row(&rows[i], rows[i].guest ? &rows[rows[i].write ? 3 : 0] : NULL);
	return bench_rdmad_stop(&d) < 0;
}
