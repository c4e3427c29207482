/* SPDX-License-Identifier: MIT */
/*
 * vdevs in the state directory (vdev.json): per device, each vdev as the
 * operator made it (name, socket, MAC, TAP, limits).  The MAC is kept even
 * when it was derived, so that a vdev's guest keeps its address whatever
 * rdmad's derivation becomes.  A vdev being destroyed is left out, one
 * being created is saved as it is.  Restored before rdmad's socket is
 * served: each vdev listens again (a socket file left by the rdmad that died
 * is replaced), its front end reconnects.  Connections and counters are not
 * kept.
 */
#include "daemon/core/manager.h"
#include "daemon/core/state.h"
#include "daemon/vdev/vdev.h"
#include "lib/json-util.h"
#include "lib/log.h"
#include "lib/mac.h"

#include <string.h>

static struct json_object *vdev_record(const struct vdev *v)
{
	struct json_object *o = json_object_new_object();

	json_add_string(o, "name", v->conf.name);
	json_add_string(o, "socket", v->conf.socket);
	json_add_mac(o, "mac", v->conf.mac);
	if (v->conf.tap[0])
		json_add_string(o, "tap", v->conf.tap);
	json_add_uint(o, "max_qps", v->conf.max_qps);
	json_add_uint(o, "max_cqs", v->conf.max_cqs);
	return o;
}

static struct json_object *vdev_save_device(struct manager *m, struct rdma_device *dev)
{
	struct json_object *list = json_object_new_array();

	for (struct vdev *v = m->vdevs->list; list && v; v = v->next) {
		struct json_object *rec;

		if (v->dev != dev || v->pending == VDEV_DESTROYING)
			continue;
		rec = vdev_record(v);
		/* A record missing would be a vdev lost: no file at all. */
		if (!rec || json_object_array_add(list, rec) < 0) {
			json_object_put(rec);
			json_object_put(list);
			return NULL;
		}
	}
	return list;
}

/* A string member copied into buf (size bytes): false when absent, not a string or too long. */
static bool copy_string(struct json_object *rec, const char *key, char *buf, size_t size)
{
	const char *s = json_get_string(rec, key);

	if (!s || strlen(s) >= size)
		return false;
	memcpy(buf, s, strlen(s) + 1);
	return true;
}

/* The record as a configuration; vdev_create checks the rest. */
static bool vdev_config_from(struct json_object *rec, struct vdev_config *conf)
{
	const char *mac = json_get_string(rec, "mac");
	int64_t qps = json_get_int(rec, "max_qps", 0), cqs = json_get_int(rec, "max_cqs", 0);

	memset(conf, 0, sizeof(*conf));
	if (!copy_string(rec, "name", conf->name, sizeof(conf->name)) ||
	    !copy_string(rec, "socket", conf->socket, sizeof(conf->socket)) ||
	    (json_get_string(rec, "tap") && !copy_string(rec, "tap", conf->tap, sizeof(conf->tap))) ||
	    (mac && mac_parse(mac, conf->mac) < 0) ||
	    qps < VDEV_QPS_MIN || qps > VDEV_QPS_MAX || cqs < VDEV_CQS_MIN || cqs > VDEV_CQS_MAX)
		return false;
	conf->has_mac = mac != NULL;
	conf->max_qps = (uint32_t)qps;
	conf->max_cqs = (uint32_t)cqs;
	return true;
}

static void vdev_restore_device(struct manager *m, struct rdma_device *dev, struct json_object *list)
{
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		struct json_object *rec = json_object_array_get_idx(list, i);
		struct vdev_config conf;
		struct rdma_error err = { 0 };
		struct vdev *v;
		int r;

		if (!vdev_config_from(rec, &conf)) {
			log_error("%s: saved vdev #%zu is not a vdev record; not restored", dev->name, i);
			continue;
		}
		r = vdev_create(m->vdevs, dev, &conf, &v, &err);
		if (r < 0) {
			log_error("%s: saved vdev '%s' not restored: %s%s%s", dev->name, conf.name,
				  err.field, *err.field ? ": " : "",
				  *err.reason ? err.reason : strerror(-r));
			continue;
		}
		/* It comes from the file: nothing to wait for. */
		vdev_settle(v);
	}
}

const struct state_kind state_vdevs = {
	.name = "vdev",
	.items = "vdevs",
	.save_device = vdev_save_device,
	.restore_device = vdev_restore_device,
};
