/* SPDX-License-Identifier: MIT */
/* Group commit of the state files on a thread of its own (see commit.h). */
#include "daemon/core/commit.h"
#include "daemon/core/state.h"
#include "lib/log.h"
#include "lib/thread.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

/* Kinds of state, so files in a batch, at most (state.c has three). */
#define COMMIT_KINDS_MAX 8
/*
 * Changes of a written batch settled in one go of the event loop: between
 * two goes, the calls waiting to be read run (a reader need not wait for a
 * whole batch's done hooks, some hundreds of microseconds for 64 changes).
 */
#define SETTLE_PER_GO 8

struct commit {
	const struct state_env *env;
	char *dir;
	commit_write_fn write;
	int efd;                  /* the thread rings it when a batch is written */
	sd_event_source *source;
	sd_event_source *settling; /* the next go of settling a written batch */
	pthread_t thread;
	bool started;

	/* Shared with the thread: the flags under lock; files are the thread's while job is set. */
	pthread_mutex_t lock;
	pthread_cond_t wake;      /* job or stop */
	pthread_cond_t finished;  /* written, for commit_flush() */
	bool job, written, stop;
	struct state_file files[COMMIT_KINDS_MAX];
	unsigned n_files;

	/* The main thread's. */
	const struct state_kind *dirty[COMMIT_KINDS_MAX];
	unsigned n_dirty;
	struct commit_change *queued, **queued_tail;  /* for the next batch */
	struct commit_change *inflight;               /* in the batch being written */
	struct commit_change *settled, **settled_tail; /* done, to be answered */
	bool busy;                /* a batch is with the thread */
	bool completing;          /* settling a written batch: what the hooks submit waits for its end */
	bool had_changes[COMMIT_KINDS_MAX]; /* of the batch settling, per file */
	unsigned long batches;
};

