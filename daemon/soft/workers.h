/* SPDX-License-Identifier: MIT */
/*
 * The daemon's dataplane workers: one per CPU of --cpus, started with the
 * daemon and stopped with it.  Their event queues are watched by the event loop,
 * which hands each event to the handler registered for its type.
 */
#pragma once

#include <stdint.h>
#include <systemd/sd-event.h>

#include "dataplane/nic.h"
#include "dataplane/worker.h"

#define WORKER_EVENT_TYPES_MAX 32

/*
 * The types of struct dp_event the daemon's workers report (0 is none): the
 * NIC's (enum dp_nic_event, dataplane/nic.h) and, after them, the OPA
 * fabric's, whose type its driver gives it (dataplane/opa/fabric.h).
 */
enum worker_event_type {
	/* MADs wait in the software fabric's queue: cookie the fabric. */
	WORKER_EVENT_FABRIC_MADS = DP_EVENT_TYPES,
};

typedef void (*worker_event_fn)(struct dp_worker *w, const struct dp_event *ev, void *userdata);

struct worker_set {
	struct dp_worker *workers;
	unsigned n;
	sd_event_source **sources;
	struct {
		worker_event_fn fn;
		void *userdata;
	} handlers[WORKER_EVENT_TYPES_MAX];
	unsigned next;            /* round robin for new owners */
};

/* Starts one worker pinned to each of cpus[0..n). */
int worker_set_start(struct worker_set **out, sd_event *event, const int *cpus, unsigned n);
struct worker_set *worker_set_free(struct worker_set *ws);
int worker_set_on_event(struct worker_set *ws, uint32_t type, worker_event_fn fn, void *userdata);
/* Handles every event the workers have reported so far, now. */
void worker_set_dispatch(struct worker_set *ws);
/* The worker a new QP (or port) goes to: round robin. */
struct dp_worker *worker_set_pick(struct worker_set *ws);
