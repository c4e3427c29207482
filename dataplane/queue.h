/* SPDX-License-Identifier: MIT */
/*
 * The one queue type of the data path: commands and events between the main
 * thread and a worker, send and receive queues, completion lanes, and the
 * rings between workers.  Single producer, single consumer, no lock.
 *
 * The queue is laid out so that it can live in memory shared with another
 * process (Linux rxe's rxe_queue.h has the same shape):
 *  - the shared part is a header and the entries, one block of memory; the
 *    header holds the producer index, the consumer index and the consumer's
 *    "sleeping" flag, each on its own cache line, and the geometry the
 *    creator chose, addressed by an offset, never by a pointer;
 *  - the trusted part is the private handle (struct dp_queue): the mask,
 *    the entry size and the base address each side computed itself.  Nothing
 *    in the shared header is used to find memory.
 * An index is a free-running 32-bit count; slot = index & mask.  Each side
 * keeps its own index in its handle and only publishes it in the header: it
 * never reads it back from memory the other side could rewrite.  A producer
 * that is another process may write anything into the entries and its
 * index: a consumer copies an entry out before it checks and uses it, and
 * never trusts the distance between the indices beyond the capacity.
 */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define DP_QUEUE_CACHELINE 64
/* The largest queue: indices stay far from wrapping into each other. */
#define DP_QUEUE_MAX_ENTRIES (1u << 24)

/* The shared part: first bytes of the queue's memory. */
struct dp_queue_hdr {
	/* Written by the producer only. */
	_Alignas(DP_QUEUE_CACHELINE) _Atomic uint32_t prod;
	/* Written by the consumer only. */
	_Alignas(DP_QUEUE_CACHELINE) _Atomic uint32_t cons;
	/* Set by a consumer about to sleep on the doorbell: the producer then rings it. */
	_Alignas(DP_QUEUE_CACHELINE) _Atomic uint32_t sleeping;
	/* What the creator chose, for a peer to check what it attached to; never used here. */
	_Alignas(DP_QUEUE_CACHELINE) uint32_t log2_entries;
	uint32_t entry_size;
	uint32_t entries_offset;  /* from the header's first byte */
};

/* The private, trusted handle of one side. */
struct dp_queue {
	struct dp_queue_hdr *hdr;
	uint8_t *entries;         /* computed from the memory this side was given */
	uint32_t mask;
	uint32_t entry_size;
	int doorbell;             /* eventfd the producer rings, or -1 */
	bool owns_memory;
	/*
	 * Each side's own index (the header has copies for the other side), on
	 * lines of their own: in one process both sides share this handle, and
	 * the fields above are read by both at every operation.
	 */
	_Alignas(DP_QUEUE_CACHELINE) _Atomic uint32_t prod_own;
	_Alignas(DP_QUEUE_CACHELINE) _Atomic uint32_t cons_own;
};

/* Options of dp_queue_init. */
enum {
	DP_QUEUE_DOORBELL = 1 << 0,   /* an eventfd for a consumer that sleeps */
	DP_QUEUE_EVENT_DRIVEN = 1 << 1, /* the consumer is an event loop: every kick rings */
};

/* Bytes of a queue of entries (a power of two) of entry_size bytes: header, then entries. */
size_t dp_queue_bytes(uint32_t entries, uint32_t entry_size);

/*
 * A queue of at least min_entries (rounded up to a power of two; 1 to
 * DP_QUEUE_MAX_ENTRIES, else -EINVAL) in memory of its own.
 */
int dp_queue_init(struct dp_queue *q, uint32_t min_entries, uint32_t entry_size, unsigned options);

/*
 * Lays a new queue out in memory given by the caller (shared memory): bytes
 * must hold dp_queue_bytes(entries, entry_size); entries a power of two.
 */
int dp_queue_format(struct dp_queue *q, void *mem, size_t bytes, uint32_t entries, uint32_t entry_size);

/*
 * The other side of a queue someone else laid out: the geometry comes from
 * whoever set it up (trusted), not from the header; -EINVAL when it does not
 * fit in bytes.  The indices are taken from the header once, here.
 */
int dp_queue_attach(struct dp_queue *q, void *mem, size_t bytes, uint32_t entries, uint32_t entry_size);

/* Gives back what dp_queue_init took (memory, doorbell); a formatted or attached queue only forgets. */
void dp_queue_release(struct dp_queue *q);

static inline uint32_t dp_queue_capacity(const struct dp_queue *q)
{
	return q->mask + 1;
}

