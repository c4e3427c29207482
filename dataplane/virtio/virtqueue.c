/* SPDX-License-Identifier: MIT */
#include "dataplane/virtio/virtqueue.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "dataplane/counters.h"

/* The split ring's layout in guest memory (virtio 1.x: little-endian). */
struct vring_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};

#define VRING_DESC_F_NEXT       1
#define VRING_DESC_F_WRITE      2
#define VRING_DESC_F_INDIRECT   4
#define VRING_AVAIL_F_NO_INTERRUPT 1
#define VRING_USED_F_NO_NOTIFY  1

struct vring_avail {
	uint16_t flags;
	uint16_t idx;
	uint16_t ring[];               /* num entries, then used_event */
};

struct vring_used_elem {
	uint32_t id;
	uint32_t len;
};

struct vring_used {
	uint16_t flags;
	uint16_t idx;
	struct vring_used_elem ring[]; /* num entries, then avail_event */
};

static uint64_t desc_table_bytes(uint32_t num)
{
	return 16ull * num;
}

static uint64_t avail_bytes(uint32_t num)
{
	return 6 + 2ull * num;
}

static uint64_t used_bytes(uint32_t num)
{
	return 6 + 8ull * num;
}

/* Guest words are read and written once each, as atomics: the guest writes them concurrently. */
static uint16_t guest_load16(uint16_t *p, memory_order order)
{
	return le16toh(atomic_load_explicit((_Atomic uint16_t *)p, order));
}

static void guest_store16(uint16_t *p, uint16_t v, memory_order order)
{
	atomic_store_explicit((_Atomic uint16_t *)p, htole16(v), order);
}

static void guest_store32(uint32_t *p, uint32_t v)
{
	atomic_store_explicit((_Atomic uint32_t *)p, htole32(v), memory_order_relaxed);
}

static uint16_t *used_event(struct virtqueue *vq)
{
	return &vq->avail->ring[vq->num];
}

static uint16_t *avail_event(struct virtqueue *vq)
{
	return (uint16_t *)&vq->used->ring[vq->num];
}

/*
 * One descriptor, copied out of a table that may be unaligned (an indirect
 * table) and that the guest may be changing: the compiler barrier keeps every
 * later use on the copy, never a second read of the guest's bytes.
 */
