/* SPDX-License-Identifier: MIT */
#include "daemon/core/trim.h"
#include "daemon/verbs/device.h"
#include "lib/log.h"
#include "lib/thread.h"

#include <malloc.h>
#include <unistd.h>

/* Long enough for a burst of destroys (thousands a second) to end first. */
#define TRIM_DELAY_USEC 1000000

static void *trim(void *arg)
{
	struct memory_trim *t = arg;

	malloc_trim(0);
	atomic_fetch_add_explicit(&t->trims, 1, memory_order_relaxed);
	atomic_store_explicit(&t->running, false, memory_order_release);
	return NULL;
}

/*
 * On a thread of its own: trimming walks the whole heap (tens of ms with
 * hundreds of MB, longer under ASan), which on the event loop held up every
 * call meanwhile.  One at a time; the next burst's timer finds it done.
 */
static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct memory_trim *t = userdata;
	pthread_t thread;

	(void)s;
	(void)usec;
	if (atomic_exchange_explicit(&t->running, true, memory_order_acq_rel))
		return 0;
	if (thread_start_quiet(&thread, trim, t, "rdmad-trim") < 0)
		trim(t);
	else
		pthread_detach(thread);
	return 0;
}

static void arm(struct memory_trim *t)
{
	int enabled = SD_EVENT_OFF;
	int r = 0;

	if (!t->timer)
		r = sd_event_add_time_relative(t->event, &t->timer, CLOCK_MONOTONIC, TRIM_DELAY_USEC, 0,
					       on_timer, t);
	else if (sd_event_source_get_enabled(t->timer, &enabled) >= 0 && enabled == SD_EVENT_OFF &&
		 (r = sd_event_source_set_time_relative(t->timer, TRIM_DELAY_USEC)) >= 0)
		r = sd_event_source_set_enabled(t->timer, SD_EVENT_ONESHOT);
	if (r < 0)
		log_warning_errno(r, "cannot arm the timer that gives freed memory back");
}

static void on_event(struct rdma_device *dev, const struct rdma_event *ev, void *userdata)
{
	(void)dev;
	if (ev->type == RDMA_EVENT_OBJECT_DESTROYED)
		arm(userdata);
}

int memory_trim_watch(struct memory_trim *t, struct rdma_device *dev)
{
	return rdma_device_add_event_sink(dev, on_event, t);
}

void memory_trim_unwatch(struct memory_trim *t, struct rdma_device *dev)
{
	rdma_device_remove_event_sink(dev, on_event, t);
}

void memory_trim_release(struct memory_trim *t)
{
	/* A trim under way touches t when it ends: t must outlive it. */
	while (atomic_load_explicit(&t->running, memory_order_acquire))
		usleep(1000);
	t->timer = sd_event_source_disable_unref(t->timer);
}
