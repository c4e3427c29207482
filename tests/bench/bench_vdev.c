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

struct guest_figures {
	double send_msgs, write_bytes;
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

static struct guest_figures guest(const struct bench_rdmad *d, int cpu)
{
	struct guest_figures fig = { -1, -1 };
	char script[PATH_MAX + 16], cmd[3 * PATH_MAX], line[1024];
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	unsigned benches = 0;
	FILE *f;

	snprintf(script, sizeof(script), "%s/guest.script", d->dir);
	f = fopen(script, "w");
	if (!f || fputs(guest_setup, f) < 0 ||
	    fprintf(f, "bench_send qpn=2 cqn=1 n=300000 size=64 recv_qpn=3 recv_buf=b "
		       "recv_lkey=" KEY_B "\n"
		       "bench_write qpn=2 cqn=1 n=100000 size=4096 buf=a lkey=" KEY_A
		       " remote_addr=b rkey=" KEY_B "\n") < 0 || fclose(f) != 0)
		bench_die("the guest's script", NULL);
	snprintf(cmd, sizeof(cmd), "taskset -c %d %s/tools/vhost-guest %s/bench.vhost <%s", cpu, build,
		 d->dir, script);
	f = popen(cmd, "r");
	if (!f)
		bench_die("vhost-guest", NULL);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "fail", 4) == 0) {
			fprintf(stderr, "bench_vdev: vhost-guest: %s", line);
			exit(1);
		}
		if (!strstr(line, "msgs_per_s="))
			continue;
		if (benches++ == 0)
			fig.send_msgs = value(line, "msgs_per_s");
		else
			fig.write_bytes = value(line, "bytes_per_s");
	}
	if (pclose(f) != 0 || benches != 2) {
		fprintf(stderr, "bench_vdev: %s failed\n", cmd);
		exit(1);
	}
	return fig;
}

int main(void)
{
	int cpus[1024];
	unsigned n = bench_init(cpus, 1024);
	struct json_object *send, *write;
	struct guest_figures g;
	struct bench_rdmad d;
	char worker[16], vdev[PATH_MAX + 128];
	double ring_send, ring_write;

	printf("# a VM's QPs through virtqueues (vhost-guest) beside librdmad's rings (rdmad_perftest), "
	       "%u CPU(s) allowed\n", n);
	if (n < 2) {
		printf("# one CPU: the worker and the front end share it; figures are not meaningful\n");
		return 0;
	}
	snprintf(worker, sizeof(worker), "%d", cpus[n - 1]);
	if (bench_rdmad_start_on(&d, bench_rdmad_parent(), worker) < 0)
		exit(1);
	send = bench_perftest(d.socket, cpus[0], "-e -w 256 -t send -z 64 -n 500000");
	write = bench_perftest(d.socket, cpus[0], "-t write -z 4096 -n 200000");
	ring_send = bench_perftest_field(send, 0, "msgs_per_sec");
	ring_write = bench_perftest_field(write, 0, "gbps");
	snprintf(vdev, sizeof(vdev), "{\"name\":\"bench\",\"socket\":\"%s/bench.vhost\",\"max_qps\":8,"
		 "\"max_cqs\":4}", d.dir);
	bench_call(d.socket, "io.rdmad.Vdev.Create", vdev);
	g = guest(&d, cpus[0]);
	printf("# 1 worker on CPU %s; the processes, or the front end, on CPU %d\n", worker, cpus[0]);
	printf("%-44s %12.0f msgs/s\n", "64 B SEND, librdmad rings", ring_send);
	printf("%-44s %12.0f msgs/s   x%.2f rings (target >= 0.5)\n", "64 B SEND, guest QP, virtqueues",
	       g.send_msgs, g.send_msgs / ring_send);
	printf("%-44s %12.3f GB/s\n", "4 KiB RDMA WRITE, librdmad rings", ring_write);
	printf("%-44s %12.3f GB/s   x%.2f rings (target >= 0.5)\n", "4 KiB RDMA WRITE, guest QP, virtqueues",
	       g.write_bytes / 1e9, g.write_bytes / 1e9 / ring_write);
	json_object_put(send);
	json_object_put(write);
	return bench_rdmad_stop(&d) < 0;
}
