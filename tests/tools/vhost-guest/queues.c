/* SPDX-License-Identifier: MIT */
/*
 * queues.c - virtqueues as the front end sets them up on the back end
 * (SET_VRING_NUM/ADDR/BASE/KICK/CALL, ENABLE; GET_VRING_BASE to stop one),
 * their per-descriptor buffers ("slots": a frame, a WQE or a CQE each), and
 * waiting for the device to use what was posted.
 */
#include "guest.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

unsigned vq_cq_index(const struct guest *g, uint32_t cqn)
{
	return VQ_CQ_FIRST + cqn;
}

unsigned vq_sq_index(const struct guest *g, uint32_t qpn)
{
	return VQ_CQ_FIRST + g->config.max_rdma_cqs + 2 * qpn;
}

struct vq *vq_get(struct guest *g, unsigned index, enum vq_kind kind)
{
	if (index >= g->nvqs || g->vqs[index].kind != kind)
		return NULL;
	return &g->vqs[index];
}

uint64_t vq_slot_gpa(const struct vq *q, unsigned head)
{
	return q->slots_gpa + (uint64_t)head * q->slot_size;
}

void *vq_slot(struct guest *g, struct vq *q, unsigned head)
{
	return guest_mem_host(&g->mem, vq_slot_gpa(q, head), q->slot_size);
}

void vq_kick_if_needed(struct vq *q)
{
	uint64_t one = 1;

	if (vring_publish(&q->ring) && write(q->kick_fd, &one, sizeof(one)) < 0)
		perror("vhost-guest: kick");
}

int vq_post_slot(struct guest *g, struct vq *q, uint32_t len, bool write)
{
	int head = vring_peek_head(&q->ring);
	struct vring_seg seg;

	if (head < 0)
		return head;
	seg.gpa = vq_slot_gpa(q, (unsigned)head);
	seg.len = len;
	seg.write = write;
	return vring_add(&q->ring, &seg, 1, NULL);
}

/* The ring's state messages: index and a number. */
static int vring_state(struct guest *g, uint32_t request, unsigned index, uint32_t num,
		       char *err, size_t errlen)
{
	struct vhost_vring_state st = { .index = index, .num = num };
	uint64_t refused;
	int r = vu_request(&g->vu, request, &st, sizeof(st), NULL, 0, &refused);

	if (r < 0)
		snprintf(err, errlen, "%s vq %u: %s", vu_request_name(request), index, strerror(-r));
	else if (refused)
		snprintf(err, errlen, "%s vq %u refused (%" PRIu64 ")", vu_request_name(request),
			 index, refused);
	return r < 0 || refused ? -1 : 0;
}

static int vring_fd(struct guest *g, uint32_t request, unsigned index, int fd, char *err,
		    size_t errlen)
{
	uint64_t payload = index, refused;
	int r = vu_request(&g->vu, request, &payload, sizeof(payload), &fd, 1, &refused);

	if (r < 0)
		snprintf(err, errlen, "%s vq %u: %s", vu_request_name(request), index, strerror(-r));
	else if (refused)
		snprintf(err, errlen, "%s vq %u refused (%" PRIu64 ")", vu_request_name(request),
			 index, refused);
	return r < 0 || refused ? -1 : 0;
}

static int vring_addr(struct guest *g, struct vq *q, const struct vring_layout *l, char *err,
		      size_t errlen)
{
	struct vhost_vring_addr addr = {
		.index = q->index,
		.desc_user_addr = guest_mem_uaddr(&g->mem, q->ring_gpa + l->desc),
		.used_user_addr = guest_mem_uaddr(&g->mem, q->ring_gpa + l->used),
		.avail_user_addr = guest_mem_uaddr(&g->mem, q->ring_gpa + l->avail),
	};
	uint64_t refused;
	int r = vu_request(&g->vu, VHOST_USER_SET_VRING_ADDR, &addr, sizeof(addr), NULL, 0, &refused);

	if (r < 0)
		snprintf(err, errlen, "SET_VRING_ADDR vq %u: %s", q->index, strerror(-r));
	else if (refused)
		snprintf(err, errlen, "SET_VRING_ADDR vq %u refused (%" PRIu64 ")", q->index, refused);
	return r < 0 || refused ? -1 : 0;
}

