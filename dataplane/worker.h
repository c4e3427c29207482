/* SPDX-License-Identifier: MIT */
/*
 * Dataplane workers: threads pinned to one CPU each.  The main thread hands a
 * worker commands (a function to run on the worker, with its argument) through
 * the worker's command queue; the worker reports through its event queue.  What
 * a worker owns (QPs, later VNIC ports) it registers as pollers, file
 * descriptors it watches (sockets, TAP devices, application doorbells) and
 * timers (retransmission, RNR), which only the worker runs, so their data-path
 * state has a single writer and no lock.  A worker with nothing to do sleeps
 * in epoll_wait on its command doorbell and its descriptors until the next
 * timer is due; a busy one polls.
 */
#pragma once

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "dataplane/queue.h"
#include "dataplane/timer.h"

#define DP_WORKER_RING_SIZE   1024
/* NICs a worker serves at once: the host's devices and one per virtual machine. */
#define DP_WORKER_TURN_ENDS_MAX 64
/* The longest a sleeping worker goes without looking at its pollers. */
#define DP_WORKER_SLEEP_MS    100

struct dp_worker;

/* Runs on the worker thread. */
typedef void (*dp_worker_fn)(struct dp_worker *w, void *arg);
/* A poller makes progress and returns how much work it did (0: idle). */
typedef unsigned (*dp_poll_fn)(struct dp_worker *w, void *arg);
/* Runs on the worker when fd is ready; revents as epoll reports them. */
typedef void (*dp_fd_fn)(struct dp_worker *w, int fd, uint32_t revents, void *arg);

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
	_Atomic uint64_t events_dropped; /* event queue full */
	_Atomic uint64_t timers;     /* timers run */
	_Atomic uint64_t fd_events;  /* descriptor callbacks run */
};

/* Runs on the worker at the end of each turn and before it sleeps: what its owner batched over the turn. */
typedef void (*dp_turn_fn)(struct dp_worker *w, void *arg);

/* A descriptor a worker watches; the generation tells a stale epoll report from a new watch in its place. */
struct dp_fd_watch {
	int fd;                      /* -1: free */
	uint32_t generation;
	dp_fd_fn fn;
	void *arg;
};

struct dp_worker {
	unsigned index;
	int cpu;                     /* pinned to, -1: not pinned */
	pthread_t thread;
	bool started;
	_Atomic bool stop;
	struct dp_queue commands;    /* main → worker (doorbell in the worker's epoll set) */
	struct dp_queue events;      /* worker → main (doorbell watched by the event loop) */
	int epoll;                   /* the command doorbell and every watched descriptor */
	/* Set before the start to change DP_WORKER_SLEEP_MS (tests lengthen it to see what wakes a worker). */
	int sleep_ms;
	struct dp_worker_stats stats;
	/* Written by the worker: odd while it is blocked in its sleep's epoll_wait (dp_worker_barrier_all). */
	_Atomic uint64_t blocked_seq;
	void *owner;                 /* for whoever started the worker; the worker does not use it */
	/*
	 * Worker thread only.  Pollers, descriptors and sleep flags are one per
	 * QP at most (tens of thousands on a device): arrays that grow as they
	 * are added to, freed by dp_worker_stop.
	 */
	struct dp_poller { dp_poll_fn fn; void *arg; } *pollers;
	unsigned n_pollers, cap_pollers;
	bool events_pending;
	unsigned turns;              /* of the loop, for the busy look at descriptors */
	uint32_t spin_ns;            /* an idle worker polls this long before it sleeps */
	uint64_t contention_looked_ns, preempted; /* see cpu_contended() */
	uint64_t shared_until_ns;    /* no polling when idle until then */
	struct dp_timer_heap timers;
	struct dp_fd_watch *fds;
	unsigned n_fds, cap_fds;     /* n_fds: slots ever used: fds[n_fds..] are free */
	/* Queues an application produces into: told of each sleep (dp_worker_add_sleep_flag). */
	struct dp_queue **sleep_flags;
	unsigned n_sleep_flags, cap_sleep_flags;
	/* What ends every turn: each NIC's deferred notifications (one per NIC on the worker). */
	struct { dp_turn_fn fn; void *arg; } turn_ends[DP_WORKER_TURN_ENDS_MAX];
	unsigned n_turn_ends;
};

