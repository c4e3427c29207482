/* SPDX-License-Identifier: MIT */
#include "daemon/verbs/reclaim.h"
#include "daemon/verbs/mkey.h"
#include "daemon/verbs/mr.h"
#include "daemon/verbs/owner.h"
#include "daemon/verbs/pool.h"
#include "daemon/verbs/qp.h"

/* What the device keeps beyond any program. */
static bool device_state(const struct rdma_object *obj)
{
	return obj->kind == RDMA_OBJ_DEK || obj->kind == RDMA_OBJ_POOL ||
	       (obj->kind == RDMA_OBJ_MKEY && rdma_mkey((struct rdma_object *)obj)->pool);
}

static bool uses(const struct rdma_object *user, const struct rdma_object *target)
{
	for (unsigned i = 0; i < user->n_refs; i++)
		if (user->refs[i] == target)
			return true;
	return false;
}

/* The device's object that keeps obj, using it or something built on it; NULL when none does. */
static struct rdma_object *keeper(struct rdma_device *dev, const struct rdma_object *obj)
{
	for (int k = 0; obj->users && k < RDMA_OBJ_KIND_COUNT; k++) {
		struct rdma_object *user, *kept;

		for (uint32_t pos = 0; (user = object_table_next(&dev->tables[k], &pos)); ) {
			if (!uses(user, obj))
				continue;
			if (device_state(user))
				return user;
			if ((kept = keeper(dev, user)))
				return kept;
		}
	}
	return NULL;
}

/* The PD of an MR or MKEY: its QPs are the ones whose WRs may reach the memory. */
static const struct rdma_object *memory_pd(struct rdma_object *obj)
{
	if (obj->kind == RDMA_OBJ_MR)
		return rdma_mr(obj)->pd;
	if (obj->kind == RDMA_OBJ_MKEY)
		return rdma_mkey(obj)->pd;
	return NULL;
}

static void reclaim(struct rdma_device *dev, struct rdma_object *obj,
		    void (*fn)(const struct rdma_object *user, void *data), void *data)
{
	const struct rdma_object *pd = memory_pd(obj);
	struct rdma_object *user;

	while ((user = rdma_object_find_user(dev->tables, obj))) {
		fn(user, data);
		reclaim(dev, user, fn, data);
	}
	/*
	 * An MR's or MKEY's memory: once no QP of its PD runs (their requests
	 * in flight answered, dp_qp_release), no worker reaches it.
	 */
	for (uint32_t pos = 0; pd && (user = object_table_next(&dev->tables[RDMA_OBJ_QP], &pos)); )
		if (rdma_qp(user)->pd == pd) {
			fn(user, data);
			reclaim(dev, user, fn, data);
		}
	rdma_object_free(dev, obj);
}

int rdma_object_reclaim(struct rdma_device *dev, struct rdma_object *obj,
			void (*fn)(const struct rdma_object *user, void *data), void *data,
			struct rdma_error *err)
{
	struct rdma_object *pool, *kept;

	/* Pool MKEYs that drained since their borrower left go back first: they keep nothing then. */
	for (uint32_t pos = 0; (pool = object_table_next(&dev->tables[RDMA_OBJ_POOL], &pos)); )
		rdma_pool_reap((struct rdma_pool *)pool);
	kept = keeper(dev, obj);
	if (kept)
		return rdma_error_in_use(err, obj, kept);
	reclaim(dev, obj, fn, data);
	return 0;
}

const enum rdma_object_kind rdma_reclaim_order[RDMA_RECLAIM_KINDS] = {
	RDMA_OBJ_QP, RDMA_OBJ_AH, RDMA_OBJ_MKEY, RDMA_OBJ_MR, RDMA_OBJ_CQ, RDMA_OBJ_PD,
};

void rdma_owner_reclaim(struct rdma_device *dev, const void *owner,
			unsigned reclaimed[RDMA_RECLAIM_KINDS],
			void (*fn)(const struct rdma_object *user, void *data),
			void (*kept)(const struct rdma_object *obj, const struct rdma_error *err, void *data),
			void *data)
{
	for (size_t i = 0; i < RDMA_RECLAIM_KINDS; i++) {
		struct object_table *t = &dev->tables[rdma_reclaim_order[i]];
		struct rdma_object *obj;

		for (uint32_t pos = 0; (obj = object_table_next(t, &pos)); ) {
			struct rdma_error err = { 0 };

			if (obj->owner != owner)
				continue;
			if (rdma_object_reclaim(dev, obj, fn, data, &err) == 0) {
				reclaimed[i]++;
				continue;
			}
			if (kept)
				kept(obj, &err, data);
			rdma_object_set_owner(dev, obj, NULL, 0);
		}
	}
}
