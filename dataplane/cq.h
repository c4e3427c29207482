/* SPDX-License-Identifier: MIT */
/*
 * A completion queue as the NIC writes it: one lane per worker, a queue of
 * completion entries (dataplane/wqe.h) whose producer is that worker and
 * whose consumer is the poller (the driver, on the main thread).  Each QP
 * completes through the lane of the one worker that runs it, so its entries
 * stay in order; an atomic count of the entries in all lanes enforces the
 * CQ's size.
 */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "dataplane/queue.h"
#include "dataplane/ring_mem.h"
#include "dataplane/wqe.h"

/*
 * A CQ an application polls itself (rings): the lanes are in memory it
 * shares, after this control block, and the application arms the CQ by
 * writing armed; the worker that next completes a matching entry clears it,
 * counts the event and writes the application's eventfd (its completion
 * channel, cq->notify_fd).  Every field may hold anything the application wrote: a wrong
 * value costs that application its notifications, nothing more.
 */
enum { DP_CQ_ARM_NONE, DP_CQ_ARM_NEXT, DP_CQ_ARM_SOLICITED };

struct dp_cq_ring_ctl {
	_Alignas(64) _Atomic uint32_t armed;   /* DP_CQ_ARM_*: the application's */
	_Alignas(64) _Atomic uint32_t events;  /* notifications written: the workers' */
};

/* Where lane i of a ring CQ of entries (a power of two) lies. */
static inline uint64_t dp_cq_ring_lane_offset(uint32_t entries, unsigned i)
{
	return dp_ring_align(sizeof(struct dp_cq_ring_ctl)) +
	       i * dp_ring_align(dp_queue_bytes(entries, sizeof(struct dp_cqe)));
}

struct dp_cq {
	/* Read by the workers at every completion, changed rarely. */
	uint32_t capacity;        /* the CQ's cqe */
	uint32_t cqn;
	unsigned n_lanes;
	_Atomic bool wanted;      /* someone waits for the next entry: workers tell the driver */
	_Atomic bool armed;       /* REQ_NOTIFY_CQ: workers tell the driver of each entry */
	_Atomic uint32_t refs;    /* the driver's CQ, and each QP context that completes into it */
	/* Overflowed once: in error for good, every push fails (dp_cq_push). */
	_Atomic bool error;
	/* Rings: the lanes are in mem, an application consumes them (NULL: the driver polls). */
	struct dp_cq_ring_ctl *ring;
	int notify_fd;            /* rings: an eventfd the application's completion channel reads */
	struct dp_ring_mem mem;
	/* Entries in all lanes: every completion and every poll change it. */
	_Alignas(64) _Atomic uint32_t used;
	/* The poller's alone. */
	_Alignas(64) uint32_t next_lane;   /* where the next poll starts */
	struct dp_queue lanes[];  /* lane i: written by worker i */
};

/* A CQ of capacity entries for n_lanes workers (one reference), or NULL. */
struct dp_cq *dp_cq_new(uint32_t cqn, uint32_t capacity, unsigned n_lanes);
/*
 * The same with its lanes in memory shared with an application (cq->mem,
 * each lane of at least capacity entries: dp_cq_ring_lane_offset), which
 * polls them, and an eventfd of its own for the application's completion
 * channel (cq->notify_fd: non-blocking, so that no application can stall a
 * worker by leaving it unread).  NULL, errno set.
 */
struct dp_cq *dp_cq_new_rings(uint32_t cqn, uint32_t capacity, unsigned n_lanes);
struct dp_cq *dp_cq_get(struct dp_cq *cq);
void dp_cq_put(struct dp_cq *cq);

/* Poller: takes up to max entries, each QP's in order, the lanes in turn. */
unsigned dp_cq_poll(struct dp_cq *cq, struct dp_cqe *out, unsigned max);
/* Whether a CQ the driver polls holds entries, without taking them. */
static inline bool dp_cq_has_entries(struct dp_cq *cq)
{
	return atomic_load_explicit(&cq->used, memory_order_acquire) != 0;
}

enum dp_cq_push_result {
	DP_CQ_PUSHED,
	DP_CQ_OVERFLOWED,         /* full: this push put the CQ in error (tell the driver, once) */
	DP_CQ_IN_ERROR,           /* in error since an earlier overflow: nothing is written */
};

/*
 * Worker lane: writes e, or the CQ is full (an overflow, which is the
 * completing QP's fatal error and the CQ's: a CQ that overflowed stays in
 * error, as an IBA CQ overrun leaves it, and takes no entry again, even once
 * polled).  A ring CQ is full when the lane is: its application's count of
 * what it polled is its own.
 */
enum dp_cq_push_result dp_cq_push(struct dp_cq *cq, unsigned lane, const struct dp_cqe *e);

/* Worker, after a push to a ring CQ: tells the application if it armed the CQ for this entry. */
void dp_cq_ring_notify(struct dp_cq *cq, bool solicited);
/* The same after a fence of the caller's that follows every push it covers. */
void dp_cq_ring_check(struct dp_cq *cq, bool solicited);
