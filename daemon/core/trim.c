/* SPDX-License-Identifier: MIT */
#include "daemon/core/trim.h"
#include "daemon/verbs/device.h"
#include "lib/log.h"

#include <malloc.h>

/* Long enough for a burst of destroys (thousands a second) to end first. */
#define TRIM_DELAY_USEC 1000000

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct memory_trim *t = userdata;

	(void)s;
	(void)usec;
	malloc_trim(0);
	t->trims++;
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
	t->timer = sd_event_source_disable_unref(t->timer);
}
