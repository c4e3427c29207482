/* SPDX-License-Identifier: MIT */
/*
 * Memory freed by destroyed objects goes back to the system.  glibc keeps
 * freed chunks in its heap, so without this rdmad's RSS would stay at the
 * most it ever held (65,536 QPs made and destroyed: hundreds of MB).  A
 * second after the first destroy of a burst, malloc_trim(0) gives the free
 * pages back: once per burst, not per object, as trimming walks the heap,
 * and on a thread of its own, not the event loop's.
 */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <systemd/sd-event.h>

struct rdma_device;

struct memory_trim {
	sd_event *event;
	sd_event_source *timer;   /* armed from a destroy until the trim; NULL before the first */
	_Atomic bool running;     /* a trim's thread has not ended yet */
	_Atomic unsigned long trims;  /* done so far */
};

/* Trims after objects of dev are destroyed, on t->event; -ENOSPC: dev has no room for another event sink. */
int memory_trim_watch(struct memory_trim *t, struct rdma_device *dev);
/* Stops watching dev (before it is freed). */
void memory_trim_unwatch(struct memory_trim *t, struct rdma_device *dev);
void memory_trim_release(struct memory_trim *t);
