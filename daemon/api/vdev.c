/* SPDX-License-Identifier: MIT */
/* io.rdmad.Vdev: vdevs, the virtio-net RoCE devices served to VMs (daemon/vdev/vdev.h). */
#include "daemon/api/counters.h"
#include "daemon/api/vocab.h"
#include "daemon/api/api.h"
#include "daemon/api/change.h"
#include "daemon/api/dispatch.h"
#include "daemon/vdev/vdev.h"
#include "daemon/vdev/vdev_session.h"
#include "daemon/vnic/netdev_linux.h"
#include "daemon/core/state.h"
#include "lib/mac.h"

#include <errno.h>
#include <string.h>

#define IFACE "io.rdmad.Vdev"

static struct json_object *tap_json(const struct vnic_netdev *tap)
{
	struct json_object *o = json_object_new_object();

	json_add_string(o, "netdev", vnic_netdev_name(tap));
	json_add_int(o, "ifindex", vnic_netdev_ifindex(tap));
	return o;
}

struct json_object *api_vdev_json(const struct vdev *v)
{
	struct json_object *o = json_object_new_object(), *virtio = json_object_new_object();

	api_add_device(o, v->dev);
	json_add_string(o, "name", v->conf.name);
	json_add_string(o, "socket", v->conf.socket);
	json_add_mac(o, "mac", v->conf.mac);
	json_object_object_add(o, "tap", v->tap ? tap_json(v->tap) : NULL);
	json_add_uint(o, "max_qps", v->conf.max_qps);
	json_add_uint(o, "max_cqs", v->conf.max_cqs);
	json_add_string(o, "state", vdev_state_word(v));
	json_object_object_add(o, "front_end", v->session ? api_front_end_json(&v->front_end) : NULL);
	json_add_uint(o, "accepted", v->accepted);
	json_add_uint(o, "refused", v->refused);
	vdev_session_info(v->session, virtio);
	/* The VM's device's data-path counters (its RoCE v2 among them), as a Device's. */
	if (vdev_session_device(v->session)) {
		struct rdma_device *vm = vdev_session_device(v->session);
		struct dp_counters c;

		rdma_device_counters(vm, &c);
		json_object_object_add(virtio, "datapath", api_dp_counters_json(&c, &vm->sqd_stats));
	}
	json_object_object_add(o, "virtio", virtio);
	return o;
}

struct vdev_params {
	const char *name, *socket, *mac, *tap;
	uint32_t max_qps, max_cqs;
};

#define NAME_FIELD { .name = "name", .type = API_FIELD_STRING, .offset = offsetof(struct vdev_params, name) }
#define STRING_FIELD(member) { .name = #member, .type = API_FIELD_STRING, \
			       .offset = offsetof(struct vdev_params, member) }
/* The range is the model's to check (vdev.c), as for a vdev restored from its file. */
#define LIMIT_FIELD(member) { .name = #member, .type = API_FIELD_U32, \
			      .offset = offsetof(struct vdev_params, member) }

static const struct api_field create_fields[] = {
	NAME_FIELD, STRING_FIELD(socket), STRING_FIELD(mac), STRING_FIELD(tap),
	LIMIT_FIELD(max_qps), LIMIT_FIELD(max_cqs), { NULL },
};
static const struct api_field name_fields[] = { NAME_FIELD, { NULL } };

/* The vdev of the call's device named by "name"; NULL once the call was answered. */
static struct vdev *call_vdev(struct varlink_call *call, struct manager *m, struct json_object *params,
			      struct vdev_params *p)
{
	struct rdma_device *dev = api_device(call, m, params, IFACE);
	struct vdev *v;

	if (!dev || api_dispatch(call, params, name_fields, p) < 0)
		return NULL;
	v = vdev_find(m->vdevs, p->name);
	if (!v || v->dev != dev) {
		api_error_string(call, IFACE ".NoSuchVdev", "name", p->name);
		return NULL;
	}
	return v;
}

/* A created vdev is kept, a destroyed one goes, once saved; either is undone if it cannot be. */
static struct json_object *finish(struct api_change *change, int r)
{
	struct vdev *v = change->object;
	bool destroyed = v->pending == VDEV_DESTROYING;
	struct json_object *reply;

	if (r < 0) {
		vdev_undo(v);
		return NULL;
	}
	if (destroyed) {
		vdev_settle(v);
		return NULL;
	}
	vdev_settle(v);
	reply = json_object_new_object();
	json_object_object_add(reply, "vdev", api_vdev_json(v));
	return reply;
}

