/* SPDX-License-Identifier: MIT */
/*
 * The software device's driver for its NIC (dataplane/nic.h): what the
 * device model asks of the data path, done by programming the NIC's
 * contexts and key table and posting entries into its queues, and the
 * model's side of the workers' events.
 *
 * Ownership (docs/decisions.md, "Data path"):
 *  - A QP's send and receive queues are dataplane queues of entries in the
 *    RFC's formats: the main thread posts, the QP's worker copies each entry
 *    out, checks it and resolves its keys in the key table when it executes
 *    it, against its QP's PD.
 *  - From the first state past INIT on, a QP belongs to one worker, which
 *    alone writes its data-path state; the main thread changes it by command.
 *  - A request runs on the requester's worker and its responder's: the
 *    loopback transport carries it between them (dataplane/transport.h).
 *    Where a QP runs is the user's choice (qp create --cpu) or the policy's.
 *  - A CQ has one lane per worker (dataplane/cq.h).
 * Nothing here knows of JSON.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "dataplane/counters.h"
#include "dataplane/cq.h"
#include "dataplane/keytab.h"
#include "dataplane/nic.h"
#include "dataplane/engine/qp.h"
#include "dataplane/roce/transport.h"
#include "dataplane/wqe.h"
#include "daemon/verbs/device.h"
#include "daemon/verbs/qp.h"
#include "daemon/verbs/qp_state.h"

struct worker_set;
struct rdma_qp;
struct rdma_cq;

/* The QP's NIC context. */
static inline struct dp_qp *soft_qp(const struct rdma_qp *qp)
{
	return (struct dp_qp *)qp->ctx;
}

/* ---- the soft backend's struct rdma_device_ops (daemon/soft/soft_device.c) ---- */

/* The device's data path on a set of workers (rdmad's). */
int rdma_datapath_start(struct rdma_device *dev, struct worker_set *ws);
/*
 * The device speaks RoCE v2 on UDP port cfg->port from now on (its IPv4 and
 * IPv6 addresses), as cfg says; -errno when no socket opens.
 */
int rdma_datapath_roce_start(struct rdma_device *dev, const struct dp_roce_config *cfg);
/* The way its RoCE endpoint receives, and why not the packet path (dp_roce_receive_in_use). */
enum dp_roce_receive rdma_datapath_roce_receive(struct rdma_device *dev, int *packet_error);
/* roce_netdev appeared (again): the packet path follows it (dp_roce_netdev_changed). */
void rdma_datapath_roce_netdev_changed(struct rdma_device *dev);
/* The same on a link (a VM's TAP: dataplane/roce/transport.h, dp_roce_open_link). */
int rdma_datapath_roce_start_link(struct rdma_device *dev, const struct dp_roce_config *cfg,
				  const struct dp_roce_link *link);
/* An IP datagram to the RoCE port that came on the device's link: to its endpoint (dp_roce_link_input). */
int rdma_datapath_roce_link_input(struct rdma_device *dev, const uint8_t *ip, size_t len);
/* The workers have stopped: what they owned is freed by the main thread from now on. */
void rdma_datapath_workers_stopped(struct rdma_device *dev);
void rdma_datapath_free(struct rdma_datapath *dp);
/* Runs the main-thread side of every event the workers have reported so far. */
void rdma_datapath_sync(struct rdma_device *dev);
/* Applies the signature errors the workers have reported so far (part of the sync). */
void rdma_datapath_reports(struct rdma_device *dev);
void rdma_datapath_set_cq_hook(struct rdma_device *dev, void (*fn)(struct rdma_device *dev, void *ud),
			       void *userdata);
void rdma_datapath_counters(struct rdma_device *dev, struct dp_counters *out);
unsigned rdma_datapath_cpus(const struct rdma_device *dev, int *cpus, unsigned max);

