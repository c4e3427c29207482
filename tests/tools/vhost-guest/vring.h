/* SPDX-License-Identifier: MIT */
/*
 * vring.h - the driver side of a virtio split virtqueue, as a guest's driver
 * keeps one: a descriptor table, the available ring it writes, the used ring
 * the device writes, chains added (directly or through an indirect table),
 * used buffers taken back, and whether the device wants a kick (event index).
 *
 * It knows nothing of vhost-user or of guest memory beyond the host pointers
 * and guest-physical addresses it is given, so a unit test can drive it on
 * plain memory and act as the device itself.
 */
#ifndef VHOST_GUEST_VRING_H
#define VHOST_GUEST_VRING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VRING_DESC_F_NEXT	1
#define VRING_DESC_F_WRITE	2
#define VRING_DESC_F_INDIRECT	4

#define VRING_AVAIL_F_NO_INTERRUPT	1
#define VRING_USED_F_NO_NOTIFY		1

/* Entries of one indirect table: a chain longer than this goes direct. */
#define VRING_INDIRECT_MAX	8
#define VRING_SIZE_MAX		32768

struct vring_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};

struct vring_avail {
	uint16_t flags;
	uint16_t idx;
	uint16_t ring[];	/* then uint16_t used_event */
};

struct vring_used_elem {
	uint32_t id;
	uint32_t len;
};

struct vring_used {
	uint16_t flags;
	uint16_t idx;
	struct vring_used_elem ring[];	/* then uint16_t avail_event */
};

/* A piece of guest memory: where this program sees it and its guest-physical address. */
struct vring_area {
	void *host;
	uint64_t gpa;
};

/* One buffer of a chain. */
struct vring_seg {
	uint64_t gpa;
	uint32_t len;
	bool write;	/* device-writable */
};

struct vring {
	uint16_t num;
	struct vring_desc *desc;
	struct vring_avail *avail;
	struct vring_used *used;
	struct vring_area indirect;	/* num tables of VRING_INDIRECT_MAX, or host NULL */
	bool event_idx;
	/* No call asked for: used_event is left behind (a polling driver's queue). */
	bool quiet;

	uint16_t free_head;	/* the driver's own free list, never read back from guest memory */
	uint16_t num_free;
	uint16_t *free_next;
	uint16_t *chain_len;	/* per head: descriptors it took, 0 when free */
	void **cookie;

	uint16_t avail_idx;	/* next avail entry to write */
	uint16_t kicked_idx;	/* avail idx when the device was last told */
	uint16_t last_used;	/* next used entry to read */
};

/* Bytes of each part for a queue of num entries, and of the indirect tables. */
size_t vring_desc_bytes(unsigned num);
size_t vring_avail_bytes(unsigned num);
size_t vring_used_bytes(unsigned num);
size_t vring_indirect_bytes(unsigned num);

/* Offsets of the parts in one block laid out by vring_layout (desc, avail,
 * used at the next page, indirect tables after it); returns the block's size. */
struct vring_layout {
	size_t desc, avail, used, indirect, total;
};
void vring_layout(unsigned num, bool indirect, struct vring_layout *out);

/* Sets up a queue on zeroed memory; indirect.host NULL: no indirect tables. */
int vring_init(struct vring *vr, unsigned num, struct vring_area desc, struct vring_area avail,
	       struct vring_area used, struct vring_area indirect, bool event_idx);
void vring_free(struct vring *vr);

/* The head the next vring_add will use, or -ENOSPC. */
int vring_peek_head(const struct vring *vr);

/* Adds a chain, device-readable segments first (a writable one before a
 * readable one is refused: -EINVAL); through an indirect table when there is
 * one and the chain has more than one segment.  Not visible before vring_publish.
 * Returns the head, or -ENOSPC, -EINVAL. */
int vring_add(struct vring *vr, const struct vring_seg *segs, unsigned n, void *cookie);

/* Makes added chains visible; true when the device must be kicked. */
bool vring_publish(struct vring *vr);

/* Takes the next used chain back: its head, the length the device wrote and
 * its cookie; -EAGAIN none, -EIO a used entry naming no chain in flight. */
int vring_get_used(struct vring *vr, uint32_t *len, void **cookie);
bool vring_has_used(const struct vring *vr);

/* Virtio's event index rule: has idx gone past event since old? */
bool vring_need_event(uint16_t event, uint16_t new_idx, uint16_t old);

/* Where the trailing event fields live. */
uint16_t *vring_used_event(const struct vring *vr);
uint16_t *vring_avail_event(const struct vring *vr);

#endif
