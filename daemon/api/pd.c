/* SPDX-License-Identifier: MIT */
/* io.rdmad.Pd */
#include "daemon/api/vocab.h"
#include "daemon/api/api.h"
#include "daemon/api/tenant.h"
#include "daemon/api/application.h"

#define IFACE "io.rdmad.Pd"

static struct json_object *pd_json(struct rdma_device *dev, struct rdma_object *pd)
{
	struct json_object *o = json_object_new_object();

	api_add_record_head(o, dev, pd);
	json_add_uint(o, "mrs", rdma_object_count_users(dev, pd, RDMA_OBJ_MR));
	json_add_uint(o, "qps", rdma_object_count_users(dev, pd, RDMA_OBJ_QP));
	json_add_uint(o, "ahs", rdma_object_count_users(dev, pd, RDMA_OBJ_AH));
	json_add_uint(o, "mkeys", rdma_object_count_users(dev, pd, RDMA_OBJ_MKEY));
	return o;
}

static int create(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev = api_device(call, userdata, params, IFACE);
	struct rdma_object *pd;
	struct rdma_error err;

	if (!dev)
		return 0;
	if (api_tenant_may_create(call, userdata, RDMA_OBJ_PD, 0, &err) < 0)
		return api_reply_error(call, IFACE, &err);
	pd = rdma_object_create(dev, RDMA_OBJ_PD, &err);
	if (!pd)
		return api_reply_error(call, IFACE, &err);
	api_application_own(call, dev, pd);
	return api_reply_record(call, "pd", pd_json(dev, pd));
}

static int list(struct varlink_call *call, struct json_object *params, void *userdata)
{
	return api_list(call, userdata, params, IFACE, RDMA_OBJ_PD, "pds", pd_json);
}

static int show(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_object *pd = api_lookup(call, userdata, params, IFACE, RDMA_OBJ_PD, &dev);

	return pd ? api_reply_record(call, "pd", pd_json(dev, pd)) : 0;
}

static int destroy(struct varlink_call *call, struct json_object *params, void *userdata)
{
	return api_destroy(call, userdata, params, IFACE, RDMA_OBJ_PD);
}

const struct varlink_method api_pd_methods[] = {
	{ "Create", create, VARLINK_METHOD_PRIVILEGED | API_METHOD_OWN },
	{ "List", list, 0 },
	{ "Show", show, 0 },
	{ "Destroy", destroy, VARLINK_METHOD_PRIVILEGED | API_METHOD_OWN },
	{ NULL, NULL, 0 },
};