static inline void *dp_queue_slot(const struct dp_queue *q, uint32_t index)
{
	return q->entries + (size_t)(index & q->mask) * q->entry_size;
}

/* ---- producer ---- */

/* The next index the producer fills (its own index: no ordering needed). */
static inline uint32_t dp_queue_prod(const struct dp_queue *q)
{
	return atomic_load_explicit(&q->prod_own, memory_order_relaxed);
}

/* Free slots as the producer sees them (the consumer may free more meanwhile). */
static inline uint32_t dp_queue_room(const struct dp_queue *q)
{
	uint32_t used = dp_queue_prod(q) - atomic_load_explicit(&q->hdr->cons, memory_order_acquire);

	return used > q->mask ? 0 : q->mask + 1 - used;
}

/* The slot to fill next, or NULL when the queue is full; not visible until published. */
static inline void *dp_queue_reserve(struct dp_queue *q, uint32_t *index)
{
	if (!dp_queue_room(q))
		return NULL;
	*index = dp_queue_prod(q);
	return dp_queue_slot(q, *index);
}

/* The next n slots (filled by the producer) become visible to the consumer at once. */
static inline void dp_queue_publish(struct dp_queue *q, uint32_t n)
{
	uint32_t prod = dp_queue_prod(q) + n;

	atomic_store_explicit(&q->prod_own, prod, memory_order_relaxed);
	atomic_store_explicit(&q->hdr->prod, prod, memory_order_release);
}

/* Copies entry into the queue and publishes it; false when the queue is full. */
static inline bool dp_queue_push(struct dp_queue *q, const void *entry)
{
	uint32_t index;
	void *slot = dp_queue_reserve(q, &index);

	if (!slot)
		return false;
	memcpy(slot, entry, q->entry_size);
	dp_queue_publish(q, 1);
	return true;
}

/* ---- consumer ---- */

/* The oldest index not consumed yet (the consumer's own index). */
static inline uint32_t dp_queue_cons(const struct dp_queue *q)
{
	return atomic_load_explicit(&q->cons_own, memory_order_relaxed);
}

/*
 * Entries published from index from on (from between cons and prod), never
 * more than the queue holds: a producer that moved its index too far gains
 * nothing.  Acquire: the entries counted are readable.
 */
static inline uint32_t dp_queue_ready(const struct dp_queue *q, uint32_t from)
{
	uint32_t prod = atomic_load_explicit(&q->hdr->prod, memory_order_acquire);
	uint32_t held = from - dp_queue_cons(q);
	uint32_t n = prod - from;

	if (held > q->mask)
		return 0;
	return n > q->mask + 1 - held ? q->mask + 1 - held : n;
}

static inline uint32_t dp_queue_count(const struct dp_queue *q)
{
	return dp_queue_ready(q, dp_queue_cons(q));
}

/* Copies the entry at index out (one the consumer counted ready). */
static inline void dp_queue_copy(const struct dp_queue *q, uint32_t index, void *out)
{
	memcpy(out, dp_queue_slot(q, index), q->entry_size);
}

/* The n oldest entries are done with: their slots go back to the producer. */
static inline void dp_queue_consume(struct dp_queue *q, uint32_t n)
{
	uint32_t cons = dp_queue_cons(q) + n;

	atomic_store_explicit(&q->cons_own, cons, memory_order_relaxed);
	atomic_store_explicit(&q->hdr->cons, cons, memory_order_release);
}

/* Copies the oldest entry out and consumes it; false when the queue is empty. */
static inline bool dp_queue_pop(struct dp_queue *q, void *out)
{
	uint32_t cons = dp_queue_cons(q);

	if (!dp_queue_ready(q, cons))
		return false;
	dp_queue_copy(q, cons, out);
	dp_queue_consume(q, 1);
	return true;
}

/* ---- doorbell ---- */

/*
 * Producer, after publishing: rings the doorbell if the consumer announced
 * its sleep.  The fence pairs with the consumer's announcement and its look
 * at the queue after it: either the consumer sees the entry, or the producer
 * sees the announcement and rings.  No system call while the consumer is awake.
 */
void dp_queue_kick(struct dp_queue *q);

/* Rings the doorbell whatever the flag says: to stop a consumer, not to hand it an entry. */
void dp_queue_ring(struct dp_queue *q);

/* Consumer: announce a sleep (true; then look at the queue once more) or its end (false). */
void dp_queue_set_sleeping(struct dp_queue *q, bool sleeping);

/* Consumer: clears the doorbell's count once woken. */
void dp_queue_ack(struct dp_queue *q);