static int alloc_queue(struct guest *g, struct vq *q, size_t slot_size, struct vring_layout *l)
{
	unsigned num = g->queue_size;
	bool indirect = HAS(g, VIRTIO_F_INDIRECT_DESC);
	uint8_t *block;
	struct vring_area none = { 0 };

	size_t slots_pages = (slot_size * num + GUEST_PAGE - 1) / GUEST_PAGE;

	/* Pages are recorded only once held, so free_queue frees what is. */
	vring_layout(num, indirect, l);
	if (guest_mem_alloc(&g->mem, l->total / GUEST_PAGE, &q->ring_gpa) < 0)
		return -ENOMEM;
	q->ring_pages = l->total / GUEST_PAGE;
	if (slot_size && guest_mem_alloc(&g->mem, slots_pages, &q->slots_gpa) < 0)
		return -ENOMEM;
	q->slot_size = slot_size;
	q->slots_pages = slots_pages;
	block = guest_mem_host(&g->mem, q->ring_gpa, l->total);
	q->kick_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	q->call_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	return vring_init(&q->ring, num,
			  (struct vring_area){ block + l->desc, q->ring_gpa + l->desc },
			  (struct vring_area){ block + l->avail, q->ring_gpa + l->avail },
			  (struct vring_area){ block + l->used, q->ring_gpa + l->used },
			  indirect ? (struct vring_area){ block + l->indirect, q->ring_gpa + l->indirect }
				   : none,
			  HAS(g, VIRTIO_F_EVENT_IDX));
}

static void free_queue(struct guest *g, struct vq *q)
{
	vring_free(&q->ring);
	if (q->ring_pages)
		guest_mem_free(&g->mem, q->ring_gpa, q->ring_pages);
	if (q->slots_pages)
		guest_mem_free(&g->mem, q->slots_gpa, q->slots_pages);
	if (q->kick_fd >= 0)
		close(q->kick_fd);
	if (q->call_fd >= 0)
		close(q->call_fd);
	memset(q, 0, sizeof(*q));
}

void vq_release(struct guest *g, unsigned index)
{
	if (index < g->nvqs && g->vqs[index].kind != VQ_NONE)
		free_queue(g, &g->vqs[index]);
}

int vq_setup(struct guest *g, unsigned index, enum vq_kind kind, size_t slot_size, char *err,
	     size_t errlen)
{
	struct vring_layout l;
	struct vq *q;
	unsigned i;

	if (index >= g->nvqs) {
		snprintf(err, errlen, "vq %u: the device has %u", index, g->nvqs);
		return -1;
	}
	if (index > VHOST_USER_VRING_IDX_MAX) {
		snprintf(err, errlen, "vq %u: SET_VRING_KICK carries 8 bits of index", index);
		return -1;
	}
	q = &g->vqs[index];
	if (q->kind != VQ_NONE) {
		snprintf(err, errlen, "vq %u is already set up", index);
		return -1;
	}
	q->index = index;
	q->kick_fd = q->call_fd = -1;
	if (alloc_queue(g, q, slot_size, &l) < 0 || q->kick_fd < 0 || q->call_fd < 0) {
		snprintf(err, errlen, "vq %u: guest memory full (--mem)", index);
		free_queue(g, q);
		return -1;
	}
	q->kind = kind;
	/* Buffers the device writes into are there before it looks. */
	if (kind == VQ_KIND_RX || kind == VQ_KIND_CQ)
		for (i = 0; i < g->queue_size; i++)
			vq_post_slot(g, q, (uint32_t)slot_size, true);
	vring_publish(&q->ring);
	if (vring_state(g, VHOST_USER_SET_VRING_NUM, index, g->queue_size, err, errlen) < 0 ||
	    vring_addr(g, q, &l, err, errlen) < 0 ||
	    vring_state(g, VHOST_USER_SET_VRING_BASE, index, 0, err, errlen) < 0 ||
	    vring_fd(g, VHOST_USER_SET_VRING_KICK, index, q->kick_fd, err, errlen) < 0 ||
	    vring_fd(g, VHOST_USER_SET_VRING_CALL, index, q->call_fd, err, errlen) < 0 ||
	    (HAS(g, VHOST_USER_F_PROTOCOL_FEATURES) &&
	     vring_state(g, VHOST_USER_SET_VRING_ENABLE, index, 1, err, errlen) < 0)) {
		free_queue(g, q);
		return -1;
	}
	if (kind == VQ_KIND_RX || kind == VQ_KIND_CQ) {
		uint64_t one = 1;

		if (write(q->kick_fd, &one, sizeof(one)) < 0)
			perror("vhost-guest: kick");
	}
	return 0;
}

