/* SPDX-License-Identifier: MIT */
/*
 * A send or receive virtqueue's WQEs in flight, oldest first, each with the
 * descriptor it came in: given back on the used ring when its completion
 * (or a later one's, for an unsignaled send) reaches the guest.  One
 * producer, the thread that takes the WQEs (the main thread, or the QP's
 * worker for a send queue there), and one consumer, the main thread, which
 * delivers the completions: indices only, no lock.
 */
#include "daemon/vdev/session_int.h"
#include "dataplane/worker.h"

uint32_t vdev_posted_count(const struct vdev_rdmaq *q)
{
	return atomic_load_explicit(&q->posted_end, memory_order_relaxed) -
	       atomic_load_explicit(&q->posted_first, memory_order_acquire);
}

bool vdev_posted_add(struct vdev_rdmaq *q, uint16_t head, uint64_t wr_id)
{
	uint32_t end = atomic_load_explicit(&q->posted_end, memory_order_relaxed);

	/* Never more than the queue's size: each holds a descriptor of the queue. */
	if (vdev_posted_count(q) >= q->posted_cap)
		return false;
	q->posted[end & (q->posted_cap - 1)] = (struct vdev_posted){ .head = head, .wr_id = wr_id };
	/* The entry before the index: the consumer reads the index with acquire. */
	atomic_store_explicit(&q->posted_end, end + 1, memory_order_release);
	return true;
}

void vdev_posted_retire(struct vdev_rdmaq *q, uint64_t wr_id, bool all)
{
	uint32_t first = atomic_load_explicit(&q->posted_first, memory_order_relaxed);
	uint32_t end = atomic_load_explicit(&q->posted_end, memory_order_acquire), i = first;

	if (!all) {
		while (i != end && q->posted[i & (q->posted_cap - 1)].wr_id != wr_id)
			i++;
		if (i == end)
			return;
		end = i + 1;
	}
	for (i = first; i != end; i++)
		if (q->vq)
			vq_push(q->vq, q->posted[i & (q->posted_cap - 1)].head, 0);
	atomic_store_explicit(&q->posted_first, end, memory_order_release);
	if (q->vq && end != first)
		vq_signal(q->vq);
	/* A worker that takes this queue's WQEs may have stopped for want of this room. */
	if (q->worker && end != first)
		dp_worker_wake(q->worker);
}
