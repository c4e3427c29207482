/* SPDX-License-Identifier: MIT */
/*
 * From what the file says and what the daemon has, the changes to make, each
 * one a single varlink call with a single call that takes it back.  What no
 * change can do (a DEK is never changed in place, a pool never changes type)
 * is found here, before anything is made.  Objects the file does not name are
 * left as they are.
 */
#include "cmd/provision.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static struct prov_change *add(struct prov_plan *plan, enum prov_change_kind kind, const char *device,
			       const char *where)
{
	struct prov_change *c = realloc(plan->changes, (plan->n + 1) * sizeof(*c));

	if (!c)
		return NULL;
	plan->changes = c;
	c = &plan->changes[plan->n++];
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->device = device;
	snprintf(c->where, sizeof(c->where), "%s", where);
	return c;
}

static const struct prov_dek *find_dek(const struct prov_device *d, const char *name)
{
	for (unsigned i = 0; i < d->n_deks; i++)
		if (strcmp(d->deks[i].name, name) == 0)
			return &d->deks[i];
	return NULL;
}

static const struct prov_pool *find_pool(const struct prov_device *d, const char *name)
{
	for (unsigned i = 0; i < d->n_pools; i++)
		if (strcmp(d->pools[i].name, name) == 0)
			return &d->pools[i];
	return NULL;
}

/* "devices.soft0.deks[2]" + ".size" */
static const char *at(char *buf, size_t size, const char *item, const char *member)
{
	snprintf(buf, size, "%.200s.%.64s", item, member);
	return buf;
}

#define CANNOT_CHANGE "cannot be changed: destroy it first, or give what it has"

/* A DEK the daemon has must be the one the file describes: DEKs are never changed. */
static int dek_matches(const struct prov_dek *want, const struct prov_dek *now, const char *item,
		       struct prov_error *err)
{
	char p[300];

	if (want->size != now->size)
		return prov_fail(err, at(p, sizeof(p), item, "size"), "DEK %s has size %u; a DEK "
				 CANNOT_CHANGE, now->name, now->size);
	if (want->wrapped != now->wrapped)
		return prov_fail(err, at(p, sizeof(p), item, "import"), "DEK %s was imported %s; a DEK "
				 CANNOT_CHANGE, now->name, now->wrapped ? "wrapped" : "plaintext");
	if (want->key_file[0] && strcmp(want->key_file, now->key_file) != 0)
		return prov_fail(err, at(p, sizeof(p), item, "key_file"), "DEK %s has %s%s; a DEK "
				 CANNOT_CHANGE, now->name, now->key_file[0] ? "key file " : "",
				 now->key_file[0] ? now->key_file : "its key given by value, no key file");
	/* A keytag's value is never shown: only whether there is one can be compared. */
	if ((want->keytag != PROV_KEYTAG_NONE) != (now->keytag != PROV_KEYTAG_NONE))
		return prov_fail(err, at(p, sizeof(p), item, "keytag"), "DEK %s has %s keytag; a DEK "
				 CANNOT_CHANGE, now->name, now->keytag ? "a" : "no");
	if (strcmp(want->opaque, now->opaque) != 0)
		return prov_fail(err, at(p, sizeof(p), item, "opaque"), "DEK %s has opaque %s; a DEK "
				 CANNOT_CHANGE, now->name, now->opaque);
	if (want->pd != now->pd)
		return prov_fail(err, at(p, sizeof(p), item, "pd"), "DEK %s is %s%.0u; a DEK "
				 CANNOT_CHANGE, now->name, now->pd ? "on PD " : "for any PD", now->pd);
	if (want->kek[0] && strcmp(want->kek, now->kek) != 0)
		return prov_fail(err, at(p, sizeof(p), item, "kek"), "DEK %s was unwrapped with import "
				 "KEK %s; a DEK " CANNOT_CHANGE, now->name, now->kek);
	return 0;
}

/* What creating the DEK needs that the file or the daemon may lack. */
static int dek_creatable(const struct prov_dek *want, const struct prov_device *now, const char *item,
			 struct prov_error *err)
{
	char p[300];

