/* SPDX-License-Identifier: MIT */
/* Registers the io.rdmad.* interfaces and decides who may change state. */
#include "daemon/api/api.h"
#include "lib/log.h"
#include "daemon/api/idl-table.h"

#include <errno.h>
#include <stdio.h>

static const struct {
	const char *name;
	const struct varlink_method *methods;
} interfaces[] = {
	{ "io.rdmad.Daemon", api_daemon_methods },
	{ "io.rdmad.Device", api_device_methods },
	{ "io.rdmad.Pd", api_pd_methods },
};

/* Methods that change state are for root only. */
static bool authorize(const struct ucred *peer, const char *method, void *userdata)
{
	return peer->uid == 0;
}

int api_error_string(struct varlink_call *call, const char *error, const char *key, const char *value)
{
	struct json_object *p = json_object_new_object();

	json_add_string(p, key, value);
	return varlink_call_error(call, error, p);
}

struct rdma_device *api_device(struct varlink_call *call, struct manager *m,
			       struct json_object *params, const char *iface)
{
	const char *name = json_get_string(params, "device");
	struct rdma_device *dev;
	char error[128];

	if (!name)
		return m->n_devices ? m->devices[0] : NULL;
	dev = manager_find_device(m, name);
	if (!dev) {
		snprintf(error, sizeof(error), "%s.NoSuchDevice", iface);
		api_error_string(call, error, "device", name);
	}
	return dev;
}

int api_get_handle(struct varlink_call *call, struct json_object *params, const char *key,
		   uint32_t *out)
{
	int64_t v = json_get_int(params, key, -1);

	if (v < 0 || v > UINT32_MAX) {
		varlink_call_error_invalid_parameter(call, key);
		return -EINVAL;
	}
	*out = (uint32_t)v;
	return 0;
}

int api_reply_error(struct varlink_call *call, const char *iface, const struct rdma_error *err)
{
	struct json_object *p = json_object_new_object();
	char name[128];

	snprintf(name, sizeof(name), "%s.%s", iface, rdma_error_name(err->code));
	switch (err->code) {
	case RDMA_ERR_NO_SUCH_OBJECT:
		json_add_string(p, "kind", rdma_object_kind_name(err->kind));
		json_add_uint(p, "handle", err->handle);
		break;
	case RDMA_ERR_OBJECT_IN_USE:
		json_add_string(p, "kind", rdma_object_kind_name(err->kind));
		json_add_uint(p, "handle", err->handle);
		json_add_string(p, "user_kind", rdma_object_kind_name(err->user_kind));
		json_add_uint(p, "user_handle", err->user_handle);
		break;
	case RDMA_ERR_LIMIT_REACHED:
		json_add_string(p, "kind", rdma_object_kind_name(err->kind));
		json_add_uint(p, "limit", err->limit);
		break;
	case RDMA_ERR_INVALID_ARGUMENT:
	case RDMA_ERR_INVALID_STATE:
	case RDMA_ERR_NOT_SUPPORTED:
		json_add_string(p, "field", err->field);
		json_add_string(p, "reason", err->reason);
		break;
	case RDMA_ERR_NONE:
		json_object_put(p);
		return varlink_call_error_errno(call, -EIO);
	}
	return varlink_call_error(call, name, p);
}

int api_register(struct manager *m)
{
	varlink_server_set_authorizer(m->varlink, authorize, m);
	varlink_server_set_errno_error(m->varlink, "io.rdmad.Daemon.System");
	for (size_t i = 0; i < sizeof(interfaces) / sizeof(interfaces[0]); i++) {
		const char *idl = varlink_idl_text_find(interfaces[i].name);
		int r;

		if (!idl) {
			log_error("no interface description for %s", interfaces[i].name);
			return -ENOENT;
		}
		r = varlink_server_add_interface(m->varlink, idl, interfaces[i].methods, m);
		if (r < 0)
			return r;
	}
	return 0;
}
