/* SPDX-License-Identifier: MIT */
/*
 * Work that would stall the event loop, on a thread of its own: making a
 * large MR's memory ready (page faults of a populate, mlock) takes a second
 * a GiB, and every other client would wait that long for its answer.
 *
 * A job's run hook runs on the helper's thread and may touch only what the
 * job holds (never the model, which is the main thread's); its done hook runs
 * after it on the main loop, in the order jobs were submitted.  Jobs run one
 * at a time: they are bound by memory bandwidth, and two would only share it.
 */
#pragma once

#include <stdbool.h>
#include <systemd/sd-event.h>

struct helper_job {
	void (*run)(struct helper_job *job);
	/* ran: false when the helper stopped before running it (at the daemon's end). */
	void (*done)(struct helper_job *job, bool ran);
	struct helper_job *next;  /* the helper's */
};

struct helper;

/* A helper with its thread started, answering on event's loop. */
int helper_new(struct helper **out, sd_event *event);
/*
 * Lets the job running finish, runs no other, and calls every job's done hook
 * (ran or not) before it returns.
 */
struct helper *helper_free(struct helper *h);
/* job (run and done set) is the helper's until its done hook is called. */
void helper_submit(struct helper *h, struct helper_job *job);
