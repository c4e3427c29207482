/* SPDX-License-Identifier: MIT */
/*
 * A work queue: a single-producer single-consumer ring whose consumer looks at
 * its oldest entry before taking it (a WQE waits at the head through an RNR
 * retry), and can name its slots (side data kept in a parallel array).  The
 * producer owns prod, the consumer cons; no lock.  No doorbell: the worker
 * that consumes is woken by its own command doorbell.
 */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

struct dp_wq {
	_Alignas(64) _Atomic uint32_t prod;
	_Alignas(64) _Atomic uint32_t cons;
	uint32_t mask;
	uint32_t stride;
	uint8_t *entries;
};

/* At least min_entries slots (rounded up to a power of two). */
static inline int dp_wq_init(struct dp_wq *q, uint32_t min_entries, uint32_t stride)
{
	uint32_t n = 1;

	while (n < min_entries)
		n <<= 1;
	atomic_init(&q->prod, 0);
	atomic_init(&q->cons, 0);
	q->mask = n - 1;
	q->stride = stride;
	q->entries = calloc(n, stride);
	return q->entries ? 0 : -12; /* -ENOMEM */
}

static inline void dp_wq_release(struct dp_wq *q)
{
	free(q->entries);
	q->entries = NULL;
}

static inline void *dp_wq_slot(const struct dp_wq *q, uint32_t index)
{
	return q->entries + (size_t)(index & q->mask) * q->stride;
}

/* Producer: the slot to fill next, or NULL when the queue is full. */
static inline void *dp_wq_next(struct dp_wq *q, uint32_t *index)
{
	uint32_t p = atomic_load_explicit(&q->prod, memory_order_relaxed);

	if (p - atomic_load_explicit(&q->cons, memory_order_acquire) > q->mask)
		return NULL;
	*index = p;
	return dp_wq_slot(q, p);
}

/* Producer: the slot filled by dp_wq_next becomes visible. */
static inline void dp_wq_publish(struct dp_wq *q)
{
	atomic_fetch_add_explicit(&q->prod, 1, memory_order_release);
}

/* Consumer: the oldest entry, or NULL when the queue is empty. */
static inline void *dp_wq_head(struct dp_wq *q, uint32_t *index)
{
	uint32_t c = atomic_load_explicit(&q->cons, memory_order_relaxed);

	if (c == atomic_load_explicit(&q->prod, memory_order_acquire))
		return NULL;
	*index = c;
	return dp_wq_slot(q, c);
}

/* Consumer: the oldest entry is done with; its slot goes back to the producer. */
static inline void dp_wq_consume(struct dp_wq *q)
{
	atomic_fetch_add_explicit(&q->cons, 1, memory_order_release);
}

static inline uint32_t dp_wq_count(struct dp_wq *q)
{
	return atomic_load_explicit(&q->prod, memory_order_acquire) -
	       atomic_load_explicit(&q->cons, memory_order_acquire);
}