int vq_reset(struct guest *g, unsigned index, uint32_t *base)
{
	struct vhost_vring_state st = { .index = index };
	struct vq *q = index < g->nvqs ? &g->vqs[index] : NULL;
	int r;

	if (!q || q->kind == VQ_NONE)
		return -ENOENT;
	r = vu_send(&g->vu, VHOST_USER_GET_VRING_BASE, 0, &st, sizeof(st), NULL, 0);
	if (r == 0)
		r = vu_recv(&g->vu, VHOST_USER_GET_VRING_BASE, &st, sizeof(st));
	if (r >= 0 && r != sizeof(st))
		r = -EPROTO;
	if (r < 0)
		return r;
	*base = st.num;
	free_queue(g, q);
	return 0;
}

int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Has the back end closed the socket?  (It sends nothing unasked.) */
static bool socket_gone(struct guest *g)
{
	char c;
	ssize_t n = recv(g->vu.fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		g->vu.closed = true;
		return true;
	}
	return false;
}

/* Sleeps until fd (if >= 0) is readable, the socket has news, or ms pass. */
static int wait_a_little(struct guest *g, int fd, int ms)
{
	struct pollfd p[2] = {
		{ .fd = g->vu.fd, .events = POLLIN | POLLRDHUP },
		{ .fd = fd, .events = POLLIN },
	};
	int r = poll(p, fd >= 0 ? 2 : 1, ms);

	if (r > 0 && p[0].revents && socket_gone(g))
		return -EPIPE;
	if (r > 0 && fd >= 0 && (p[1].revents & POLLIN)) {
		uint64_t v;

		if (read(fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
			return -errno;
		return 1;
	}
	return 0;
}

int vq_wait_ready(struct guest *g, struct vq *q, int timeout_ms)
{
	int64_t deadline = now_ms() + timeout_ms;
	/* A CQ's call is the guest's completion event, left for wait_event. */
	int fd = q->kind == VQ_KIND_CQ ? -1 : q->call_fd;

	while (!vring_has_used(&q->ring)) {
		int64_t left = deadline - now_ms();
		int r;

		if (left <= 0)
			return -ETIMEDOUT;
		r = wait_a_little(g, fd, left < 5 ? (int)left : 5);
		if (r < 0)
			return r;
	}
	return 0;
}

int vq_wait_used(struct guest *g, struct vq *q, int timeout_ms, uint32_t *len)
{
	int r = vq_wait_ready(g, q, timeout_ms);

	return r < 0 ? r : vring_get_used(&q->ring, len, NULL);
}

int vq_wait_call(struct guest *g, struct vq *q, int timeout_ms)
{
	int64_t deadline = now_ms() + timeout_ms;

	for (;;) {
		int64_t left = deadline - now_ms();
		int r;

		if (left <= 0)
			return -ETIMEDOUT;
		r = wait_a_little(g, q->call_fd, left < 50 ? (int)left : 50);
		if (r != 0)
			return r < 0 ? r : 0;
	}
}

void vq_reap(struct vq *q)
{
	while (vring_get_used(&q->ring, NULL, NULL) != -EAGAIN)
		;
}