static void desc_copy(struct vring_desc *out, const void *table, uint32_t i)
{
	memcpy(out, (const uint8_t *)table + 16ull * i, sizeof(*out));
	atomic_signal_fence(memory_order_seq_cst);
	out->addr = le64toh(out->addr);
	out->len = le32toh(out->len);
	out->flags = le16toh(out->flags);
	out->next = le16toh(out->next);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void vq_init(struct virtqueue *vq, unsigned index)
{
	memset(vq, 0, sizeof(*vq));
	vq->index = index;
	vq->kick_fd = vq->call_fd = vq->err_fd = -1;
}

void vq_reset(struct virtqueue *vq)
{
	struct vq_counters counters;
	unsigned index = vq->index;

	vq_stop(vq);
	close_fd(&vq->kick_fd);
	close_fd(&vq->call_fd);
	close_fd(&vq->err_fd);
	memcpy(&counters, &vq->counters, sizeof(counters));
	vq_init(vq, index);
	memcpy(&vq->counters, &counters, sizeof(counters));
}

int vq_set_num(struct virtqueue *vq, uint32_t num)
{
	if (vq->running)
		return -EBUSY;
	if (!num || num > VQ_SIZE_MAX || (num & (num - 1)))
		return -EINVAL;
	vq->num = num;
	return 0;
}

int vq_set_addr(struct virtqueue *vq, uint64_t desc, uint64_t avail, uint64_t used)
{
	if (vq->running)
		return -EBUSY;
	vq->desc_uva = desc;
	vq->avail_uva = avail;
	vq->used_uva = used;
	vq->addr_set = true;
	return 0;
}

int vq_set_base(struct virtqueue *vq, uint16_t last_avail)
{
	if (vq->running)
		return -EBUSY;
	vq->last_avail = last_avail;
	return 0;
}

static int set_fd(struct virtqueue *vq, int *slot, int fd)
{
	if (vq->running)
		return -EBUSY;
	close_fd(slot);
	*slot = fd;
	return 0;
}

int vq_set_kick(struct virtqueue *vq, int fd)
{
	int r = set_fd(vq, &vq->kick_fd, fd);

	/* vq_kick_read must never block the owner; eventfds of front ends are non-blocking anyway. */
	if (!r && fd >= 0)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	return r;
}

int vq_set_call(struct virtqueue *vq, int fd)
{
	return set_fd(vq, &vq->call_fd, fd);
}

int vq_set_err(struct virtqueue *vq, int fd)
{
	return set_fd(vq, &vq->err_fd, fd);
}

int vq_set_features(struct virtqueue *vq, bool event_idx, bool indirect)
{
	if (vq->running)
		return -EBUSY;
	vq->event_idx = event_idx;
	vq->indirect = indirect;
	return 0;
}

bool vq_ready(const struct virtqueue *vq)
{
	return vq->num && vq->addr_set;
}

/* A ring part: whole inside one region of the table, aligned as the spec asks. */
static void *ring_part(struct vhost_mem *mem, uint64_t uva, uint64_t bytes, uintptr_t align)
{
	void *p;

	if (uva & (align - 1))
		return NULL;
	p = vhost_mem_uva(mem, uva, bytes);
	if (!p || ((uintptr_t)p & (align - 1)))
		return NULL;
	return p;
}

int vq_start(struct virtqueue *vq, struct vhost_mem *mem)
{
	if (vq->running)
		return -EBUSY;
	if (!vq_ready(vq) || !mem)
		return -EINVAL;
	vq->desc = ring_part(mem, vq->desc_uva, desc_table_bytes(vq->num), 16);
	vq->avail = ring_part(mem, vq->avail_uva, avail_bytes(vq->num), 2);
	vq->used = ring_part(mem, vq->used_uva, used_bytes(vq->num), 4);
	if (!vq->desc || !vq->avail || !vq->used) {
		vq->desc = NULL;
		vq->avail = NULL;
		vq->used = NULL;
		return -EFAULT;
	}
	vq->mem = vhost_mem_ref(mem);
	vq->used_idx = guest_load16(&vq->used->idx, memory_order_relaxed);
	vq->signalled_used = vq->used_idx;
	/* The guest's used_event may be from before the stop: the first push after start signals. */
	vq->signalled_used_valid = false;
	vq->broken = false;
	vq->reason = NULL;
	vq->running = true;
	return 0;
}

void vq_stop(struct virtqueue *vq)
{
	if (!vq->running)
		return;
	vq->running = false;
	vq->desc = NULL;
	vq->avail = NULL;
	vq->used = NULL;
	vhost_mem_unref(vq->mem);
	vq->mem = NULL;
}

uint16_t vq_last_avail(const struct virtqueue *vq)
{
	return vq->last_avail;
}

bool vq_running(const struct virtqueue *vq)
{
	return vq->running;
}

const char *vq_broken(const struct virtqueue *vq)
{
	return atomic_load_explicit(&vq->broken, memory_order_acquire) ? vq->reason : NULL;
}

int vq_kick_fd(const struct virtqueue *vq)
{
	return vq->kick_fd;
}

static int vq_break(struct virtqueue *vq, const char *reason)
{
	vq->reason = reason;
	atomic_store_explicit(&vq->broken, true, memory_order_release);
	dp_count_add(&vq->counters.errors, 1);
	if (vq->err_fd >= 0)
		eventfd_write(vq->err_fd, 1);
	return -EIO;
}

/* Appends a descriptor's buffer to c as one segment per region it crosses. */
static const char *add_buffer(struct virtqueue *vq, struct vq_chain *c, const struct vring_desc *d)
{
	bool writable = d->flags & VRING_DESC_F_WRITE;
	unsigned used = c->n_read + c->n_write;
	struct iovec iov[VQ_CHAIN_SEGS_MAX];
	int n;

	if (!writable && c->n_write)
		return "a device-readable descriptor after a device-writable one";
	if (!d->len)
		return NULL;
	n = vhost_mem_gpa_iov(vq->mem, d->addr, d->len, iov, VQ_CHAIN_SEGS_MAX - used);
	if (n == -E2BIG)
		return "a chain of more segments than the device takes";
	if (n < 0)
		return "a buffer outside guest memory";
	for (int i = 0; i < n; i++)
		c->seg[used + i] = (struct vq_seg){ .host = iov[i].iov_base, .len = (uint32_t)iov[i].iov_len };
	if (writable) {
		c->n_write += (uint16_t)n;
		c->write_bytes += d->len;
	} else {
		c->n_read += (uint16_t)n;
		c->read_bytes += d->len;
	}
	return NULL;
}

/* The indirect table d names, or a reason it cannot be one. */
static const char *indirect_table(struct virtqueue *vq, const struct vring_desc *d, bool nested,
				  const void **table, uint32_t *size)
{
	if (!vq->indirect)
		return "an indirect descriptor without VIRTIO_RING_F_INDIRECT_DESC";
	if (nested)
		return "an indirect descriptor inside an indirect table";
	if (d->flags & VRING_DESC_F_NEXT)
		return "an indirect descriptor with NEXT";
	if (!d->len || d->len % 16)
		return "an indirect table whose length is not a non-zero multiple of 16";
	/* Bounds the walk: zero-length descriptors add no segment, so only the table's size stops a loop. */
	if (d->len / 16 > VQ_SIZE_MAX)
		return "an indirect table of more descriptors than a queue may have";
	*table = vhost_mem_gpa(vq->mem, d->addr, d->len);
	if (!*table)
		return "an indirect table outside guest memory";
	*size = d->len / 16;
	return NULL;
}

/* Walks the chain from head into c; NULL, or why the queue breaks. */
static const char *walk(struct virtqueue *vq, uint16_t head, struct vq_chain *c)
{
	const void *table = vq->desc;
	uint32_t size = vq->num, i = head, visited = 0;
	bool nested = false;

	for (;;) {
		struct vring_desc d;
		const char *why;

		if (i >= size)
			return nested ? "a next index outside the indirect table" :
					"a head or next index not below the queue size";
		if (++visited > size)
			return "a descriptor chain that loops or is longer than its table";
		desc_copy(&d, table, i);
		if (d.flags & VRING_DESC_F_INDIRECT) {
			why = indirect_table(vq, &d, nested, &table, &size);
			if (why)
				return why;
			nested = true;
			i = 0;
			visited = 0;
			continue;
		}
		why = add_buffer(vq, c, &d);
		if (why)
			return why;
		if (!(d.flags & VRING_DESC_F_NEXT))
			return NULL;
		i = d.next;
	}
}

int vq_pop(struct virtqueue *vq, struct vq_chain *c)
{
	uint16_t avail_idx, head;
	const char *why;

	if (!vq->running || vq->broken)
		return 0;
	avail_idx = guest_load16(&vq->avail->idx, memory_order_acquire);
	if (avail_idx == vq->last_avail)
		return 0;
	if ((uint16_t)(avail_idx - vq->last_avail) > vq->num)
		return vq_break(vq, "the available index ran more than the queue size ahead");
	head = guest_load16(&vq->avail->ring[vq->last_avail & (vq->num - 1)], memory_order_relaxed);
	c->head = head;
	c->n_read = c->n_write = 0;
	c->read_bytes = c->write_bytes = 0;
	c->mem_id = vhost_mem_id(vq->mem);
	why = walk(vq, head, c);
	if (why)
		return vq_break(vq, why);
	vq->last_avail++;
	dp_count_add(&vq->counters.popped, 1);
	return 1;
}

/*
 * Copies between buf and [offset, offset + n) of the segments seg[0 .. nseg);
 * to_guest says which way.
 */
static void copy_segs(const struct vq_seg *seg, unsigned nseg, uint64_t offset, uint8_t *buf, size_t n,
		      bool to_guest)
{
	for (unsigned i = 0; i < nseg && n; i++) {
		size_t take;

		if (offset >= seg[i].len) {
			offset -= seg[i].len;
			continue;
		}
		take = seg[i].len - offset;
		if (take > n)
			take = n;
		if (to_guest)
			memcpy(seg[i].host + offset, buf, take);
		else
			memcpy(buf, seg[i].host + offset, take);
		buf += take;
		n -= take;
		offset = 0;
	}
}

static int chain_check(struct virtqueue *vq, const struct vq_chain *c, uint64_t part_bytes,
		       uint64_t offset, size_t n)
{
	if (!vq->running || c->mem_id != vhost_mem_id(vq->mem))
		return -ESTALE;
	if (offset > part_bytes || n > part_bytes - offset) {
		dp_count_add(&vq->counters.errors, 1);
		return -ERANGE;
	}
	return 0;
}

int vq_chain_read(struct virtqueue *vq, const struct vq_chain *c, uint64_t offset, void *buf, size_t n)
{
	int r = chain_check(vq, c, c->read_bytes, offset, n);

	if (!r)
		copy_segs(c->seg, c->n_read, offset, buf, n, false);
	return r;
}

int vq_chain_write(struct virtqueue *vq, const struct vq_chain *c, uint64_t offset, const void *buf,
		   size_t n)
{
	int r = chain_check(vq, c, c->write_bytes, offset, n);

	if (!r)
		copy_segs(c->seg + c->n_read, c->n_write, offset, (uint8_t *)buf, n, true);
	return r;
}

int vq_push(struct virtqueue *vq, uint16_t head, uint32_t written)
{
	struct vring_used_elem *e;

	if (!vq->running)
		return -ESTALE;
	if (head >= vq->num) {
		dp_count_add(&vq->counters.errors, 1);
		return -EINVAL;
	}
	e = &vq->used->ring[vq->used_idx & (vq->num - 1)];
	guest_store32(&e->id, head);
	guest_store32(&e->len, written);
	vq->used_idx++;
	/* The element before the index: the guest reads the index with acquire. */
	guest_store16(&vq->used->idx, vq->used_idx, memory_order_release);
	dp_count_add(&vq->counters.pushed, 1);
	return 0;
}

/* virtio's vring_need_event: did new pass event since old? (all mod 2^16) */
static bool need_event(uint16_t event, uint16_t new_idx, uint16_t old)
{
	return (uint16_t)(new_idx - event - 1) < (uint16_t)(new_idx - old);
}

bool vq_signal(struct virtqueue *vq)
{
	uint16_t old = vq->signalled_used;
	bool valid = vq->signalled_used_valid, notify;

	/* Nothing used since the last decision (or since start): nothing to tell. */
	if (!vq->running || old == vq->used_idx)
		return false;
	/* Our used index must be visible before we read what the guest asked for. */
	atomic_thread_fence(memory_order_seq_cst);
	vq->signalled_used = vq->used_idx;
	vq->signalled_used_valid = true;
	if (vq->event_idx)
		notify = !valid || need_event(guest_load16(used_event(vq), memory_order_relaxed),
					      vq->used_idx, old);
	else
		notify = !(guest_load16(&vq->avail->flags, memory_order_relaxed) & VRING_AVAIL_F_NO_INTERRUPT);
	if (!notify || vq->call_fd < 0)
		return false;
	eventfd_write(vq->call_fd, 1);
	dp_count_add(&vq->counters.signals, 1);
	return true;
}

void vq_kick_disable(struct virtqueue *vq)
{
	if (vq->running && !vq->event_idx)
		guest_store16(&vq->used->flags, VRING_USED_F_NO_NOTIFY, memory_order_relaxed);
}

bool vq_kick_enable(struct virtqueue *vq)
{
	if (!vq->running || vq->broken)
		return false;
	if (vq->event_idx)
		guest_store16(avail_event(vq), vq->last_avail, memory_order_relaxed);
	else
		guest_store16(&vq->used->flags, 0, memory_order_relaxed);
	/* Our request must be visible before we look at the available index again. */
	atomic_thread_fence(memory_order_seq_cst);
	return guest_load16(&vq->avail->idx, memory_order_acquire) != vq->last_avail;
}

uint64_t vq_kick_read(struct virtqueue *vq)
{
	eventfd_t n;

	if (vq->kick_fd < 0 || eventfd_read(vq->kick_fd, &n) < 0)
		return 0;
	dp_count_add(&vq->counters.kicks, 1);
	return n;
}
