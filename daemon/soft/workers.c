/* SPDX-License-Identifier: MIT */
#include "daemon/soft/workers.h"
#include "lib/log.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>

static void dispatch(struct dp_worker *w)
{
	struct worker_set *ws = w->owner;
	struct dp_event ev;

	while (dp_queue_pop(&w->events, &ev)) {
		if (ev.type < WORKER_EVENT_TYPES_MAX && ws->handlers[ev.type].fn)
			ws->handlers[ev.type].fn(w, &ev, ws->handlers[ev.type].userdata);
		else
			log_warning("worker %u: event of unknown type %u", w->index, ev.type);
	}
}

static int on_events(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct dp_worker *w = userdata;

	dp_queue_ack(&w->events);
	dispatch(w);
	return 0;
}

void worker_set_dispatch(struct worker_set *ws)
{
	for (unsigned i = 0; i < ws->n; i++)
		dispatch(&ws->workers[i]);
}

int worker_set_start(struct worker_set **out, sd_event *event, const int *cpus, unsigned n)
{
	struct worker_set *ws = calloc(1, sizeof(*ws));
	int r = -ENOMEM;

	if (!ws)
		return -ENOMEM;
	ws->workers = calloc(n, sizeof(*ws->workers));
	ws->sources = calloc(n, sizeof(*ws->sources));
	if (!ws->workers || !ws->sources)
		goto fail;
	for (unsigned i = 0; i < n; i++) {
		struct dp_worker *w = &ws->workers[i];

		r = dp_worker_init(w, i, cpus[i]);
		if (r < 0)
			goto fail;
		ws->n++;
		w->owner = ws;
		r = sd_event_add_io(event, &ws->sources[i], w->events.doorbell, EPOLLIN, on_events, w);
		if (r < 0)
			goto fail;
		r = dp_worker_start(w);
		if (r < 0) {
			log_error_errno(r, "cannot start the worker for CPU %d", cpus[i]);
			goto fail;
		}
	}
	log_info("%u dataplane worker(s) started", n);
	*out = ws;
	return 0;
fail:
	worker_set_free(ws);
	return r;
}

struct worker_set *worker_set_free(struct worker_set *ws)
{
	if (!ws)
		return NULL;
	for (unsigned i = 0; i < ws->n; i++) {
		sd_event_source_disable_unref(ws->sources[i]);
		dp_worker_stop(&ws->workers[i]);
	}
	free(ws->sources);
	free(ws->workers);
	free(ws);
	return NULL;
}

int worker_set_on_event(struct worker_set *ws, uint32_t type, worker_event_fn fn, void *userdata)
{
	if (type >= WORKER_EVENT_TYPES_MAX || ws->handlers[type].fn)
		return -EINVAL;
	ws->handlers[type].fn = fn;
	ws->handlers[type].userdata = userdata;
	return 0;
}

struct dp_worker *worker_set_pick(struct worker_set *ws)
{
	return ws->n ? &ws->workers[ws->next++ % ws->n] : NULL;
}
