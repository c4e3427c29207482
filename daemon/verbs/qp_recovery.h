/* SPDX-License-Identifier: MIT */
/*
 * What a QP keeps of its recoveries from a signature-pipelining stop: its
 * policy, the failures it stopped for, and a record of each run.  The engine
 * that runs them is daemon/verbs/recovery.h; the QP (qp.c) only holds this
 * state and forgets the failures once it leaves SQD.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "dataplane/offload/sig.h"

enum rdma_recovery_policy {
	RDMA_RECOVERY_MANUAL,
	RDMA_RECOVERY_AUTO,
};

#define RDMA_RECOVERY_FAILED_MAX   16   /* failed MKEYs one record lists */
#define RDMA_RECOVERY_RECORDS      16   /* records a QP keeps, the newest */
#define RDMA_RECOVERY_SUSPECTS_MAX 64   /* failing transfers a QP remembers until its recovery */

/* An MKEY whose check found an error, and what was done about it. */
struct rdma_recovery_failure {
	uint32_t mkey;
	uint64_t wr_id;           /* its transaction: posted WRs with this wr_id were canceled */
	struct dp_sig_err err;    /* what mkey check read */
	uint32_t canceled;
};

struct rdma_recovery_record {
	uint64_t seq;             /* 1, 2, ... per QP */
	bool automatic;
	uint64_t at_usec;         /* CLOCK_REALTIME when the QP was back in RTS */
	uint64_t since_error_ns;  /* from finding the error that stopped the QP to RTS; 0: none did */
	uint64_t took_ns;         /* the four steps */
	uint32_t checked;         /* MKEYs checked */
	uint32_t canceled;        /* WRs canceled */
	unsigned n_failed;
	struct rdma_recovery_failure failed[RDMA_RECOVERY_FAILED_MAX];
};

/* What a QP remembers of its signature errors and recoveries (some 15 KiB). */
struct rdma_qp_recovery_log {
	struct {
		uint32_t mkey;
		uint64_t wr_id;
	} suspects[RDMA_RECOVERY_SUSPECTS_MAX];
	unsigned n_suspects;
	struct rdma_recovery_record records[RDMA_RECOVERY_RECORDS];   /* runs % RECORDS is the next */
};

/* The recovery state of one QP (main thread). */
struct rdma_qp_recovery {
	enum rdma_recovery_policy policy;
	uint64_t stopped_at_ns;   /* CLOCK_MONOTONIC: the error that stopped the QP; 0: none pending */
	uint64_t runs;
	/*
	 * Made at the QP's first signature error or recovery, freed with the
	 * QP: most QPs never have one, and tens of thousands of idle QPs should
	 * not each carry it.  NULL: nothing to remember yet.
	 */
	struct rdma_qp_recovery_log *log;
};

/*
 * The QP left SQD (recovered, by rdmad or by hand, or taken to ERR or RESET):
 * the failures it stopped for are dealt with.
 */
static inline void rdma_qp_recovery_left_sqd(struct rdma_qp_recovery *rec)
{
	if (rec->log)
		rec->log->n_suspects = 0;
	rec->stopped_at_ns = 0;
}