	if (!want->key_file[0])
		return prov_fail(err, at(p, sizeof(p), item, "key_file"), "DEK %s does not exist: its "
				 "key file is needed to make it", want->name);
	if (want->keytag == PROV_KEYTAG_HIDDEN && !want->wrapped)
		return prov_fail(err, at(p, sizeof(p), item, "keytag"), "DEK %s does not exist: give its "
				 "keytag's 16 hex digits to make it (true only says a DEK has one)",
				 want->name);
	if (want->keytag == PROV_KEYTAG_GIVEN && want->wrapped)
		return prov_fail(err, at(p, sizeof(p), item, "keytag"), "a wrapped key carries its keytag: "
				 "give true, or leave it out");
	if (want->wrapped && !now->login_valid)
		return prov_fail(err, at(p, sizeof(p), item, "import"), "DEK %s does not exist, and a "
				 "wrapped import needs a valid crypto login on %s (rdmactl dek login)",
				 want->name, now->name);
	if (want->wrapped && want->kek[0] && strcmp(want->kek, now->login_kek) != 0)
		return prov_fail(err, at(p, sizeof(p), item, "kek"), "the crypto login of %s is with "
				 "import KEK %s", now->name, now->login_kek);
	return 0;
}

static int plan_deks(const struct prov_device *want, const struct prov_device *now,
		     const char *path, struct prov_plan *plan, struct prov_error *err)
{
	for (unsigned i = 0; i < want->n_deks; i++) {
		const struct prov_dek *w = &want->deks[i], *n = find_dek(now, w->name);
		struct prov_change *c;
		char item[256];
		int r;

		snprintf(item, sizeof(item), "%.100s.deks[%u]", path, i);
		r = n ? dek_matches(w, n, item, err) : dek_creatable(w, now, item, err);
		if (r < 0)
			return r;
		if (n && (!w->allow.given || prov_allow_same(&w->allow, &n->allow)))
			continue;
		if (!(c = add(plan, n ? PROV_LEND_DEK : PROV_CREATE_DEK, want->name, item)))
			return prov_fail(err, item, "out of memory");
		c->dek = w;
		c->old_allow = n ? &n->allow : NULL;
	}
	return 0;
}

static int plan_pools(const struct prov_device *want, const struct prov_device *now,
		      const char *path, struct prov_plan *plan, struct prov_error *err)
{
	for (unsigned i = 0; i < want->n_pools; i++) {
		const struct prov_pool *w = &want->pools[i], *n = find_pool(now, w->name);
		struct prov_change *c;
		char item[256], p[300];

		snprintf(item, sizeof(item), "%.100s.pools[%u]", path, i);
		if (n && strcmp(n->type, w->type) != 0)
			return prov_fail(err, at(p, sizeof(p), item, "type"), "pool %s has type %s; a pool's "
					 "type " CANNOT_CHANGE, n->name, n->type);
		/* The daemon rounds max_entries up to a multiple of 4, as it made the pool's. */
		if (n && n->max_entries != ((w->max_entries + 3) & ~3u))
			return prov_fail(err, at(p, sizeof(p), item, "max_entries"), "pool %s has "
					 "max_entries %u; a pool's MKEYs " CANNOT_CHANGE, n->name,
					 n->max_entries);
		if (n && w->size < n->borrowed)
			return prov_fail(err, at(p, sizeof(p), item, "size"), "%u MKEYs of pool %s are "
					 "borrowed: it cannot shrink below that", n->borrowed, n->name);
		if (n && w->allow.given && !prov_allow_same(&w->allow, &n->allow)) {
			if (!(c = add(plan, PROV_LEND_POOL, want->name, item)))
				return prov_fail(err, item, "out of memory");
			c->pool = w;
			c->old_allow = &n->allow;
		}
		if (n && n->size == w->size)
			continue;
		if (!(c = add(plan, n ? PROV_RESIZE_POOL : PROV_CREATE_POOL, want->name, item)))
			return prov_fail(err, item, "out of memory");
		c->pool = w;
		c->old_size = n ? n->size : 0;
	}
	return 0;
}

static const struct prov_vdev *find_vdev(const struct prov_device *d, const char *name)
{
	for (unsigned i = 0; i < d->n_vdevs; i++)
		if (strcmp(d->vdevs[i].name, name) == 0)
			return &d->vdevs[i];
	return NULL;
}

/* The daemon's vdev is what the file says; a MAC the file leaves out is whatever the daemon derived. */
static bool vdev_same(const struct prov_vdev *want, const struct prov_vdev *now)
{
	return strcmp(want->socket, now->socket) == 0 && strcmp(want->tap, now->tap) == 0 &&
	       (!want->mac[0] || strcasecmp(want->mac, now->mac) == 0) &&
	       want->max_qps == now->max_qps && want->max_cqs == now->max_cqs;
}

/*
 * A vdev the daemon lacks is made; one that differs is made again (its front
 * end then connects anew): a vdev has nothing to change in place.
 */
