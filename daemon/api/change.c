/* SPDX-License-Identifier: MIT */
/* Calls answered once their change is durable, and calls waiting for an object's change. */
#include "daemon/api/change.h"
#include "daemon/api/api.h"
#include "lib/log.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

struct api_waiter {
	struct api_waiter *next;
	struct api_change *change;
	struct varlink_call *call;
	struct json_object *params;
	varlink_method_fn fn;
	void *userdata;
};

static void waiter_free(struct api_waiter *w)
{
	varlink_params_drop(w->params);
	varlink_call_unref(w->call);
	free(w);
}

/* The waiting call's client went away: nothing to run for it. */
static void waiter_cancel(struct varlink_call *call, void *userdata)
{
	struct api_waiter *w = userdata, **p;

	for (p = &w->change->waiters; *p != w; p = &(*p)->next)
		;
	*p = w->next;
	waiter_free(w);
}

/* Runs again, in the order they came, the calls that waited for change. */
static void wake(struct api_change *change)
{
	struct api_waiter *w;

	while ((w = change->waiters)) {
		int r;

		change->waiters = w->next;
		varlink_call_set_cancel(w->call, NULL, NULL);
		/* As the server does with a handler's -errno: it did not reply. */
		r = w->fn(w->call, w->params, w->userdata);
		if (r < 0)
			api_error_errno(w->call, r);
		waiter_free(w);
	}
}

static void done(struct commit_change *commit, int r)
{
	struct api_change *change = (struct api_change *)commit;

	change->result = r;
	change->reply = change->finish(change, r);
	wake(change);
}

static void reply(struct varlink_turn *turn)
{
	struct api_change *change = (struct api_change *)((char *)turn - offsetof(struct api_change, turn));

	if (change->result < 0)
		api_error_errno(change->call, change->result);
	else
		api_reply(change->call, change->reply);
	varlink_call_unref(change->call);
	free(change);
}

/* The reply is change work too: it goes out on the server's change turn, after waiting reads. */
static void answer(struct commit_change *commit)
{
	struct api_change *change = (struct api_change *)commit;

	change->turn.run = reply;
	varlink_call_queue_turn(change->call, &change->turn);
}

int api_change_submit(struct varlink_call *call, struct manager *m, const struct state_kind *kind,
		      struct rdma_device *dev, void *object, api_change_fn finish, uint64_t tag,
		      int value)
{
	struct api_change *change = calloc(1, sizeof(*change));
	struct api_change undo = {
		.m = m, .call = call, .dev = dev, .object = object, .tag = tag, .value = value,
	};

	if (!change) {
		finish(&undo, -ENOMEM);
		return -ENOMEM;
	}
	*change = undo;
	change->commit = (struct commit_change){
		.kind = kind, .object = object, .done = done, .answer = answer,
	};
	change->finish = finish;
	change->call = varlink_call_ref(call);
	commit_submit(m->commit, &change->commit);
	return 0;
}

int api_change_wait(struct varlink_call *call, struct json_object *params, varlink_method_fn fn,
		    void *userdata, struct manager *m, const void *object)
{
	struct commit_change *commit = commit_find(m->commit, object);
	struct api_change *change;
	struct api_waiter *w, **p;

	/* A pending object has its change with the committer; anything else is a bug here. */
	if (!commit) {
		log_error("%s: the object waited for has no pending change", varlink_call_method(call));
		return -EIO;
	}
	change = (struct api_change *)commit;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	/* The server wipes the call's own parameters when this handler returns. */
	*w = (struct api_waiter){
		.change = change, .params = varlink_params_keep(params), .fn = fn, .userdata = userdata,
	};
	if (params && !w->params) {
		free(w);
		return -ENOMEM;
	}
	w->call = varlink_call_ref(call);
	for (p = &change->waiters; *p; p = &(*p)->next)
		;
	*p = w;
	varlink_call_set_cancel(call, waiter_cancel, w);
	return 0;
}