static void *commit_main(void *arg)
{
	struct commit *c = arg;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		unsigned n;

		while (!c->job && !c->stop)
			pthread_cond_wait(&c->wake, &c->lock);
		/* A batch handed over before stop is written all the same. */
		if (!c->job)
			break;
		n = c->n_files;
		pthread_mutex_unlock(&c->lock);
		c->write(c->dir, c->files, n);
		pthread_mutex_lock(&c->lock);
		c->job = false;
		c->written = true;
		pthread_cond_signal(&c->finished);
		eventfd_write(c->efd, 1);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

static void mark_dirty(struct commit *c, const struct state_kind *kind)
{
	for (unsigned i = 0; i < c->n_dirty; i++)
		if (c->dirty[i] == kind)
			return;
	if (c->n_dirty < COMMIT_KINDS_MAX)
		c->dirty[c->n_dirty++] = kind;
}

/* Serializes every dirty kind and hands the batch to the thread, if it is free. */
static void start_batch(struct commit *c)
{
	if (c->busy || c->completing || !c->n_dirty)
		return;
	for (unsigned i = 0; i < c->n_dirty; i++) {
		struct state_file *f = &c->files[i];

		*f = (struct state_file){ .kind = c->dirty[i], .name = c->dirty[i]->name };
		f->text = state_serialize(c->env, f->kind, &f->len);
		if (!f->text)
			f->result = -ENOMEM;
	}
	c->n_files = c->n_dirty;
	c->n_dirty = 0;
	c->inflight = c->queued;
	c->queued = NULL;
	c->queued_tail = &c->queued;
	c->busy = true;
	pthread_mutex_lock(&c->lock);
	c->job = true;
	pthread_cond_signal(&c->wake);
	pthread_mutex_unlock(&c->lock);
}

static const struct state_file *file_of(const struct commit *c, const struct state_kind *kind)
{
	for (unsigned i = 0; i < c->n_files; i++)
		if (c->files[i].kind == kind)
			return &c->files[i];
	return NULL;
}

/* A file replaced before the directory's fsync failed holds undone changes: written again. */
static void rewrite_if_replaced(struct commit *c, const struct state_file *f, bool had_changes)
{
	if (f->result >= 0 || !f->replaced)
		return;
	/* Once: a batch that only rewrites does not start another. */
	if (!had_changes) {
		log_error("%s/%s.json was written again but may not survive a crash: the refused changes "
			  "may come back after one", c->dir, f->name);
		return;
	}
	log_warning("%s/%s.json was replaced but may not survive a crash; writing it again from memory",
		    c->dir, f->name);
	mark_dirty(c, f->kind);
}

/* Answers the settled changes, in order. */
static void answer(struct commit *c)
{
	struct commit_change *change;

	while ((change = c->settled)) {
		c->settled = change->next;
		if (!c->settled)
			c->settled_tail = &c->settled;
		change->answer(change);
	}
}

/* The thread wrote the batch: its changes are settled (or undone) from now on. */
static void begin_settling(struct commit *c)
{
	c->busy = false;
	c->batches++;
	for (unsigned i = 0; i < c->n_files; i++) {
		c->had_changes[i] = false;
		if (c->files[i].result < 0)
			log_error_errno(c->files[i].result, "cannot save %s in %s", c->files[i].name, c->dir);
	}
	c->completing = true;
}

/*
 * Settles (or undoes) up to max changes of the written batch, in order; true
 * once none is left.  One at a time: the changes not done yet stay pending
 * for commit_find().
 */
static bool settle(struct commit *c, unsigned max)
{
	struct commit_change *change;

	for (; max && (change = c->inflight); max--) {
		const struct state_file *f = file_of(c, change->kind);

		c->inflight = change->next;
		c->had_changes[f - c->files] = true;
		change->done(change, f->result);
		change->next = NULL;
		*c->settled_tail = change;
		c->settled_tail = &change->next;
	}
	return !c->inflight;
}

/*
 * Every change of the batch settled: the next batch starts, and the changes
 * are answered (their answer hooks only queue the replies: daemon/api/change.c).
 */
static void end_settling(struct commit *c)
{
	c->completing = false;
	for (unsigned i = 0; i < c->n_files; i++) {
		rewrite_if_replaced(c, &c->files[i], c->had_changes[i]);
		free(c->files[i].text);
		c->files[i].text = NULL;
	}
	c->n_files = 0;
	start_batch(c);
	answer(c);
}

/* A go of settling: the next waits behind what came meanwhile. */
static void settle_go(struct commit *c)
{
	if (settle(c, SETTLE_PER_GO))
		end_settling(c);
	else
		sd_event_source_set_enabled(c->settling, SD_EVENT_ONESHOT);
}

static int on_settling(sd_event_source *s, void *userdata)
{
	settle_go(userdata);
	return 0;
}

/* Takes the thread's "written" under the lock; true when a batch came back. */
static bool take_written(struct commit *c, bool wait)
{
	bool written;

	pthread_mutex_lock(&c->lock);
	while (wait && !c->written)
		pthread_cond_wait(&c->finished, &c->lock);
	written = c->written;
	c->written = false;
	pthread_mutex_unlock(&c->lock);
	return written;
}


static int on_written(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct commit *c = userdata;
	eventfd_t n;

	eventfd_read(fd, &n);
	/* commit_flush() may have taken the batch already. */
	if (c->busy && take_written(c, false)) {
		begin_settling(c);
		settle_go(c);
	}
	return 0;
}

int commit_new(struct commit **out, sd_event *event, const struct state_env *env, commit_write_fn write)
{
	struct commit *c = calloc(1, sizeof(*c));
	int r;

	if (!c)
		return -ENOMEM;
	c->env = env;
	c->efd = -1;
	c->write = write ? write : state_write_files;
	c->queued_tail = &c->queued;
	c->settled_tail = &c->settled;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->wake, NULL);
	pthread_cond_init(&c->finished, NULL);
	c->dir = strdup(env->dir);
	c->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (!c->dir || c->efd < 0) {
		r = c->dir ? -errno : -ENOMEM;
		goto fail;
	}
	r = sd_event_add_io(event, &c->source, c->efd, EPOLLIN, on_written, c);
	/* Answers first: the sooner a batch is answered, the sooner the next one is written. */
	if (r >= 0)
		r = sd_event_source_set_priority(c->source, SD_EVENT_PRIORITY_IMPORTANT);
	/* The later goes rank with the connections: a call read meanwhile runs first. */
	if (r >= 0)
		r = sd_event_add_defer(event, &c->settling, on_settling, c);
	if (r >= 0)
		r = sd_event_source_set_enabled(c->settling, SD_EVENT_OFF);
	if (r < 0)
		goto fail;
	r = thread_start_quiet(&c->thread, commit_main, c, "rdmad-commit");
	if (r < 0)
		goto fail;
	c->started = true;
	*out = c;
	return 0;
fail:
	commit_free(c);
	return r;
}

struct commit *commit_free(struct commit *c)
{
	if (!c)
		return NULL;
	if (c->started) {
		pthread_mutex_lock(&c->lock);
		c->stop = true;
		pthread_cond_signal(&c->wake);
		pthread_mutex_unlock(&c->lock);
		pthread_join(c->thread, NULL);
	}
	if (c->queued || c->inflight || c->settled)
		log_error("state changes left unanswered at exit");
	for (unsigned i = 0; i < c->n_files; i++)
		free(c->files[i].text);
	sd_event_source_disable_unref(c->source);
	sd_event_source_disable_unref(c->settling);
	if (c->efd >= 0)
		close(c->efd);
	pthread_cond_destroy(&c->finished);
	pthread_cond_destroy(&c->wake);
	pthread_mutex_destroy(&c->lock);
	free(c->dir);
	free(c);
	return NULL;
}

void commit_submit(struct commit *c, struct commit_change *change)
{
	change->next = NULL;
	*c->queued_tail = change;
	c->queued_tail = &change->next;
	mark_dirty(c, change->kind);
	start_batch(c);
}

struct commit_change *commit_find(struct commit *c, const void *object)
{
	struct commit_change *lists[] = { c->queued, c->inflight };

	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		for (struct commit_change *change = lists[i]; change; change = change->next)
			if (change->object == object)
				return change;
	return NULL;
}

void commit_flush(struct commit *c)
{
	start_batch(c);
	while (c->busy || c->completing) {
		if (c->busy) {
			take_written(c, true);
			begin_settling(c);
		}
		sd_event_source_set_enabled(c->settling, SD_EVENT_OFF);
		settle(c, UINT_MAX);
		end_settling(c);
	}
}

unsigned long commit_batches(const struct commit *c)
{
	return c->batches;
}