static int plan_vdevs(const struct prov_device *want, const struct prov_device *now,
		      const char *path, struct prov_plan *plan, struct prov_error *err)
{
	for (unsigned i = 0; i < want->n_vdevs; i++) {
		const struct prov_vdev *w = &want->vdevs[i], *n = find_vdev(now, w->name);
		struct prov_change *c;
		char item[256];

		if (n && vdev_same(w, n))
			continue;
		snprintf(item, sizeof(item), "%.100s.vdevs[%u]", path, i);
		if (!(c = add(plan, n ? PROV_RECREATE_VDEV : PROV_CREATE_VDEV, want->name, item)))
			return prov_fail(err, item, "out of memory");
		c->vdev = w;
		c->old_vdev = n;
	}
	return 0;
}

static void device_names(const struct prov_config *c, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < c->n_devices && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? ", " : "", c->devices[i].name);
}

int prov_plan(const struct prov_config *want, const struct prov_config *now, struct prov_plan *plan,
	      struct prov_error *err)
{
	int r = 0;

	memset(plan, 0, sizeof(*plan));
	if (want->log_level[0] && strcmp(want->log_level, now->log_level) != 0) {
		struct prov_change *c = add(plan, PROV_SET_LOG_LEVEL, NULL, "settings.log_level");

		if (!c)
			return prov_fail(err, "settings.log_level", "out of memory");
		snprintf(c->old_level, sizeof(c->old_level), "%s", now->log_level);
		snprintf(c->new_level, sizeof(c->new_level), "%s", want->log_level);
	}
	for (unsigned i = 0; r == 0 && i < want->n_devices; i++) {
		const struct prov_device *w = &want->devices[i], *n = prov_find_device(now, w->name);
		char path[256], names[256];

		snprintf(path, sizeof(path), "devices.%s", w->name);
		if (!n) {
			device_names(now, names, sizeof(names));
			r = prov_fail(err, path, "the daemon has no such device (it has: %s)", names);
			break;
		}
		r = plan_deks(w, n, path, plan, err);
		if (r == 0)
			r = plan_pools(w, n, path, plan, err);
		if (r == 0)
			r = plan_vdevs(w, n, path, plan, err);
	}
	if (r < 0)
		prov_plan_free(plan);
	return r;
}

void prov_plan_free(struct prov_plan *plan)
{
	free(plan->changes);
	memset(plan, 0, sizeof(*plan));
}

/* ---- one change ---- */

/* "alice,@ops", or "root only" for none. */
struct allow_text {
	char text[PROV_ALLOW_MAX * PROV_ALLOW_NAME];
};

static struct allow_text allow_text(const struct prov_allow *a)
{
	struct allow_text t = { "root only" };
	size_t n = 0;

	for (unsigned i = 0; i < a->n && n < sizeof(t.text); i++)
		n += (size_t)snprintf(t.text + n, sizeof(t.text) - n, "%s%s", i ? "," : "", a->names[i]);
	return t;
}

static struct json_object *allow_json(const struct prov_allow *a)
{
	struct json_object *o = json_object_new_object(), *list;

	prov_allow_add_json(o, a);
	list = json_object_get(json_object_object_get(o, "allow"));
	json_object_put(o);
	return list;
}

void prov_change_describe(const struct prov_change *c, char *buf, size_t size)
{
	const struct prov_dek *d = c->dek;
	const struct prov_pool *p = c->pool;

	switch (c->kind) {
	case PROV_SET_LOG_LEVEL:
		snprintf(buf, size, "settings: log_level %s -> %s", c->old_level, c->new_level);
		break;
	case PROV_CREATE_DEK:
		snprintf(buf, size, "%s: dek %s: create (%u bits, %s, key file %s%s%s%.0u)", c->device,
			 d->name, d->size, d->wrapped ? "wrapped" : "plaintext", d->key_file,
			 d->keytag ? ", keytag" : "", d->pd ? ", pd " : "", d->pd);
		break;
	case PROV_CREATE_POOL:
		snprintf(buf, size, "%s: pool %s: create (%s, %u MKEYs of %u entries)", c->device,
			 p->name, p->type, p->size, p->max_entries);
		break;
	case PROV_RESIZE_POOL:
		snprintf(buf, size, "%s: pool %s: size %u -> %u", c->device, p->name, c->old_size, p->size);
		break;
	case PROV_LEND_DEK:
	case PROV_LEND_POOL:
		snprintf(buf, size, "%s: %s %s: allow %s -> %s", c->device, d ? "dek" : "pool",
			 d ? d->name : p->name, allow_text(c->old_allow).text,
			 allow_text(d ? &d->allow : &p->allow).text);
		break;
	case PROV_CREATE_VDEV:
	case PROV_RECREATE_VDEV:
		snprintf(buf, size, "%s: vdev %s: %s (socket %s%s%s%s%s, %u QPs, %u CQs)", c->device,
			 c->vdev->name, c->old_vdev ? "destroy and create again" : "create",
			 c->vdev->socket, c->vdev->mac[0] ? ", mac " : "", c->vdev->mac,
			 c->vdev->tap[0] ? ", tap " : "", c->vdev->tap, c->vdev->max_qps, c->vdev->max_cqs);
		break;
	}
}

