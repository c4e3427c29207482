/* SPDX-License-Identifier: MIT */
#include "dataplane/cq.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

/* A CQ with its lanes not set up yet (n_lanes counts those that are). */
static struct dp_cq *cq_alloc(uint32_t cqn, uint32_t capacity, unsigned n_lanes)
{
	struct dp_cq *cq = n_lanes ? calloc(1, sizeof(*cq) + n_lanes * sizeof(cq->lanes[0])) : NULL;

	if (!cq)
		return NULL;
	atomic_init(&cq->refs, 1);
	cq->capacity = capacity;
	cq->cqn = cqn;
	cq->notify_fd = -1;
	cq->mem.fd = -1;
	return cq;
}

struct dp_cq *dp_cq_new(uint32_t cqn, uint32_t capacity, unsigned n_lanes)
{
	struct dp_cq *cq = cq_alloc(cqn, capacity, n_lanes);

	if (!cq)
		return NULL;
	for (unsigned i = 0; i < n_lanes; i++, cq->n_lanes++)
		if (dp_queue_init(&cq->lanes[i], capacity, sizeof(struct dp_cqe), 0) < 0) {
			dp_cq_put(cq);
			return NULL;
		}
	return cq;
}

struct dp_cq *dp_cq_new_rings(uint32_t cqn, uint32_t capacity, unsigned n_lanes)
{
	uint32_t entries = dp_ring_entries(capacity);
	struct dp_cq *cq;
	int r;

	if (!capacity || capacity > DP_QUEUE_MAX_ENTRIES) {
		errno = EINVAL;
		return NULL;
	}
	cq = cq_alloc(cqn, capacity, n_lanes);
	if (!cq)
		return NULL;
	cq->notify_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	r = cq->notify_fd < 0 ? -errno :
	    dp_ring_mem_new(&cq->mem, "rdmad-cq", dp_cq_ring_lane_offset(entries, n_lanes));
	if (r < 0) {
		dp_cq_put(cq);
		errno = -r;
		return NULL;
	}
	cq->ring = cq->mem.addr;
	for (unsigned i = 0; i < n_lanes; i++, cq->n_lanes++) {
		uint64_t at = dp_cq_ring_lane_offset(entries, i);

		(void)dp_queue_format(&cq->lanes[i], (uint8_t *)cq->mem.addr + at, cq->mem.bytes - at,
				      entries, sizeof(struct dp_cqe));
	}
	return cq;
}

struct dp_cq *dp_cq_get(struct dp_cq *cq)
{
	if (cq)
		atomic_fetch_add_explicit(&cq->refs, 1, memory_order_relaxed);
	return cq;
}

void dp_cq_put(struct dp_cq *cq)
{
	if (!cq || atomic_fetch_sub_explicit(&cq->refs, 1, memory_order_acq_rel) != 1)
		return;
	for (unsigned i = 0; i < cq->n_lanes; i++)
		dp_queue_release(&cq->lanes[i]);
	dp_ring_mem_free(&cq->mem);
	if (cq->notify_fd >= 0)
		close(cq->notify_fd);
	free(cq);
}

unsigned dp_cq_poll(struct dp_cq *cq, struct dp_cqe *out, unsigned max)
{
	unsigned n = 0;

	/* Round robin over the lanes, so that no worker's completions wait behind another's. */
	for (unsigned tried = 0; n < max && tried < cq->n_lanes; ) {
		struct dp_queue *lane = &cq->lanes[cq->next_lane];
		uint32_t cons = dp_queue_cons(lane);

		if (!dp_queue_ready(lane, cons)) {
			cq->next_lane = (cq->next_lane + 1) % cq->n_lanes;
			tried++;
			continue;
		}
		out[n++] = *(const struct dp_cqe *)dp_queue_slot(lane, cons);
		dp_queue_consume(lane, 1);
		atomic_fetch_sub_explicit(&cq->used, 1, memory_order_release);
		/* One entry per lane in turn: each QP's entries stay in order, as each QP has one lane. */
		cq->next_lane = (cq->next_lane + 1) % cq->n_lanes;
		tried = 0;
	}
	return n;
}

/* Whether the CQ has room for one more entry in lane, which is then taken. */
static bool take_room(struct dp_cq *cq, unsigned lane)
{
	/* A ring CQ: the application's consumer index, bounded by dp_queue_room: never trusted further. */
	if (cq->ring)
		return dp_queue_room(&cq->lanes[lane]) != 0;
	if (atomic_fetch_add_explicit(&cq->used, 1, memory_order_acq_rel) >= cq->capacity) {
		atomic_fetch_sub_explicit(&cq->used, 1, memory_order_relaxed);
		return false;
	}
	/* The lane holds the CQ's capacity, and used bounds all lanes together. */
	return true;
}

enum dp_cq_push_result dp_cq_push(struct dp_cq *cq, unsigned lane, const struct dp_cqe *e)
{
	if (atomic_load_explicit(&cq->error, memory_order_relaxed))
		return DP_CQ_IN_ERROR;
	if (!take_room(cq, lane))
		/* Workers of several lanes may overflow it at once: one of them tells. */
		return atomic_exchange_explicit(&cq->error, true, memory_order_relaxed) ?
		       DP_CQ_IN_ERROR : DP_CQ_OVERFLOWED;
	*(struct dp_cqe *)dp_queue_slot(&cq->lanes[lane], dp_queue_prod(&cq->lanes[lane])) = *e;
	dp_queue_publish(&cq->lanes[lane], 1);
	return DP_CQ_PUSHED;
}

void dp_cq_ring_notify(struct dp_cq *cq, bool solicited)
{
	/*
	 * Pairs with the application's arm-then-poll (librdmad's
	 * rdmad_req_notify_cq): either its poll finds the entry just
	 * published, or the look after the fence finds it armed.
	 */
	atomic_thread_fence(memory_order_seq_cst);
	dp_cq_ring_check(cq, solicited);
}

void dp_cq_ring_check(struct dp_cq *cq, bool solicited)
{
	uint64_t one = 1;
	uint32_t armed;

	armed = atomic_load_explicit(&cq->ring->armed, memory_order_relaxed);
	if (armed == DP_CQ_ARM_NONE || (armed == DP_CQ_ARM_SOLICITED && !solicited))
		return;
	if (!atomic_exchange_explicit(&cq->ring->armed, DP_CQ_ARM_NONE, memory_order_acq_rel))
		return;
	atomic_fetch_add_explicit(&cq->ring->events, 1, memory_order_release);
	if (cq->notify_fd >= 0)
		(void)!write(cq->notify_fd, &one, sizeof(one));
}
