/* SPDX-License-Identifier: MIT */
/* Registers the io.rdmad.* interfaces and decides who may change state. */
#include "daemon/api/api.h"
#include "daemon/api/application.h"
#include "daemon/api/async_events.h"
#include "daemon/api/dispatch.h"
#include "lib/log.h"
#include "daemon/api/idl-table.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const struct {
	const char *name;
	const struct varlink_method *methods;
} interfaces[] = {
	{ "io.rdmad.Daemon", api_daemon_methods },
	{ "io.rdmad.Device", api_device_methods },
	{ "io.rdmad.Pd", api_pd_methods },
	{ "io.rdmad.Mr", api_mr_methods },
	{ "io.rdmad.Cq", api_cq_methods },
	{ "io.rdmad.Qp", api_qp_methods },
	{ "io.rdmad.Ah", api_ah_methods },
	{ "io.rdmad.Gid", api_gid_methods },
	{ "io.rdmad.Mkey", api_mkey_methods },
	{ "io.rdmad.Pool", api_pool_methods },
	{ "io.rdmad.Dek", api_dek_methods },
	{ "io.rdmad.Vnic", api_vnic_methods },
	{ "io.rdmad.Vdev", api_vdev_methods },
	{ "io.rdmad.Monitor", api_monitor_methods },
};

/* Everything a closing connection held, interface by interface. */
static const api_close_fn close_handlers[] = {
	api_mkey_connection_closed,
	api_pool_connection_closed,
	/* Its event channel goes before its objects, whose going it would carry. */
	api_async_events_connection_closed,
	/* After the pool's: its borrowed MKEYs are back before its objects go. */
	api_application_connection_closed,
};

static void connection_closed(struct varlink_connection *conn, void *userdata)
{
	for (size_t i = 0; i < sizeof(close_handlers) / sizeof(close_handlers[0]); i++)
		close_handlers[i](conn, userdata);
}

/*
 * Root may call everything.  Members of group rdma may call what only reads,
 * Attach, and, once their connection attached, what a program does with its
 * own objects; what else changes state (VARLINK_METHOD_PRIVILEGED) and anything
 * about key material (API_METHOD_SECRET) is root's alone.  The group's id is
 * the one found at start or at the last reload (manager.c): a lookup per call
 * could have the event loop wait for the user database.
 */
static bool authorize(const struct varlink_peer *peer, const char *method, unsigned flags,
		      void *userdata)
{
	const struct manager *m = userdata;

	if (peer->cred.uid == 0)
		return true;
	if (!m->read_group.exists || !varlink_peer_in_group(peer, m->read_group.gid))
		return false;
	switch (api_method_access(flags)) {
	case API_NEEDS_READ_GROUP:
		return true;
	case API_NEEDS_ATTACHED:
		return api_application_attached(peer->conn);
	case API_NEEDS_ROOT:
		break;
	}
	return false;
}

enum api_access api_method_access(unsigned flags)
{
	if (flags & API_METHOD_SECRET)
		return API_NEEDS_ROOT;
	if (flags & API_METHOD_OWN)
		return API_NEEDS_ATTACHED;
	if ((flags & VARLINK_METHOD_PRIVILEGED) && !(flags & API_METHOD_TENANT))
		return API_NEEDS_ROOT;
	return API_NEEDS_READ_GROUP;
}

const char *api_access_word(enum api_access access)
{
	switch (access) {
	case API_NEEDS_ROOT:       return "root";
	case API_NEEDS_READ_GROUP: return "read_group";
	case API_NEEDS_ATTACHED:   return "attached";
	}
	return "root";
}

int api_method_flags(const char *method, unsigned *flags)
{
	const char *dot = strrchr(method, '.');

	for (size_t i = 0; dot && i < sizeof(interfaces) / sizeof(interfaces[0]); i++) {
		if (strlen(interfaces[i].name) != (size_t)(dot - method) ||
		    strncmp(interfaces[i].name, method, (size_t)(dot - method)) != 0)
			continue;
		for (const struct varlink_method *v = interfaces[i].methods; v->name; v++)
			if (strcmp(v->name, dot + 1) == 0) {
				*flags = v->flags;
				return 0;
			}
	}
	return -ENOENT;
}

/* The "device" parameter every method on a device takes. */
struct device_ref {
	const char *name;
};

static const struct api_field device_ref_fields[] = {
	{ .name = "device", .type = API_FIELD_STRING, .offset = offsetof(struct device_ref, name) },
	{ NULL },
};

struct rdma_device *api_device(struct varlink_call *call, struct manager *m,
			       struct json_object *params, const char *iface)
{
	struct device_ref ref = { 0 };
	struct rdma_device *dev;
	char error[128];

	if (api_dispatch(call, params, device_ref_fields, &ref) < 0)
		return NULL;
	dev = ref.name ? manager_find_device(m, ref.name) : m->n_devices ? m->devices[0] : NULL;
	if (!dev && ref.name) {
		snprintf(error, sizeof(error), "%s.NoSuchDevice", iface);
		api_error_string(call, error, "device", ref.name);
	}
	/*
	 * The one place a call takes in what the data path reported since the
	 * last (QP states, completion events, signature errors): whatever the
	 * call reads or changes, it finds the device as a poller of its CQs would.
	 */
	if (dev)
		rdma_device_sync(dev);
	return dev;
}

/* What names an object of any kind. */
struct object_ref {
	uint32_t handle;
};

static const struct api_field object_ref_fields[] = {
	{ .name = "handle", .type = API_FIELD_HANDLE, .offset = offsetof(struct object_ref, handle),
	  .required = true },
	{ NULL },
};

