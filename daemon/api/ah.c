/* SPDX-License-Identifier: MIT */
/* io.rdmad.Ah */
#include "daemon/api/vocab.h"
#include "daemon/api/api.h"
#include "daemon/api/tenant.h"
#include "daemon/api/application.h"
#include "daemon/verbs/ah.h"
#include "daemon/api/attr.h"
#include "daemon/api/dispatch.h"

#include <stdio.h>

#define IFACE "io.rdmad.Ah"

static struct json_object *ah_json(struct rdma_device *dev, struct rdma_object *obj)
{
	struct rdma_ah *ah = rdma_ah(obj);
	struct json_object *o = json_object_new_object();

	api_add_record_head(o, dev, &ah->obj);
	json_add_uint(o, "pd", ah->pd->handle);
	json_add_uint(o, "port", ah->attr.port);
	api_av_add_json(o, &ah->attr);
	return o;
}

struct create_params {
	uint32_t pd, port;
	struct api_av av;
};

static const struct api_field create_fields[] = {
	{ .name = "pd", .type = API_FIELD_HANDLE, .offset = offsetof(struct create_params, pd),
	  .required = true },
	{ .name = "port", .type = API_FIELD_U32, .offset = offsetof(struct create_params, port),
	  .invalid_parameter = true },
	{ NULL },
};

/* An application's AH goes on its own PD. */
static const struct api_ref pd_ref[] = { { "pd", RDMA_OBJ_PD }, { NULL, 0 } };

static int create(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev = api_device(call, userdata, params, IFACE);
	struct create_params p = { .port = 1, .av = API_AV_INIT };
	struct rdma_error err = { 0 };
	struct rdma_ah *ah;
	int r;

	/* The address vector's fields sit beside pd and port. */
	if (!dev || api_dispatch(call, params, create_fields, &p) < 0 ||
	    api_dispatch(call, params, api_av_fields, &p.av) < 0 ||
	    !api_application_refs_ok(call, IFACE, dev, params, pd_ref))
		return 0;
	if (api_av_resolve(&p.av, "", &err) < 0)
		return api_reply_error(call, IFACE, &err);
	p.av.attr.port = p.port;
	if (api_tenant_may_create(call, userdata, RDMA_OBJ_AH, 0, &err) < 0)
		return api_reply_error(call, IFACE, &err);
	r = rdma_ah_create(dev, p.pd, &p.av.attr, &ah, &err);
	if (r < 0)
		return api_reply_failure(call, IFACE, &err, r);
	api_application_own(call, dev, &ah->obj);
	return api_reply_record(call, "ah", ah_json(dev, &ah->obj));
}

static int list(struct varlink_call *call, struct json_object *params, void *userdata)
{
	return api_list(call, userdata, params, IFACE, RDMA_OBJ_AH, "ahs", ah_json);
}

static int show(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_object *obj = api_lookup(call, userdata, params, IFACE, RDMA_OBJ_AH, &dev);

	return obj ? api_reply_record(call, "ah", ah_json(dev, obj)) : 0;
}

static int destroy(struct varlink_call *call, struct json_object *params, void *userdata)
{
	return api_destroy(call, userdata, params, IFACE, RDMA_OBJ_AH);
}

const struct varlink_method api_ah_methods[] = {
	{ "Create", create, VARLINK_METHOD_PRIVILEGED | API_METHOD_OWN },
	{ "List", list, 0 },
	{ "Show", show, 0 },
	{ "Destroy", destroy, VARLINK_METHOD_PRIVILEGED | API_METHOD_OWN },
	{ NULL, NULL, 0 },
};
