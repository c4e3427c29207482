/* SPDX-License-Identifier: MIT */
/*
 * Device objects: one table per kind, handles that are not reused while an
 * object holds them, and references between objects (an MR's PD, a QP's CQs)
 * kept so that destroying an object in use is refused with the name of a user.
 * Main thread only; the data path reaches objects through the worker that owns them.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum rdma_object_kind {
	RDMA_OBJ_PD,
	RDMA_OBJ_MR,
	RDMA_OBJ_CQ,
	RDMA_OBJ_QP,
	RDMA_OBJ_AH,
	RDMA_OBJ_MKEY,
	RDMA_OBJ_DEK,
	RDMA_OBJ_POOL,
	/*
	 * GID table entries: not kept in a table (their index is the user's
	 * choice, see daemon/verbs/gid.h), objects only so that AHs and QPs can
	 * reference them and a delete is refused naming the user.
	 */
	RDMA_OBJ_GID,
	/*
	 * Omni-Path VNIC ports (handle: the Ethernet Manager's index) and the
	 * OPA port they hang off (handle 1): not in tables either, as the
	 * manager creates them through MADs (daemon/vnic/); kinds so that
	 * events and errors name them.
	 */
	RDMA_OBJ_VNIC,
	RDMA_OBJ_FABRIC,
	RDMA_OBJ_KIND_COUNT,
};

struct rdma_object {
	enum rdma_object_kind kind;
	uint32_t handle;          /* PD/CQ/QP/AH/DEK/pool number, MR/MKEY key, GID index */
	unsigned users;           /* objects whose refs[] name this one */
	struct rdma_object **refs;  /* the objects this one uses (an MKEY's layout may name many MRs) */
	unsigned n_refs, cap_refs;
	/*
	 * The application that created it (an attached varlink connection,
	 * opaque here, see daemon/api/application.h), reclaimed when that goes
	 * away; NULL: the object outlives its creator's connection.
	 */
	const void *owner;
	/* The owner's uid (0 with no owner: root's); a tenant sees only its own uid's objects. */
	uint32_t owner_uid;
	/* The memory it registers (an MR's length; 0 for other kinds), which its owner's
	 * registered bytes count (owner.c). */
	uint64_t registered_bytes;
};

/*
 * A table of one kind.  Handles come from a cursor that moves on, so a freed
 * handle is not handed out again soon; keyed kinds (MR, MKEY) put an 8-bit tag
 * that changes with every reuse of a slot below the index, as keys are made on
 * hardware (index << 8 | tag).
 */
struct object_table {
	struct rdma_object **slots;
	uint8_t *tags;
	uint32_t cap;             /* slots allocated */
	uint32_t limit;           /* most objects at once */
	uint32_t count;
	uint32_t cursor;
	uint32_t first;           /* lowest slot handed out (0 always means "none") */
	bool keyed;
	uint32_t key_base;        /* keyed: added to the slot to make the key's index */
};

int object_table_init(struct object_table *t, uint32_t limit, bool keyed);
void object_table_release(struct object_table *t);
/*
 * Keyed tables whose keys share one space (MRs and MKEYs are both mkeys on
 * hardware): the index of a key is key_base + slot, and slots stop below
 * the next table's base.
 */
void object_table_set_key_base(struct object_table *t, uint32_t key_base, uint32_t span);
/* Slots below first are never handed out (QP numbers 0 and 1 are the special QPs). */
void object_table_reserve_below(struct object_table *t, uint32_t first);
/* -ENOSPC at the limit. */
int object_table_add(struct object_table *t, struct rdma_object *obj);
/*
 * Adds obj with the given handle (an object put back from saved state):
 * -ENOSPC at the limit, -ERANGE for a handle the table cannot have, -EEXIST
 * when it is taken.  Later handles are handed out after it.
 */
int object_table_add_at(struct object_table *t, struct rdma_object *obj, uint32_t handle);
void object_table_remove(struct object_table *t, struct rdma_object *obj);
struct rdma_object *object_table_find(const struct object_table *t, uint32_t handle);
/*
 * Iteration: for (uint32_t i = 0; (obj = object_table_next(t, &i)); ), in
 * the order of handles (a keyed table's: of the keys' indexes).
 */
struct rdma_object *object_table_next(const struct object_table *t, uint32_t *pos);
/* Where an iteration that goes on after handle starts (whether or not an object has it). */
uint32_t object_table_pos_after(const struct object_table *t, uint32_t handle);

/* One object of a device's tables (one per kind) whose references include target, or NULL. */
struct rdma_object *rdma_object_find_user(const struct object_table tables[RDMA_OBJ_KIND_COUNT],
					  const struct rdma_object *target);

/* obj now uses target: target cannot be destroyed before obj lets go.  -ENOMEM. */
int rdma_object_use(struct rdma_object *obj, struct rdma_object *target);
void rdma_object_unuse_all(struct rdma_object *obj);

const char *rdma_object_kind_name(enum rdma_object_kind kind);