static int submit(struct varlink_call *call, struct manager *m, struct rdma_device *dev, struct vdev *v)
{
	return api_change_submit(call, m, &state_vdevs, dev, v, finish, 0, 0);
}

/* The configuration Create's parameters give; a refusal names the field. */
static int config_from(const struct vdev_params *p, struct vdev_config *conf, struct rdma_error *err)
{
	*conf = (struct vdev_config){ .max_qps = p->max_qps, .max_cqs = p->max_cqs };
	if (vdev_check_name(p->name, err) < 0)
		return -EINVAL;
	memcpy(conf->name, p->name, strlen(p->name) + 1);
	if (strlen(p->socket) > VDEV_SOCKET_MAX)
		return rdma_error_invalid(err, "socket", "a path of at most %zu bytes (a unix socket's)",
					  VDEV_SOCKET_MAX);
	memcpy(conf->socket, p->socket, strlen(p->socket) + 1);
	if (p->mac && mac_parse(p->mac, conf->mac) < 0)
		return rdma_error_invalid(err, "mac", "a MAC address as xx:xx:xx:xx:xx:xx");
	conf->has_mac = p->mac != NULL;
	if (p->tap && strlen(p->tap) > VDEV_TAP_MAX)
		return rdma_error_invalid(err, "tap", "an interface name of 1 to %d letters, digits, "
					  "'_', '-' or '.'", VDEV_TAP_MAX);
	if (p->tap)
		memcpy(conf->tap, p->tap, strlen(p->tap) + 1);
	if (p->tap && !*p->tap)
		return rdma_error_invalid(err, "tap", "an interface name of 1 to %d letters, digits, "
					  "'_', '-' or '.'", VDEV_TAP_MAX);
	return 0;
}

static int create(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct manager *m = userdata;
	struct rdma_device *dev = api_device(call, m, params, IFACE);
	struct vdev_params p = { .max_qps = VDEV_DEFAULT_QPS, .max_cqs = VDEV_DEFAULT_CQS };
	struct rdma_error err = { 0 };
	struct vdev_config conf;
	struct vdev *v;
	int r;

	if (!dev || api_dispatch(call, params, create_fields, &p) < 0)
		return 0;
	/* The name is known to be free, or taken, once the other vdev's change is saved. */
	v = vdev_find(m->vdevs, p.name);
	if (v && v->pending)
		return api_change_wait(call, params, create, userdata, m, v);
	r = config_from(&p, &conf, &err);
	if (r == 0)
		r = vdev_create(m->vdevs, dev, &conf, &v, &err);
	if (r == -EEXIST)
		return api_error_string(call, IFACE ".VdevExists", "name", p.name);
	if (r == -EADDRINUSE) {
		struct json_object *e = json_object_new_object();

		json_add_string(e, "socket", p.socket);
		json_add_string(e, "reason", err.reason);
		return api_error(call, IFACE ".SocketInUse", e);
	}
	if (r < 0)
		return api_reply_failure(call, IFACE, &err, r);
	return submit(call, m, dev, v);
}

static int destroy(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct vdev_params p = { 0 };
	struct vdev *v = call_vdev(call, userdata, params, &p);

	if (!v)
		return 0;
	if (v->pending)
		return api_change_wait(call, params, destroy, userdata, userdata, v);
	vdev_destroy_begin(v);
	return submit(call, userdata, v->dev, v);
}

static int list(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct manager *m = userdata;
	struct json_object *vdevs, *reply;
	struct rdma_device *dev = NULL;

	if (json_get_string(params, "device") && !(dev = api_device(call, m, params, IFACE)))
		return 0;
	vdevs = json_object_new_array();
	for (struct vdev *v = m->vdevs->list; v; v = v->next)
		if (!dev || v->dev == dev)
			json_object_array_add(vdevs, api_vdev_json(v));
	reply = json_object_new_object();
	json_object_object_add(reply, "vdevs", vdevs);
	return api_reply(call, reply);
}

static int show(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct vdev_params p = { 0 };
	struct vdev *v = call_vdev(call, userdata, params, &p);

	return v ? api_reply_record(call, "vdev", api_vdev_json(v)) : 0;
}

const struct varlink_method api_vdev_methods[] = {
	{ "Create", create, VARLINK_METHOD_PRIVILEGED },
	{ "Destroy", destroy, VARLINK_METHOD_PRIVILEGED },
	{ "List", list, 0 },
	{ "Show", show, 0 },
	{ NULL, NULL, 0 },
};