struct rdma_object *api_lookup(struct varlink_call *call, struct manager *m,
			       struct json_object *params, const char *iface,
			       enum rdma_object_kind kind, struct rdma_device **dev)
{
	struct object_ref ref;
	struct rdma_object *obj;
	struct rdma_error err;

	*dev = api_device(call, m, params, iface);
	if (!*dev || api_dispatch(call, params, object_ref_fields, &ref) < 0)
		return NULL;
	obj = rdma_object_lookup(*dev, kind, ref.handle, &err);
	/* An application addresses its own objects only: another's is not there for it. */
	if (obj && !api_application_may_name(call, obj)) {
		rdma_error_no_such(&err, kind, ref.handle);
		obj = NULL;
	}
	if (!obj)
		api_reply_error(call, iface, &err);
	return obj;
}

/* A page of a list: the objects after handle after (0: from the first), at most max of them. */
struct list_page {
	uint32_t after, max;
};

static const struct api_field list_page_fields[] = {
	{ .name = "after", .type = API_FIELD_U32, .offset = offsetof(struct list_page, after) },
	{ .name = "max", .type = API_FIELD_U32, .offset = offsetof(struct list_page, max),
	  .min = 1, .max = API_LIST_PAGE_MAX },
	{ NULL },
};

/*
 * List(device, after, max) with records made by fn, or by caller_fn when fn
 * is NULL, in the order of handles; next: the last one listed when more
 * follow (a list of tens of thousands does not fit one message).
 */
static int list_objects(struct varlink_call *call, struct manager *m, struct json_object *params,
			const char *iface, enum rdma_object_kind kind, const char *key,
			api_object_json_fn fn, api_caller_json_fn caller_fn)
{
	struct rdma_device *dev = api_device(call, m, params, iface);
	struct list_page page = { .max = API_LIST_PAGE_DEFAULT };
	struct json_object *list, *reply;
	struct rdma_object *obj, *last = NULL;
	uint32_t pos, n = 0;

	if (!dev || api_dispatch(call, params, list_page_fields, &page) < 0)
		return 0;
	list = json_object_new_array();
	pos = object_table_pos_after(&dev->tables[kind], page.after);
	while ((obj = object_table_next(&dev->tables[kind], &pos))) {
		/* An application lists its own objects: others' are not there for it. */
		if (!api_application_may_use(call, obj))
			continue;
		if (n++ == page.max)
			break;
		json_object_array_add(list, fn ? fn(dev, obj) : caller_fn(call, dev, obj));
		last = obj;
	}
	reply = json_object_new_object();
	json_object_object_add(reply, key, list);
	if (obj && last)
		json_add_uint(reply, "next", last->handle);
	return api_reply(call, reply);
}

int api_list(struct varlink_call *call, struct manager *m, struct json_object *params,
	     const char *iface, enum rdma_object_kind kind, const char *key, api_object_json_fn fn)
{
	return list_objects(call, m, params, iface, kind, key, fn, NULL);
}

int api_list_for_caller(struct varlink_call *call, struct manager *m, struct json_object *params,
			const char *iface, enum rdma_object_kind kind, const char *key,
			api_caller_json_fn fn)
{
	return list_objects(call, m, params, iface, kind, key, NULL, fn);
}

int api_destroy_by(struct varlink_call *call, struct manager *m, struct json_object *params,
		   const char *iface, enum rdma_object_kind kind, api_destroy_fn destroy)
{
	struct rdma_device *dev = api_device(call, m, params, iface);
	struct rdma_error err = { 0 };
	struct object_ref ref;
	int r;

	struct rdma_object *obj;

	if (!dev || api_dispatch(call, params, object_ref_fields, &ref) < 0)
		return 0;
	obj = rdma_object_lookup(dev, kind, ref.handle, &err);
	if (obj && !api_application_may_name(call, obj)) {
		rdma_error_no_such(&err, kind, ref.handle);
		return api_reply_error(call, iface, &err);
	}
	r = destroy(dev, kind, ref.handle, &err);
	if (r < 0)
		return api_reply_failure(call, iface, &err, r);
	return api_reply(call, NULL);
}

int api_destroy(struct varlink_call *call, struct manager *m, struct json_object *params,
		const char *iface, enum rdma_object_kind kind)
{
	return api_destroy_by(call, m, params, iface, kind, rdma_object_destroy);
}

int api_register(struct manager *m)
{
	varlink_server_set_authorizer(m->varlink, authorize, m);
	varlink_server_set_errno_error(m->varlink, "io.rdmad.Daemon.System");
	varlink_server_set_close_hook(m->varlink, connection_closed, m);
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
	return api_monitor_start(m);
}

int api_passed_fd(struct varlink_call *call, struct json_object *params, const char *key,
		  struct rdma_error *err)
{
	int64_t index = json_get_int(params, key, -1);
	unsigned n = varlink_call_n_fds(call);
	int fd = index >= 0 && index < VARLINK_FDS_PER_MESSAGE_MAX ?
		 varlink_call_peek_fd(call, (unsigned)index) : -ENXIO;

	if (fd >= 0)
		return fd;
	if (!n)
		return rdma_error_invalid(err, key, "%lld names no descriptor: none was passed with the "
					  "call (SCM_RIGHTS)", (long long)index);
	return rdma_error_invalid(err, key, "%lld names no descriptor passed with the call: the index "
				  "of one of the %u passed, 0 to %u", (long long)index, n, n - 1);
}