/* Sets up the queues and the epoll set; cpu < 0 leaves the thread unpinned. */
int dp_worker_init(struct dp_worker *w, unsigned index, int cpu);
int dp_worker_start(struct dp_worker *w);
/*
 * Asks the worker to stop, waits for it, runs the commands it left, releases
 * the queues, the epoll set and the timer heap (watched descriptors stay open
 * and armed timers stay as they are: both are their owners').
 */
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
/* The same for workers[0..n) at once. */
void dp_worker_barrier_all(struct dp_worker *const *workers, unsigned n);

/* Main thread: queue fn(arg) for the worker; -EAGAIN when its queue is full. */
int dp_worker_submit(struct dp_worker *w, dp_worker_fn fn, void *arg);
/* The same, waiting while the queue is full (a worker always drains it: a moment). */
void dp_worker_submit_wait(struct dp_worker *w, dp_worker_fn fn, void *arg);
/*
 * Main thread: runs fn(arg) on the worker and returns once it ran (what
 * the worker held before it ran is let go: dp_worker_barrier).
 */
void dp_worker_run(struct dp_worker *w, dp_worker_fn fn, void *arg);

/*
 * Main thread: wake the worker if it sleeps, for work that reaches it outside
 * its command queue (a WR posted to a queue it polls), once that work is
 * published.  No system call while the worker is awake.
 */
void dp_worker_wake(struct dp_worker *w);

/* Worker thread: report to the main thread (batched: the doorbell rings once per turn). */
bool dp_worker_emit(struct dp_worker *w, const struct dp_event *ev);
/* Worker thread: own or give up a poller. */
int dp_worker_add_poller(struct dp_worker *w, dp_poll_fn fn, void *arg);
void dp_worker_remove_poller(struct dp_worker *w, dp_poll_fn fn, void *arg);

/*
 * Worker thread: watch fd for events (EPOLLIN, ...; level-triggered unless
 * EPOLLET): fn runs on the worker when it is ready, whether the worker sleeps
 * or polls (then it looks every few turns).  EPOLLHUP and EPOLLERR come
 * whether asked for or not: fn removes such a descriptor, or it keeps the
 * worker from sleeping.  -ENOMEM when its table cannot grow, else what
 * epoll_ctl says (-EEXIST: watched).
 */
int dp_worker_add_fd(struct dp_worker *w, int fd, uint32_t events, dp_fd_fn fn, void *arg);
/* Worker thread: stop watching fd (before closing it); fn is not called for it after this. -ENOENT if not watched. */
int dp_worker_remove_fd(struct dp_worker *w, int fd);

/*
 * Worker thread: the worker announces its sleeps in q's header as it does in
 * its command queue's, so that q's producer (an application, through shared
 * memory) rings q's doorbell, a descriptor the owner of q watches with
 * dp_worker_add_fd, only while the worker sleeps.  -ENOMEM.
 */
int dp_worker_add_sleep_flag(struct dp_worker *w, struct dp_queue *q);

/* Worker thread: fn(w, arg) ends every turn from now on, after those added before; -ENOSPC when full. */
int dp_worker_add_turn_end(struct dp_worker *w, dp_turn_fn fn, void *arg);
/* Worker thread: fn(w, arg) no longer ends turns. */
void dp_worker_remove_turn_end(struct dp_worker *w, dp_turn_fn fn, void *arg);
/* Worker thread: runs what ends a turn now (tests). */
void dp_worker_end_turn_hooks(struct dp_worker *w);
void dp_worker_remove_sleep_flag(struct dp_worker *w, struct dp_queue *q);

/*
 * Worker thread: t (dp_timer_init'd) runs once at deadline_ns
 * (dp_worker_now_ns's clock) or as soon after as the worker comes round;
 * arming an armed timer moves it.  Timers run in deadline order, those with
 * one deadline in the order they were armed.  -ENOMEM if the heap cannot grow.
 */
int dp_worker_timer_arm(struct dp_worker *w, struct dp_timer *t, uint64_t deadline_ns);
/* Worker thread: t does not run (nothing if it is not armed). */
void dp_worker_timer_cancel(struct dp_worker *w, struct dp_timer *t);
/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t dp_worker_now_ns(void);

/* The CPU the calling thread runs on (for tests of pinning). */
int dp_current_cpu(void);
