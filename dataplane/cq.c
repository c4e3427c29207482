/* SPDX-License-Identifier: MIT */
#include "dataplane/cq.h"

#include <stdlib.h>

struct dp_cq *dp_cq_new(uint32_t cqn, uint32_t capacity, unsigned n_lanes)
{
	struct dp_cq *cq;

	if (!n_lanes)
		return NULL;
	cq = calloc(1, sizeof(*cq) + n_lanes * sizeof(cq->lanes[0]));
	if (!cq)
		return NULL;
	atomic_init(&cq->refs, 1);
	cq->capacity = capacity;
	cq->cqn = cqn;
	for (unsigned i = 0; i < n_lanes; i++, cq->n_lanes++)
		if (dp_queue_init(&cq->lanes[i], capacity, sizeof(struct dp_cqe), 0) < 0) {
			dp_cq_put(cq);
			return NULL;
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

bool dp_cq_push(struct dp_cq *cq, unsigned lane, const struct dp_cqe *e)
{
	if (atomic_fetch_add_explicit(&cq->used, 1, memory_order_acq_rel) >= cq->capacity) {
		atomic_fetch_sub_explicit(&cq->used, 1, memory_order_relaxed);
		return false;
	}
	/* The lane holds the CQ's capacity, and used bounds all lanes together. */
	*(struct dp_cqe *)dp_queue_slot(&cq->lanes[lane], dp_queue_prod(&cq->lanes[lane])) = *e;
	dp_queue_publish(&cq->lanes[lane], 1);
	return true;
}
