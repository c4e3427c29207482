/* SPDX-License-Identifier: MIT */
#include "daemon/verbs/object.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define KEY_INDEX_MAX (1u << 24)

int object_table_init(struct object_table *t, uint32_t limit, bool keyed)
{
	memset(t, 0, sizeof(*t));
	if (keyed && limit >= KEY_INDEX_MAX)
		limit = KEY_INDEX_MAX - 1;
	t->limit = limit;
	t->keyed = keyed;
	t->first = 1;
	return 0;
}

void object_table_set_key_base(struct object_table *t, uint32_t key_base, uint32_t span)
{
	t->key_base = key_base;
	if (t->limit >= span)
		t->limit = span - 1;
}

void object_table_reserve_below(struct object_table *t, uint32_t first)
{
	if (first > t->first)
		t->first = first;
}

void object_table_release(struct object_table *t)
{
	free(t->slots);
	free(t->tags);
	memset(t, 0, sizeof(*t));
}

/* Slots below first are never used: handle 0 means "none" on the wire. */
static int grow(struct object_table *t)
{
	uint32_t cap = t->cap ? t->cap * 2 : 64;
	struct rdma_object **slots;
	uint8_t *tags;

	if (cap > t->limit + t->first)
		cap = t->limit + t->first;
	if (cap <= t->cap)
		return -ENOSPC;
	slots = realloc(t->slots, cap * sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	t->slots = slots;
	tags = realloc(t->tags, cap);
	if (!tags)
		return -ENOMEM;
	t->tags = tags;
	memset(t->slots + t->cap, 0, (cap - t->cap) * sizeof(*slots));
	memset(t->tags + t->cap, 0, cap - t->cap);
	t->cap = cap;
	return 0;
}

int object_table_add(struct object_table *t, struct rdma_object *obj)
{
	uint32_t slot = 0;

	if (t->count >= t->limit)
		return -ENOSPC;
	/* Use fresh slots before recycling old ones, so handles are not reused soon. */
	if ((t->cursor + 1 >= t->cap || t->count + t->first >= t->cap) &&
	    t->cap < t->limit + t->first) {
		int r = grow(t);

		if (r < 0)
			return r;
	}
	for (uint32_t i = 0; i < t->cap && !slot; i++) {
		uint32_t s = (t->cursor + 1 + i) % t->cap;

		if (s >= t->first && !t->slots[s])
			slot = s;
	}
	if (!slot)
		return -ENOSPC;
	t->cursor = slot;
	t->slots[slot] = obj;
	t->count++;
	if (t->keyed) {
		t->tags[slot]++;
		obj->handle = (t->key_base + slot) << 8 | t->tags[slot];
	} else {
		obj->handle = slot;
	}
	return 0;
}

static uint32_t slot_of(const struct object_table *t, uint32_t handle)
{
	/* A key below the base wraps to a slot no table has. */
	return t->keyed ? (handle >> 8) - t->key_base : handle;
}

int object_table_add_at(struct object_table *t, struct rdma_object *obj, uint32_t handle)
{
	uint32_t slot = slot_of(t, handle);

	if (t->count >= t->limit)
		return -ENOSPC;
	if (slot < t->first || slot >= t->limit + t->first)
		return -ERANGE;
	while (slot >= t->cap) {
		int r = grow(t);

		if (r < 0)
			return r;
	}
	if (t->slots[slot])
		return -EEXIST;
	t->slots[slot] = obj;
	t->count++;
	if (t->keyed)
		t->tags[slot] = handle & 0xff;
	obj->handle = handle;
	/* New handles continue after the ones put back. */
	if (slot > t->cursor)
		t->cursor = slot;
	return 0;
}

void object_table_remove(struct object_table *t, struct rdma_object *obj)
{
	uint32_t slot = slot_of(t, obj->handle);

	if (slot < t->cap && t->slots[slot] == obj) {
		t->slots[slot] = NULL;
		t->count--;
	}
}

struct rdma_object *object_table_find(const struct object_table *t, uint32_t handle)
{
	uint32_t slot = slot_of(t, handle);
	struct rdma_object *obj;

	if (slot < t->first || slot >= t->cap)
		return NULL;
	obj = t->slots[slot];
	/* A stale key (old tag) finds nothing, as on hardware. */
	return obj && obj->handle == handle ? obj : NULL;
}

uint32_t object_table_pos_after(const struct object_table *t, uint32_t handle)
{
	uint32_t slot;

	if (!handle || (t->keyed && (handle >> 8) < t->key_base))
		return 0;
	slot = slot_of(t, handle);
	return slot < t->cap ? slot : t->cap;
}

struct rdma_object *object_table_next(const struct object_table *t, uint32_t *pos)
{
	while (++*pos < t->cap)
		if (t->slots[*pos])
			return t->slots[*pos];
	return NULL;
}

int rdma_object_use(struct rdma_object *obj, struct rdma_object *target)
{
	if (!target)
		return 0;
	if (obj->n_refs == obj->cap_refs) {
		unsigned cap = obj->cap_refs ? obj->cap_refs * 2 : 4;
		struct rdma_object **refs = realloc(obj->refs, cap * sizeof(*refs));

		if (!refs)
			return -ENOMEM;
		obj->refs = refs;
		obj->cap_refs = cap;
	}
	obj->refs[obj->n_refs++] = target;
	target->users++;
	return 0;
}

void rdma_object_unuse_all(struct rdma_object *obj)
{
	for (unsigned i = 0; i < obj->n_refs; i++)
		obj->refs[i]->users--;
	free(obj->refs);
	obj->refs = NULL;
	obj->n_refs = obj->cap_refs = 0;
}

const char *rdma_object_kind_name(enum rdma_object_kind kind)
{
	static const char *const names[RDMA_OBJ_KIND_COUNT] = {
		[RDMA_OBJ_PD] = "pd", [RDMA_OBJ_MR] = "mr", [RDMA_OBJ_CQ] = "cq",
		[RDMA_OBJ_QP] = "qp", [RDMA_OBJ_AH] = "ah", [RDMA_OBJ_MKEY] = "mkey",
		[RDMA_OBJ_DEK] = "dek", [RDMA_OBJ_POOL] = "pool", [RDMA_OBJ_GID] = "gid",
		[RDMA_OBJ_VNIC] = "vnic", [RDMA_OBJ_FABRIC] = "fabric",
	};

	return kind < RDMA_OBJ_KIND_COUNT ? names[kind] : "?";
}

struct rdma_object *rdma_object_find_user(const struct object_table tables[RDMA_OBJ_KIND_COUNT],
					  const struct rdma_object *target)
{
	if (!target->users)
		return NULL;
	for (int k = 0; k < RDMA_OBJ_KIND_COUNT; k++) {
		struct rdma_object *obj;

		for (uint32_t pos = 0; (obj = object_table_next(&tables[k], &pos)); )
			for (unsigned i = 0; i < obj->n_refs; i++)
				if (obj->refs[i] == target)
					return obj;
	}
	return NULL;
}
