/* SPDX-License-Identifier: MIT */
/*
 * MKEY pools in the state directory (pools.json): per device, each pool's
 * name, type, size, MKEY entries and who it lends to (by name: the numbers are
 * looked up again at start).  Not its PD: PDs are device objects and
 * are not kept, so a restored pool gets a PD of its own (pd_owned), whether or
 * not it was created on a PD the user gave.  Counters start again from zero,
 * and nothing is borrowed after a restart (the borrowers' connections are gone).
 * A pool's pending change is saved as if it settled: a pool being destroyed is
 * left out, a pool being created or resized is saved as it is now.
 */
#include "daemon/core/manager.h"
#include "daemon/verbs/pool.h"
#include "daemon/core/state.h"
#include "daemon/core/lend_state.h"
#include "lib/json-util.h"
#include "lib/log.h"

#include <string.h>

static bool pool_kept(struct rdma_object *obj)
{
	return rdma_pool(obj)->pending != RDMA_POOL_DESTROYING;
}

static struct json_object *pool_record(struct rdma_object *obj)
{
	const struct rdma_pool *pool = rdma_pool(obj);
	struct json_object *o = json_object_new_object();

	json_add_string(o, "name", pool->name);
	json_add_string(o, "type", rdma_pool_type_name(pool->mkey_flags));
	json_add_uint(o, "size", pool->size);
	json_add_uint(o, "max_entries", pool->max_entries);
	lend_state_add(o, rdma_lend_latest(&pool->allow));
	return o;
}

static struct json_object *pools_save_device(struct manager *m, struct rdma_device *dev)
{
	return state_save_table(dev, RDMA_OBJ_POOL, pool_kept, pool_record);
}

static void pools_restore_device(struct manager *m, struct rdma_device *dev,
				 struct json_object *list)
{
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		struct json_object *rec = json_object_array_get_idx(list, i);
		const char *name = json_get_string(rec, "name");
		const char *type = json_get_string(rec, "type");
		int64_t size = json_get_int(rec, "size", 0), entries = json_get_int(rec, "max_entries", 0);
		struct rdma_error err;
		struct rdma_pool *pool;

		if (!name || !type || size <= 0 || size > UINT32_MAX || entries <= 0 || entries > UINT16_MAX) {
			log_error("%s: saved pool #%zu is not a pool record; not restored", dev->name, i);
			continue;
		}
		if (rdma_pool_create(dev, name, rdma_pool_type_flags(type), (uint32_t)size, 0,
				     (uint32_t)entries, &pool, &err) < 0) {
			log_error("%s: saved pool '%s' not restored: %s: %s", dev->name, name,
				  *err.field ? err.field : rdma_error_name(err.code), err.reason);
			continue;
		}
		lend_state_restore(rec, &pool->allow.now, dev, "pool", name);
		/* It comes from the file: nothing to wait for. */
		rdma_pool_settle(dev, pool);
		log_info("%s: pool '%s' restored: %u MKEYs on PD %u", dev->name, name, pool->size,
			 pool->pd->handle);
	}
}

const struct state_kind state_pools = {
	.name = "pools",
	.items = "pools",
	.save_device = pools_save_device,
	.restore_device = pools_restore_device,
};
