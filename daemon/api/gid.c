/* SPDX-License-Identifier: MIT */
/* io.rdmad.Gid */
#include "daemon/api/api.h"
#include "daemon/verbs/gid.h"

#define IFACE "io.rdmad.Gid"

static struct json_object *gid_json(struct rdma_device *dev, unsigned port,
				    const struct rdma_gid_entry *e)
{
	struct json_object *o = json_object_new_object();
	char text[RDMA_GID_TEXT_MAX];

	rdma_gid_format(e->gid, text);
	json_add_string(o, "device", dev->name);
	json_add_uint(o, "port", port);
	json_add_uint(o, "index", e->obj.handle);
	json_add_string(o, "gid", text);
	json_add_uint(o, "users", e->obj.users);
	return o;
}

/* The "port" parameter (default 1) and "index"; false once the call has been answered. */
static bool get_port_index(struct varlink_call *call, struct json_object *params,
			   uint32_t *port, uint32_t *index)
{
	return api_get_optional_u32(call, params, "port", 1, port) == 0 &&
	       api_get_handle(call, params, "index", index) == 0;
}

static int add(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev = api_device(call, userdata, params, IFACE);
	uint8_t gid[RDMA_GID_LEN];
	struct rdma_error err;
	uint32_t port, index;

	if (!dev || !get_port_index(call, params, &port, &index))
		return 0;
	if (rdma_gid_parse(json_get_string(params, "gid"), gid) < 0) {
		rdma_error_invalid(&err, "gid", "not a GID: IPv6 text (fe80::1) or IPv4 (192.0.2.1)");
		return api_reply_error(call, IFACE, &err);
	}
	if (rdma_gid_add(dev, port, index, gid, &err) < 0)
		return api_reply_error(call, IFACE, &err);
	return api_reply_record(call, "gid", gid_json(dev, port, &dev->gid_tables[port - 1][index]));
}

static int del(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev = api_device(call, userdata, params, IFACE);
	struct rdma_error err;
	uint32_t port, index;

	if (!dev || !get_port_index(call, params, &port, &index))
		return 0;
	if (rdma_gid_del(dev, port, index, &err) < 0)
		return api_reply_error(call, IFACE, &err);
	return varlink_call_reply(call, NULL);
}

static int list(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev = api_device(call, userdata, params, IFACE);
	struct json_object *gids, *port;
	bool every_port = !json_object_object_get_ex(params, "port", &port) || !port;
	struct rdma_error err;
	uint32_t only = 0;

	if (!dev || (!every_port && api_get_handle(call, params, "port", &only) < 0))
		return 0;
	if (!every_port && rdma_gid_check_port(dev, only, &err) < 0)
		return api_reply_error(call, IFACE, &err);
	gids = json_object_new_array();
	for (unsigned p = 1; p <= dev->num_ports; p++)
		for (uint32_t i = 0; i < dev->ports[p - 1].gid_tbl_len && (every_port || only == p); i++)
			if (dev->gid_tables[p - 1][i].valid)
				json_object_array_add(gids, gid_json(dev, p, &dev->gid_tables[p - 1][i]));
	return api_reply_record(call, "gids", gids);
}

static int show(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev = api_device(call, userdata, params, IFACE);
	struct rdma_gid_entry *e;
	struct rdma_error err;
	uint32_t port, index;

	if (!dev || !get_port_index(call, params, &port, &index))
		return 0;
	e = rdma_gid_get(dev, port, index, "index", &err);
	if (!e)
		return api_reply_error(call, IFACE, &err);
	return api_reply_record(call, "gid", gid_json(dev, port, e));
}

const struct varlink_method api_gid_methods[] = {
	{ "Add", add, VARLINK_METHOD_PRIVILEGED },
	{ "Del", del, VARLINK_METHOD_PRIVILEGED },
	{ "List", list, 0 },
	{ "Show", show, 0 },
	{ NULL, NULL, 0 },
};
