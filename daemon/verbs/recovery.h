/* SPDX-License-Identifier: MIT */
/*
 * Recovery from a signature-pipelining stop (reference mlx5_sig_crypto.md §5,
 * seed 003), done by rdmad for the application, in the seed's four steps:
 *  1. drain: apply every signature error the workers found (what polling the
 *     CQ does with SIG_ERR CQEs on hardware; users' completions stay theirs);
 *  2. mkey check every MKEY of an open transaction on the QP: the MKEYs whose
 *     transfers failed since the last recovery, and those of WRs still posted;
 *  3. cancel, for each MKEY that had an error, the posted WRs with the wr_id of
 *     its transaction (the fenced response among them);
 *  4. move the QP from SQD back to RTS.
 * A QP's policy says who starts it: manual (rdmactl qp recover) or auto (as
 * soon as the QP stops).  Each run leaves a record on the QP.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "dataplane/offload/sig.h"
#include "dataplane/offload/transform.h"

struct rdma_device;
struct rdma_qp;
struct rdma_error;

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

/* The recovery state of one QP (main thread). */
struct rdma_qp_recovery {
	enum rdma_recovery_policy policy;
	uint64_t stopped_at_ns;   /* CLOCK_MONOTONIC: the error that stopped the QP; 0: none pending */
	struct {
		uint32_t mkey;
		uint64_t wr_id;
	} suspects[RDMA_RECOVERY_SUSPECTS_MAX];
	unsigned n_suspects;
	uint64_t runs;
	struct rdma_recovery_record records[RDMA_RECOVERY_RECORDS];   /* runs % RECORDS is the next */
};

const char *rdma_recovery_policy_name(enum rdma_recovery_policy policy);
/* The policy of a name, or -1. */
int rdma_recovery_policy_from_name(const char *name);

/*
 * A worker found a signature error in a transfer of WR wr_id of QP qpn (qp:
 * that QP, NULL when it is gone): recorded on the MKEY, told to the monitor,
 * remembered for the QP's recovery.
 */
void rdma_recovery_sig_error(struct rdma_device *dev, struct rdma_qp *qp, uint32_t qpn, uint64_t wr_id,
			     uint32_t mkey, enum dp_dir dir, const struct dp_sig_err *e);

/*
 * mlx5dv_qp_cancel_posted_send_wrs: every posted, not yet executed send WR of
 * the QP (in SQD) with wr_id becomes a NOP; *count of them.
 */
int rdma_qp_cancel(struct rdma_device *dev, struct rdma_qp *qp, uint64_t wr_id, uint32_t *count,
		   struct rdma_error *err);

/* The four steps once, on a QP in SQD; *out: its record. */
int rdma_qp_recover(struct rdma_device *dev, struct rdma_qp *qp, bool automatic,
		    const struct rdma_recovery_record **out, struct rdma_error *err);

/*
 * The QP left SQD (recovered, by rdmad or by hand, or taken to ERR or RESET):
 * the failures it stopped for are dealt with.
 */
void rdma_recovery_left_sqd(struct rdma_qp *qp);

/* The QP's records, newest first: i = 0, 1, ... until NULL. */
const struct rdma_recovery_record *rdma_qp_recovery_record(const struct rdma_qp *qp, unsigned i);
