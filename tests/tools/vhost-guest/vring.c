/* SPDX-License-Identifier: MIT */
/*
 * vring.c - the driver side of a split virtqueue (see vring.h).  Index
 * fields are little-endian in guest memory; this program runs on
 * little-endian hosts only (checked at build time below), so they are
 * stored as they are, with the barriers the virtio spec asks of a driver.
 */
#include "vring.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "vhost-guest assumes a little-endian host");
_Static_assert(sizeof(struct vring_desc) == 16, "descriptor");

#define PAGE 4096u

static size_t align_up(size_t v, size_t a)
{
	return (v + a - 1) & ~(a - 1);
}

size_t vring_desc_bytes(unsigned num)
{
	return (size_t)num * sizeof(struct vring_desc);
}

size_t vring_avail_bytes(unsigned num)
{
	return 4 + 2 * (size_t)num + 2;
}

size_t vring_used_bytes(unsigned num)
{
	return 4 + 8 * (size_t)num + 2;
}

size_t vring_indirect_bytes(unsigned num)
{
	return (size_t)num * VRING_INDIRECT_MAX * sizeof(struct vring_desc);
}

void vring_layout(unsigned num, bool indirect, struct vring_layout *out)
{
	out->desc = 0;
	out->avail = vring_desc_bytes(num);
	out->used = align_up(out->avail + vring_avail_bytes(num), PAGE);
	out->indirect = align_up(out->used + vring_used_bytes(num), 16);
	out->total = align_up(out->indirect + (indirect ? vring_indirect_bytes(num) : 0), PAGE);
}

int vring_init(struct vring *vr, unsigned num, struct vring_area desc, struct vring_area avail,
	       struct vring_area used, struct vring_area indirect, bool event_idx)
{
	unsigned i;

	if (num == 0 || num > VRING_SIZE_MAX || (num & (num - 1)))
		return -EINVAL;
	memset(vr, 0, sizeof(*vr));
	vr->num = num;
	vr->desc = desc.host;
	vr->avail = avail.host;
	vr->used = used.host;
	vr->indirect = indirect;
	vr->event_idx = event_idx;
	vr->free_next = calloc(num, sizeof(*vr->free_next));
	vr->chain_len = calloc(num, sizeof(*vr->chain_len));
	vr->cookie = calloc(num, sizeof(*vr->cookie));
	if (!vr->free_next || !vr->chain_len || !vr->cookie) {
		vring_free(vr);
		return -ENOMEM;
	}
	for (i = 0; i < num; i++)
		vr->free_next[i] = (uint16_t)(i + 1);
	vr->num_free = (uint16_t)num;
	return 0;
}

void vring_free(struct vring *vr)
{
	free(vr->free_next);
	free(vr->chain_len);
	free(vr->cookie);
	vr->free_next = NULL;
	vr->chain_len = NULL;
	vr->cookie = NULL;
}

uint16_t *vring_used_event(const struct vring *vr)
{
	return &vr->avail->ring[vr->num];
}

uint16_t *vring_avail_event(const struct vring *vr)
{
	return (uint16_t *)&vr->used->ring[vr->num];
}

int vring_peek_head(const struct vring *vr)
{
	return vr->num_free ? vr->free_head : -ENOSPC;
}

static bool readable_before_writable(const struct vring_seg *segs, unsigned n)
{
	bool seen_write = false;
	unsigned i;

	for (i = 0; i < n; i++) {
		if (segs[i].write)
			seen_write = true;
		else if (seen_write)
			return false;
	}
	return true;
}

static void fill_desc(struct vring_desc *d, const struct vring_seg *s, uint16_t next, bool last)
{
	d->addr = s->gpa;
	d->len = s->len;
	d->flags = (uint16_t)((s->write ? VRING_DESC_F_WRITE : 0) | (last ? 0 : VRING_DESC_F_NEXT));
	d->next = last ? 0 : next;
}

/* Takes count descriptors off the free list, chained in the table. */
static uint16_t take_descs(struct vring *vr, unsigned count)
{
	uint16_t head = vr->free_head;
	uint16_t i = head;
	unsigned k;

	for (k = 0; k < count; k++)
		i = vr->free_next[i];
	vr->free_head = i;
	vr->num_free = (uint16_t)(vr->num_free - count);
	return head;
}

