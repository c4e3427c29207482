/* SPDX-License-Identifier: MIT */
#include "dataplane/timer.h"

#include <errno.h>
#include <stdlib.h>

void dp_timer_init(struct dp_timer *t, dp_timer_fn fn, void *arg)
{
	*t = (struct dp_timer){ .fn = fn, .arg = arg, .slot = DP_TIMER_IDLE };
}

void dp_timer_heap_release(struct dp_timer_heap *h)
{
	free(h->v);
	*h = (struct dp_timer_heap){ 0 };
}

static bool before(const struct dp_timer *a, const struct dp_timer *b)
{
	return a->deadline_ns != b->deadline_ns ? a->deadline_ns < b->deadline_ns : a->seq < b->seq;
}

static void place(struct dp_timer_heap *h, uint32_t i, struct dp_timer *t)
{
	h->v[i] = t;
	t->slot = i;
}

/* Moves the timer at i towards the root, then towards the leaves, until it is in order. */
static void settle(struct dp_timer_heap *h, uint32_t i)
{
	struct dp_timer *t = h->v[i];

	while (i > 0 && before(t, h->v[(i - 1) / 2])) {
		place(h, i, h->v[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	for (;;) {
		uint32_t child = 2 * i + 1;

		if (child >= h->n)
			break;
		if (child + 1 < h->n && before(h->v[child + 1], h->v[child]))
			child++;
		if (!before(h->v[child], t))
			break;
		place(h, i, h->v[child]);
		i = child;
	}
	place(h, i, t);
}

int dp_timer_heap_arm(struct dp_timer_heap *h, struct dp_timer *t, uint64_t deadline_ns)
{
	if (!dp_timer_armed(t)) {
		if (h->n == h->cap) {
			uint32_t cap = h->cap ? 2 * h->cap : 16;
			struct dp_timer **v = reallocarray(h->v, cap, sizeof(*v));

			if (!v)
				return -ENOMEM;
			h->v = v;
			h->cap = cap;
		}
		place(h, h->n++, t);
	}
	t->deadline_ns = deadline_ns;
	t->seq = h->next_seq++;
	settle(h, t->slot);
	return 0;
}

void dp_timer_heap_cancel(struct dp_timer_heap *h, struct dp_timer *t)
{
	uint32_t i = t->slot;

	if (!dp_timer_armed(t))
		return;
	t->slot = DP_TIMER_IDLE;
	if (i == --h->n)
		return;
	/* The last leaf fills the hole and finds its place from there, up or down. */
	place(h, i, h->v[h->n]);
	settle(h, i);
}

struct dp_timer *dp_timer_heap_take_due(struct dp_timer_heap *h, uint64_t now_ns)
{
	struct dp_timer *t = dp_timer_heap_first(h);

	if (!t || t->deadline_ns > now_ns)
		return NULL;
	dp_timer_heap_cancel(h, t);
	return t;
}
