/* SPDX-License-Identifier: MIT */
/*
 * Dataplane workers: threads pinned to one CPU each.  The main thread hands a
 * worker commands (a function to run on the worker, with its argument) through
 * the worker's command ring; the worker reports through its event ring.  What
 * a worker owns (QPs, later VNIC ports) it registers as pollers, which only the
 * worker calls, so their data-path state has a single writer and no lock.
 * A worker with nothing to do sleeps on its command doorbell; a busy one polls.
 */
#pragma once

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "dataplane/ring.h"

#define DP_WORKER_RING_SIZE   1024
#define DP_WORKER_POLLERS_MAX 1024

struct dp_worker;

/* Runs on the worker thread. */
typedef void (*dp_worker_fn)(struct dp_worker *w, void *arg);
/* A poller makes progress and returns how much work it did (0: idle). */
typedef unsigned (*dp_poll_fn)(struct dp_worker *w, void *arg);

struct dp_cmd {
	dp_worker_fn fn;
	void *arg;
};

/* What a worker tells the main thread; the meaning of the fields is the type's. */
struct dp_event {
	uint32_t type;
	uint32_t object;
	uint64_t cookie;
	int64_t value;
	void *ptr;
};

struct dp_worker_stats {
	_Atomic uint64_t loops;      /* turns of the loop */
	_Atomic uint64_t commands;   /* commands run */
	_Atomic uint64_t work;       /* units of work pollers reported */
	_Atomic uint64_t sleeps;     /* times it went to sleep */
	_Atomic uint64_t events_dropped; /* event ring full */
};

struct dp_worker {
	unsigned index;
	int cpu;                     /* pinned to, -1: not pinned */
	pthread_t thread;
	bool started;
	_Atomic bool stop;
	struct dp_ring commands;     /* main → worker */
	struct dp_ring events;       /* worker → main (doorbell watched by the event loop) */
	struct dp_worker_stats stats;
	void *owner;                 /* for whoever started the worker; the worker does not use it */
	/* Worker thread only. */
	struct { dp_poll_fn fn; void *arg; } pollers[DP_WORKER_POLLERS_MAX];
	unsigned n_pollers;
	bool events_pending;
};

/* Sets up the rings; cpu < 0 leaves the thread unpinned. */
int dp_worker_init(struct dp_worker *w, unsigned index, int cpu);
int dp_worker_start(struct dp_worker *w);
/* Asks the worker to stop, waits for it, runs the commands it left, releases the rings. */
void dp_worker_stop(struct dp_worker *w);

/*
 * Runs the commands queued for a worker whose thread does not run (never
 * started: a test drives it; or stopped), on the calling thread.
 */
void dp_worker_run_commands(struct dp_worker *w);

/*
 * Main thread: returns once the worker has run every command submitted
 * before (a moment: a worker runs its commands every turn, and submitting
 * wakes it; a worker without a thread runs them here).  Whatever the worker
 * read during a turn that began before, it holds no more.
 */
void dp_worker_barrier(struct dp_worker *w);

/* Main thread: queue fn(arg) for the worker; -EAGAIN when its ring is full. */
int dp_worker_submit(struct dp_worker *w, dp_worker_fn fn, void *arg);

/*
 * Main thread: wake the worker if it sleeps, for work that reaches it outside
 * its command ring (a WR posted to a queue it polls), once that work is
 * published.  No system call while the worker is awake.
 */
void dp_worker_wake(struct dp_worker *w);

/* Worker thread: report to the main thread (batched: the doorbell rings once per turn). */
bool dp_worker_emit(struct dp_worker *w, const struct dp_event *ev);
/* Worker thread: own or give up a poller. */
int dp_worker_add_poller(struct dp_worker *w, dp_poll_fn fn, void *arg);
void dp_worker_remove_poller(struct dp_worker *w, dp_poll_fn fn, void *arg);

/* The CPU the calling thread runs on (for tests of pinning). */
int dp_current_cpu(void);
