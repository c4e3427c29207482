/* SPDX-License-Identifier: MIT */
/* io.rdmad.Pool */
#include "daemon/api/vocab.h"
#include "daemon/api/api.h"
#include "daemon/api/change.h"
#include "daemon/api/dispatch.h"
#include "daemon/api/lend.h"
#include "daemon/verbs/pool.h"
#include "daemon/core/state.h"

#include <errno.h>
#include <string.h>

#define IFACE "io.rdmad.Pool"

/*
 * Who holds a borrowed MKEY: an owner name, or the process whose connection
 * holds it.  What does not apply is left out (jq reads it as null), so the
 * text output says only what is known.
 */
static struct json_object *borrower_json(const struct rdma_mkey *mkey)
{
	enum rdma_pool_holder holder = rdma_pool_holder(mkey);
	struct json_object *o = json_object_new_object();

	json_add_uint(o, "mkey", mkey->obj.handle);
	if (holder == RDMA_POOL_HOLDER_OWNER)
		json_add_string(o, "owner", mkey->owner);
	if (holder == RDMA_POOL_HOLDER_CONNECTION) {
		const struct ucred *peer = varlink_connection_peer(mkey->borrower);

		json_add_int(o, "pid", peer->pid);
		json_add_uint(o, "uid", peer->uid);
	}
	json_add_bool(o, "draining", holder == RDMA_POOL_HOLDER_DRAINING);
	return o;
}

/* Root sees every borrower; a tenant (uid viewer) only its own programs, not others' nor owner names. */
static bool borrower_visible(const struct rdma_mkey *mkey, uid_t viewer)
{
	return viewer == 0 || (rdma_pool_holder(mkey) == RDMA_POOL_HOLDER_CONNECTION &&
			       varlink_connection_peer(mkey->borrower)->uid == viewer);
}

static struct json_object *pool_json(struct rdma_device *dev, struct rdma_object *obj, uid_t viewer)
{
	struct rdma_pool *pool = rdma_pool(obj);
	struct json_object *o = json_object_new_object();
	struct json_object *mkeys = json_object_new_array();
	struct json_object *borrowers = json_object_new_array();

	/* MKEYs whose borrower left while WRs went through them count as borrowed until those retire. */
	rdma_pool_reap(pool);
	for (uint32_t i = 0; i < pool->size; i++) {
		json_object_array_add(mkeys, json_object_new_int64(pool->mkeys[i]->obj.handle));
		if (pool->mkeys[i]->borrower && borrower_visible(pool->mkeys[i], viewer))
			json_object_array_add(borrowers, borrower_json(pool->mkeys[i]));
	}
	api_add_device(o, dev);
	json_add_uint(o, "handle", pool->obj.handle);
	json_add_string(o, "name", pool->name);
	json_add_string(o, "type", rdma_pool_type_name(pool->mkey_flags));
	json_add_uint(o, "max_entries", pool->max_entries);
	json_add_uint(o, "pd", pool->pd->handle);
	json_add_bool(o, "pd_owned", pool->own_pd);
	json_add_uint(o, "size", pool->size);
	json_add_uint(o, "available", rdma_pool_available(pool));
	json_add_uint(o, "in_use", pool->borrowed);
	json_add_uint(o, "high_water", pool->high_water);
	json_add_uint(o, "borrow_failures", pool->borrow_failures);
	json_add_uint(o, "borrows", pool->borrows);
	json_add_uint(o, "returns", pool->returns);
	json_object_object_add(o, "members", mkeys);
	json_object_object_add(o, "borrowers", borrowers);
	api_lend_add_json(o, rdma_lend_latest(&pool->allow));
	return o;
}

static struct json_object *pool_json_for(struct varlink_call *call, struct rdma_device *dev,
					 struct rdma_object *obj)
{
	return pool_json(dev, obj, varlink_call_peer(call)->uid);
}

/* The reply of root's methods (every method but List and Show is root's). */
static struct json_object *pool_reply(struct rdma_device *dev, struct rdma_pool *pool)
{
	struct json_object *reply = json_object_new_object();

	json_object_object_add(reply, "pool", pool_json(dev, &pool->obj, 0));
	return reply;
}

static int reply_pool(struct varlink_call *call, struct rdma_device *dev, struct rdma_pool *pool)
{
	return api_reply_record(call, "pool", pool_json_for(call, dev, &pool->obj));
}

/* The parameters of every pool method; each reads the fields it takes. */
struct pool_params {
	const char *name, *type, *owner;
	uint32_t size, pd, max_entries;
	bool force;
};

