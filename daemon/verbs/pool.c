/* SPDX-License-Identifier: MIT */
/* MKEY pools (reference §6.1). */
#include "daemon/verbs/pool.h"
#include "lib/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void pool_release(struct rdma_device *dev, struct rdma_object *obj)
{
	struct rdma_pool *pool = rdma_pool(obj);

	for (uint32_t i = 0; i < pool->n_mkeys; i++) {
		free(pool->mkeys[i]->owner);
		rdma_object_free(dev, &pool->mkeys[i]->obj);
	}
	free(pool->mkeys);
	pool->mkeys = NULL;
	pool->size = pool->n_mkeys = pool->lendable = 0;
	rdma_lend_release(&pool->allow);
}

const struct rdma_object_type rdma_pool_type = {
	.size = sizeof(struct rdma_pool),
	.release = pool_release,
};

const char *rdma_pool_name(const struct rdma_pool *pool)
{
	return pool->name;
}

static const struct {
	const char *name;
	uint32_t flags;
} pool_types[] = {
	{ "signature", RDMA_MKEY_BLOCK_SIGNATURE },
	{ "crypto", RDMA_MKEY_CRYPTO },
	{ "signature+crypto", RDMA_MKEY_BLOCK_SIGNATURE | RDMA_MKEY_CRYPTO },
};

const char *rdma_pool_type_name(uint32_t mkey_flags)
{
	for (size_t i = 0; i < sizeof(pool_types) / sizeof(pool_types[0]); i++)
		if (pool_types[i].flags == mkey_flags)
			return pool_types[i].name;
	return "?";
}

uint32_t rdma_pool_type_flags(const char *name)
{
	for (size_t i = 0; i < sizeof(pool_types) / sizeof(pool_types[0]); i++)
		if (strcmp(pool_types[i].name, name) == 0)
			return pool_types[i].flags;
	return 0;
}

uint32_t rdma_pool_available(const struct rdma_pool *pool)
{
	return pool->lendable - pool->borrowed;
}

static const char *pending_name(const struct rdma_pool *pool)
{
	switch (pool->pending) {
	case RDMA_POOL_CREATING:   return "being created";
	case RDMA_POOL_RESIZING:   return "being resized";
	case RDMA_POOL_DESTROYING: return "being destroyed";
	case RDMA_POOL_LENDING:    return "changing who may borrow";
	case RDMA_POOL_SETTLED:    break;
	}
	return NULL;
}

/* Refuses a change to a pool whose last change is not settled (the API waits for it instead). */
static int check_settled(const struct rdma_pool *pool, struct rdma_error *err)
{
	if (pool->pending)
		return rdma_error_state(err, "name", "pool %s is %s: its change is not saved yet",
					pool->name, pending_name(pool));
	return 0;
}

#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-"

/* 1 to max - 1 characters of allowed. */
static bool word_valid(const char *word, size_t max, const char *allowed)
{
	size_t n = strlen(word);

	return n > 0 && n < max && strspn(word, allowed) == n;
}

static bool name_valid(const char *name)
{
	return word_valid(name, RDMA_POOL_NAME_MAX, NAME_CHARS);
}

struct rdma_pool *rdma_pool_find(struct rdma_device *dev, const char *name, struct rdma_error *err)
{
	struct rdma_object *obj;

	for (uint32_t pos = 0; (obj = object_table_next(&dev->tables[RDMA_OBJ_POOL], &pos)); )
		if (strcmp(rdma_pool(obj)->name, name) == 0)
			return rdma_pool(obj);
	rdma_error_no_such(err, RDMA_OBJ_POOL, 0);
	return NULL;
}

/* Frees the MKEYs from mkeys[n] on (none of them borrowed). */
static void free_from(struct rdma_device *dev, struct rdma_pool *pool, uint32_t n)
{
	while (pool->n_mkeys > n)
		rdma_object_free(dev, &pool->mkeys[--pool->n_mkeys]->obj);
}

/* Creates MKEYs until there are n; all or none. */
static int grow_to(struct rdma_device *dev, struct rdma_pool *pool, uint32_t n,
		   struct rdma_error *err)
{
	uint32_t old = pool->n_mkeys;
	struct rdma_mkey **mkeys = realloc(pool->mkeys, n * sizeof(*mkeys));

	if (!mkeys)
		return rdma_error_system(err, -ENOMEM);
	pool->mkeys = mkeys;
	while (pool->n_mkeys < n) {
		struct rdma_mkey *mkey;
		int r = rdma_mkey_create(dev, pool->pd->handle, pool->mkey_flags, pool->max_entries,
					 &mkey, err);

		if (r < 0) {
			free_from(dev, pool, old);
			return r;
		}
		mkey->pool = pool;
		mkey->pool_name = pool->name;
		pool->mkeys[pool->n_mkeys++] = mkey;
	}
	return 0;
}

