/* SPDX-License-Identifier: MIT */
/* io.rdmad.Gid */
#include "daemon/api/api.h"
#include "daemon/gid.h"

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
	*port = 1;
	if (json_get_int(params, "port", -1) != -1 && api_get_handle(call, params, "port", port) < 0)
		return false;
	return api_get_handle(call, params, "index", index) == 0;
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
	int64_t only = json_get_int(params, "port", -1);
	struct json_object *gids;
	struct rdma_error err;

	if (!dev)
		return 0;
	if (only != -1 && rdma_gid_check_port(dev, only < 0 || only > UINT32_MAX ? 0 : (unsigned)only,
					      &err) < 0)
		return api_reply_error(call, IFACE, &err);
	gids = json_object_new_array();
	for (unsigned p = 1; p <= dev->num_ports; p++)
		for (uint32_t i = 0; i < dev->ports[p - 1].gid_tbl_len && (only == -1 || only == p); i++)
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
