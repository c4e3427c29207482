/* SPDX-License-Identifier: MIT */
/* Inside the data path (daemon/datapath.c, post.c, transfer.c). */
#pragma once

#include "daemon/datapath.h"
#include "dataplane/worker.h"

#define DP_QP_BUCKETS 256

/* What one worker holds of one device. */
struct rdma_dp_worker_ctx {
	/* Worker only: its QPs of the device by number. */
	struct rdma_dp_qp *qps[DP_QP_BUCKETS];
	/* Written by the worker, read by the main thread. */
	struct rdma_dp_counters counters;
};

struct rdma_datapath {
	struct rdma_device *dev;
	struct worker_set *ws;
	bool running;             /* false once the workers have stopped */
	struct dp_worker *ud_worker;   /* where every UD QP of the device goes */
	struct rdma_dp_worker_ctx *per_worker;   /* one per worker of ws, by index */
	void (*cq_hook)(struct rdma_device *dev, void *userdata);
	void *cq_hook_data;
};

/* Worker: a QP of the device it owns, or NULL. */
struct rdma_dp_qp *rdma_dp_worker_qp(struct rdma_datapath *dp, struct dp_worker *w, uint32_t qpn);
/* Worker: the poller of an attached QP (daemon/transfer.c). */
unsigned rdma_dp_qp_poll(struct dp_worker *w, void *arg);

static inline struct rdma_dp_wqe_ctx *rdma_dp_sq_ctx(struct rdma_dp_qp *q, uint32_t index)
{
	return (struct rdma_dp_wqe_ctx *)(q->sq_ctx + (size_t)(index & q->sq.mask) * q->sq_ctx_stride);
}

static inline struct rdma_dp_wqe_ctx *rdma_dp_rq_ctx(struct rdma_dp_qp *q, uint32_t index)
{
	return (struct rdma_dp_wqe_ctx *)(q->rq_ctx + (size_t)(index & q->rq.mask) * q->rq_ctx_stride);
}
