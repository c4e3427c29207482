/* SPDX-License-Identifier: MIT */
/*
 * Applications on the device (issue #14): two processes through librdmad's
 * shared-memory rings, measured by examples/rdmad_perftest against a real
 * rdmad, beside what bounds them measured in this run on this machine:
 *   - 64 B SEND messages/s and latency (half a round trip);
 *   - 4 KiB and 64 KiB RDMA WRITE GB/s against memcpy of the same size;
 *   - 4 KiB WRITE into a T10-DIF + AES-256-XTS MKEY against the offload
 *     engine alone doing the same transform (wire to memory) on 4 KiB;
 * with one worker; with two when the machine has CPUs for two workers
 * beside the two processes (else it says so).  The applications are pinned
 * to a CPU no worker runs on, and the receiving side of SEND waits on a
 * completion channel (-e): on a small machine a third spinning thread would
 * only take turns with the others.
 */
#include "dataplane/offload/transform.h"
#include "lib/varlink/varlink.h"
#include "tests/bench/lib/perftest.h"
#include "tests/bench/lib/rdmad.h"
#include "tests/bench/lib/verbs.h"

#include <grp.h>
#include <limits.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SECONDS 0.3
#define DEK_NAME "bench"

/* A public, fixed AES-256-XTS key (key1 || key2), base64: the bench needs no secret. */
static const char dek_key_b64[] =
	"JxgoGChFkEUjU2AodHE1JmJJd1ckcJNpmVlXSWaWdicxQVkmU1iXkyOEYmQzgyeVAohBlxaTmTdRBYIJdJRFkg==";
static const uint8_t dek_key[64] = {
	0x27, 0x18, 0x28, 0x18, 0x28, 0x45, 0x90, 0x45, 0x23, 0x53, 0x60, 0x28, 0x74, 0x71, 0x35, 0x26,
	0x62, 0x49, 0x77, 0x57, 0x24, 0x70, 0x93, 0x69, 0x99, 0x59, 0x57, 0x49, 0x66, 0x96, 0x76, 0x27,
	0x31, 0x41, 0x59, 0x26, 0x53, 0x58, 0x97, 0x93, 0x23, 0x84, 0x62, 0x64, 0x33, 0x83, 0x27, 0x95,
	0x02, 0x88, 0x41, 0x97, 0x16, 0x93, 0x99, 0x37, 0x51, 0x05, 0x82, 0x09, 0x74, 0x94, 0x45, 0x92,
};

static volatile uint8_t sink;


/*
 * memcpy of size bytes between two buffers that stay in cache, page-aligned
 * as the transfers' buffers are (memfds).  (Where malloc put two buffers,
 * their distance could make a copy ten times slower on this CPU: a
 * reference must not depend on that.)
 */
static double memcpy_gbs(size_t size)
{
	uint8_t *a = aligned_alloc(4096, size), *b = aligned_alloc(4096, size);
	double t0, t1;
	uint64_t n = 0;

	if (!a || !b)
		bench_die("memory", NULL);
	memset(a, 1, size);
	memset(b, 2, size);
	t0 = bench_now();
	do {
		for (unsigned i = 0; i < 64; i++, n++) {
			memcpy(b, a, size);
			__asm__ volatile("" : : "r"(b) : "memory");
		}
		t1 = bench_now();
	} while (t1 - t0 < SECONDS);
	sink = b[n % size];
	free(a);
	free(b);
	return (double)n * (double)size / (t1 - t0) / 1e9;
}

/* The engine alone: 4 KiB of wire bytes decrypted and given T10-DIF into memory, what the MKEY does. */
static double engine_gbs(void)
{
	struct dp_transform_cfg cfg;
	struct dp_transform *t;
	struct dp_sig_err x;
	struct dp_error de;
	static uint8_t in[4096], out[4096 + 4096 / 512 * 8];
	size_t out_len;
	double t0, t1;
	uint64_t n = 0;

	dp_transform_cfg_init(&cfg);
	cfg.mem.sig_type = DP_SIG_T10DIF;
	cfg.mem.block_size = 512;
	cfg.mem.t10dif.bg = 0xffff;
	cfg.crypto.enabled = true;
	cfg.crypto.standard = DP_CRYPTO_AES_XTS;
	cfg.crypto.encrypt_on_tx = true;
	cfg.crypto.data_unit_size = 512;
	if (dp_transform_create(&cfg, dek_key, sizeof(dek_key), &t, &de) < 0)
		bench_die("the engine's transform", NULL);
	t0 = bench_now();
	do {
		for (unsigned i = 0; i < 64; i++, n++)
			if (dp_transform_run(t, DP_RX, in, sizeof(in), out, sizeof(out), &out_len, &x, &de) < 0)
				bench_die("the engine", NULL);
		t1 = bench_now();
	} while (t1 - t0 < SECONDS);
	sink = out[n % sizeof(out)];
	dp_transform_destroy(t);
	return (double)n * 4096 / (t1 - t0) / 1e9;
}