struct json_object *prov_change_json(const struct prov_change *c)
{
	struct json_object *o = json_object_new_object();
	static const char *const kinds[] = {
		[PROV_SET_LOG_LEVEL] = "settings", [PROV_CREATE_DEK] = "dek",
		[PROV_CREATE_POOL] = "pool", [PROV_RESIZE_POOL] = "pool",
		[PROV_LEND_DEK] = "dek", [PROV_LEND_POOL] = "pool",
		[PROV_CREATE_VDEV] = "vdev", [PROV_RECREATE_VDEV] = "vdev",
	};
	static const char *const actions[] = {
		[PROV_SET_LOG_LEVEL] = "set", [PROV_CREATE_DEK] = "create", [PROV_CREATE_POOL] = "create",
		[PROV_RESIZE_POOL] = "resize", [PROV_LEND_DEK] = "allow", [PROV_LEND_POOL] = "allow",
		[PROV_CREATE_VDEV] = "create", [PROV_RECREATE_VDEV] = "recreate",
	};
	struct json_object *from = NULL, *to = NULL;
	const char *name = "log_level";

	switch (c->kind) {
	case PROV_SET_LOG_LEVEL:
		from = json_object_new_string(c->old_level);
		to = json_object_new_string(c->new_level);
		break;
	case PROV_CREATE_DEK:
		name = c->dek->name;
		to = prov_dek_json(c->dek);
		break;
	case PROV_CREATE_POOL:
		name = c->pool->name;
		to = prov_pool_json(c->pool);
		break;
	case PROV_RESIZE_POOL:
		name = c->pool->name;
		from = json_object_new_int64(c->old_size);
		to = json_object_new_int64(c->pool->size);
		break;
	case PROV_LEND_DEK:
	case PROV_LEND_POOL:
		name = c->dek ? c->dek->name : c->pool->name;
		from = allow_json(c->old_allow);
		to = allow_json(c->dek ? &c->dek->allow : &c->pool->allow);
		break;
	case PROV_CREATE_VDEV:
	case PROV_RECREATE_VDEV:
		name = c->vdev->name;
		from = c->old_vdev ? prov_vdev_json(c->old_vdev) : NULL;
		to = prov_vdev_json(c->vdev);
		break;
	}
	json_object_object_add(o, "kind", json_object_new_string(kinds[c->kind]));
	json_object_object_add(o, "action", json_object_new_string(actions[c->kind]));
	json_object_object_add(o, "ifname", c->device ? json_object_new_string(c->device) : NULL);
	json_object_object_add(o, "name", json_object_new_string(name));
	json_object_object_add(o, "from", from);
	json_object_object_add(o, "to", to);
	return o;
}

/* One call with params (consumed), its reply dropped. */
static int call(struct ctl *ctl, const char *path, const char *method, struct json_object *params)
{
	struct json_object *reply = NULL;
	int r = ctl_call(ctl, path, method, params, &reply);

	json_object_put(params);
	json_object_put(reply);
	return r;
}

static struct json_object *named(const char *device, const char *name)
{
	struct json_object *params = json_object_new_object();

	json_object_object_add(params, "device", json_object_new_string(device));
	json_object_object_add(params, "name", json_object_new_string(name));
	return params;
}

static struct json_object *log_level_params(const char *level)
{
	struct json_object *params = json_object_new_object();

	json_object_object_add(params, "level", json_object_new_string(level));
	return params;
}

static struct json_object *pool_size_params(const char *device, const struct prov_pool *p, uint32_t size)
{
	struct json_object *params = named(device, p->name);

	json_object_object_add(params, "size", json_object_new_int64(size));
	return params;
}

/* Modify from one allow list to another: what from has and to lacks taken back, the rest added. */
static int lend(struct ctl *ctl, const char *path, const struct prov_change *c,
		const struct prov_allow *from, const struct prov_allow *to)
{
	struct json_object *params = named(c->device, c->dek ? c->dek->name : c->pool->name);

	prov_allow_add_diff(params, "disallow", from, to);
	prov_allow_add_diff(params, "allow", to, from);
	return call(ctl, path, c->dek ? "io.rdmad.Dek.Modify" : "io.rdmad.Pool.Modify", params);
}

