/* SPDX-License-Identifier: MIT */
/*
 * What the in-process data-path benches share (bench_datapath, bench_roce):
 * the clock, medians, failing loudly, the CPU check printed beside their
 * tables, and an RC QP taken from RESET to RTS.
 */
#pragma once

#include <stdint.h>

struct rdma_device;
struct rdma_error;
struct rdma_qp;

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