/* The pool and its MKEYs; its own PD too, unless the user put other objects on it. */
static void pool_free(struct rdma_device *dev, struct rdma_pool *pool)
{
	struct rdma_object *pd = pool->pd;
	bool own_pd = pool->own_pd;
	struct rdma_error err;

	rdma_object_free(dev, &pool->obj);
	if (own_pd && rdma_object_destroy(dev, RDMA_OBJ_PD, pd->handle, &err) < 0)
		log_info("pool's PD %u stays: it is still in use", pd->handle);
}

static void give_back(struct rdma_mkey *mkey);

/* Tells the monitor what changed in pool: an MKEY lent or taken back, a resize saved. */
static void pool_event(struct rdma_pool *pool, enum rdma_event_type type, const struct rdma_mkey *mkey)
{
	struct rdma_event ev = { .type = type, .kind = RDMA_OBJ_POOL, .handle = pool->obj.handle,
				 .name = pool->name, .available = rdma_pool_available(pool),
				 .size = pool->size, .old_size = pool->settled_size };

	if (mkey) {
		ev.mkey = mkey->obj.handle;
		ev.owner = mkey->owner;
	}
	rdma_device_post_event(pool->dev, &ev);
}

/* The borrower of MKEYs whose connection went away while posted WRs still went through them. */
#define DRAINING(pool) ((const void *)(pool))
/* The borrower of MKEYs held under an owner name (mkey->owner). */
#define OWNED(pool) ((const void *)&(pool)->name)

enum rdma_pool_holder rdma_pool_holder(const struct rdma_mkey *mkey)
{
	if (!mkey->borrower)
		return RDMA_POOL_HOLDER_NONE;
	if (mkey->borrower == DRAINING(mkey->pool))
		return RDMA_POOL_HOLDER_DRAINING;
	if (mkey->borrower == OWNED(mkey->pool))
		return RDMA_POOL_HOLDER_OWNER;
	return RDMA_POOL_HOLDER_CONNECTION;
}

void rdma_pool_reap(struct rdma_pool *pool)
{
	for (uint32_t i = 0; i < pool->size; i++)
		if (pool->mkeys[i]->borrower == DRAINING(pool) && rdma_mkey_idle(pool->dev, pool->mkeys[i]))
			give_back(pool->mkeys[i]);
}

static int size_check(struct rdma_device *dev, uint32_t size, struct rdma_error *err)
{
	if (size == 0 || size > dev->caps.max_mkeys)
		return rdma_error_invalid(err, "size", "1 to %u MKEYs", dev->caps.max_mkeys);
	return 0;
}

int rdma_pool_create(struct rdma_device *dev, const char *name, uint32_t mkey_flags, uint32_t size,
		     uint32_t pd, uint32_t max_entries, struct rdma_pool **out, struct rdma_error *err)
{
	struct rdma_error ignored;
	struct rdma_object *obj, *pd_obj;
	struct rdma_pool *pool;
	int r;

	if (!name_valid(name))
		return rdma_error_invalid(err, "name", "1 to %d letters, digits, '_', '.' or '-'",
					  RDMA_POOL_NAME_MAX - 1);
	pool = rdma_pool_find(dev, name, &ignored);
	/* Its name is free only once its destroy is saved (it comes back if that fails). */
	if (pool && pool->pending == RDMA_POOL_DESTROYING)
		return check_settled(pool, err);
	if (pool)
		return rdma_error_invalid(err, "name", "a pool named %s exists", name);
	if (!mkey_flags || (mkey_flags & ~RDMA_MKEY_FLAGS_ALL))
		return rdma_error_invalid(err, "type", "signature, crypto or signature+crypto");
	r = size_check(dev, size, err);
	if (r < 0)
		return r;
	if (!rdma_mkey_round_entries(dev, max_entries))
		return rdma_error_invalid(err, "max_entries", "1 to %u", dev->caps.max_mkey_entries);
	pd_obj = pd ? rdma_object_lookup(dev, RDMA_OBJ_PD, pd, err) : rdma_object_create(dev, RDMA_OBJ_PD, err);
	if (!pd_obj)
		return pd ? -ENOENT : -ENOSPC;
	obj = rdma_object_create(dev, RDMA_OBJ_POOL, err);
	if (!obj || rdma_object_use(obj, pd_obj) < 0) {
		if (obj) {
			rdma_object_free(dev, obj);
			rdma_error_system(err, -ENOMEM);
		}
		if (!pd)
			rdma_object_free(dev, pd_obj);
		return -ENOSPC;
	}
	pool = rdma_pool(obj);
	pool->dev = dev;
	snprintf(pool->name, sizeof(pool->name), "%s", name);
	pool->mkey_flags = mkey_flags;
	pool->max_entries = rdma_mkey_round_entries(dev, max_entries);
	pool->pd = pd_obj;
	pool->own_pd = !pd;
	r = grow_to(dev, pool, size, err);
	if (r < 0) {
		rdma_object_free(dev, obj);
		if (!pd)
			rdma_object_free(dev, pd_obj);
		return r;
	}
	pool->size = size;
	pool->pending = RDMA_POOL_CREATING;
	*out = pool;
	return 0;
}

