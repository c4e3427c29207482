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
#include "dataplane/wqe.h"

struct dp_cq {
	/* Read by the workers at every completion, changed rarely. */
	uint32_t capacity;        /* the CQ's cqe */
	uint32_t cqn;
	unsigned n_lanes;
	_Atomic bool wanted;      /* someone waits for the next entry: workers tell the driver */
	_Atomic bool armed;       /* REQ_NOTIFY_CQ: workers tell the driver of each entry */
	_Atomic uint32_t refs;    /* the driver's CQ, and each QP context that completes into it */
	/* Entries in all lanes: every completion and every poll change it. */
	_Alignas(64) _Atomic uint32_t used;
	/* The poller's alone. */
	_Alignas(64) uint32_t next_lane;   /* where the next poll starts */
	struct dp_queue lanes[];  /* lane i: written by worker i */
};

/* A CQ of capacity entries for n_lanes workers (one reference), or NULL. */
struct dp_cq *dp_cq_new(uint32_t cqn, uint32_t capacity, unsigned n_lanes);
struct dp_cq *dp_cq_get(struct dp_cq *cq);
void dp_cq_put(struct dp_cq *cq);

/* Poller: takes up to max entries, each QP's in order, the lanes in turn. */
unsigned dp_cq_poll(struct dp_cq *cq, struct dp_cqe *out, unsigned max);

/*
 * Worker lane: writes e; false when the CQ is full (an overflow, which is the
 * completing QP's fatal error).
 */
bool dp_cq_push(struct dp_cq *cq, unsigned lane, const struct dp_cqe *e);
