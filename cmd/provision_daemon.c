/* SPDX-License-Identifier: MIT */
/*
 * What the daemon has now, in the terms of the provisioning file: its log
 * level, and per device its DEKs (never key material: the daemon has no
 * method that gives any), its pools, its vdevs and its crypto login.  Read-only calls;
 * the DEK ones need root, as every DEK method.
 */
#include "cmd/provision.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *string_of(struct json_object *rec, const char *key)
{
	struct json_object *v = json_object_object_get(rec, key);

	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
}

static uint32_t u32_of(struct json_object *rec, const char *key)
{
	int64_t n = json_object_get_int64(json_object_object_get(rec, key));

	return n < 0 || n > UINT32_MAX ? 0 : (uint32_t)n;
}

/* Calls method for device: the reply in *reply, and reply[key], a list, unless key is NULL. */
static int device_list(struct ctl *ctl, const char *path, const char *method, const char *device,
		       const char *key, struct json_object **reply, struct json_object **list)
{
	struct json_object *params = json_object_new_object();
	int r;

	json_object_object_add(params, "device", json_object_new_string(device));
	r = ctl_call(ctl, path, method, params, reply);
	json_object_put(params);
	if (r < 0)
		return r;
	*list = key ? json_object_object_get(*reply, key) : NULL;
	if (key && !json_object_is_type(*list, json_type_array))
		return ctl_fail("%s: %s: the reply has no list '%s'", path, method, key);
	return 0;
}

static void dek_from_record(struct json_object *rec, struct prov_dek *d)
{
	const char *error = string_of(rec, "error");

	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", string_of(rec, "name"));
	d->size = u32_of(rec, "size");
	d->wrapped = strcmp(string_of(rec, "import"), "wrapped") == 0;
	snprintf(d->key_file, sizeof(d->key_file), "%s", string_of(rec, "key_file"));
	d->keytag = json_object_get_boolean(json_object_object_get(rec, "keytag")) ?
		    PROV_KEYTAG_HIDDEN : PROV_KEYTAG_NONE;
	snprintf(d->opaque, sizeof(d->opaque), "%s", string_of(rec, "opaque"));
	d->pd = u32_of(rec, "pd");
	snprintf(d->kek, sizeof(d->kek), "%s", string_of(rec, "kek"));
	prov_allow_from_record(rec, &d->allow);
	/* What dump cannot write as configuration, it says. */
	if (!d->key_file[0])
		snprintf(d->note, sizeof(d->note), "its key was given by value: no key file is known, "
			 "so this DEK cannot be made from this file (and does not survive a restart)");
	else if (strcmp(string_of(rec, "state"), "error") == 0)
		snprintf(d->note, sizeof(d->note), "in state error: %s", error);
}

static void pool_from_record(struct json_object *rec, struct prov_pool *p)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", string_of(rec, "name"));
	snprintf(p->type, sizeof(p->type), "%s", string_of(rec, "type"));
	p->size = u32_of(rec, "size");
	p->max_entries = u32_of(rec, "max_entries");
	p->borrowed = u32_of(rec, "in_use");
	prov_allow_from_record(rec, &p->allow);
}

static void vdev_from_record(struct json_object *rec, struct prov_vdev *v)
{
	memset(v, 0, sizeof(*v));
	snprintf(v->name, sizeof(v->name), "%s", string_of(rec, "name"));
	snprintf(v->socket, sizeof(v->socket), "%s", string_of(rec, "socket"));
	snprintf(v->mac, sizeof(v->mac), "%s", string_of(rec, "mac"));
	snprintf(v->tap, sizeof(v->tap), "%s", string_of(json_object_object_get(rec, "tap"), "netdev"));
	v->max_qps = u32_of(rec, "max_qps");
	v->max_cqs = u32_of(rec, "max_cqs");
}

static int read_device(struct ctl *ctl, const char *path, struct prov_device *d)
{
	struct json_object *reply = NULL, *list, *login;
	size_t n;
	int r;

	r = device_list(ctl, path, "io.rdmad.Dek.List", d->name, "deks", &reply, &list);
	n = r < 0 ? 0 : json_object_array_length(list);
	if (r == 0 && !(d->deks = calloc(n ? n : 1, sizeof(*d->deks))))
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i < n; i++)
		dek_from_record(json_object_array_get_idx(list, i), &d->deks[d->n_deks++]);
	json_object_put(reply);
	reply = NULL;
	if (r == 0)
		r = device_list(ctl, path, "io.rdmad.Pool.List", d->name, "pools", &reply, &list);
	n = r < 0 ? 0 : json_object_array_length(list);
	if (r == 0 && !(d->pools = calloc(n ? n : 1, sizeof(*d->pools))))
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i < n; i++)
		pool_from_record(json_object_array_get_idx(list, i), &d->pools[d->n_pools++]);
	json_object_put(reply);
	reply = NULL;
	if (r == 0)
		r = device_list(ctl, path, "io.rdmad.Vdev.List", d->name, "vdevs", &reply, &list);
	n = r < 0 ? 0 : json_object_array_length(list);
	if (r == 0 && !(d->vdevs = calloc(n ? n : 1, sizeof(*d->vdevs))))
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i < n; i++)
		vdev_from_record(json_object_array_get_idx(list, i), &d->vdevs[d->n_vdevs++]);
	json_object_put(reply);
	reply = NULL;
	if (r == 0)
		r = device_list(ctl, path, "io.rdmad.Dek.GetLogin", d->name, NULL, &reply, &list);
	if (r == 0) {
		login = json_object_object_get(reply, "login");
		d->login_valid = strcmp(string_of(login, "state"), "valid") == 0;
		snprintf(d->login_kek, sizeof(d->login_kek), "%s", string_of(login, "kek"));
	}
	json_object_put(reply);
	return r == -ENOMEM ? ctl_fail("%s: out of memory", path) : r;
}

int prov_read_daemon(struct ctl *ctl, const char *path, struct prov_config *out)
{
	struct json_object *params = json_object_new_object(), *status = NULL, *devices;
	size_t n;
	int r;

	memset(out, 0, sizeof(*out));
	r = ctl_call(ctl, path, "io.rdmad.Daemon.GetStatus", params, &status);
	json_object_put(params);
	if (r < 0)
		return r;
	snprintf(out->log_level, sizeof(out->log_level), "%s", string_of(status, "log_level"));
	devices = json_object_object_get(status, "ifnames");
	n = json_object_array_length(devices);
	if (n > PROV_DEVICES_MAX)
		n = PROV_DEVICES_MAX;
	out->devices = calloc(n ? n : 1, sizeof(*out->devices));
	r = out->devices ? 0 : ctl_fail("%s: out of memory", path);
	for (size_t i = 0; r == 0 && i < n; i++) {
		struct prov_device *d = &out->devices[out->n_devices++];

		snprintf(d->name, sizeof(d->name), "%s",
			 json_object_get_string(json_object_array_get_idx(devices, i)));
		r = read_device(ctl, path, d);
	}
	json_object_put(status);
	if (r < 0)
		prov_config_free(out);
	return r;
}