#define NAME_FIELD { .name = "name", .type = API_FIELD_STRING, .offset = offsetof(struct pool_params, name) }
/* A count out of range is the protocol's InvalidParameter. */
#define COUNT_FIELD(key, member, is_required) { .name = key, .type = API_FIELD_U32, \
	.offset = offsetof(struct pool_params, member), .required = is_required, .invalid_parameter = true }

static const struct api_field create_fields[] = {
	NAME_FIELD,
	{ .name = "type", .type = API_FIELD_STRING, .offset = offsetof(struct pool_params, type) },
	COUNT_FIELD("size", size, true), COUNT_FIELD("pd", pd, false),
	COUNT_FIELD("max_entries", max_entries, false),
	{ NULL },
};
static const struct api_field name_fields[] = { NAME_FIELD, { NULL } };
#define OWNER_FIELD { .name = "owner", .type = API_FIELD_STRING, .offset = offsetof(struct pool_params, owner) }
static const struct api_field borrow_fields[] = { NAME_FIELD, OWNER_FIELD, { NULL } };
static const struct api_field resize_fields[] = { NAME_FIELD, COUNT_FIELD("size", size, true), { NULL } };
static const struct api_field destroy_fields[] = {
	NAME_FIELD,
	{ .name = "force", .type = API_FIELD_BOOL, .offset = offsetof(struct pool_params, force) },
	{ NULL },
};

/* The device and the pool named by "name" (and the other fields); NULL when the call was answered. */
static struct rdma_pool *call_pool(struct varlink_call *call, struct json_object *params,
				   const struct api_field *fields, struct pool_params *p,
				   void *userdata, struct rdma_device **dev)
{
	struct rdma_error err = { 0 };
	struct rdma_pool *pool;

	*dev = api_device(call, userdata, params, IFACE);
	if (!*dev || api_dispatch(call, params, fields, p) < 0)
		return NULL;
	pool = rdma_pool_find(*dev, p->name, &err);
	if (!pool)
		api_error_string(call, IFACE ".NoSuchPool", "name", p->name);
	return pool;
}

/*
 * Every change is answered here once saved, or undone if it cannot be: a pool
 * that would not come back after a restart is not made, one that would come
 * back is not destroyed.
 */
static struct json_object *finish(struct api_change *change, int r)
{
	struct rdma_pool *pool = change->object;
	bool destroyed = pool->pending == RDMA_POOL_DESTROYING;

	if (r < 0) {
		rdma_pool_undo(change->dev, pool);
		return NULL;
	}
	rdma_pool_settle(change->dev, pool);
	return destroyed ? NULL : pool_reply(change->dev, pool);
}

static int submit(struct varlink_call *call, struct manager *m, struct rdma_device *dev,
		  struct rdma_pool *pool)
{
	return api_change_submit(call, m, &state_pools, dev, pool, finish, 0, 0);
}

static int create(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev = api_device(call, userdata, params, IFACE);
	struct pool_params p = { .max_entries = RDMA_POOL_DEFAULT_ENTRIES };
	struct rdma_error err = { 0 }, ignored;
	struct rdma_lend_policy allow = { 0 };
	struct rdma_pool *pool;
	uint32_t flags;
	int r;

	if (!dev || api_dispatch(call, params, create_fields, &p) < 0)
		return 0;
	/* The name is known to be free, or taken, once the other pool's change is saved. */
	pool = rdma_pool_find(dev, p.name, &ignored);
	if (pool && pool->pending)
		return api_change_wait(call, params, create, userdata, userdata, pool);
	flags = rdma_pool_type_flags(p.type);
	if (!flags) {
		rdma_error_invalid(&err, "type", "signature, crypto or signature+crypto");
		return api_reply_error(call, IFACE, &err);
	}
	/* Names are looked up before the MKEYs are made: a refusal then costs nothing. */
	r = api_lend_edit(params, &allow, &allow, &err);
	if (r == 0)
		r = rdma_pool_create(dev, p.name, flags, p.size, p.pd, p.max_entries, &pool, &err);
	if (r < 0)
		return api_reply_failure(call, IFACE, &err, r);
	/* It lends nothing before its creation is saved. */
	pool->allow.now = allow;
	return submit(call, userdata, dev, pool);
}

static int list(struct varlink_call *call, struct json_object *params, void *userdata)
{
	return api_list_for_caller(call, userdata, params, IFACE, RDMA_OBJ_POOL, "pools", pool_json_for);
}

static int show(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct pool_params p = { 0 };
	struct rdma_pool *pool = call_pool(call, params, name_fields, &p, userdata, &dev);

	return pool ? reply_pool(call, dev, pool) : 0;
}

