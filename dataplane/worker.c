/* SPDX-License-Identifier: MIT */
#include "dataplane/worker.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/*
 * How long an idle worker polls before it sleeps: a window that follows the
 * gaps between bursts (see adapt_spin()), between 0 and SPIN_NS_MAX.
 */
#define SPIN_NS_MAX   (200 * 1000u)
#define SPIN_NS_FIRST (5 * 1000u)    /* the window's first step up from 0 */
/* An idle worker reads the clock every this many empty turns. */
#define CLOCK_TURNS 8
#define CONTENTION_LOOK_NS (50 * 1000u)
/* A worker found sharing its CPU does not poll for this long after. */
#define SHARED_HOLD_NS (20 * 1000 * 1000u)
/* A busy worker looks at its descriptors this often: epoll_wait is a system call, a turn is not. */
#define FD_TURNS   64
#define EPOLL_BATCH 32
/* epoll data of the command doorbell; a watch's is its generation and slot, never all ones. */
#define DOORBELL_TAG UINT64_MAX

int dp_worker_init(struct dp_worker *w, unsigned index, int cpu)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = DOORBELL_TAG };
	int r;

	memset(w, 0, sizeof(*w));
	w->index = index;
	w->cpu = cpu;
	w->sleep_ms = DP_WORKER_SLEEP_MS;
	w->spin_ns = SPIN_NS_MAX;
	w->epoll = -1;
	r = dp_queue_init(&w->commands, DP_WORKER_RING_SIZE, sizeof(struct dp_cmd), DP_QUEUE_DOORBELL);
	if (r < 0)
		return r;
	r = dp_queue_init(&w->events, DP_WORKER_RING_SIZE, sizeof(struct dp_event), DP_QUEUE_EVENT_DRIVEN);
	if (r < 0)
		goto fail;
	w->epoll = epoll_create1(EPOLL_CLOEXEC);
	if (w->epoll < 0 || epoll_ctl(w->epoll, EPOLL_CTL_ADD, w->commands.doorbell, &ev) < 0) {
		r = -errno;
		goto fail;
	}
	return 0;
fail:
	if (w->epoll >= 0)
		close(w->epoll);
	dp_queue_release(&w->events);
	dp_queue_release(&w->commands);
	return r;
}

