/* SPDX-License-Identifier: MIT */
/*
 * Memory a QP's or a CQ's queues live in when an application is their other
 * side: a memfd that rdmad maps and hands to the application, which maps it
 * too.  It is sealed against resizing before anyone else sees it, so that a
 * process cannot shrink it under rdmad's mapping (a fault in a worker).
 * Whatever the application writes there is hostile to the side that reads it
 * (dataplane/queue.h says how the queues stay safe).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

struct dp_ring_mem {
	void *addr;               /* rdmad's mapping */
	size_t bytes;
	int fd;                   /* -1: none */
};

/* Where a queue lies in a ring memory, as a reply tells the application. */
struct dp_ring_geometry {
	uint32_t entries;         /* a power of two */
	uint32_t entry_size;
	uint64_t offset;          /* of the queue's header, from the memory's first byte */
};

/* bytes (rounded up to pages), zeroed, mapped and sealed; -errno. */
int dp_ring_mem_new(struct dp_ring_mem *m, const char *name, size_t bytes);
/* Unmaps and closes; a memory never made (fd -1) is nothing to free. */
void dp_ring_mem_free(struct dp_ring_mem *m);

/* Offsets of queues laid out one after the other: each starts on a cache line. */
static inline uint64_t dp_ring_align(uint64_t offset)
{
	return (offset + 63) & ~(uint64_t)63;
}

/* The power of two a queue of at least n entries has (dp_queue_init's rounding). */
static inline uint32_t dp_ring_entries(uint32_t n)
{
	uint32_t e = 1;

	while (e < n)
		e <<= 1;
	return e;
}
