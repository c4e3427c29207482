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
 * soon as the QP stops: the driver's handler of the stop calls
 * rdma_recovery_stopped()).  Each run leaves a record on the QP
 * (daemon/verbs/qp_recovery.h: what the QP keeps, which qp.c needs without
 * the engine).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "daemon/verbs/qp_recovery.h"
#include "dataplane/offload/transform.h"

struct rdma_device;
struct rdma_qp;
struct rdma_error;

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
 * The data path stopped qp and the model followed (rdma_qp_sig_stopped()
 * said so): the auto policy recovers it now; a failure is logged, the QP
 * stays in SQD for whoever recovers it by hand.
 */
void rdma_recovery_stopped(struct rdma_device *dev, struct rdma_qp *qp);

/* The QP's records, newest first: i = 0, 1, ... until NULL. */
const struct rdma_recovery_record *rdma_qp_recovery_record(const struct rdma_qp *qp, unsigned i);
/* rec's log, made if it has none yet (struct rdma_qp_recovery); -ENOMEM. */
int rdma_qp_recovery_log(struct rdma_qp_recovery *rec);
