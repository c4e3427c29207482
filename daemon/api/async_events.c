/* SPDX-License-Identifier: MIT */
/*
 * Applications' asynchronous event channels.  One per attached connection:
 * a ring (dataplane/queue.h) in a sealed memfd the application maps, with a
 * control block before it, and one end of a socket pair whose other end the
 * application polls.  The main thread is the producer: an event is written
 * whole or counted as lost, and nothing the application does makes it wait.
 * The application writes only its consumer index, which the producer never
 * trusts beyond the capacity (dp_queue_room).
 */
#include "daemon/api/async_events.h"
#include "daemon/api/api.h"
#include "daemon/api/application.h"
#include "daemon/api/dispatch.h"
#include "daemon/api/rings.h"
#include "daemon/verbs/device.h"
#include "daemon/verbs/qp_state.h"
#include "dataplane/queue.h"
#include "dataplane/ring_mem.h"
#include "include/rdmad/verbs.h"
#include "lib/log.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#define IFACE "io.rdmad.Daemon"

#define ASYNC_CAPACITY_DEFAULT 256
#define ASYNC_CAPACITY_MAX 4096
/* The control block has a cache line of its own; the queue's header follows. */
#define ASYNC_QUEUE_OFFSET DP_QUEUE_CACHELINE

_Static_assert(sizeof(struct rdmad_async_ring_ctl) <= ASYNC_QUEUE_OFFSET, "the block fits before the queue");

struct async_channel {
	struct async_channel *next;
	struct varlink_connection *conn;
	struct rdma_device *dev;
	struct dp_ring_mem mem;
	struct rdmad_async_ring_ctl *ctl;   /* published copies of the counts below */
	struct dp_queue queue;              /* the producer's handle */
	int wake_fd;                        /* rdmad's end of the socket pair */
	uint64_t sequence, lost, lost_since_written;
};

/* One per application (few at once): a list is enough. */
static struct async_channel *channels;

static bool device_has_channel(const struct rdma_device *dev)
{
	for (struct async_channel *c = channels; c; c = c->next)
		if (c->dev == dev)
			return true;
	return false;
}

static void channel_write(struct async_channel *c, const struct rdmad_async_ring_entry *proto)
{
	struct rdmad_async_ring_entry e = *proto;
	static const char wake = 1;

	e.sequence = c->sequence++;
	e.lost_before = c->lost_since_written;
	if (!dp_queue_push(&c->queue, &e)) {
		c->lost++;
		c->lost_since_written++;
		c->ctl->lost = c->lost;
		return;
	}
	c->lost_since_written = 0;
	c->ctl->delivered = c->sequence - c->lost;
	/*
	 * Never waits: a full socket buffer is a readable one, and the
	 * application's end has its own file status flags.
	 */
	(void)send(c->wake_fd, &wake, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
}

/* The event as an application sees it (an entry with event_type and handle set); false: none. */
static bool translate(const struct rdma_event *ev, struct rdmad_async_ring_entry *e)
{
	*e = (struct rdmad_async_ring_entry){ .handle = ev->handle };
	switch (ev->type) {
	case RDMA_EVENT_SQ_DRAINED:
		e->event_type = RDMAD_EVENT_SQ_DRAINED;
		return ev->kind == RDMA_OBJ_QP;
	case RDMA_EVENT_CQ_ERROR:
		/* 0, as IBV_EVENT_CQ_ERR: an entry is told by the queue's index, never by its type. */
		e->event_type = RDMAD_EVENT_CQ_ERR;
		return ev->kind == RDMA_OBJ_CQ;
	case RDMA_EVENT_QP_STATE:
		/* A MODIFY_QP to ERR is the application's own doing: no event, as with ibverbs. */
		e->event_type = RDMAD_EVENT_QP_FATAL;
		return ev->by_device && ev->new_state == RDMA_QPS_ERR;
	case RDMA_EVENT_OBJECT_CREATED:
	case RDMA_EVENT_OBJECT_DESTROYED:
		e->event_type = RDMAD_EVENT_GID_CHANGE;
		e->port = ev->port;
		return ev->kind == RDMA_OBJ_GID;
	default:
		return false;
	}
}

static void on_device_event(struct rdma_device *dev, const struct rdma_event *ev, void *userdata)
{
	struct rdmad_async_ring_entry e;
	const void *owner = NULL;
	bool device_wide = ev->kind == RDMA_OBJ_GID;

	(void)userdata;
	if (!translate(ev, &e))
		return;
	if (!device_wide) {
		struct rdma_object *obj = object_table_find(&dev->tables[ev->kind], ev->handle);

		/* Objects nobody attached owns have no application to tell. */
		owner = obj ? obj->owner : NULL;
		if (!owner)
			return;
	}
	for (struct async_channel *c = channels; c; c = c->next)
		if (c->dev == dev && (device_wide || c->conn == owner))
			channel_write(c, &e);
}

static void channel_free(struct async_channel *c)
{
	if (!c)
		return;
	if (c->wake_fd >= 0)
		close(c->wake_fd);
	dp_ring_mem_free(&c->mem);
	free(c);
}

/* Unlinks conn's channel, if it has one, and stops listening to a device no channel needs. */
static void channel_close(struct varlink_connection *conn)
{
	struct async_channel **slot = &channels, *c;

	while (*slot && (*slot)->conn != conn)
		slot = &(*slot)->next;
	c = *slot;
	if (!c)
		return;
	*slot = c->next;
	if (!device_has_channel(c->dev))
		rdma_device_remove_event_sink(c->dev, on_device_event, c->dev);
	channel_free(c);
}

/*
 * A channel of capacity entries on dev, and the application's ends in
 * rings (memfd, socket); -errno.
 */
static int channel_new(struct rdma_device *dev, uint32_t capacity, struct async_channel **out,
		       struct rdma_rings *rings)
{
	uint32_t entries = dp_ring_entries(capacity);
	size_t bytes = ASYNC_QUEUE_OFFSET + dp_queue_bytes(entries, sizeof(struct rdmad_async_ring_entry));
	struct async_channel *c = calloc(1, sizeof(*c));
	int pair[2], r;

	if (!c)
		return -ENOMEM;
	c->wake_fd = -1;
	r = dp_ring_mem_new(&c->mem, "rdmad-async-events", bytes);
	if (r == 0)
		r = dp_queue_format(&c->queue, (uint8_t *)c->mem.addr + ASYNC_QUEUE_OFFSET,
				    c->mem.bytes - ASYNC_QUEUE_OFFSET, entries,
				    sizeof(struct rdmad_async_ring_entry));
	if (r == 0 && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) < 0)
		r = -errno;
	if (r < 0) {
		channel_free(c);
		return r;
	}
	c->wake_fd = pair[0];
	/* Nothing comes from the application on it. */
	(void)shutdown(c->wake_fd, SHUT_RD);
	c->dev = dev;
	c->ctl = c->mem.addr;
	rings->memfd = c->mem.fd;
	rings->eventfd = pair[1];
	rings->bytes = c->mem.bytes;
	c->mem.fd = -1;
	*out = c;
	return 0;
}

