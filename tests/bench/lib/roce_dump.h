/* SPDX-License-Identifier: MIT */
/*
 * When a RoCE transfer stops moving: what each QP's connection and its
 * worker are doing, printed so that one failure tells the stuck state
 * (bench_roce, test_roce_load).
 */
#pragma once

#include <stdio.h>

struct rdma_qp;
struct dp_roce_counters;

#define BENCH_ROCE_DUMP_MAX 4

/*
 * Prints on f, for each of the n QPs (names[i] says which; at most
 * BENCH_ROCE_DUMP_MAX): its worker's sleeping flag and loop counters (read
 * from outside first, so that a worker asleep with work to do is seen as it
 * is, then again after 100 ms), the QP's connection as its worker sees it
 * (dp_roce_qp_snapshot, taken as a command, the QPs one right after the
 * other: the answer also says whether the worker still runs its turns) and
 * the QP's RoCE counters.
 */
void bench_roce_dump(FILE *f, struct rdma_qp *const *qps, const char *const *names, unsigned n);

/* One line of RoCE counters (a QP's, or a device's sum), "  whose counters: ...". */
void bench_roce_print_counters(FILE *f, const char *whose, const struct dp_roce_counters *c);