int rdma_pool_resize(struct rdma_device *dev, struct rdma_pool *pool, uint32_t size,
		     struct rdma_error *err)
{
	uint32_t old = pool->size;
	int r = check_settled(pool, err);

	if (r == 0)
		r = size_check(dev, size, err);
	if (r < 0)
		return r;
	rdma_pool_reap(pool);
	if (size < pool->borrowed)
		return rdma_error_state(err, "size", "%u MKEYs of pool %s are borrowed", pool->borrowed,
					pool->name);
	if (size == old)
		return 0;
	if (size > old) {
		r = grow_to(dev, pool, size, err);
		if (r < 0)
			return r;
	} else {
		/* Borrowed MKEYs move to the front so the ones removed are available ones. */
		for (uint32_t i = 0, j = 0; i < old; i++)
			if (pool->mkeys[i]->borrower) {
				struct rdma_mkey *t = pool->mkeys[j];

				pool->mkeys[j++] = pool->mkeys[i];
				pool->mkeys[i] = t;
			}
	}
	pool->settled_size = old;
	pool->size = size;
	pool->lendable = size < old ? size : old;
	pool->pending = RDMA_POOL_RESIZING;
	return 0;
}

int rdma_pool_destroy(struct rdma_device *dev, struct rdma_pool *pool, bool force,
		      struct rdma_error *err)
{
	int r = check_settled(pool, err);

	if (r < 0)
		return r;
	rdma_pool_reap(pool);
	for (uint32_t i = 0; i < pool->size; i++) {
		struct rdma_mkey *mkey = pool->mkeys[i];
		struct rdma_object *user = rdma_object_find_user(dev->tables, &mkey->obj);

		if (!user)
			user = rdma_mkey_user(dev, mkey);
		if (user)
			return rdma_error_in_use(err, &mkey->obj, user);
		if (mkey->borrower && !force)
			return rdma_error_in_use(err, &pool->obj, &mkey->obj);
	}
	/* Idle, as checked: taken back now, nothing can configure them while the destroy is saved. */
	for (uint32_t i = 0; i < pool->size; i++)
		if (pool->mkeys[i]->borrower)
			give_back(pool->mkeys[i]);
	pool->lendable = 0;
	pool->pending = RDMA_POOL_DESTROYING;
	return 0;
}

void rdma_pool_settle(struct rdma_device *dev, struct rdma_pool *pool)
{
	switch (pool->pending) {
	case RDMA_POOL_DESTROYING:
		pool_free(dev, pool);
		return;
	case RDMA_POOL_CREATING:
	case RDMA_POOL_RESIZING:
		/* What a shrink removed; nothing after a create or a growth. */
		free_from(dev, pool, pool->size);
		pool->lendable = pool->size;
		if (pool->pending == RDMA_POOL_RESIZING)
			pool_event(pool, RDMA_EVENT_POOL_RESIZE, NULL);
		break;
	case RDMA_POOL_LENDING:
		rdma_lend_settle(&pool->allow);
		break;
	case RDMA_POOL_SETTLED:
		break;
	}
	pool->pending = RDMA_POOL_SETTLED;
}

void rdma_pool_undo(struct rdma_device *dev, struct rdma_pool *pool)
{
	switch (pool->pending) {
	case RDMA_POOL_CREATING:
		pool_free(dev, pool);
		return;
	case RDMA_POOL_RESIZING:
		/* What a growth added was never lent; what a shrink removed was kept. */
		free_from(dev, pool, pool->settled_size);
		pool->size = pool->settled_size;
		break;
	case RDMA_POOL_LENDING:
		rdma_lend_undo(&pool->allow);
		break;
	case RDMA_POOL_DESTROYING:
	case RDMA_POOL_SETTLED:
		break;
	}
	pool->lendable = pool->size;
	pool->pending = RDMA_POOL_SETTLED;
}

int rdma_pool_lend(struct rdma_pool *pool, const struct rdma_lend_policy *allow, struct rdma_error *err)
{
	int r = check_settled(pool, err);

	if (r < 0)
		return r;
	if (rdma_lend_change(&pool->allow, allow) < 0)
		return rdma_error_system(err, -ENOMEM);
	pool->pending = RDMA_POOL_LENDING;
	return 0;
}