static int create_vdev(struct ctl *ctl, const char *path, const char *device, const struct prov_vdev *v)
{
	struct json_object *params = named(device, v->name);

	json_object_object_add(params, "socket", json_object_new_string(v->socket));
	if (v->mac[0])
		json_object_object_add(params, "mac", json_object_new_string(v->mac));
	if (v->tap[0])
		json_object_object_add(params, "tap", json_object_new_string(v->tap));
	json_object_object_add(params, "max_qps", json_object_new_int64(v->max_qps));
	json_object_object_add(params, "max_cqs", json_object_new_int64(v->max_cqs));
	return call(ctl, path, "io.rdmad.Vdev.Create", params);
}

/* from (NULL: none) goes, to (NULL: none) comes; from comes back if to cannot be made. */
static int replace_vdev(struct ctl *ctl, const char *path, const char *device,
			const struct prov_vdev *from, const struct prov_vdev *to)
{
	const char *name = from ? from->name : to->name;
	int r = 0;

	if (from)
		r = call(ctl, path, "io.rdmad.Vdev.Destroy", named(device, name));
	if (r == 0 && to) {
		r = create_vdev(ctl, path, device, to);
		if (r < 0 && from)
			(void)create_vdev(ctl, path, device, from);
	}
	return r;
}

int prov_change_do(struct ctl *ctl, const char *path, const struct prov_change *c)
{
	struct json_object *params;

	switch (c->kind) {
	case PROV_SET_LOG_LEVEL:
		return call(ctl, path, "io.rdmad.Daemon.SetLogLevel", log_level_params(c->new_level));
	case PROV_CREATE_DEK:
		params = named(c->device, c->dek->name);
		json_object_object_add(params, "size", json_object_new_int(c->dek->size));
		json_object_object_add(params, "import", json_object_new_string(
			c->dek->wrapped ? "wrapped" : "plaintext"));
		json_object_object_add(params, "key_file", json_object_new_string(c->dek->key_file));
		if (c->dek->keytag == PROV_KEYTAG_GIVEN)
			json_object_object_add(params, "keytag", json_object_new_string(c->dek->keytag_hex));
		json_object_object_add(params, "opaque", json_object_new_string(c->dek->opaque));
		if (c->dek->pd)
			json_object_object_add(params, "pd", json_object_new_int64(c->dek->pd));
		prov_allow_add_json(params, &c->dek->allow);
		return call(ctl, path, "io.rdmad.Dek.Create", params);
	case PROV_CREATE_POOL:
		params = pool_size_params(c->device, c->pool, c->pool->size);
		json_object_object_add(params, "type", json_object_new_string(c->pool->type));
		json_object_object_add(params, "max_entries", json_object_new_int64(c->pool->max_entries));
		prov_allow_add_json(params, &c->pool->allow);
		return call(ctl, path, "io.rdmad.Pool.Create", params);
	case PROV_RESIZE_POOL:
		return call(ctl, path, "io.rdmad.Pool.Resize", pool_size_params(c->device, c->pool,
										 c->pool->size));
	case PROV_LEND_DEK:
	case PROV_LEND_POOL:
		return lend(ctl, path, c, c->old_allow, c->dek ? &c->dek->allow : &c->pool->allow);
	case PROV_CREATE_VDEV:
	case PROV_RECREATE_VDEV:
		return replace_vdev(ctl, path, c->device, c->old_vdev, c->vdev);
	}
	return -EINVAL;
}

int prov_change_undo(struct ctl *ctl, const char *path, const struct prov_change *c)
{
	switch (c->kind) {
	case PROV_SET_LOG_LEVEL:
		return call(ctl, path, "io.rdmad.Daemon.SetLogLevel", log_level_params(c->old_level));
	case PROV_CREATE_DEK:
		return call(ctl, path, "io.rdmad.Dek.Destroy", named(c->device, c->dek->name));
	case PROV_CREATE_POOL:
		return call(ctl, path, "io.rdmad.Pool.Destroy", named(c->device, c->pool->name));
	case PROV_RESIZE_POOL:
		return call(ctl, path, "io.rdmad.Pool.Resize", pool_size_params(c->device, c->pool,
										 c->old_size));
	case PROV_LEND_DEK:
	case PROV_LEND_POOL:
		return lend(ctl, path, c, c->dek ? &c->dek->allow : &c->pool->allow, c->old_allow);
	case PROV_CREATE_VDEV:
	case PROV_RECREATE_VDEV:
		return replace_vdev(ctl, path, c->device, c->vdev, c->old_vdev);
	}
	return -EINVAL;
}