struct open_params {
	uint32_t capacity;
};

static const struct api_field open_fields[] = {
	{ .name = "capacity", .type = API_FIELD_U32, .offset = offsetof(struct open_params, capacity),
	  .min = 1, .max = ASYNC_CAPACITY_MAX },
	{ NULL },
};

int api_async_events_open(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct varlink_connection *conn = varlink_call_connection(call);
	struct rdma_device *dev = api_device(call, userdata, params, IFACE);
	struct open_params p = { .capacity = ASYNC_CAPACITY_DEFAULT };
	struct dp_ring_geometry geometry;
	struct rdma_rings rings = { .memfd = -1, .eventfd = -1, .n_queues = 1, .queues = &geometry };
	struct rdma_error err = { 0 };
	struct async_channel *c;
	struct json_object *layout, *reply;
	int r;

	if (!dev || api_dispatch(call, params, open_fields, &p) < 0)
		return 0;
	if (!api_application_attached(conn))
		return api_error(call, IFACE ".NotAttached", NULL);
	r = channel_new(dev, p.capacity, &c, &rings);
	if (r < 0)
		return api_reply_failure(call, IFACE, &err, r);
	/* Opening again replaces the channel: events go to the new ring from now on. */
	channel_close(conn);
	if (!device_has_channel(dev) && (r = rdma_device_add_event_sink(dev, on_device_event, dev)) < 0) {
		close(rings.memfd);
		close(rings.eventfd);
		channel_free(c);
		return api_reply_failure(call, IFACE, &err, r);
	}
	c->conn = conn;
	c->next = channels;
	channels = c;
	geometry = (struct dp_ring_geometry){
		.entries = dp_queue_capacity(&c->queue),
		.entry_size = sizeof(struct rdmad_async_ring_entry),
		.offset = ASYNC_QUEUE_OFFSET,
	};
	layout = api_rings_pass(call, &rings, &r);
	if (rings.memfd >= 0)
		close(rings.memfd);
	if (rings.eventfd >= 0)
		close(rings.eventfd);
	if (!layout) {
		channel_close(conn);
		return api_reply_failure(call, IFACE, &err, r);
	}
	reply = json_object_new_object();
	json_add_uint(reply, "capacity", dp_queue_capacity(&c->queue));
	json_object_object_add(reply, "ring_layout", layout);
	return api_reply(call, reply);
}

void api_async_events_connection_closed(struct varlink_connection *conn, struct manager *m)
{
	channel_close(conn);
}