int rdma_pool_check_caller(const struct rdma_pool *pool, const struct rdma_lend_caller *caller,
			   struct rdma_error *err)
{
	if (!caller || rdma_lend_allows_caller(&pool->allow.now, caller))
		return 0;
	return rdma_error_state(err, "name", "pool %s does not lend to user %u (gid %u): root allows "
				"it with rdmactl pool modify %s --allow USER|@GROUP", pool->name,
				(unsigned)caller->uid, (unsigned)caller->gid, pool->name);
}

int rdma_pool_borrow(struct rdma_pool *pool, const void *conn, const char *owner,
		     struct rdma_mkey **out, struct rdma_error *err)
{
	if (owner && !word_valid(owner, RDMA_POOL_OWNER_MAX, NAME_CHARS "@:"))
		return rdma_error_invalid(err, "owner", "1 to %d letters, digits, '_', '.', '-', '@' or ':'",
					  RDMA_POOL_OWNER_MAX - 1);
	if (pool->pending == RDMA_POOL_CREATING || pool->pending == RDMA_POOL_DESTROYING)
		return check_settled(pool, err);
	rdma_pool_reap(pool);
	for (uint32_t i = 0; i < pool->lendable; i++) {
		struct rdma_mkey *mkey = pool->mkeys[i];

		if (mkey->borrower)
			continue;
		if (owner && !(mkey->owner = strdup(owner)))
			return rdma_error_system(err, -ENOMEM);
		mkey->borrower = owner ? OWNED(pool) : conn;
		pool->borrowed++;
		pool->borrows++;
		if (pool->borrowed > pool->high_water)
			pool->high_water = pool->borrowed;
		*out = mkey;
		pool_event(pool, RDMA_EVENT_POOL_BORROW, mkey);
		return 0;
	}
	pool->borrow_failures++;
	if (pool->lendable < pool->size)
		return rdma_error_state(err, "name", "all %u MKEYs of pool %s are borrowed (the %u its "
					"resize adds are lent once it is saved)", pool->lendable,
					pool->name, pool->size - pool->lendable);
	return rdma_error_state(err, "name", "all %u MKEYs of pool %s are borrowed", pool->size,
				pool->name);
}

static void give_back(struct rdma_mkey *mkey)
{
	rdma_mkey_invalidate(mkey->pool->dev, mkey);
	mkey->borrower = NULL;
	mkey->pool->borrowed--;
	mkey->pool->returns++;
	pool_event(mkey->pool, RDMA_EVENT_POOL_RETURN, mkey);
	free(mkey->owner);
	mkey->owner = NULL;
}

int rdma_pool_return(struct rdma_mkey *mkey, const void *conn, const char *owner,
		     struct rdma_error *err)
{
	struct rdma_object *user;

	if (!mkey->pool)
		return rdma_error_invalid(err, "handle", "the MKEY is not from a pool");
	switch (rdma_pool_holder(mkey)) {
	case RDMA_POOL_HOLDER_NONE:
		return rdma_error_state(err, "handle", "the MKEY is in pool %s, not borrowed",
					mkey->pool->name);
	case RDMA_POOL_HOLDER_OWNER:
		if (!owner)
			return rdma_error_state(err, "owner", "the MKEY is held under an owner name: "
						"give it to return the MKEY");
		if (strcmp(owner, mkey->owner) != 0)
			return rdma_error_state(err, "owner", "the MKEY is held by another owner");
		break;
	case RDMA_POOL_HOLDER_CONNECTION:
	case RDMA_POOL_HOLDER_DRAINING:
		if (owner)
			return rdma_error_state(err, "owner", "the MKEY is held by a connection, not "
						"under an owner name");
		if (mkey->borrower != conn)
			return rdma_error_state(err, "handle", "the MKEY was borrowed by another client");
		break;
	}
	user = rdma_mkey_user(mkey->pool->dev, mkey);
	if (user)
		return rdma_error_in_use(err, &mkey->obj, user);
	give_back(mkey);
	return 0;
}

unsigned rdma_pool_return_all(struct rdma_device *dev, const void *conn)
{
	struct rdma_object *obj;
	unsigned n = 0;

	for (uint32_t pos = 0; (obj = object_table_next(&dev->tables[RDMA_OBJ_POOL], &pos)); ) {
		struct rdma_pool *pool = rdma_pool(obj);

		for (uint32_t i = 0; i < pool->size; i++)
			if (pool->mkeys[i]->borrower == conn) {
				if (rdma_mkey_idle(dev, pool->mkeys[i]))
					give_back(pool->mkeys[i]);
				else
					pool->mkeys[i]->borrower = DRAINING(pool);
				n++;
			}
	}
	return n;
}
