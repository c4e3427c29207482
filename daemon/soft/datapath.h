/* SPDX-License-Identifier: MIT */
/*
 * The data path of a device: QPs' send and receive queues executed by the
 * dataplane workers, completion queues they write into.
 *
 * Ownership (docs/decisions.md, "Data path"):
 *  - A QP's send and receive queues are dataplane queues (dataplane/queue.h)
 *    of entries in the RFC's formats (dataplane/wqe.h): the main thread
 *    posts, the QP's worker copies each entry out, checks it and resolves
 *    its keys (lkey, rkey, MKEY) in the device's key table
 *    (dataplane/keytab.h) when it executes it, against its QP's PD.
 *  - From the first state past INIT on, a QP belongs to one worker: its
 *    state as the data path sees it, RNR retries and counters are written by
 *    that worker only.  The main thread changes them by commands.
 *  - Transfers run on the requester's worker, which also plays the
 *    responder: a QP goes to the worker of the QP it is connected to, so both
 *    ends of an RC or UC connection share one worker and one writer.
 *  - A CQ has one lane per worker: a work queue of completion entries whose
 *    producer is that worker and whose consumer is the main thread (poll).
 *    An atomic count of the entries in all lanes enforces the CQ's size.
 * Nothing here knows of JSON.
 */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "dataplane/keytab.h"
#include "dataplane/mkey.h"
#include "dataplane/offload/sig.h"
#include "dataplane/queue.h"
#include "dataplane/wqe.h"
#include "daemon/verbs/device.h"
#include "daemon/verbs/qp_state.h"

struct worker_set;
struct dp_worker;
struct rdma_qp;
struct rdma_cq;
struct rdma_mkey;

/* What a QP, a worker (for the device) or the device counts. */
struct rdma_dp_counters {
	_Atomic uint64_t wrs[DP_WR_OPCODE_COUNT];      /* send WRs executed, by opcode */
	_Atomic uint64_t recvs;                        /* receive WRs consumed by a transfer */
	_Atomic uint64_t bytes_sent;                   /* by the requester: SEND and WRITE payload */
	_Atomic uint64_t bytes_read;                   /* by the requester: RDMA READ payload */
	_Atomic uint64_t completions[DP_WC_STATUS_COUNT];
	_Atomic uint64_t rnr_naks;                     /* SEND or WRITE_IMM met an empty receive queue */
	_Atomic uint64_t cq_overflows;                 /* a completion found its CQ full */
	_Atomic uint64_t lost;                         /* UC/UD messages sent that no receiver took */
	_Atomic uint64_t sig_errors[DP_SIG_ERR_APPTAG + 1];  /* by enum dp_sig_err_type (0 unused) */
	_Atomic uint64_t sig_stops;                    /* sig_pipelining: the SQ stopped in SQD */
	_Atomic uint64_t nops;                         /* canceled WRs executed as NOPs */
};

/* The completion entries of one CQ. */
struct rdma_cq_ring {
	_Atomic uint32_t refs;    /* the CQ, and each QP the data path holds that completes into it */
	_Atomic uint32_t used;    /* entries in all lanes */
	uint32_t capacity;        /* the CQ's cqe */
	uint32_t cqn;
	_Atomic bool wanted;      /* the main thread waits for the next entry: workers tell it */
	_Atomic bool armed;       /* REQ_NOTIFY_CQ: workers tell the main thread of each entry */
	uint32_t next_lane;       /* main thread: where the next poll starts */
	unsigned n_lanes;
	struct dp_queue lanes[];  /* lane i: written by worker i, read by the main thread */
};

struct rdma_datapath;

/*
 * What the driver keeps beside a posted send WR, in a slot of the same
 * index: what the entry's format has no room for.  Written when the WR is
 * posted (and by a cancel, while the worker starts no WQE).
 */
struct rdma_dp_slot {
	bool canceled;            /* made a NOP by rdma_dp_cancel */
	/* UD: the AH's address vector, as mlx5 puts it in the WQE. */
	bool ud_local;            /* the destination GID is the device's and the message fits the MTU */
	uint32_t ud_qkey;         /* the Q_Key the message carries */
	uint8_t grh[DP_GRH_LEN];  /* what the receive gets before the payload */
};

/* One QP's data path.  Fields below "worker" are the worker's once attached. */
struct rdma_dp_qp {
	struct rdma_datapath *dp;
	uint32_t qpn;
	enum rdma_qp_type type;
	struct dp_worker *worker;         /* set by the main thread when it attaches the QP */
	uint32_t pd;                      /* keys of its WRs resolve against it */
	struct dp_queue sq, rq;           /* entries: struct dp_sq_req / dp_rq_req + SGEs */
	struct rdma_dp_slot *sq_slots;
	uint32_t max_send_wr, max_recv_wr;
	uint32_t max_send_sge, max_recv_sge, max_inline;
	struct rdma_cq_ring *send_cq, *recv_cq;
	bool sq_sig_all;
	bool sig_pipelining;              /* a signature error stops the send queue in SQD */
	struct rdma_dp_counters counters;
	/* Worker only. */
	enum rdma_qp_state state;
	uint32_t access_flags, dest_qpn, rnr_retry, min_rnr_timer, max_dest_rd_atomic, qkey;
	bool error_pending;               /* went to ERR; the main thread has not been told yet */
	bool stop_pending;                /* stopped in SQD; the main thread has not been told yet */
	uint64_t stopped_at_ns;           /* when the signature error that stopped it was found */
	_Atomic uint32_t stops;           /* times a signature error stopped the SQ in SQD */
	uint32_t rnr_index;               /* the SQ index the RNR retries below are for */
	bool rnr_active;
	uint32_t rnr_left;
	uint64_t rnr_until_ns;
	struct rdma_dp_qp *hash_next;
};

