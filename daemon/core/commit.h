/* SPDX-License-Identifier: MIT */
/*
 * Group commit of the state files (daemon/core/state.h), off the main loop.
 *
 * A change to what users configured is made in memory on the main thread and
 * submitted here with the kind of state it changed.  One thread writes the
 * files (write, fsync, rename, one fsync of the directory for the batch); the
 * main thread only serializes, since the model is not thread-safe.  While the
 * thread writes a batch, the changes submitted meanwhile gather into the next
 * one, and each kind they touched is serialized once for all of them when the
 * thread is free again: one write carries as many changes as came in during
 * the last, so changes scale with clients while the event loop never waits
 * for the disk.
 *
 * Every change is answered on the main thread in two steps, each in the order
 * of submission.  Its done hook runs once the batch is written, before the
 * next one is serialized (a few changes per go of the event loop, so that a
 * call read meanwhile does not wait for a whole batch's hooks): with 0 once its kind's file holding it is
 * durable, or with the -errno (-ENOSPC, -EIO...) of that file's write, after
 * which the change must be undone so that memory and disk agree.  Its answer
 * hook runs once the whole batch is settled and the next one started; it must
 * be cheap (daemon/api queues the reply on the varlink server's change turn,
 * which sends it after waiting reads, so that replying to a whole batch does
 * not hold up other clients' calls).  A batch's snapshot
 * holds every change submitted before it, so undoing the changes of a failed
 * batch gives back what the file still holds, provided an object has one
 * pending change at a time (daemon/api/change.h sees to that), or its undo
 * knows better (the log level's).  When the directory's fsync failed after a
 * file was renamed, the file is written again from memory once the changes
 * are undone.
 */
#pragma once

#include <stdbool.h>
#include <systemd/sd-event.h>

struct state_env;
struct state_kind;
struct state_file;

struct commit_change {
	const struct state_kind *kind;
	const void *object;       /* what changed, for commit_find() */
	/* Settles (r == 0) or undoes (r < 0) the change. */
	void (*done)(struct commit_change *change, int r);
	/* Then, after done, the caller is told; change is no longer the committer's. */
	void (*answer)(struct commit_change *change);
	struct commit_change *next;  /* the committer's */
};

/* What the thread runs for a batch: state_write_files() unless a test says otherwise. */
typedef void (*commit_write_fn)(const char *dir, struct state_file *files, unsigned n);

struct commit;

/*
 * A committer for env's state directory on event, with its thread started;
 * it serializes the kinds through env, which must outlive it.
 */
int commit_new(struct commit **out, sd_event *event, const struct state_env *env, commit_write_fn write);
/* Stops the thread (after commit_flush(), nothing is lost) and frees the committer. */
struct commit *commit_free(struct commit *c);
/*
 * change (filled in but for next) waits for its kind's file: written at once
 * when the thread is idle, else with the next batch.  change stays the
 * caller's, untouched after its done hook.
 */
void commit_submit(struct commit *c, struct commit_change *change);
/* The change submitted for object whose done hook has not run yet, or NULL. */
struct commit_change *commit_find(struct commit *c, const void *object);
/*
 * Waits, blocking, until no change is pending, and answers them all (and
 * whatever their hooks submit): at shutdown, after the event loop ended.
 */
void commit_flush(struct commit *c);
/* Batches written so far, for the log and tests. */
unsigned long commit_batches(const struct commit *c);