static unsigned run_commands(struct dp_worker *w)
{
	struct dp_cmd cmd;
	unsigned n = 0;

	while (dp_queue_pop(&w->commands, &cmd)) {
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

uint64_t dp_worker_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static unsigned run_timers(struct dp_worker *w)
{
	struct dp_timer *t;
	uint64_t now;
	unsigned n = 0, budget = w->timers.n;

	/* No clock read while no timer is armed: the hot loop stays as it was. */
	if (!budget)
		return 0;
	now = dp_worker_now_ns();
	/* At most as many as were armed: a timer that re-arms itself for now waits for the next turn. */
	while (n < budget && (t = dp_timer_heap_take_due(&w->timers, now))) {
		t->fn(w, t->arg);
		n++;
	}
	if (n)
		atomic_fetch_add_explicit(&w->stats.timers, n, memory_order_relaxed);
	return n;
}

static uint64_t watch_tag(const struct dp_worker *w, unsigned slot)
{
	return (uint64_t)w->fds[slot].generation << 32 | slot;
}

/*
 * Runs the callbacks of the descriptors epoll reported ready (and acks the
 * command doorbell); returns how many ran.  A callback may remove another
 * descriptor whose report is in the same batch: the tag's generation no
 * longer matches and the report is dropped.
 */
static unsigned dispatch_fds(struct dp_worker *w, const struct epoll_event *evs, int ready)
{
	unsigned n = 0;

	for (int i = 0; i < ready; i++) {
		uint64_t tag = evs[i].data.u64;
		uint32_t slot = (uint32_t)tag;
		struct dp_fd_watch *fw;

		if (tag == DOORBELL_TAG) {
			dp_queue_ack(&w->commands);
			continue;
		}
		if (slot >= w->n_fds || watch_tag(w, slot) != tag)
			continue;
		fw = &w->fds[slot];
		if (fw->fd >= 0) {
			fw->fn(w, fw->fd, evs[i].events, fw->arg);
			n++;
		}
	}
	if (n)
		atomic_fetch_add_explicit(&w->stats.fd_events, n, memory_order_relaxed);
	return n;
}

/* The busy worker's look at its descriptors: no wait. */
static unsigned run_fds(struct dp_worker *w)
{
	struct epoll_event evs[EPOLL_BATCH];

	return dispatch_fds(w, evs, epoll_wait(w->epoll, evs, EPOLL_BATCH, 0));
}

static void kick_events(struct dp_worker *w)
{
	if (w->events_pending) {
		w->events_pending = false;
		dp_queue_kick(&w->events);
	}
}

/* Until the next timer is due, rounded up (a wake before it would find nothing), at most sleep_ms. */
static int sleep_timeout_ms(struct dp_worker *w)
{
	struct dp_timer *t = dp_timer_heap_first(&w->timers);
	uint64_t now, ms;

	if (!t)
		return w->sleep_ms;
	now = dp_worker_now_ns();
	if (t->deadline_ns <= now)
		return 0;
	ms = (t->deadline_ns - now + 999999) / 1000000;
	return ms < (uint64_t)w->sleep_ms ? (int)ms : w->sleep_ms;
}

/*
 * Sleeps until woken.  The sleep is announced first, then everything is
 * looked at once more: work published before the announcement is found now,
 * work published after it rings the doorbell (dp_worker_wake sees the
 * announcement), so a poster needs no system call while the worker is awake.
 * Descriptors need no second look: epoll reports one that was ready before.
 */
/* What ends a turn: its owner's batched work, then the events of the turn in one ring. */
static void end_turn(struct dp_worker *w)
{
	dp_worker_end_turn_hooks(w);
	kick_events(w);
}

static void announce_sleep(struct dp_worker *w, bool sleeping)
{
	for (unsigned i = 0; i < w->n_sleep_flags; i++)
		atomic_store_explicit(&w->sleep_flags[i]->hdr->sleeping, sleeping, memory_order_relaxed);
	/* The last store carries the fence (dp_queue_set_sleeping) that orders them all before the look. */
	dp_queue_set_sleeping(&w->commands, sleeping);
}

static void sleep_until_woken(struct dp_worker *w)
{
	struct epoll_event evs[EPOLL_BATCH];
	int ready;

	announce_sleep(w, true);
	if (run_commands(w) + run_pollers(w) + run_timers(w)) {
		announce_sleep(w, false);
		end_turn(w);
		return;
	}
	end_turn(w);
	atomic_fetch_add_explicit(&w->stats.sleeps, 1, memory_order_relaxed);
	/* Odd while blocked: holding nothing of a turn (dp_worker_barrier_all need not wake it). */
	atomic_fetch_add_explicit(&w->blocked_seq, 1, memory_order_seq_cst);
	ready = epoll_wait(w->epoll, evs, EPOLL_BATCH, sleep_timeout_ms(w));
	atomic_fetch_add_explicit(&w->blocked_seq, 1, memory_order_seq_cst);
	/* What a barrier that found it blocked let go is gone for every load from here on. */
	atomic_thread_fence(memory_order_seq_cst);
	/* Awake before the callbacks run: posters stop ringing. */
	announce_sleep(w, false);
	dispatch_fds(w, evs, ready);
	end_turn(w);
}

/*
 * Work ended an idle time of idle_ns that went to sleep.  When it came soon
 * (within SPIN_NS_MAX), polling longer would have caught it without the
 * sleep and the wake: the window doubles.  When it came late, polling was
 * time taken from whatever else wants this CPU: the window halves, and an
 * idle worker sleeps at once when its gaps are long (as Linux's haltpoll
 * adapts its guest poll window).
 */
static void adapt_spin(struct dp_worker *w, uint64_t now, uint64_t idle_ns)
{
	if (now < w->shared_until_ns)
		w->spin_ns = 0;
	else if (idle_ns <= SPIN_NS_MAX)
		w->spin_ns = w->spin_ns ? (w->spin_ns * 2 < SPIN_NS_MAX ? w->spin_ns * 2 : SPIN_NS_MAX)
					: SPIN_NS_FIRST;
	else
		w->spin_ns = w->spin_ns / 2 >= SPIN_NS_FIRST ? w->spin_ns / 2 : 0;
}

/*
 * Whether another thread took this worker's CPU since the last look (an
 * involuntary context switch), looked at no more than once per
 * CONTENTION_LOOK_NS.  A worker that shares its CPU gives it up when idle
 * rather than poll: the thread it shares with may be the one whose work it
 * waits for, and a sleeping worker is woken at once when work comes, where a
 * polling one waits for the scheduler's next tick.
 */
static bool cpu_contended(struct dp_worker *w, uint64_t now)
{
	struct rusage ru;

	if (now - w->contention_looked_ns < CONTENTION_LOOK_NS ||
	    getrusage(RUSAGE_THREAD, &ru) < 0)
		return false;
	w->contention_looked_ns = now;
	if ((uint64_t)ru.ru_nivcsw == w->preempted)
		return false;
	w->preempted = (uint64_t)ru.ru_nivcsw;
	return true;
}

static void *worker_main(void *arg)
{
	struct dp_worker *w = arg;
	uint64_t idle_since = 0;
	unsigned idle = 0;
	bool slept = false;

	while (!atomic_load_explicit(&w->stop, memory_order_acquire)) {
		unsigned done = run_commands(w) + run_pollers(w) + run_timers(w);

		if (++w->turns % FD_TURNS == 0)
			done += run_fds(w);
		atomic_fetch_add_explicit(&w->stats.loops, 1, memory_order_relaxed);
		end_turn(w);
		if (done) {
			if (slept) {
				uint64_t now = dp_worker_now_ns();

				adapt_spin(w, now, now - idle_since);
			}
			slept = false;
			idle = 0;
		} else if (idle++ == 0) {
			idle_since = dp_worker_now_ns();
			if (cpu_contended(w, idle_since)) {
				w->spin_ns = 0;
				w->shared_until_ns = idle_since + SHARED_HOLD_NS;
			}
		} else if (idle % CLOCK_TURNS == 0 &&
			   (slept || dp_worker_now_ns() - idle_since >= w->spin_ns)) {
			/* A wake that brought nothing (a timeout) sleeps again at once. */
			sleep_until_woken(w);
			slept = true;
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
		/* Whether it announced its sleep or is about to: the doorbell stays readable until it wakes. */
		dp_queue_ring(&w->commands);
		pthread_join(w->thread, NULL);
		w->started = false;
	}
	/* What was handed over and not run yet runs now, here: it may own memory (a QP to free). */
	run_commands(w);
	if (w->epoll >= 0)
		close(w->epoll);
	w->epoll = -1;
	dp_timer_heap_release(&w->timers);
	dp_queue_release(&w->commands);
	dp_queue_release(&w->events);
	free(w->pollers);
	free(w->fds);
	free(w->sleep_flags);
	w->pollers = NULL;
	w->fds = NULL;
	w->sleep_flags = NULL;
	w->n_pollers = w->cap_pollers = w->n_fds = w->cap_fds = w->n_sleep_flags = w->cap_sleep_flags = 0;
}

void dp_worker_run_commands(struct dp_worker *w)
{
	/* A test's turn: what the turn before it batched is told first, as a running worker would. */
	if (!w->started) {
		end_turn(w);
		run_commands(w);
	}
}

int dp_worker_submit(struct dp_worker *w, dp_worker_fn fn, void *arg)
{
	struct dp_cmd cmd = { .fn = fn, .arg = arg };

	if (!dp_queue_push(&w->commands, &cmd))
		return -EAGAIN;
	dp_queue_kick(&w->commands);
	return 0;
}

static void on_barrier(struct dp_worker *w, void *arg)
{
	(void)w;
	atomic_store_explicit((_Atomic bool *)arg, true, memory_order_release);
}

void dp_worker_submit_wait(struct dp_worker *w, dp_worker_fn fn, void *arg)
{
	while (dp_worker_submit(w, fn, arg) == -EAGAIN)
		sched_yield();
}

void dp_worker_barrier(struct dp_worker *w)
{
	_Atomic bool done = false;

	dp_worker_submit_wait(w, on_barrier, &done);
	dp_worker_run_commands(w);
	while (!atomic_load_explicit(&done, memory_order_acquire))
		sched_yield();
}

static void on_barrier_of_many(struct dp_worker *w, void *arg)
{
	(void)w;
	atomic_fetch_sub_explicit((_Atomic unsigned *)arg, 1, memory_order_release);
}

void dp_worker_barrier_all(struct dp_worker *const *workers, unsigned n)
{
	_Atomic unsigned left = n;

	/*
	 * A worker blocked in its sleep now holds nothing of a turn, and reads
	 * nothing before it has woken (which is after this look, in the one
	 * order of seq_cst operations, so it sees what the caller changed):
	 * passed without waking it.  Every other worker is asked first, then
	 * waited for: one wake-up's time for all, not n.
	 */
	atomic_thread_fence(memory_order_seq_cst);
	for (unsigned i = 0; i < n; i++) {
		if (workers[i]->started &&
		    atomic_load_explicit(&workers[i]->blocked_seq, memory_order_seq_cst) & 1)
			atomic_fetch_sub_explicit(&left, 1, memory_order_relaxed);
		else
			dp_worker_submit_wait(workers[i], on_barrier_of_many, &left);
	}
	for (unsigned i = 0; i < n; i++)
		dp_worker_run_commands(workers[i]);
	while (atomic_load_explicit(&left, memory_order_acquire))
		sched_yield();
}

void dp_worker_run(struct dp_worker *w, dp_worker_fn fn, void *arg)
{
	dp_worker_submit_wait(w, fn, arg);
	dp_worker_barrier(w);
}

void dp_worker_wake(struct dp_worker *w)
{
	/* Rings only a worker that announced its sleep (see sleep_until_woken). */
	dp_queue_kick(&w->commands);
}

bool dp_worker_emit(struct dp_worker *w, const struct dp_event *ev)
{
	if (!dp_queue_push(&w->events, ev)) {
		atomic_fetch_add_explicit(&w->stats.events_dropped, 1, memory_order_relaxed);
		return false;
	}
	w->events_pending = true;
	return true;
}

/* Room for one more of size bytes in *array of *cap: doubled when full; -ENOMEM. */
static int make_room(void **array, unsigned *cap, unsigned n, size_t size)
{
	unsigned grown = *cap ? *cap * 2 : 16;
	void *a;

	if (n < *cap)
		return 0;
	a = realloc(*array, (size_t)grown * size);
	if (!a)
		return -ENOMEM;
	memset((char *)a + (size_t)*cap * size, 0, (size_t)(grown - *cap) * size);
	*array = a;
	*cap = grown;
	return 0;
}

int dp_worker_add_poller(struct dp_worker *w, dp_poll_fn fn, void *arg)
{
	if (make_room((void **)&w->pollers, &w->cap_pollers, w->n_pollers, sizeof(*w->pollers)) < 0)
		return -ENOMEM;
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

static int find_fd(const struct dp_worker *w, int fd)
{
	for (unsigned i = 0; i < w->n_fds; i++)
		if (w->fds[i].fd == fd)
			return (int)i;
	return -1;
}

int dp_worker_add_fd(struct dp_worker *w, int fd, uint32_t events, dp_fd_fn fn, void *arg)
{
	struct epoll_event ev = { .events = events };
	int slot;

	if (fd < 0)
		return -EBADF;
	/* A slot given back by dp_worker_remove_fd first, so the table stays short to search. */
	slot = find_fd(w, -1);
	if (slot < 0) {
		if (make_room((void **)&w->fds, &w->cap_fds, w->n_fds, sizeof(*w->fds)) < 0)
			return -ENOMEM;
		slot = (int)w->n_fds;
	}
	ev.data.u64 = watch_tag(w, (unsigned)slot);
	if (epoll_ctl(w->epoll, EPOLL_CTL_ADD, fd, &ev) < 0)
		return -errno;
	w->fds[slot].fd = fd;
	w->fds[slot].fn = fn;
	w->fds[slot].arg = arg;
	if ((unsigned)slot == w->n_fds)
		w->n_fds++;
	return 0;
}

int dp_worker_remove_fd(struct dp_worker *w, int fd)
{
	int slot = fd < 0 ? -1 : find_fd(w, fd);

	if (slot < 0)
		return -ENOENT;
	/* Even if the kernel already forgot it (closed): the watch goes. */
	(void)epoll_ctl(w->epoll, EPOLL_CTL_DEL, fd, NULL);
	w->fds[slot].fd = -1;
	/* Reports of it already taken from epoll in this batch no longer match. */
	w->fds[slot].generation++;
	return 0;
}

int dp_worker_timer_arm(struct dp_worker *w, struct dp_timer *t, uint64_t deadline_ns)
{
	return dp_timer_heap_arm(&w->timers, t, deadline_ns);
}

void dp_worker_timer_cancel(struct dp_worker *w, struct dp_timer *t)
{
	dp_timer_heap_cancel(&w->timers, t);
}

int dp_current_cpu(void)
{
	return sched_getcpu();
}

int dp_worker_add_sleep_flag(struct dp_worker *w, struct dp_queue *q)
{
	if (make_room((void **)&w->sleep_flags, &w->cap_sleep_flags, w->n_sleep_flags,
		      sizeof(*w->sleep_flags)) < 0)
		return -ENOMEM;
	w->sleep_flags[w->n_sleep_flags++] = q;
	return 0;
}

void dp_worker_remove_sleep_flag(struct dp_worker *w, struct dp_queue *q)
{
	for (unsigned i = 0; i < w->n_sleep_flags; i++)
		if (w->sleep_flags[i] == q) {
			w->sleep_flags[i] = w->sleep_flags[--w->n_sleep_flags];
			return;
		}
}

int dp_worker_add_turn_end(struct dp_worker *w, dp_turn_fn fn, void *arg)
{
	if (w->n_turn_ends >= DP_WORKER_TURN_ENDS_MAX)
		return -ENOSPC;
	w->turn_ends[w->n_turn_ends].fn = fn;
	w->turn_ends[w->n_turn_ends].arg = arg;
	w->n_turn_ends++;
	return 0;
}

void dp_worker_remove_turn_end(struct dp_worker *w, dp_turn_fn fn, void *arg)
{
	for (unsigned i = 0; i < w->n_turn_ends; i++)
		if (w->turn_ends[i].fn == fn && w->turn_ends[i].arg == arg) {
			/* Kept in order: the hooks after it still run after the ones before. */
			memmove(&w->turn_ends[i], &w->turn_ends[i + 1],
				(w->n_turn_ends - i - 1) * sizeof(w->turn_ends[0]));
			w->n_turn_ends--;
			return;
		}
}

void dp_worker_end_turn_hooks(struct dp_worker *w)
{
	for (unsigned i = 0; i < w->n_turn_ends; i++)
		w->turn_ends[i].fn(w, w->turn_ends[i].arg);
}
