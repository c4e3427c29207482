/* SPDX-License-Identifier: MIT */
/*
 * The device side of one split virtqueue (virtio 1.x, "Split Virtqueues"; no
 * packed rings) in a guest's memory.
 *
 * The vhost-user session (vhost_user.h) sets a queue up as the front end
 * asks (size, ring addresses, the last available index, kick, call and error
 * eventfds, the ring features negotiated) and starts it against a guest
 * memory table; from then until it stops, one thread at a time owns the
 * queue (the device decides which and hands it over itself: nothing here
 * locks) and calls vq_pop, vq_push, vq_signal and the copy helpers.
 *
 * The guest writes the rings and may write anything at any time.  Every
 * descriptor is copied out once and checked before it is believed; a chain
 * that breaks the rules (see vq_pop) breaks the queue: it stops for good
 * (every later pop finds nothing) with a short reason and its error fd
 * written, and nothing else is harmed.  Only the copy helpers touch the
 * bytes of a chain, and only for the length of the call, so a guest that
 * changes a buffer while the device works on it changes nothing the device
 * already read.
 */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dataplane/virtio/guest_mem.h"

#define VQ_SIZE_MAX       32768u
/* Segments one chain may have (descriptors, and a descriptor split across regions counts each piece). */
#define VQ_CHAIN_SEGS_MAX 64u

/* What a queue counts; one writer (its owner), read from any thread. */
struct vq_counters {
	_Atomic uint64_t popped;       /* chains taken */
	_Atomic uint64_t pushed;       /* used elements given back */
	_Atomic uint64_t signals;      /* call eventfd written */
	_Atomic uint64_t kicks;        /* kick eventfd read (each read counts once) */
	_Atomic uint64_t errors;       /* the break, refused pushes, copies out of a chain's range */
};

/* A piece of a chain's buffers; only the copy helpers look inside. */
struct vq_seg {
	uint8_t *host;
	uint32_t len;
};

/*
 * One available chain, as vq_pop found it: the head descriptor's index (what
 * vq_push gives back) and its buffers, the device-readable segments first
 * (seg[0 .. n_read)), then the device-writable ones (seg[n_read .. n_read +
 * n_write)).  Its bytes are reachable through vq_chain_read/vq_chain_write
 * while the queue runs on the memory table it was popped under; once the
 * queue stopped, or restarted on another table, they refuse (-ESTALE), but
 * the head may still be pushed.
 */
struct vq_chain {
	uint16_t head;
	uint16_t n_read, n_write;
	uint64_t read_bytes, write_bytes;
	uint64_t mem_id;               /* vhost_mem_id of the table it was popped under */
	struct vq_seg seg[VQ_CHAIN_SEGS_MAX];
};

struct vring_desc;
struct vring_avail;
struct vring_used;

/*
 * A queue.  The fields are the library's; the device reads them only through
 * the functions below (vq_counters may be read directly).
 */
struct virtqueue {
	unsigned index;
	/* as the protocol set them; changed only while stopped */
	uint32_t num;                  /* 0: not set */
	uint64_t desc_uva, avail_uva, used_uva;
	bool addr_set;
	uint16_t last_avail;           /* SET_VRING_BASE; then the next index vq_pop takes */
	int kick_fd, call_fd, err_fd;  /* -1: none (polling / no interrupts / no error reports) */
	bool event_idx, indirect;      /* VIRTIO_RING_F_EVENT_IDX, VIRTIO_RING_F_INDIRECT_DESC negotiated */
	/* while running */
	bool running;
	/*
	 * Set by whichever thread takes from the queue or gives back to it
	 * (a device may split the two), read by any: the reason first.
	 */
	_Atomic bool broken;
	const char *reason;            /* why it broke: a static string */
	struct vhost_mem *mem;         /* the table it runs on (a reference) */
	/* guest memory: read and written only with atomics or copied out once (virtqueue.c) */
	struct vring_desc *desc;
	struct vring_avail *avail;
	struct vring_used *used;
	uint16_t used_idx;             /* the next used index vq_push writes */
	uint16_t signalled_used;       /* used index at the last signal decision */
	bool signalled_used_valid;
	struct vq_counters counters;
};

/* ---- set up by the session (the owner never calls these while the queue runs) ---- */

