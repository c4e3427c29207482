/* SPDX-License-Identifier: MIT */
/*
 * Completion queues (virtio-net RoCE CREATE_CQ, DESTROY_CQ, REQ_NOTIFY_CQ).
 *
 * A CQ is named by its number (cqn).  QPs reference the CQs they complete
 * into (rdma_object_use), so a CQ in use is not destroyed.  The ring of
 * completion entries and polling come with the data path; what is here is
 * the size and the notification arming of reference roce_virtio.md §4.3.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "daemon/verbs/device.h"

/* REQ_NOTIFY_CQ flags, as the RFC numbers them. */
#define RDMA_CQ_NOTIFY_SOLICITED (1u << 0)
#define RDMA_CQ_NOTIFY_NEXT      (1u << 1)

/* Its entries (the backend's, struct rdma_cq_ring of daemon/verbs/device.h); NULL without a data path. */

struct rdma_cq {
	struct rdma_object obj;   /* handle = cqn; users: QPs */
	uint32_t cqe;             /* entries it holds: the request rounded up */
	uint32_t armed;           /* RDMA_CQ_NOTIFY_* flags until the next event, 0 when not armed */
	uint64_t notify_requests; /* REQ_NOTIFY_CQ calls */
	uint64_t events;          /* completion events raised */
	struct rdma_cq_ring *ring;
	bool rings;               /* its application polls it through shared memory, not rdmad */
	bool error;               /* a completion overflowed it: it takes none again (CQ_ERR) */
};

static inline struct rdma_cq *rdma_cq(struct rdma_object *obj)
{
	return (struct rdma_cq *)obj;
}

/*
 * The size a CQ asked for cqe entries gets: the ring has a power-of-two
 * number of slots with one kept free, so cqe + 1 rounded up, minus one,
 * as rxe (rxe_queue_init) and mlx5 report it.
 */
uint32_t rdma_cq_size(uint32_t cqe);

/* CREATE_CQ: cqe in 1..max_cqe; with rings, its application polls it (rdma_device_rings). */
int rdma_cq_create(struct rdma_device *dev, uint32_t cqe, bool rings, struct rdma_cq **out,
		   struct rdma_error *err);

/* InvalidState naming "handle" for a CQ its application polls itself: rdmad neither polls nor arms it. */
int rdma_cq_check_polled_here(const struct rdma_cq *cq, struct rdma_error *err);

/*
 * REQ_NOTIFY_CQ: arms the CQ for the next completion (RDMA_CQ_NOTIFY_NEXT)
 * or the next solicited one (RDMA_CQ_NOTIFY_SOLICITED), one of the two.
 * Arming again adds the flags, as rxe does; NEXT covers SOLICITED.
 */
int rdma_cq_req_notify(struct rdma_device *dev, struct rdma_cq *cq, uint32_t flags,
		       struct rdma_error *err);

/*
 * For the data path, once a completion entry is in the ring: whether it
 * raises the CQ's event.  An armed CQ fires on any entry when armed for
 * NEXT, on a solicited one when armed for SOLICITED only; firing disarms it
 * (one-shot) and counts the event.
 */
bool rdma_cq_completion_event(struct rdma_cq *cq, bool solicited);
/* The device wrote an entry into an armed or waited-on CQ: its event, if it fires. */
void rdma_cq_entry_event(struct rdma_device *dev, struct rdma_cq *cq, bool solicited);

/* The data path overflowed the CQ, in error from now on: its event, once. */
void rdma_cq_async_error(struct rdma_device *dev, struct rdma_cq *cq);

/* "none", "solicited" or "next": what the CQ is armed for. */
const char *rdma_cq_armed_name(const struct rdma_cq *cq);
