/* SPDX-License-Identifier: MIT */
/* Inside the data path (daemon/soft/datapath.c, post.c, transfer.c). */
#pragma once

#include "daemon/soft/datapath.h"
#include "dataplane/worker.h"

#define DP_QP_BUCKETS 256

/*
 * What a worker tells the main thread beyond an event's few words: pushed on
 * a list of its device (rdma_dp_worker_ctx.reports) before the completion
 * that follows it is written, so that whoever has seen the completion finds
 * the report applied by the next rdma_datapath_sync.
 */
/* A transfer of the QP's WR wr_id failed a signature check through an MKEY. */
struct rdma_dp_report {
	struct rdma_dp_report *next;
	const struct rdma_dp_qp *q;   /* compared, never reached: the QP may be gone */
	uint32_t qpn;
	uint64_t wr_id;
	uint32_t mkey;                /* by key: the MKEY may be gone or configured again */
	enum dp_dir dir;
	struct dp_sig_err err;
	uint64_t at_ns;               /* CLOCK_MONOTONIC */
};

/* What one worker holds of one device. */
struct rdma_dp_worker_ctx {
	/* Worker only: its QPs of the device by number. */
	struct rdma_dp_qp *qps[DP_QP_BUCKETS];
	/* Worker only: where transfers through MKEYs stage bytes that are not in one piece. */
	uint8_t *scratch[2];
	size_t scratch_size[2];
	/* Written by the worker, read by the main thread. */
	struct rdma_dp_counters counters;
	_Atomic(struct rdma_dp_report *) reports;   /* newest first */
};

struct rdma_datapath {
	struct rdma_device *dev;
	struct worker_set *ws;    /* gone once the workers stopped */
	unsigned n_workers;
	bool running;             /* false once the workers have stopped */
	struct dp_worker *ud_worker;   /* where every UD QP of the device goes */
	struct rdma_dp_worker_ctx *per_worker;   /* one per worker of ws, by index */
	struct dp_keytab keytab;                 /* what the workers resolve keys in */
	struct dp_worker **workers;              /* the workers, for the key table's barriers */
	void (*cq_hook)(struct rdma_device *dev, void *userdata);
	void *cq_hook_data;
};

/* Worker: a QP of the device it owns, or NULL. */
struct rdma_dp_qp *rdma_dp_worker_qp(struct rdma_datapath *dp, struct dp_worker *w, uint32_t qpn);
/* Worker: hands r (malloc'ed) to the main thread, which frees it. */
void rdma_dp_report_push(struct dp_worker *w, struct rdma_dp_qp *q, struct rdma_dp_report *r);
/* Worker: the poller of an attached QP (daemon/soft/transfer.c). */
unsigned rdma_dp_qp_poll(struct dp_worker *w, void *arg);

static inline struct rdma_dp_slot *rdma_dp_sq_slot(struct rdma_dp_qp *q, uint32_t index)
{
	return &q->sq_slots[index & q->sq.mask];
}