/* A stopped queue with nothing set; index is its number in the device. */
void vq_init(struct virtqueue *vq, unsigned index);
/* Stops it if it runs, closes its fds, forgets everything set (counters stay). */
void vq_reset(struct virtqueue *vq);
/* -EINVAL unless num is a power of two in 1..VQ_SIZE_MAX; -EBUSY while running. */
int vq_set_num(struct virtqueue *vq, uint32_t num);
/* Front-end addresses of the three parts (checked at vq_start); -EBUSY while running. */
int vq_set_addr(struct virtqueue *vq, uint64_t desc, uint64_t avail, uint64_t used);
/* -EBUSY while running. */
int vq_set_base(struct virtqueue *vq, uint16_t last_avail);
/* Take ownership of fd (-1: none) and close the one before; -EBUSY (fd still the caller's) while running. */
int vq_set_kick(struct virtqueue *vq, int fd);
int vq_set_call(struct virtqueue *vq, int fd);
int vq_set_err(struct virtqueue *vq, int fd);
/* -EBUSY while running. */
int vq_set_features(struct virtqueue *vq, bool event_idx, bool indirect);
/* Whether size and addresses are set: what vq_start needs besides a table. */
bool vq_ready(const struct virtqueue *vq);

/*
 * Runs the queue on mem (takes a reference): the three parts are translated
 * once, each whole inside one region, aligned as the spec says (descriptors
 * 16, available ring 2, used ring 4); the used index is read from the ring.
 * -EINVAL when size or addresses are missing, -EFAULT when a part is outside
 * the table, -EBUSY when it runs already.  A queue broken before is whole
 * again after a start.
 */
int vq_start(struct virtqueue *vq, struct vhost_mem *mem);
/* Stops it and drops its table; the last available index stays (vq_last_avail). */
void vq_stop(struct virtqueue *vq);
uint16_t vq_last_avail(const struct virtqueue *vq);
bool vq_running(const struct virtqueue *vq);
/* The reason it broke, or NULL while it is whole. */
const char *vq_broken(const struct virtqueue *vq);
/* The kick eventfd to wait on, -1 when the front end asked for polling. */
int vq_kick_fd(const struct virtqueue *vq);

/* ---- used by the thread that owns the running queue ---- */

/*
 * Takes the next available chain into *c: 1, or 0 when there is none (also
 * on a stopped or broken queue), or -EIO when this chain broke the queue.
 * It breaks when: the available index is more than the size ahead of the
 * last one taken; a head or next index is not below its table's size; a
 * chain visits more descriptors than its table holds (a loop); an INDIRECT
 * descriptor comes without the feature, inside an indirect table, together
 * with NEXT, with a length that is not a non-zero multiple of 16, or with
 * more than VQ_SIZE_MAX descriptors; a
 * device-readable descriptor follows a device-writable one; a buffer or
 * indirect table lies outside the memory table; or the chain needs more
 * than VQ_CHAIN_SEGS_MAX segments.  Zero-length descriptors are skipped.
 */
int vq_pop(struct virtqueue *vq, struct vq_chain *c);
/*
 * Copies n bytes at offset of c's readable part into buf (or buf into its
 * writable part): 0, -ERANGE when [offset, offset + n) is not all inside
 * that part, -ESTALE when the queue no longer runs on c's table.
 */
int vq_chain_read(struct virtqueue *vq, const struct vq_chain *c, uint64_t offset, void *buf, size_t n);
int vq_chain_write(struct virtqueue *vq, const struct vq_chain *c, uint64_t offset, const void *buf,
		   size_t n);
/*
 * Gives chain head back as used, with the bytes the device wrote into its
 * writable part, visible to the guest at once (release on the used index).
 * -EINVAL when head is not below the size, -ESTALE on a stopped queue.
 */
int vq_push(struct virtqueue *vq, uint16_t head, uint32_t written);
/*
 * After one or many pushes: writes the call eventfd if the guest wants to
 * hear of them (EVENT_IDX: the used index passed its used_event; else unless
 * it set VRING_AVAIL_F_NO_INTERRUPT).  Returns whether it signalled.
 */
bool vq_signal(struct virtqueue *vq);
/*
 * Kicks, for a consumer that polls: vq_kick_disable asks the guest not to
 * kick (VRING_USED_F_NO_NOTIFY; with EVENT_IDX the consumer simply stops
 * moving avail_event).  vq_kick_enable asks for a kick at the next chain
 * (avail_event = last available index with EVENT_IDX, else clears
 * NO_NOTIFY), then looks again: true when a chain came meanwhile, so the
 * consumer polls once more instead of sleeping.
 */
void vq_kick_disable(struct virtqueue *vq);
bool vq_kick_enable(struct virtqueue *vq);
/* Reads the kick eventfd once (non-blocking); the count read, 0 when there was none. */
uint64_t vq_kick_read(struct virtqueue *vq);
