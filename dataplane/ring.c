/* SPDX-License-Identifier: MIT */
#include "dataplane/ring.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

int dp_ring_init(struct dp_ring *r, uint32_t capacity, uint32_t entry_size)
{
	memset(r, 0, sizeof(*r));
	r->doorbell = -1;
	if (capacity == 0 || (capacity & (capacity - 1)) || entry_size == 0)
		return -EINVAL;
	r->entries = calloc(capacity, entry_size);
	if (!r->entries)
		return -ENOMEM;
	r->doorbell = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (r->doorbell < 0) {
		int err = -errno;

		free(r->entries);
		r->entries = NULL;
		return err;
	}
	r->mask = capacity - 1;
	r->entry_size = entry_size;
	return 0;
}

void dp_ring_release(struct dp_ring *r)
{
	if (r->doorbell >= 0)
		close(r->doorbell);
	free(r->entries);
	memset(r, 0, sizeof(*r));
	r->doorbell = -1;
}

bool dp_ring_push(struct dp_ring *r, const void *entry)
{
	uint32_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
	uint32_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);

	if (head - tail > r->mask)
		return false;
	memcpy(r->entries + (size_t)(head & r->mask) * r->entry_size, entry, r->entry_size);
	/* The entry is written before the consumer can see the new head. */
	atomic_store_explicit(&r->head, head + 1, memory_order_release);
	return true;
}

void dp_ring_kick(struct dp_ring *r)
{
	uint64_t one = 1;

	/*
	 * seq_cst pairs with the consumer's store of "sleeping" then its re-check
	 * of head: either it sees our entry, or we see it asleep and ring.
	 */
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&r->sleeping, memory_order_relaxed))
		(void)!write(r->doorbell, &one, sizeof(one));
}

bool dp_ring_pop(struct dp_ring *r, void *entry)
{
	uint32_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	uint32_t head = atomic_load_explicit(&r->head, memory_order_acquire);

	if (head == tail)
		return false;
	memcpy(entry, r->entries + (size_t)(tail & r->mask) * r->entry_size, r->entry_size);
	atomic_store_explicit(&r->tail, tail + 1, memory_order_release);
	return true;
}

bool dp_ring_empty(struct dp_ring *r)
{
	return atomic_load_explicit(&r->head, memory_order_acquire) ==
	       atomic_load_explicit(&r->tail, memory_order_relaxed);
}

void dp_ring_set_event_driven(struct dp_ring *r)
{
	atomic_store(&r->sleeping, true);
}

void dp_ring_ack(struct dp_ring *r)
{
	uint64_t count;

	(void)!read(r->doorbell, &count, sizeof(count));
}

void dp_ring_wait(struct dp_ring *r, int timeout_ms)
{
	struct pollfd pfd = { .fd = r->doorbell, .events = POLLIN };

	atomic_store_explicit(&r->sleeping, true, memory_order_relaxed);
	atomic_thread_fence(memory_order_seq_cst);
	if (dp_ring_empty(r))
		poll(&pfd, 1, timeout_ms);
	atomic_store_explicit(&r->sleeping, false, memory_order_relaxed);
	dp_ring_ack(r);
}