static int resize(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct pool_params p = { 0 };
	struct rdma_pool *pool = call_pool(call, params, resize_fields, &p, userdata, &dev);
	struct rdma_error err = { 0 };
	int r;

	if (!pool)
		return 0;
	if (pool->pending)
		return api_change_wait(call, params, resize, userdata, userdata, pool);
	r = rdma_pool_resize(dev, pool, p.size, &err);
	if (r < 0)
		return api_reply_failure(call, IFACE, &err, r);
	/* The same size: nothing to save. */
	if (!pool->pending)
		return reply_pool(call, dev, pool);
	return submit(call, userdata, dev, pool);
}

static int destroy(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct pool_params p = { 0 };
	struct rdma_pool *pool = call_pool(call, params, destroy_fields, &p, userdata, &dev);
	struct rdma_error err = { 0 };
	int r;

	if (!pool)
		return 0;
	if (pool->pending)
		return api_change_wait(call, params, destroy, userdata, userdata, pool);
	r = rdma_pool_destroy(dev, pool, p.force, &err);
	if (r < 0)
		return api_reply_failure(call, IFACE, &err, r);
	return submit(call, userdata, dev, pool);
}

/* Who besides root may borrow: entries added (allow), taken back (disallow). */
static int modify(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct pool_params p = { 0 };
	struct rdma_pool *pool = call_pool(call, params, name_fields, &p, userdata, &dev);
	struct rdma_error err = { 0 };
	struct rdma_lend_policy allow;
	int r;

	if (!pool)
		return 0;
	if (pool->pending)
		return api_change_wait(call, params, modify, userdata, userdata, pool);
	r = api_lend_edit(params, &pool->allow.now, &allow, &err);
	if (r == 0)
		r = rdma_pool_lend(pool, &allow, &err);
	if (r < 0)
		return api_reply_failure(call, IFACE, &err, r);
	return submit(call, userdata, dev, pool);
}

static int borrow(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct pool_params p = { 0 };
	struct rdma_pool *pool = call_pool(call, params, borrow_fields, &p, userdata, &dev);
	struct rdma_lend_caller caller = api_lend_caller(call);
	struct rdma_error err = { 0 };
	struct json_object *reply;
	struct rdma_mkey *mkey;
	int r;

	if (!pool)
		return 0;
	/* A pool being created or destroyed lends once that is saved (or refused). */
	if (pool->pending == RDMA_POOL_CREATING || pool->pending == RDMA_POOL_DESTROYING)
		return api_change_wait(call, params, borrow, userdata, userdata, pool);
	r = rdma_pool_check_caller(pool, &caller, &err);
	if (r == 0)
		r = rdma_pool_borrow(pool, varlink_call_connection(call), p.owner, &mkey, &err);
	if (r < 0)
		return api_reply_failure(call, IFACE, &err, r);
	reply = json_object_new_object();
	json_add_uint(reply, "mkey", mkey->obj.handle);
	return api_reply(call, reply);
}

/* Return's handle is api_lookup's. */
static const struct api_field return_fields[] = { OWNER_FIELD, { NULL } };

static int give_back(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_object *mkey = api_lookup(call, userdata, params, IFACE, RDMA_OBJ_MKEY, &dev);
	struct rdma_error err = { 0 };
	struct pool_params p = { 0 };
	int r;

	if (!mkey || api_dispatch(call, params, return_fields, &p) < 0)
		return 0;
	r = rdma_pool_return(rdma_mkey(mkey), varlink_call_connection(call), p.owner, &err);
	if (r < 0)
		return api_reply_failure(call, IFACE, &err, r);
	return api_reply(call, NULL);
}

void api_pool_connection_closed(struct varlink_connection *conn, struct manager *m)
{
	for (unsigned i = 0; i < m->n_devices; i++)
		rdma_pool_return_all(m->devices[i], conn);
}

const struct varlink_method api_pool_methods[] = {
	{ "Create", create, VARLINK_METHOD_PRIVILEGED },
	{ "List", list, 0 },
	{ "Show", show, 0 },
	{ "Resize", resize, VARLINK_METHOD_PRIVILEGED },
	{ "Destroy", destroy, VARLINK_METHOD_PRIVILEGED },
	{ "Modify", modify, VARLINK_METHOD_PRIVILEGED },
	/* A tenant's program borrows from a pool root lent it (borrow() checks). */
	{ "Borrow", borrow, VARLINK_METHOD_PRIVILEGED | API_METHOD_OWN },
	{ "Return", give_back, VARLINK_METHOD_PRIVILEGED | API_METHOD_OWN },
	{ NULL, NULL, 0 },
};
