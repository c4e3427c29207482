/* SPDX-License-Identifier: MIT */
/*
 * Completion queues: rings rdmad's workers write and the program polls
 * (client/ring.c), and completion channels, an epoll set of the CQs'
 * eventfds.
 */
#include "client/internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

static void cq_free(void *desc)
{
	struct client_cq *cq = desc;

	if (cq->channel && cq->rings.eventfd >= 0)
		(void)epoll_ctl(cq->channel->fd, EPOLL_CTL_DEL, cq->rings.eventfd, NULL);
	client_rings_unmap(&cq->rings);
	free(cq->lanes);
	free(cq);
}

struct rdmad_cq *client_cq_find(struct rdmad_context *ctx, uint32_t handle)
{
	return client_held_find(ctx, cq_free, offsetof(struct rdmad_cq, handle), handle);
}

/* The CQ's lanes, mapped from the reply's rings and descriptors. */
static int cq_rings(struct rdmad_context *ctx, struct client_cq *cq, struct json_object *reply)
{
	struct json_object *queues = client_get(client_get(reply, "ring_layout"), "queues");
	size_t n = queues && json_object_is_type(queues, json_type_array) ?
		   json_object_array_length(queues) : 0;
	int fds[2], r;

	r = client_take_fds(ctx, fds, 2);
	if (r < 0)
		return r;
	cq->lanes = n ? client_alloc_aligned(n * sizeof(*cq->lanes)) : NULL;
	if (!cq->lanes) {
		close(fds[0]);
		close(fds[1]);
		return client_fail(n ? -ENOMEM : -EPROTO, "rdmad's CQ rings: %s",
				   n ? "out of memory" : "no lanes");
	}
	r = client_rings_map(&cq->rings, reply, fds, cq->lanes, (unsigned)n);
	if (r < 0)
		return r;
	cq->n_lanes = (unsigned)n;
	cq->ctl = cq->rings.addr;
	return 0;
}

struct rdmad_cq *rdmad_create_cq_with_channel(struct rdmad_context *ctx, unsigned cqe,
					      struct rdmad_comp_channel *channel)
{
	struct json_object *p = json_object_new_object(), *reply = NULL, *rec;
	struct client_cq *cq = client_alloc_aligned(sizeof(*cq));
	int r;

	client_ok();
	if (!cq) {
		json_object_put(p);
		return client_fail_null(client_fail(-ENOMEM, "out of memory"));
	}
	cq->rings.eventfd = -1;
	client_add_u64(p, "cqe", cqe);
	client_add_bool(p, "rings", true);
	r = client_call(ctx, "io.rdmad.Cq.Create", p, NULL, 0, &reply);
	if (r == 0) {
		rec = client_get(reply, "cq");
		cq->pub = (struct rdmad_cq){ .context = ctx, .handle = (uint32_t)client_get_u64(rec, "handle"),
					     .cqe = (uint32_t)client_get_u64(rec, "cqe") };
		r = cq_rings(ctx, cq, reply);
		json_object_put(reply);
		/* Without its rings the CQ is of no use: rdmad destroys it with the connection else. */
		if (r < 0)
			(void)client_destroy_handle(ctx, "io.rdmad.Cq.Destroy", cq->pub.handle);
	}
	if (r == 0 && channel) {
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = cq };

		if (epoll_ctl(channel->fd, EPOLL_CTL_ADD, cq->rings.eventfd, &ev) < 0)
			r = client_fail(-errno, "adding the CQ to its channel: %s", strerror(errno));
		else
			cq->channel = channel;
		if (r < 0)
			(void)client_destroy_handle(ctx, "io.rdmad.Cq.Destroy", cq->pub.handle);
	}
	if (r < 0) {
		cq_free(cq);
		return client_fail_null(r);
	}
	return client_hold_by(ctx, cq, cq_free);
}

struct rdmad_cq *rdmad_create_cq(struct rdmad_context *ctx, unsigned cqe)
{
	return rdmad_create_cq_with_channel(ctx, cqe, NULL);
}

int rdmad_destroy_cq(struct rdmad_cq *cq)
{
	int r = client_destroy_handle(cq->context, "io.rdmad.Cq.Destroy", cq->handle);

	if (r == 0)
		client_release(cq->context, cq);
	return r;
}

int rdmad_req_notify_cq(struct rdmad_cq *cq, int solicited_only)
{
	struct client_cq *c = client_cq_of(cq);

	client_ok();
	/* Before the program's next poll (dataplane/cq.h: the worker's fence pairs with this one). */
	atomic_store_explicit(&c->ctl->armed, solicited_only ? DP_CQ_ARM_SOLICITED : DP_CQ_ARM_NEXT,
			      memory_order_seq_cst);
	return 0;
}

struct rdmad_comp_channel *rdmad_create_comp_channel(struct rdmad_context *ctx)
{
	struct rdmad_comp_channel *ch = calloc(1, sizeof(*ch));

	client_ok();
	if (!ch)
		return client_fail_null(client_fail(-ENOMEM, "out of memory"));
	ch->context = ctx;
	ch->fd = epoll_create1(EPOLL_CLOEXEC);
	if (ch->fd < 0) {
		int r = client_fail(-errno, "epoll_create1: %s", strerror(errno));

		free(ch);
		return client_fail_null(r);
	}
	return ch;
}

int rdmad_destroy_comp_channel(struct rdmad_comp_channel *channel)
{
	if (!channel)
		return 0;
	close(channel->fd);
	free(channel);
	return 0;
}

int rdmad_get_cq_event(struct rdmad_comp_channel *channel, struct rdmad_cq **cq)
{
	struct epoll_event ev;
	uint64_t count;

	client_ok();
	for (;;) {
		int n = epoll_wait(channel->fd, &ev, 1, -1);

		if (n < 0 && errno == EINTR)
			return client_fail(-EINTR, "interrupted");
		if (n < 0)
			return client_fail(-errno, "epoll_wait: %s", strerror(errno));
		/* Another thread (or an earlier wake) may have read the count: wait again then. */
		if (n == 1 && read(((struct client_cq *)ev.data.ptr)->rings.eventfd, &count, sizeof(count)) ==
		    (ssize_t)sizeof(count)) {
			*cq = ev.data.ptr;
			return 0;
		}
	}
}

void rdmad_ack_cq_events(struct rdmad_cq *cq, unsigned nevents)
{
	/* Events need no acknowledgement here: a CQ is destroyed whatever was read of its channel. */
	(void)cq;
	(void)nevents;
}

int rdmad_poll_cq(struct rdmad_cq *cq, int n, struct rdmad_wc *wc)
{
	if (n <= 0)
		return n == 0 ? 0 : client_fail(-EINVAL, "poll of %d completions", n);
	return client_ring_poll(client_cq_of(cq), n, wc);
}
