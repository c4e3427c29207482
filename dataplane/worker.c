/* SPDX-License-Identifier: MIT */
#include "dataplane/worker.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Empty turns before a worker sleeps: long enough to catch the next burst while polling. */
#define IDLE_SPINS 2048
/* A sleeping worker still looks at its pollers this often. */
#define SLEEP_MS   100

int dp_worker_init(struct dp_worker *w, unsigned index, int cpu)
{
	int r;

	memset(w, 0, sizeof(*w));
	w->index = index;
	w->cpu = cpu;
	r = dp_ring_init(&w->commands, DP_WORKER_RING_SIZE, sizeof(struct dp_cmd));
	if (r < 0)
		return r;
	r = dp_ring_init(&w->events, DP_WORKER_RING_SIZE, sizeof(struct dp_event));
	if (r < 0) {
		dp_ring_release(&w->commands);
		return r;
	}
	dp_ring_set_event_driven(&w->events);
	return 0;
}

static unsigned run_commands(struct dp_worker *w)
{
	struct dp_cmd cmd;
	unsigned n = 0;

	while (dp_ring_pop(&w->commands, &cmd)) {
		cmd.fn(w, cmd.arg);
		n++;
	}
	if (n)
		atomic_fetch_add_explicit(&w->stats.commands, n, memory_order_relaxed);
	return n;
}

static unsigned run_pollers(struct dp_worker *w)
{
	unsigned work = 0;

	for (unsigned i = 0; i < w->n_pollers; i++)
		work += w->pollers[i].fn(w, w->pollers[i].arg);
	if (work)
		atomic_fetch_add_explicit(&w->stats.work, work, memory_order_relaxed);
	return work;
}

static void kick_events(struct dp_worker *w)
{
	if (w->events_pending) {
		w->events_pending = false;
		dp_ring_kick(&w->events);
	}
}

/*
 * Sleeps until woken.  The sleep is announced first, then everything is
 * looked at once more: work published before the announcement is found now,
 * work published after it rings the doorbell (dp_worker_wake sees the
 * announcement), so a poster needs no system call while the worker is awake.
 */
static void sleep_until_woken(struct dp_worker *w)
{
	atomic_store_explicit(&w->commands.sleeping, true, memory_order_relaxed);
	atomic_thread_fence(memory_order_seq_cst);
	if (run_commands(w) + run_pollers(w)) {
		atomic_store_explicit(&w->commands.sleeping, false, memory_order_relaxed);
		kick_events(w);
		return;
	}
	kick_events(w);
	atomic_fetch_add_explicit(&w->stats.sleeps, 1, memory_order_relaxed);
	dp_ring_wait(&w->commands, SLEEP_MS);
}

static void *worker_main(void *arg)
{
	struct dp_worker *w = arg;
	unsigned idle = 0;

	while (!atomic_load_explicit(&w->stop, memory_order_acquire)) {
		unsigned done = run_commands(w) + run_pollers(w);

		atomic_fetch_add_explicit(&w->stats.loops, 1, memory_order_relaxed);
		kick_events(w);
		if (done) {
			idle = 0;
		} else if (++idle >= IDLE_SPINS) {
			sleep_until_woken(w);
			idle = 0;
		}
	}
	return NULL;
}

int dp_worker_start(struct dp_worker *w)
{
	sigset_t all, old;
	pthread_attr_t attr;
	char name[16];
	int r;

	/* Signals are the event loop's: a worker inherits a mask that blocks them all. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&attr);
	if (w->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(w->cpu, &set);
		r = pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		if (r) {
			pthread_attr_destroy(&attr);
			pthread_sigmask(SIG_SETMASK, &old, NULL);
			return -r;
		}
	}
	r = pthread_create(&w->thread, &attr, worker_main, w);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r)
		return -r;
	w->started = true;
	snprintf(name, sizeof(name), "rdmad-dp%u", w->index);
	pthread_setname_np(w->thread, name);
	return 0;
}

void dp_worker_stop(struct dp_worker *w)
{
	if (w->started) {
		atomic_store_explicit(&w->stop, true, memory_order_release);
		/* Wake it if it sleeps: the doorbell rings whatever its flag says. */
		atomic_store(&w->commands.sleeping, true);
		dp_ring_kick(&w->commands);
		pthread_join(w->thread, NULL);
		w->started = false;
	}
	/* What was handed over and not run yet runs now, here: it may own memory (a QP to free). */
	run_commands(w);
	dp_ring_release(&w->commands);
	dp_ring_release(&w->events);
}

void dp_worker_run_commands(struct dp_worker *w)
{
	if (!w->started)
		run_commands(w);
}

int dp_worker_submit(struct dp_worker *w, dp_worker_fn fn, void *arg)
{
	struct dp_cmd cmd = { .fn = fn, .arg = arg };

	if (!dp_ring_push(&w->commands, &cmd))
		return -EAGAIN;
	dp_ring_kick(&w->commands);
	return 0;
}

static void on_barrier(struct dp_worker *w, void *arg)
{
	(void)w;
	atomic_store_explicit((_Atomic bool *)arg, true, memory_order_release);
}

void dp_worker_barrier(struct dp_worker *w)
{
	_Atomic bool done = false;

	while (dp_worker_submit(w, on_barrier, &done) == -EAGAIN)
		sched_yield();
	dp_worker_run_commands(w);
	while (!atomic_load_explicit(&done, memory_order_acquire))
		sched_yield();
}

void dp_worker_wake(struct dp_worker *w)
{
	/* Rings only a worker that announced its sleep (see sleep_until_woken). */
	dp_ring_kick(&w->commands);
}

bool dp_worker_emit(struct dp_worker *w, const struct dp_event *ev)
{
	if (!dp_ring_push(&w->events, ev)) {
		atomic_fetch_add_explicit(&w->stats.events_dropped, 1, memory_order_relaxed);
		return false;
	}
	w->events_pending = true;
	return true;
}

int dp_worker_add_poller(struct dp_worker *w, dp_poll_fn fn, void *arg)
{
	if (w->n_pollers >= DP_WORKER_POLLERS_MAX)
		return -ENOSPC;
	w->pollers[w->n_pollers].fn = fn;
	w->pollers[w->n_pollers].arg = arg;
	w->n_pollers++;
	return 0;
}

void dp_worker_remove_poller(struct dp_worker *w, dp_poll_fn fn, void *arg)
{
	for (unsigned i = 0; i < w->n_pollers; i++)
		if (w->pollers[i].fn == fn && w->pollers[i].arg == arg) {
			w->pollers[i] = w->pollers[--w->n_pollers];
			return;
		}
}

int dp_current_cpu(void)
{
	return sched_getcpu();
}
