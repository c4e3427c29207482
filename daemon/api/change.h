/* SPDX-License-Identifier: MIT */
/*
 * Calls that change persistent state (pools, DEKs, the log level) are
 * answered only once the change is durable, and the event loop goes on
 * meanwhile (daemon/core/commit.h writes the files on its own thread).
 *
 * A handler makes its change in the model, which leaves the object pending
 * (rdma_pool_*, rdma_dek_*), and calls api_change_submit(): the call is kept
 * until the state file holding the change is durable, and then finish(change,
 * 0) settles the change and gives the reply's parameters.  If the file cannot
 * be written, finish(change, r) undoes the change so that memory and disk
 * agree, and the call gets io.rdmad.Daemon.System with r's errno (ENOSPC,
 * EIO...).  The reply goes out a little later, when the committer answers
 * (daemon/core/commit.h); what it says is the state right after the change.
 *
 * An object has one pending change at a time, which is what makes undoing
 * reliable: a handler that finds its object pending calls api_change_wait(),
 * and its call runs again, with the same parameters, once that change is
 * settled or undone, on the state it left.  Readers do not wait: they see memory,
 * pending changes included (docs/decisions.md, "Persistence").
 */
#pragma once

#include <stdint.h>

#include "daemon/core/commit.h"
#include "daemon/core/manager.h"
#include "lib/varlink/varlink.h"

struct api_change;
struct api_waiter;

/*
 * r == 0: durable: settles, and gives the reply's parameters (NULL: none);
 * r < 0: undoes, and gives NULL (the reply is the error).
 */
typedef struct json_object *(*api_change_fn)(struct api_change *change, int r);

struct api_change {
	struct commit_change commit;  /* first: the committer hands this back */
	struct manager *m;
	struct varlink_call *call;
	struct rdma_device *dev;
	void *object;                 /* the pool, the DEK... */
	api_change_fn finish;
	uint64_t tag;                 /* the finish hook's own */
	int value;                    /* the finish hook's own */
	struct api_waiter *waiters;   /* calls to run again once this change is settled or undone */
	int result;                   /* what finish was given */
	struct json_object *reply;    /* what finish gave */
	struct varlink_turn turn;     /* its reply, on the server's change turn */
};

/*
 * Keeps call until the change just made to object (in kind's file) is durable
 * or refused, and finish has settled or undone it.  Out of memory,
 * finish(-ENOMEM) undoes the change at once and -ENOMEM is returned for the
 * handler to return.
 * tag and value are given to finish as the change's own.
 */
int api_change_submit(struct varlink_call *call, struct manager *m, const struct state_kind *kind,
		      struct rdma_device *dev, void *object, api_change_fn finish, uint64_t tag,
		      int value);
/*
 * object has a pending change: fn(call, params, userdata) runs again once that
 * change is settled or undone, unless the caller goes away first.  0, or -ENOMEM.
 */
int api_change_wait(struct varlink_call *call, struct json_object *params, varlink_method_fn fn,
		    void *userdata, struct manager *m, const void *object);
