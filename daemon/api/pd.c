/* SPDX-License-Identifier: MIT */
/* io.rdmad.Pd */
#include "daemon/api/api.h"

#define IFACE "io.rdmad.Pd"

static struct json_object *pd_json(struct rdma_device *dev, struct rdma_object *pd)
{
	struct json_object *o = json_object_new_object();

	json_add_string(o, "device", dev->name);
	json_add_uint(o, "handle", pd->handle);
	json_add_uint(o, "mrs", rdma_object_count_users(dev, pd, RDMA_OBJ_MR));
	json_add_uint(o, "qps", rdma_object_count_users(dev, pd, RDMA_OBJ_QP));
	json_add_uint(o, "ahs", rdma_object_count_users(dev, pd, RDMA_OBJ_AH));
	json_add_uint(o, "mkeys", rdma_object_count_users(dev, pd, RDMA_OBJ_MKEY));
	return o;
}

static int reply_pd(struct varlink_call *call, struct rdma_device *dev, struct rdma_object *pd)
{
	struct json_object *reply = json_object_new_object();

	json_object_object_add(reply, "pd", pd_json(dev, pd));
	return varlink_call_reply(call, reply);
}

static int create(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev = api_device(call, userdata, params, IFACE);
	struct rdma_object *pd;
	struct rdma_error err;

	if (!dev)
		return 0;
	pd = rdma_object_create(dev, RDMA_OBJ_PD, &err);
	if (!pd)
		return api_reply_error(call, IFACE, &err);
	return reply_pd(call, dev, pd);
}

static int list(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev = api_device(call, userdata, params, IFACE);
	struct json_object *reply, *pds;
	struct rdma_object *pd;

	if (!dev)
		return 0;
	pds = json_object_new_array();
	for (uint32_t pos = 0; (pd = object_table_next(&dev->tables[RDMA_OBJ_PD], &pos)); )
		json_object_array_add(pds, pd_json(dev, pd));
	reply = json_object_new_object();
	json_object_object_add(reply, "pds", pds);
	return varlink_call_reply(call, reply);
}

static int show(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev = api_device(call, userdata, params, IFACE);
	struct rdma_object *pd;
	struct rdma_error err;
	uint32_t handle;

	if (!dev || api_get_handle(call, params, "handle", &handle) < 0)
		return 0;
	pd = rdma_object_lookup(dev, RDMA_OBJ_PD, handle, &err);
	if (!pd)
		return api_reply_error(call, IFACE, &err);
	return reply_pd(call, dev, pd);
}

static int destroy(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev = api_device(call, userdata, params, IFACE);
	struct rdma_error err;
	uint32_t handle;

	if (!dev || api_get_handle(call, params, "handle", &handle) < 0)
		return 0;
	if (rdma_object_destroy(dev, RDMA_OBJ_PD, handle, &err) < 0)
		return api_reply_error(call, IFACE, &err);
	return varlink_call_reply(call, NULL);
}

const struct varlink_method api_pd_methods[] = {
	{ "Create", create, VARLINK_METHOD_PRIVILEGED },
	{ "List", list, 0 },
	{ "Show", show, 0 },
	{ "Destroy", destroy, VARLINK_METHOD_PRIVILEGED },
	{ NULL, NULL, 0 },
};
