/* SPDX-License-Identifier: MIT */
/*
 * Asynchronous events (ibv_get_async_event): the ring rdmad writes this
 * application's events into (io.rdmad.Daemon.OpenAsyncEvents), read here,
 * each entry's handle mapped back to the program's QP or CQ.
 *
 * What the program polls is an epoll set of two descriptors: the socket
 * rdmad writes a byte to after each event, and an eventfd of the library's
 * own, which it writes while entries are left in the ring after a read.  A
 * read drains both before it looks at the ring, so that the set is readable
 * whenever an entry waits, and a byte rdmad writes after an entry is never
 * taken as that entry's without the entry being read after it.
 */
#include "client/internal.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

struct client_async {
	struct dp_queue queue;        /* the consumer's handle (first: it wants cache-line alignment) */
	struct client_rings rings;    /* eventfd: the socket rdmad writes to */
	int epoll_fd;                 /* rdmad_async_fd() */
	int again_fd;                 /* the library's: entries are left */
	uint64_t lost_carried;        /* lost_before of entries passed over, for the next event */
};

void client_async_free(struct rdmad_context *ctx)
{
	struct client_async *a = ctx->async;

	if (!a)
		return;
	client_rings_unmap(&a->rings);
	if (a->epoll_fd >= 0)
		close(a->epoll_fd);
	if (a->again_fd >= 0)
		close(a->again_fd);
	free(a);
	ctx->async = NULL;
}

static int watch(int epoll_fd, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	return epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

/* The epoll set over the socket and the library's eventfd. */
static int async_fds(struct client_async *a)
{
	int r;

	a->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	a->again_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (a->epoll_fd < 0 || a->again_fd < 0)
		return client_fail(-errno, "the event channel's descriptors: %s", strerror(errno));
	/* The socket's end is the library's alone: draining it never waits. */
	if (fcntl(a->rings.eventfd, F_SETFL, O_NONBLOCK) < 0)
		return client_fail(-errno, "the event channel's socket: %s", strerror(errno));
	r = watch(a->epoll_fd, a->rings.eventfd);
	if (r == 0)
		r = watch(a->epoll_fd, a->again_fd);
	return r < 0 ? client_fail(r, "the event channel's epoll set: %s", strerror(-r)) : 0;
}

static int async_open(struct rdmad_context *ctx)
{
	struct json_object *reply = NULL;
	struct client_async *a;
	int fds[2], r;

	if (ctx->async)
		return 0;
	a = client_alloc_aligned(sizeof(*a));
	if (!a)
		return client_fail(-ENOMEM, "out of memory");
	*a = (struct client_async){ .rings.eventfd = -1, .epoll_fd = -1, .again_fd = -1 };
	ctx->async = a;
	r = client_call(ctx, "io.rdmad.Daemon.OpenAsyncEvents", json_object_new_object(), NULL, 0, &reply);
	if (r == 0)
		r = client_take_fds(ctx, fds, 2);
	if (r == 0)
		r = client_rings_map(&a->rings, reply, fds, &a->queue, 1);
	if (r == 0 && a->rings.bytes < sizeof(struct rdmad_async_ring_ctl))
		r = client_fail(-EPROTO, "rdmad's event ring has no room for its control block");
	if (r == 0)
		r = async_fds(a);
	json_object_put(reply);
	if (r < 0)
		client_async_free(ctx);
	return r;
}

int rdmad_async_fd(struct rdmad_context *ctx)
{
	int r;

	client_ok();
	r = async_open(ctx);
	return r < 0 ? r : ctx->async->epoll_fd;
}

/* Reads fd until nothing is left; -ENOTCONN when rdmad closed its end. */
static int drain(int fd)
{
	char buf[256];

	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n == 0)
			return client_fail(-ENOTCONN, "rdmad closed the event channel");
		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 :
			       client_fail(-errno, "reading the event channel: %s", strerror(errno));
	}
}

/* The entry as the program's event; false when its object is no longer the program's. */
static bool event_of(struct rdmad_context *ctx, const struct rdmad_async_ring_entry *e,
		     struct rdmad_async_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->event_type = e->event_type;
	switch (e->event_type) {
	case RDMAD_EVENT_QP_FATAL:
	case RDMAD_EVENT_QP_REQ_ERR:
	case RDMAD_EVENT_QP_ACCESS_ERR:
	case RDMAD_EVENT_COMM_EST:
	case RDMAD_EVENT_SQ_DRAINED:
	case RDMAD_EVENT_QP_LAST_WQE_REACHED:
		ev->element.qp = client_qp_find(ctx, e->handle);
		return ev->element.qp != NULL;
	case RDMAD_EVENT_CQ_ERR:
		ev->element.cq = client_cq_find(ctx, e->handle);
		return ev->element.cq != NULL;
	case RDMAD_EVENT_PORT_ACTIVE:
	case RDMAD_EVENT_PORT_ERR:
	case RDMAD_EVENT_GID_CHANGE:
		ev->element.port_num = e->port;
		ev->gid_index = e->event_type == RDMAD_EVENT_GID_CHANGE ? e->handle : 0;
		return true;
	}
	/* A type this library does not know names nothing it could give. */
	return false;
}

/* The next entry that names something of the program's; false when the ring is empty. */
static bool next_event(struct rdmad_context *ctx, struct client_async *a, struct rdmad_async_event *ev)
{
	struct rdmad_async_ring_entry e;

	while (dp_queue_pop(&a->queue, &e)) {
		a->lost_carried += e.lost_before;
		if (!event_of(ctx, &e, ev))
			continue;
		ev->lost = a->lost_carried;
		a->lost_carried = 0;
		return true;
	}
	return false;
}

int rdmad_get_async_event(struct rdmad_context *ctx, struct rdmad_async_event *event)
{
	struct client_async *a;
	int r;

	client_ok();
	r = async_open(ctx);
	if (r < 0)
		return r;
	a = ctx->async;
	for (;;) {
		struct epoll_event ready;
		static const uint64_t one = 1;
		int n;

		r = drain(a->again_fd);
		if (r == 0)
			r = drain(a->rings.eventfd);
		if (r < 0)
			return r;
		if (next_event(ctx, a, event)) {
			/* More wait: the set stays readable for them. */
			if (dp_queue_count(&a->queue))
				(void)!write(a->again_fd, &one, sizeof(one));
			return 0;
		}
		if (fcntl(a->epoll_fd, F_GETFL) & O_NONBLOCK)
			return client_fail(-EAGAIN, "no event waits");
		n = epoll_wait(a->epoll_fd, &ready, 1, -1);
		if (n < 0 && errno == EINTR)
			return client_fail(-EINTR, "interrupted");
		if (n < 0)
			return client_fail(-errno, "epoll_wait: %s", strerror(errno));
	}
}

void rdmad_ack_async_event(struct rdmad_async_event *event)
{
	/* An event holds nothing: its QP or CQ may be destroyed whether or not it was acknowledged. */
	(void)event;
}
