/* SPDX-License-Identifier: MIT */
/* What an application maps of a QP's or CQ's rings, as a Create reply gives it. */
#include "daemon/api/rings.h"
#include "daemon/api/api.h"
#include "daemon/verbs/device.h"
#include "lib/json-util.h"
#include "lib/varlink/varlink.h"

static struct json_object *rings_json(const struct rdma_rings *r)
{
	struct json_object *o = json_object_new_object(), *queues = json_object_new_array();

	json_add_uint(o, "bytes", r->bytes);
	for (unsigned i = 0; i < r->n_queues; i++) {
		struct json_object *q = json_object_new_object();

		json_add_uint(q, "slots", r->queues[i].entries);
		json_add_uint(q, "slot_size", r->queues[i].entry_size);
		json_add_uint(q, "offset", r->queues[i].offset);
		json_object_array_add(queues, q);
	}
	json_object_object_add(o, "queues", queues);
	return o;
}

struct json_object *api_rings_pass(struct varlink_call *call, struct rdma_rings *rings, int *r)
{
	if ((*r = varlink_call_push_fd(call, rings->memfd)) < 0)
		return NULL;
	rings->memfd = -1;
	if ((*r = varlink_call_push_fd(call, rings->eventfd)) < 0)
		return NULL;
	rings->eventfd = -1;
	return rings_json(rings);
}

struct json_object *api_rings(struct varlink_call *call, const char *iface, struct rdma_device *dev,
			      struct rdma_object *obj)
{
	struct rdma_error err = { 0 };
	struct rdma_rings rings;
	struct json_object *o = NULL;
	int r = rdma_device_rings(dev, obj, &rings);

	if (r == 0)
		o = api_rings_pass(call, &rings, &r);
	rdma_rings_release(&rings);
	if (r < 0) {
		struct rdma_error ignored;

		(void)rdma_object_destroy(dev, obj->kind, obj->handle, &ignored);
		api_reply_failure(call, iface, &err, r);
	}
	return o;
}

int api_reply_with_rings(struct varlink_call *call, const char *key, struct json_object *record,
			 struct json_object *rings)
{
	struct json_object *reply = json_object_new_object();

	json_object_object_add(reply, key, record);
	if (rings)
		json_object_object_add(reply, "ring_layout", rings);
	return api_reply(call, reply);
}