int rdma_datapath_cq_create(struct rdma_device *dev, struct rdma_cq *cq);
void rdma_datapath_cq_hold(struct rdma_cq_ring *ring);
void rdma_datapath_cq_release(struct rdma_cq_ring *ring);
unsigned rdma_datapath_cq_poll(struct rdma_cq_ring *ring, struct dp_cqe *out, unsigned max);
void rdma_datapath_cq_set_wanted(struct rdma_cq_ring *ring, bool wanted);
void rdma_datapath_cq_set_armed(struct rdma_cq_ring *ring, bool armed);
/* The CQ's NIC entries (a ring is one). */
static inline struct dp_cq *soft_cq(struct rdma_cq_ring *ring)
{
	return (struct dp_cq *)(void *)ring;
}

struct rdma_object *rdma_datapath_memory_user(struct rdma_device *dev, const uint8_t *addr,
					      uint64_t length);
struct rdma_object *rdma_datapath_key_user(struct rdma_device *dev, uint32_t key);
void rdma_datapath_key_set(struct rdma_device *dev, struct dp_key *k);
void rdma_datapath_key_clear(struct rdma_device *dev, uint32_t key);
void rdma_datapath_key_retire(struct rdma_device *dev, struct dp_key *k);
int rdma_dp_key_settle(struct rdma_device *dev, const struct dp_key *k, struct rdma_qp *qp, uint32_t sq_index);

int rdma_dp_qp_create(struct rdma_device *dev, struct rdma_qp *qp);
int rdma_dp_qp_reserve(struct rdma_device *dev, struct rdma_qp *qp);
/* The QP went from old to its state: attach it to a worker, tell the worker. */
void rdma_dp_qp_modified(struct rdma_device *dev, struct rdma_qp *qp, int old_state);
void rdma_dp_qp_destroy(struct rdma_device *dev, struct rdma_qp *qp);
int rdma_dp_qp_placement(struct rdma_device *dev, const struct rdma_qp *qp, unsigned *worker);
int rdma_datapath_rings(struct rdma_device *dev, struct rdma_object *obj, struct rdma_rings *out);
bool rdma_dp_qp_counters(struct rdma_device *dev, const struct rdma_qp *qp, struct dp_counters *out);

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
	uint64_t remote_offset;   /* from the first byte of the MR of remote_key (this device's) */
	bool has_remote_addr, has_remote_offset;
	uint64_t remote_addr;     /* instead: the peer's own address (a QP connected to another host) */
	const uint8_t *inline_data;
	uint32_t inline_len;
	const struct rdma_dp_sge *sges;
	uint32_t n_sges;
	bool ud;                  /* UD: the three below are given */
	uint32_t ah, remote_qpn, remote_qkey;
	uint32_t invalidate_key;  /* local_inv, send_inv: the key that goes free */
	uint32_t mkey;            /* configure: the MKEY, and what is set on it */
	const struct rdma_mkey_conf *conf;
};

/*
 * n WRs under one doorbell, all or none: the worker sees none of them before
 * all are in the queue.  On an error *bad is the WR it is about; -ENOBUFS
 * (InvalidState on "send") when the queue has no room for them all.
 */
int rdma_dp_post_sends(struct rdma_device *dev, struct rdma_qp *qp, const struct rdma_dp_send_wr *wrs,
		       uint32_t n, uint32_t *bad, struct rdma_error *err);
int rdma_dp_post_recv(struct rdma_device *dev, struct rdma_qp *qp, uint64_t wr_id,
		      const struct rdma_dp_sge *sges, uint32_t n_sges, struct rdma_error *err);
/*
 * In SQD: posted send WRs with wr_id not yet executed become NOPs
 * (daemon/verbs/recovery.h); -EALREADY (InvalidState on "wr_id", nothing changed)
 * when one of them is a NOP already.
 */
int rdma_dp_cancel(struct rdma_device *dev, struct rdma_qp *qp, uint64_t wr_id, uint32_t *count,
		   struct rdma_error *err);
/* fn(MKEY key, wr_id) for each MKEY of a posted send WR not yet executed, oldest first. */
void rdma_dp_posted_mkeys(struct rdma_device *dev, struct rdma_qp *qp,
			  void (*fn)(uint32_t mkey, uint64_t wr_id, void *data), void *data);
