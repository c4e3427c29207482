/* SPDX-License-Identifier: MIT */
/* io.rdmad.Cq */
#include "daemon/api/api.h"
#include "daemon/cq.h"

#include <string.h>

#define IFACE "io.rdmad.Cq"

static struct json_object *cq_json(struct rdma_device *dev, struct rdma_object *obj)
{
	struct rdma_cq *cq = rdma_cq(obj);
	struct json_object *o = json_object_new_object();

	json_add_string(o, "device", dev->name);
	json_add_uint(o, "handle", cq->obj.handle);
	json_add_uint(o, "cqe", cq->cqe);
	json_add_string(o, "armed", rdma_cq_armed_name(cq));
	json_add_uint(o, "notify_requests", cq->notify_requests);
	json_add_uint(o, "events", cq->events);
	json_add_uint(o, "qps", rdma_object_count_users(dev, &cq->obj, RDMA_OBJ_QP));
	return o;
}

/* The CQ named by "handle", or NULL once the call has been answered. */
static struct rdma_cq *lookup(struct varlink_call *call, struct json_object *params,
			      struct rdma_device **dev, void *userdata)
{
	struct rdma_object *obj = api_lookup(call, userdata, params, IFACE, RDMA_OBJ_CQ, dev);

	return obj ? rdma_cq(obj) : NULL;
}

static int create(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev = api_device(call, userdata, params, IFACE);
	struct rdma_error err;
	struct rdma_cq *cq;
	uint32_t cqe;

	if (!dev || api_get_handle(call, params, "cqe", &cqe) < 0)
		return 0;
	if (rdma_cq_create(dev, cqe, &cq, &err) < 0)
		return api_reply_error(call, IFACE, &err);
	return api_reply_record(call, "cq", cq_json(dev, &cq->obj));
}

static int list(struct varlink_call *call, struct json_object *params, void *userdata)
{
	return api_list(call, userdata, params, IFACE, RDMA_OBJ_CQ, "cqs", cq_json);
}

static int show(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_cq *cq = lookup(call, params, &dev, userdata);

	return cq ? api_reply_record(call, "cq", cq_json(dev, &cq->obj)) : 0;
}

static int destroy(struct varlink_call *call, struct json_object *params, void *userdata)
{
	return api_destroy(call, userdata, params, IFACE, RDMA_OBJ_CQ);
}

static int notify(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_cq *cq = lookup(call, params, &dev, userdata);
	const char *word = json_get_string(params, "notify");
	struct rdma_error err;

	if (!cq)
		return 0;
	if (rdma_cq_req_notify(cq, strcmp(word, "next") == 0 ? RDMA_CQ_NOTIFY_NEXT :
			       RDMA_CQ_NOTIFY_SOLICITED, &err) < 0)
		return api_reply_error(call, IFACE, &err);
	return api_reply_record(call, "cq", cq_json(dev, &cq->obj));
}

const struct varlink_method api_cq_methods[] = {
	{ "Create", create, VARLINK_METHOD_PRIVILEGED },
	{ "List", list, 0 },
	{ "Show", show, 0 },
	{ "Destroy", destroy, VARLINK_METHOD_PRIVILEGED },
	{ "Notify", notify, VARLINK_METHOD_PRIVILEGED },
	{ NULL, NULL, 0 },
};