/* The device's data path on a set of workers (rdmad's); NULL when it has none. */
int rdma_datapath_start(struct rdma_device *dev, struct worker_set *ws);
/* The workers have stopped: what they owned is freed by the main thread from now on. */
void rdma_datapath_workers_stopped(struct rdma_device *dev);
void rdma_datapath_free(struct rdma_datapath *dp);
/* Runs the main-thread side of every event the workers have reported so far. */
void rdma_datapath_sync(struct rdma_device *dev);
/* Applies the signature errors the workers have reported so far (part of the sync). */
void rdma_datapath_reports(struct rdma_device *dev);
/* Called when a CQ may have new entries for a waiter (after rdma_cq_ring.wanted was set). */
void rdma_datapath_set_cq_hook(struct rdma_device *dev, void (*fn)(struct rdma_device *dev, void *ud),
			       void *userdata);
void rdma_datapath_counters(struct rdma_device *dev, struct rdma_dp_counters *out);
/* Workers the device's data path runs on (0: none). */
unsigned rdma_datapath_n_workers(const struct rdma_device *dev);

/* ---- for the model (daemon/verbs/cq.c, daemon/verbs/qp.c, daemon/verbs/mr.c) ---- */

/*
 * Main thread: a QP with a posted WR not yet retired whose memory lies in
 * [addr, addr + length), or NULL.  A WR being executed is not retired yet.
 */
struct rdma_object *rdma_datapath_memory_user(struct rdma_device *dev, const uint8_t *addr,
					      uint64_t length);

/* Main thread: a QP with a posted WR not yet retired that names key (an MKEY's), or NULL. */
struct rdma_object *rdma_datapath_key_user(struct rdma_device *dev, uint32_t key);

/*
 * Main thread: k (malloc'ed; the table owns it) becomes what its key names to
 * the workers; what the key named before is freed once no worker can hold it.
 * Without a data path k is freed at once.
 */
void rdma_datapath_key_set(struct rdma_device *dev, struct dp_key *k);
/* Main thread: key names nothing any more (the same way). */
void rdma_datapath_key_clear(struct rdma_device *dev, uint32_t key);

struct rdma_cq_ring *rdma_cq_ring_new(struct rdma_device *dev, uint32_t cqn, uint32_t capacity);
void rdma_cq_ring_put(struct rdma_cq_ring *ring);
struct rdma_cq_ring *rdma_cq_ring_get(struct rdma_cq_ring *ring);
/* Main thread: takes up to max entries, oldest first within each QP's queue. */
unsigned rdma_cq_ring_poll(struct rdma_cq_ring *ring, struct dp_cqe *out, unsigned max);

int rdma_dp_qp_create(struct rdma_device *dev, struct rdma_qp *qp);
/* The QP went from old to its state: attach it to a worker, tell the worker. */
void rdma_dp_qp_modified(struct rdma_device *dev, struct rdma_qp *qp, enum rdma_qp_state old);
void rdma_dp_qp_destroy(struct rdma_device *dev, struct rdma_qp *qp);

/* ---- posting (main thread) ---- */

/* A WR as the API gives it: SGEs name memory by key and offset from the MR's first byte. */
struct rdma_dp_sge {
	uint32_t key;
	uint64_t offset;
	uint32_t length;
};

struct rdma_dp_send_wr {
	uint64_t wr_id;
	enum dp_wr_opcode opcode;
	uint32_t send_flags;      /* DP_SEND_* */
	uint32_t imm;             /* host order; goes on the wire in network order */
	uint32_t remote_key;
	uint64_t remote_offset;
	const uint8_t *inline_data;
	uint32_t inline_len;
	const struct rdma_dp_sge *sges;
	uint32_t n_sges;
	bool ud;                  /* UD: the three below are given */
	uint32_t ah, remote_qpn, remote_qkey;
};

int rdma_dp_post_send(struct rdma_device *dev, struct rdma_qp *qp, const struct rdma_dp_send_wr *wr,
		      struct rdma_error *err);
/*
 * n WRs under one doorbell, all or none: the worker sees none of them before
 * all are in the queue.  On an error *bad is the WR it is about; -ENOBUFS
 * (InvalidState on "send") when the queue has no room for them all.
 */
int rdma_dp_post_sends(struct rdma_device *dev, struct rdma_qp *qp, const struct rdma_dp_send_wr *wrs,
		       uint32_t n, uint32_t *bad, struct rdma_error *err);
/*
 * In SQD: posted send WRs with wr_id not yet executed become NOPs
 * (daemon/verbs/recovery.h); -EALREADY (InvalidState on "wr_id", nothing changed)
 * when one of them is a NOP already.
 */
int rdma_dp_cancel(struct rdma_device *dev, struct rdma_qp *qp, uint64_t wr_id, uint32_t *count,
		   struct rdma_error *err);
/* fn(MKEY key, wr_id) for each MKEY of a posted send WR not yet executed, oldest first. */
void rdma_dp_posted_mkeys(struct rdma_qp *qp, void (*fn)(uint32_t mkey, uint64_t wr_id, void *data),
			  void *data);
int rdma_dp_post_recv(struct rdma_device *dev, struct rdma_qp *qp, uint64_t wr_id,
		      const struct rdma_dp_sge *sges, uint32_t n_sges, struct rdma_error *err);
