/* SPDX-License-Identifier: MIT */
/*
 * A worker's timers (retransmission, RNR, VNIC): a binary min-heap of
 * deadlines.  The timer lives in its owner (a QP, a port), so arming one
 * allocates nothing but, now and then, a larger heap; each timer knows its
 * place in the heap, so cancelling or moving it costs O(log n) without a search.
 * One thread uses a heap: the worker that owns it.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dp_worker;

/* Runs on the worker once the deadline passed; the timer is disarmed by then (it may re-arm itself). */
typedef void (*dp_timer_fn)(struct dp_worker *w, void *arg);

#define DP_TIMER_IDLE UINT32_MAX

struct dp_timer {
	uint64_t deadline_ns;     /* CLOCK_MONOTONIC */
	uint64_t seq;             /* equal deadlines fire in the order they were armed */
	dp_timer_fn fn;
	void *arg;
	uint32_t slot;            /* index in the heap, DP_TIMER_IDLE when not armed */
};

struct dp_timer_heap {
	struct dp_timer **v;
	uint32_t n, cap;
	uint64_t next_seq;
};

void dp_timer_init(struct dp_timer *t, dp_timer_fn fn, void *arg);

static inline bool dp_timer_armed(const struct dp_timer *t)
{
	return t->slot != DP_TIMER_IDLE;
}

/* Forgets every timer (they stay as they are: their owners may be gone) and frees the heap. */
void dp_timer_heap_release(struct dp_timer_heap *h);

/* Arms t for deadline_ns, or moves it there if armed already; -ENOMEM when the heap cannot grow. */
int dp_timer_heap_arm(struct dp_timer_heap *h, struct dp_timer *t, uint64_t deadline_ns);

/* Disarms t; nothing if it is not armed. */
void dp_timer_heap_cancel(struct dp_timer_heap *h, struct dp_timer *t);

/* The timer due first, or NULL. */
static inline struct dp_timer *dp_timer_heap_first(const struct dp_timer_heap *h)
{
	return h->n ? h->v[0] : NULL;
}

/* Disarms and returns the first timer if its deadline is at or before now_ns, else NULL. */
struct dp_timer *dp_timer_heap_take_due(struct dp_timer_heap *h, uint64_t now_ns);
