/* SPDX-License-Identifier: MIT */
/*
 * When a RoCE transfer stops moving: what each QP's connection and its
 * worker are doing, printed so that one failure tells the stuck state
 * (bench_roce, test_roce_load).
 */
#pragma once

#include <stdio.h>

struct rdma_qp;

/*
 * Prints on f, under the heading name: the worker's sleeping flag and loop
 * counters (read from outside first, so that a worker asleep with work to do
 * is seen as it is, then again after 100 ms), the QP's connection as its
 * worker sees it (dp_roce_qp_snapshot, taken as a command: the answer says
 * whether the worker still runs its turns) and the QP's RoCE counters.
 */
void bench_roce_dump(FILE *f, const char *name, struct rdma_qp *qp);