int vring_add(struct vring *vr, const struct vring_seg *segs, unsigned n, void *cookie)
{
	bool indirect = vr->indirect.host && n > 1 && n <= VRING_INDIRECT_MAX;
	unsigned need = indirect ? 1 : n;
	uint16_t head, i;
	unsigned k;

	if (n == 0 || !readable_before_writable(segs, n))
		return -EINVAL;
	if (vr->num_free < need)
		return -ENOSPC;
	head = take_descs(vr, need);
	if (indirect) {
		struct vring_desc *table = (struct vring_desc *)vr->indirect.host +
					   (size_t)head * VRING_INDIRECT_MAX;

		for (k = 0; k < n; k++)
			fill_desc(&table[k], &segs[k], (uint16_t)(k + 1), k + 1 == n);
		vr->desc[head].addr = vr->indirect.gpa +
				      (uint64_t)head * VRING_INDIRECT_MAX * sizeof(struct vring_desc);
		vr->desc[head].len = (uint32_t)(n * sizeof(struct vring_desc));
		vr->desc[head].flags = VRING_DESC_F_INDIRECT;
		vr->desc[head].next = 0;
	} else {
		for (k = 0, i = head; k < n; k++, i = vr->free_next[i])
			fill_desc(&vr->desc[i], &segs[k], vr->free_next[i], k + 1 == n);
	}
	vr->chain_len[head] = (uint16_t)need;
	vr->cookie[head] = cookie;
	vr->avail->ring[vr->avail_idx % vr->num] = head;
	vr->avail_idx++;
	return head;
}

bool vring_need_event(uint16_t event, uint16_t new_idx, uint16_t old)
{
	return (uint16_t)(new_idx - event - 1) < (uint16_t)(new_idx - old);
}

bool vring_publish(struct vring *vr)
{
	uint16_t old = vr->kicked_idx;
	uint16_t new_idx = vr->avail_idx;

	/* The entries before the index, the index before reading what the device wants. */
	__atomic_store_n(&vr->avail->idx, new_idx, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	vr->kicked_idx = new_idx;
	if (old == new_idx)
		return false;
	if (vr->event_idx)
		return vring_need_event(__atomic_load_n(vring_avail_event(vr), __ATOMIC_ACQUIRE),
					new_idx, old);
	return !(__atomic_load_n(&vr->used->flags, __ATOMIC_ACQUIRE) & VRING_USED_F_NO_NOTIFY);
}

bool vring_has_used(const struct vring *vr)
{
	return __atomic_load_n(&vr->used->idx, __ATOMIC_ACQUIRE) != vr->last_used;
}

/* Gives a chain's descriptors back: they were taken in free_next order from head. */
static void put_descs(struct vring *vr, uint16_t head, unsigned count)
{
	uint16_t last = head;
	unsigned k;

	for (k = 1; k < count; k++)
		last = vr->free_next[last];
	vr->free_next[last] = vr->free_head;
	vr->free_head = head;
	vr->num_free = (uint16_t)(vr->num_free + count);
}

int vring_get_used(struct vring *vr, uint32_t *len, void **cookie)
{
	struct vring_used_elem e;
	uint16_t head;

	if (!vring_has_used(vr))
		return -EAGAIN;
	/* The index before the entry it covers. */
	e = vr->used->ring[vr->last_used % vr->num];
	vr->last_used++;
	if (e.id >= vr->num || vr->chain_len[e.id] == 0)
		return -EIO;	/* skipped: the device named no chain in flight */
	head = (uint16_t)e.id;
	if (len)
		*len = e.len;
	if (cookie)
		*cookie = vr->cookie[head];
	put_descs(vr, head, vr->chain_len[head]);
	vr->chain_len[head] = 0;
	vr->cookie[head] = NULL;
	/* Ask for a call at the next used entry, unless the driver polls this queue. */
	if (vr->event_idx && !vr->quiet)
		__atomic_store_n(vring_used_event(vr), vr->last_used, __ATOMIC_RELEASE);
	return head;
}
