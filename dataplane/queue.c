/* SPDX-License-Identifier: MIT */
#include "dataplane/queue.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

static size_t entries_offset(void)
{
	return (sizeof(struct dp_queue_hdr) + DP_QUEUE_CACHELINE - 1) & ~(size_t)(DP_QUEUE_CACHELINE - 1);
}

static bool geometry_ok(uint32_t entries, uint32_t entry_size)
{
	return entries && entries <= DP_QUEUE_MAX_ENTRIES && !(entries & (entries - 1)) &&
	       entry_size && entry_size <= (1u << 20);
}

size_t dp_queue_bytes(uint32_t entries, uint32_t entry_size)
{
	return entries_offset() + (size_t)entries * entry_size;
}

/* The private handle over memory whose geometry the caller vouches for. */
static void set_handle(struct dp_queue *q, void *mem, uint32_t entries, uint32_t entry_size)
{
	*q = (struct dp_queue){
		.hdr = mem,
		.entries = (uint8_t *)mem + entries_offset(),
		.mask = entries - 1,
		.entry_size = entry_size,
		.doorbell = -1,
	};
}

int dp_queue_format(struct dp_queue *q, void *mem, size_t bytes, uint32_t entries, uint32_t entry_size)
{
	struct dp_queue_hdr *h = mem;

	if (!geometry_ok(entries, entry_size) || bytes < dp_queue_bytes(entries, entry_size) ||
	    ((uintptr_t)mem & (DP_QUEUE_CACHELINE - 1)))
		return -EINVAL;
	memset(h, 0, entries_offset());
	atomic_init(&h->prod, 0);
	atomic_init(&h->cons, 0);
	atomic_init(&h->sleeping, 0);
	h->log2_entries = (uint32_t)__builtin_ctz(entries);
	h->entry_size = entry_size;
	h->entries_offset = (uint32_t)entries_offset();
	set_handle(q, mem, entries, entry_size);
	return 0;
}

int dp_queue_attach(struct dp_queue *q, void *mem, size_t bytes, uint32_t entries, uint32_t entry_size)
{
	if (!geometry_ok(entries, entry_size) || bytes < dp_queue_bytes(entries, entry_size) ||
	    ((uintptr_t)mem & (DP_QUEUE_CACHELINE - 1)))
		return -EINVAL;
	set_handle(q, mem, entries, entry_size);
	atomic_init(&q->prod_own, atomic_load_explicit(&q->hdr->prod, memory_order_acquire));
	atomic_init(&q->cons_own, atomic_load_explicit(&q->hdr->cons, memory_order_acquire));
	return 0;
}

int dp_queue_init(struct dp_queue *q, uint32_t min_entries, uint32_t entry_size, unsigned options)
{
	uint32_t n = 1;
	size_t bytes;
	void *mem;
	int r;

	/* Fewer slots than asked for would break a caller that sized them (one per WR). */
	if (!min_entries || min_entries > DP_QUEUE_MAX_ENTRIES)
		return -EINVAL;
	while (n < min_entries)
		n <<= 1;
	if (!geometry_ok(n, entry_size))
		return -EINVAL;
	bytes = dp_queue_bytes(n, entry_size);
	mem = aligned_alloc(DP_QUEUE_CACHELINE, (bytes + DP_QUEUE_CACHELINE - 1) &
			    ~(size_t)(DP_QUEUE_CACHELINE - 1));
	if (!mem)
		return -ENOMEM;
	memset(mem, 0, bytes);
	r = dp_queue_format(q, mem, bytes, n, entry_size);
	if (r < 0) {
		free(mem);
		return r;
	}
	q->owns_memory = true;
	if (options & (DP_QUEUE_DOORBELL | DP_QUEUE_EVENT_DRIVEN)) {
		q->doorbell = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (q->doorbell < 0) {
			r = -errno;
			dp_queue_release(q);
			return r;
		}
	}
	/* An event loop never announces: it always wants the ring. */
	if (options & DP_QUEUE_EVENT_DRIVEN)
		atomic_store(&q->hdr->sleeping, 1);
	return 0;
}

void dp_queue_release(struct dp_queue *q)
{
	if (q->doorbell >= 0)
		close(q->doorbell);
	if (q->owns_memory)
		free(q->hdr);
	*q = (struct dp_queue){ .doorbell = -1 };
}

void dp_queue_ring(struct dp_queue *q)
{
	uint64_t one = 1;

	if (q->doorbell >= 0)
		(void)!write(q->doorbell, &one, sizeof(one));
}

void dp_queue_kick(struct dp_queue *q)
{
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&q->hdr->sleeping, memory_order_relaxed))
		dp_queue_ring(q);
}

void dp_queue_set_sleeping(struct dp_queue *q, bool sleeping)
{
	atomic_store_explicit(&q->hdr->sleeping, sleeping, memory_order_relaxed);
	/* Pairs with dp_queue_kick: the look at the queue that follows sees what came before a kick. */
	if (sleeping)
		atomic_thread_fence(memory_order_seq_cst);
}

void dp_queue_ack(struct dp_queue *q)
{
	uint64_t count;

	if (q->doorbell >= 0)
		(void)!read(q->doorbell, &count, sizeof(count));
}