static void run(const int *cpus, unsigned n_cpus, unsigned workers, double mc4k, double mc64k,
		double engine)
{
	struct bench_rdmad d;
	struct json_object *send, *lat, *write, *mkey;
	char list[64] = "";
	int app_cpu = cpus[0];

	/* The workers on the last CPUs, the two processes on the first. */
	for (unsigned i = 0; i < workers; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%d", i ? "," : "",
			 cpus[n_cpus - 1 - i]);
	if (bench_rdmad_start_on(&d, bench_rdmad_parent(), list) < 0)
		exit(1);
	/*
	 * The tenant reaches the socket, registers what the runs need, and may
	 * configure MKEYs with the bench's DEK (below).
	 */
	if (bench_perftest_tenant()[0]) {
		char conf[PATH_MAX + 16];
		FILE *f;

		snprintf(conf, sizeof(conf), "%s/rdmad.conf", d.dir);
		f = fopen(conf, "w");
		if (!f || fputs("max_registered_bytes_per_uid = 4294967296\n", f) < 0 || fclose(f) != 0 ||
		    chmod(d.dir, 0755) < 0 || chmod(d.socket, 0666) < 0)
			bench_die("tenant setup", NULL);
		bench_call(d.socket, "io.rdmad.Daemon.Reload", "{}");
	}
	char dek[384];

	snprintf(dek, sizeof(dek), "{\"name\":\"" DEK_NAME "\",\"size\":256,\"key\":\"%s\"%s}",
		 dek_key_b64, bench_perftest_tenant()[0] ? ",\"allow\":[\"@rdma\"]" : "");
	bench_call(d.socket, "io.rdmad.Dek.Create", dek);
	send = bench_perftest(d.socket, app_cpu, "-e -w 256 -t send -z 64 -n 2000000");
	lat = bench_perftest(d.socket, app_cpu, "-e -t lat -z 64 -n 20000");
	write = bench_perftest(d.socket, app_cpu, "-t write -z 4096,65536 -n 400000");
	mkey = bench_perftest(d.socket, app_cpu, "-t write -z 4096 -n 200000 -m sig+crypto -k " DEK_NAME);
	printf("# %u worker(s) on CPU %s; both processes on CPU %d\n", workers, list, app_cpu);
	printf("%-44s %12.0f msgs/s   (target >= 4000000)\n", "64 B SEND, 2 processes", bench_perftest_field(send, 0, "msgs_per_sec"));
	printf("%-44s %12.2f us avg, %.2f p50, %.2f p99\n", "64 B SEND latency (half round trip)",
	       bench_perftest_field(lat, 0, "lat_avg_us"), bench_perftest_field(lat, 0, "lat_p50_us"), bench_perftest_field(lat, 0, "lat_p99_us"));
	printf("%-44s %12.3f GB/s   x%.2f memcpy 4 KiB (target >= 0.3)\n", "4 KiB RDMA WRITE",
	       bench_perftest_field(write, 0, "gbps"), bench_perftest_field(write, 0, "gbps") / mc4k);
	printf("%-44s %12.3f GB/s   x%.2f memcpy 64 KiB (target >= 0.6)\n", "64 KiB RDMA WRITE",
	       bench_perftest_field(write, 1, "gbps"), bench_perftest_field(write, 1, "gbps") / mc64k);
	printf("%-44s %12.3f GB/s   x%.2f engine alone (target >= 0.8)\n", "4 KiB WRITE into T10-DIF+AES-XTS MKEY",
	       bench_perftest_field(mkey, 0, "gbps"), bench_perftest_field(mkey, 0, "gbps") / engine);
	json_object_put(send);
	json_object_put(lat);
	json_object_put(write);
	json_object_put(mkey);
	if (bench_rdmad_stop(&d) < 0)
		exit(1);
}

int main(void)
{
	int cpus[1024];
	unsigned n = bench_init(cpus, 1024);
	double mc4k = memcpy_gbs(4096), mc64k = memcpy_gbs(65536), engine = engine_gbs();

	printf("# librdmad between two processes (rdmad_perftest), %u CPU(s) allowed\n", n);
	bench_perftest_tenant_init();
	printf("%-44s %12.3f GB/s\n", "memcpy 4 KiB (this run)", mc4k);
	printf("%-44s %12.3f GB/s\n", "memcpy 64 KiB (this run)", mc64k);
	printf("%-44s %12.3f GB/s\n", "engine T10-DIF+AES-XTS 4 KiB wire->memory", engine);
	if (n < 2) {
		printf("# one CPU: the worker and the processes share it; figures are not meaningful\n");
		return 0;
	}
	run(cpus, n, 1, mc4k, mc64k, engine);
	/* Two workers and a CPU for the two processes: fewer leaves a worker sharing with them. */
	if (n >= 3)
		run(cpus, n, 2, mc4k, mc64k, engine);
	else
		printf("# two workers: not measured, %u CPUs leave none for the processes beside them\n", n);
	return 0;
}
