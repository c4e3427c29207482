/* SPDX-License-Identifier: MIT */
/*
 * A guest's work requests as its send and receive virtqueues carry them
 * (seed 004: struct virtio_rdma_sq_req and rq_req, little-endian), read
 * from the caller's copy of the descriptor's bytes into what the soft
 * driver posts (daemon/soft/post.c).  Only the seed's opcodes (0-4) and
 * send flags (FENCE, SIGNALED, SOLICITED, INLINE) pass, and SGEs only as
 * many as the bytes hold; the rest (the QP's state and caps, keys, AHs) is
 * post.c's and the workers' to check.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "daemon/soft/datapath.h"
#include "dataplane/wqe.h"
#include "dataplane/virtio/virtqueue.h"

/* SGEs a WQE may carry: the device's max_send_sge and max_recv_sge. */
#define VDEV_WQE_SGES_MAX 32u
#define VDEV_SQ_WQE_MAX (sizeof(struct dp_sq_req) + VDEV_WQE_SGES_MAX * sizeof(struct dp_sge))
#define VDEV_RQ_WQE_MAX (sizeof(struct dp_rq_req) + VDEV_WQE_SGES_MAX * sizeof(struct dp_sge))

/*
 * An SGE's address is the guest's iova; post.c takes an offset from the
 * first byte of the key's MR: key_iova(data, key) is that MR's iova (0 for
 * a key of no MR), and offset = addr - iova makes the address again.
 */
typedef uint64_t (*vdev_key_iova_fn)(void *data, uint32_t key);

/*
 * The send WQE of len bytes at wqe: *out (its SGEs in sges[VDEV_WQE_SGES_MAX];
 * its inline data stays in wqe: both must live as long as out), for a UD QP
 * or not.  0, or -EINVAL when it is not the seed's (out->wr_id and
 * out->opcode are still the WQE's, for its error completion).  It reads only
 * the bytes vdev_wqe_send_spans() names: the rest of wqe may be anything.
 */
int vdev_wqe_send(const uint8_t *wqe, size_t len, bool ud, vdev_key_iova_fn key_iova, void *data,
		  struct rdma_dp_sge *sges, struct rdma_dp_send_wr *out);

/* A range of a WQE's bytes. */
struct vdev_wqe_span {
	uint32_t offset, len;
};

/*
 * What of a send WQE of len (at least sizeof(struct dp_sq_req)) bytes
 * vdev_wqe_send reads, so that only that is copied out of the guest's
 * buffer: with wqe NULL, its fixed fields (2 spans); once they are in wqe,
 * its inline data or its SGEs, as many as len holds (0 or 1 span).
 */
unsigned vdev_wqe_send_spans(const uint8_t *wqe, size_t len, struct vdev_wqe_span spans[2]);
/*
 * Copies those spans of the send WQE of len bytes that chain c of vq holds
 * into wqe (of one shorter than the fixed fields, what it has): 0, or
 * vq_chain_read's error.
 */
int vdev_wqe_read_send(struct virtqueue *vq, const struct vq_chain *c, uint8_t *wqe, size_t len);

/*
 * The send WQE of len bytes at wqe (read as vdev_wqe_send_spans says) as the
 * entry of an RC or UC QP's send queue, written at slot, which holds
 * max_sge SGEs: what a ring's producer writes, for the worker to check as it
 * checks a ring's (keys, lengths, the QP's limits).  Nothing here looks a key
 * up, so it may run on the QP's worker.  A WQE that is not the seed's (an
 * opcode or flag it does not have, SGEs its bytes do not hold) is written
 * with an opcode no WR has, which the worker completes with LOC_QP_OP_ERR.
 * Its wr_id.
 */
uint64_t vdev_wqe_send_entry(const uint8_t *wqe, size_t len, uint32_t max_sge, struct dp_sq_req *slot);

/* The wr_id of a WQE of len bytes (both start with it), 0 when it is shorter. */
uint64_t vdev_wqe_wr_id(const uint8_t *wqe, size_t len);

/* The receive WQE of len bytes: its wr_id, and its n SGEs in sges.  0, or -EINVAL. */
int vdev_wqe_recv(const uint8_t *wqe, size_t len, vdev_key_iova_fn key_iova, void *data,
		  uint64_t *wr_id, struct rdma_dp_sge *sges, uint32_t *n);
