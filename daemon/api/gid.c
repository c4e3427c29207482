/* SPDX-License-Identifier: MIT */
/* io.rdmad.Gid */
#include "daemon/api/vocab.h"
#include "daemon/api/api.h"
#include "daemon/api/dispatch.h"
#include "daemon/verbs/gid.h"

#define IFACE "io.rdmad.Gid"

static struct json_object *gid_json(struct rdma_device *dev, unsigned port,
				    const struct rdma_gid_entry *e)
{
	struct json_object *o = json_object_new_object();
	char text[RDMA_GID_TEXT_MAX];

	rdma_gid_format(e->gid, text);
	api_add_device(o, dev);
	json_add_uint(o, "port", port);
	json_add_uint(o, "index", e->obj.handle);
	json_add_string(o, "gid", text);
	json_add_uint(o, "users", e->obj.users);
	/* Absent (null) for a user's entry: replies of before roce_netdev stay as they were. */
	if (e->netdev[0])
		json_add_string(o, "netdev", e->netdev);
	/* Absent for every other entry, for the same reason. */
	if (e->is_default)
		json_add_bool(o, "default", true);
	return o;
}

/* A GID table entry: port (default 1) and index. */
struct entry_params {
	uint32_t port, index;
	bool has_port;
	const char *gid;
};

#define PORT_FIELD { .name = "port", .type = API_FIELD_U32, .invalid_parameter = true, \
		     .offset = offsetof(struct entry_params, port), \
		     .given = API_GIVEN(struct entry_params, has_port) }
#define INDEX_FIELD { .name = "index", .type = API_FIELD_U32, .invalid_parameter = true, \
		      .offset = offsetof(struct entry_params, index), .required = true }

static const struct api_field entry_fields[] = { PORT_FIELD, INDEX_FIELD, { NULL } };
static const struct api_field add_fields[] = {
	PORT_FIELD, INDEX_FIELD,
	{ .name = "gid", .type = API_FIELD_STRING, .offset = offsetof(struct entry_params, gid) },
	{ NULL },
};
static const struct api_field list_fields[] = { PORT_FIELD, { NULL } };

static int add(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev = api_device(call, userdata, params, IFACE);
	struct entry_params p = { .port = 1 };
	uint8_t gid[RDMA_GID_LEN];
	struct rdma_error err;

	if (!dev || api_dispatch(call, params, add_fields, &p) < 0)
		return 0;
	if (rdma_gid_parse(p.gid, gid) < 0) {
		rdma_error_invalid(&err, "gid", "not a GID: IPv6 text (fe80::1) or IPv4 (192.0.2.1)");
		return api_reply_error(call, IFACE, &err);
	}
	if (rdma_gid_add(dev, p.port, p.index, gid, &err) < 0)
		return api_reply_error(call, IFACE, &err);
	return api_reply_record(call, "gid", gid_json(dev, p.port, &dev->gid_tables[p.port - 1][p.index]));
}

static int del(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev = api_device(call, userdata, params, IFACE);
	struct entry_params p = { .port = 1 };
	struct rdma_error err;

	if (!dev || api_dispatch(call, params, entry_fields, &p) < 0)
		return 0;
	if (rdma_gid_del(dev, p.port, p.index, &err) < 0)
		return api_reply_error(call, IFACE, &err);
	return api_reply(call, NULL);
}

static int list(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev = api_device(call, userdata, params, IFACE);
	struct entry_params only = { 0 };
	struct json_object *gids;
	struct rdma_error err;

	if (!dev || api_dispatch(call, params, list_fields, &only) < 0)
		return 0;
	if (only.has_port && rdma_gid_check_port(dev, only.port, &err) < 0)
		return api_reply_error(call, IFACE, &err);
	gids = json_object_new_array();
	for (unsigned p = 1; p <= dev->num_ports; p++)
		for (uint32_t i = 0; i < dev->ports[p - 1].gid_tbl_len && (!only.has_port || only.port == p); i++)
			if (dev->gid_tables[p - 1][i].valid)
				json_object_array_add(gids, gid_json(dev, p, &dev->gid_tables[p - 1][i]));
	return api_reply_record(call, "gids", gids);
}

static int show(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev = api_device(call, userdata, params, IFACE);
	struct entry_params p = { .port = 1 };
	struct rdma_gid_entry *e;
	struct rdma_error err;

	if (!dev || api_dispatch(call, params, entry_fields, &p) < 0)
		return 0;
	e = rdma_gid_get(dev, p.port, p.index, "index", &err);
	if (!e)
		return api_reply_error(call, IFACE, &err);
	return api_reply_record(call, "gid", gid_json(dev, p.port, e));
}

const struct varlink_method api_gid_methods[] = {
	{ "Add", add, VARLINK_METHOD_PRIVILEGED },
	{ "Del", del, VARLINK_METHOD_PRIVILEGED },
	{ "List", list, 0 },
	{ "Show", show, 0 },
	{ NULL, NULL, 0 },
};
