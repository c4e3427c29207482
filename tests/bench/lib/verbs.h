/* SPDX-License-Identifier: MIT */
/*
 * What the in-process data-path benches share (bench_datapath, bench_roce):
 * the clock, medians, failing loudly, the CPU check printed beside their
 * tables, and an RC QP taken from RESET to RTS.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

struct rdma_device;
struct rdma_error;
struct rdma_qp;
struct worker_set;
struct sd_event;

/*
 * What an in-process bench does first: logs only warnings and worse, and
 * fills cpus with the CPUs this process may run on; returns how many (at
 * least 1: it dies when it cannot tell).
 */
unsigned bench_init(int *cpus, size_t max);
/* CLOCK_MONOTONIC in seconds. */
double bench_now(void);
/* qsort's comparison of doubles, ascending. */
int bench_cmp_double(const void *a, const void *b);
/* Prints "PROGRAM: what[: field: reason]" on stderr and exits 1. */
void bench_die(const char *what, const struct rdma_error *err) __attribute__((noreturn));

/*
 * How much of the CPUs this process gets while it keeps them all busy: one
 * thread spinning on each of cpus[0..n) at once for seconds, the time lost
 * in gaps of more than 20 us between two readings of the clock (the guest's
 * scheduler or the hypervisor running something else), printed as a
 * "# CPU check" line, so that the rows' spread can be judged.  n <= 8.
 */
void bench_cpu_probe(const int *cpus, unsigned n, double seconds);

/*
 * Rows measured by interleaved samples: sample(row, seconds) measures one
 * sample of a row; once each as a warm-up of a quarter of seconds (after
 * which each row's forget_size bytes at forget_offset, what it counts over
 * the samples, are zeroed), then nsample rounds (A, B, C, A, B, C, ...; each
 * round starting one row later).  Row i is at (char *)rows + i * size; its
 * median, min and max go to its struct bench_stat at stat_offset.
 */
struct bench_stat {
	double median, min, max;
};

struct bench_rows {
	void *rows;
	size_t size;
	unsigned n;
	double (*sample)(void *row, double seconds);
	size_t forget_offset, forget_size, stat_offset;
};

void bench_interleave(const struct bench_rows *r, double seconds, unsigned nsample);

/*
 * A software device named softINDEX on its own started worker set, one
 * worker on each of cpus[0..n) (as rdmad: worker_set_start,
 * rdma_device_start), with a PD and gid at index 0 of port 1.  The worker
 * threads are in the network namespace of the calling thread.
 */
struct bench_soft {
	char name[16];
	struct sd_event *event;
	struct worker_set *ws;
	struct rdma_device *dev;
	uint32_t pd;
};

void bench_soft_start(struct bench_soft *s, unsigned index, const int *cpus, unsigned n, const uint8_t *gid);
/* As rdmad tears down (manager_free): workers stopped first, then the device and its data path. */
void bench_soft_stop(struct bench_soft *s);

/* Where an RC QP is connected to and how (bench_qp_connect_rc). */
struct bench_rc_path {
	uint32_t dest_qpn;
	const uint8_t *dgid;      /* RDMA_GID_LEN bytes: a GID of this device (loopback) or of the peer's */
	uint32_t sgid_index;      /* of port 1 */
	uint32_t path_mtu;        /* bytes */
	uint32_t sq_psn, rq_psn;
	uint32_t max_rd_atomic;   /* both ways (max_rd_atomic, max_dest_rd_atomic) */
	uint32_t timeout;         /* 4.096 us << timeout; 0: 14 (67 ms) */
};

/*
 * RESET -> INIT -> RTR -> RTS towards path, with what daemon/verbs/qp_state.c
 * requires of RC: all access, retry_cnt 7, rnr_retry 7, min_rnr_timer 1,
 * hop limit 64.
 */
void bench_qp_connect_rc(struct rdma_device *dev, struct rdma_qp *qp, const struct bench_rc_path *path);
