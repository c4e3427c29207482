/* SPDX-License-Identifier: MIT */
#include "daemon/verbs/device.h"
#include "daemon/verbs/crypto_login.h"
#include "daemon/verbs/gid.h"
#include "daemon/verbs/mkey.h"
#include "daemon/verbs/mr_map.h"
#include "daemon/verbs/owner.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Filled in by each object kind's file. */
extern const struct rdma_object_type rdma_pd_type;
extern const struct rdma_object_type rdma_qp_type;
extern const struct rdma_object_type rdma_mr_type;
extern const struct rdma_object_type rdma_cq_type;
extern const struct rdma_object_type rdma_ah_type;
extern const struct rdma_object_type rdma_mkey_type;
extern const struct rdma_object_type rdma_pool_type;
extern const struct rdma_object_type rdma_dek_type;

static const struct rdma_object_type *const object_types[RDMA_OBJ_KIND_COUNT] = {
	[RDMA_OBJ_PD] = &rdma_pd_type,
	[RDMA_OBJ_QP] = &rdma_qp_type,
	[RDMA_OBJ_MR] = &rdma_mr_type,
	[RDMA_OBJ_CQ] = &rdma_cq_type,
	[RDMA_OBJ_AH] = &rdma_ah_type,
	[RDMA_OBJ_MKEY] = &rdma_mkey_type,
	[RDMA_OBJ_POOL] = &rdma_pool_type,
	[RDMA_OBJ_DEK] = &rdma_dek_type,
};

unsigned rdma_block_size_bytes(enum rdma_block_size size)
{
	static const unsigned bytes[RDMA_BLOCK_SIZE_COUNT] = { 512, 520, 4048, 4096, 4160 };

	return size < RDMA_BLOCK_SIZE_COUNT ? bytes[size] : 0;
}

const char *rdma_port_state_name(enum rdma_port_state state)
{
	switch (state) {
	case RDMA_PORT_DOWN:   return "DOWN";
	case RDMA_PORT_INIT:   return "INIT";
	case RDMA_PORT_ARMED:  return "ARMED";
	case RDMA_PORT_ACTIVE: return "ACTIVE";
	}
	return "UNKNOWN";
}

const char *rdma_port_phys_state_name(enum rdma_port_phys_state state)
{
	switch (state) {
	case RDMA_PHYS_POLLING:  return "POLLING";
	case RDMA_PHYS_DISABLED: return "DISABLED";
	case RDMA_PHYS_LINK_UP:  return "LINK_UP";
	}
	return "UNKNOWN";
}

uint32_t rdma_device_limit(const struct rdma_device *dev, enum rdma_object_kind kind)
{
	switch (kind) {
	case RDMA_OBJ_PD:   return dev->attr.max_pd;
	case RDMA_OBJ_MR:   return dev->attr.max_mr;
	case RDMA_OBJ_CQ:   return dev->attr.max_cq;
	case RDMA_OBJ_QP:   return dev->attr.max_qp;
	case RDMA_OBJ_AH:   return dev->attr.max_ah;
	case RDMA_OBJ_MKEY: return dev->caps.max_mkeys;
	case RDMA_OBJ_DEK:  return 1u << dev->caps.log_max_num_deks;
	case RDMA_OBJ_POOL: return 64;
	case RDMA_OBJ_GID:  return 0;   /* entries live in the ports' GID tables */
	case RDMA_OBJ_VNIC:
	case RDMA_OBJ_FABRIC: return 0; /* daemon/vnic/ keeps them */
	case RDMA_OBJ_KIND_COUNT: break;
	}
	return 0;
}

int rdma_device_lower_limit(struct rdma_device *dev, enum rdma_object_kind kind, uint32_t limit)
{
	uint32_t *field;

	switch (kind) {
	case RDMA_OBJ_PD:   field = &dev->attr.max_pd; break;
	case RDMA_OBJ_MR:   field = &dev->attr.max_mr; break;
	case RDMA_OBJ_CQ:   field = &dev->attr.max_cq; break;
	case RDMA_OBJ_QP:   field = &dev->attr.max_qp; break;
	case RDMA_OBJ_AH:   field = &dev->attr.max_ah; break;
	case RDMA_OBJ_MKEY: field = &dev->caps.max_mkeys; break;
	default:            return -EINVAL;
	}
	if (!limit || limit > *field)
		return -ERANGE;
	if (dev->tables[kind].count || dev->datapath)
		return -EBUSY;
	*field = limit;
	dev->tables[kind].limit = limit;
	return 0;
}

int rdma_device_init_tables(struct rdma_device *dev)
{
	for (int k = 0; k < RDMA_OBJ_KIND_COUNT; k++)
		object_table_init(&dev->tables[k], rdma_device_limit(dev, k),
				  k == RDMA_OBJ_MR || k == RDMA_OBJ_MKEY);
	/* MR keys have indexes below 2^23, MKEY keys from 2^23 on: one key names one object. */
	object_table_set_key_base(&dev->tables[RDMA_OBJ_MR], 0, RDMA_MKEY_KEY_BASE);
	object_table_set_key_base(&dev->tables[RDMA_OBJ_MKEY], RDMA_MKEY_KEY_BASE, RDMA_MKEY_KEY_BASE);
	for (int k = 0; k < RDMA_OBJ_KIND_COUNT; k++)
		if (object_types[k])
			object_table_reserve_below(&dev->tables[k], object_types[k]->first_handle);
	return rdma_gid_tables_init(dev);
}

/* handle 0: the table's next one. */
static void post_object_event(struct rdma_device *dev, enum rdma_event_type type,
			      const struct rdma_object *obj)
{
	struct rdma_event ev = {
		.type = type, .kind = obj->kind, .handle = obj->handle, .owner_uid = obj->owner_uid,
	};

	rdma_device_post_event(dev, &ev);
}

static struct rdma_object *object_create(struct rdma_device *dev, enum rdma_object_kind kind,
					 uint32_t handle, struct rdma_error *err)
{
	const struct rdma_object_type *type = object_types[kind];
	struct object_table *t = &dev->tables[kind];
	struct rdma_object *obj;
	int r;

	obj = calloc(1, type ? type->size : sizeof(*obj));
	if (!obj) {
		rdma_error_system(err, -ENOMEM);
		return NULL;
	}
	obj->kind = kind;
	r = handle ? object_table_add_at(t, obj, handle) : object_table_add(t, obj);
	if (r < 0) {
		free(obj);
		if (r == -EEXIST || r == -ERANGE)
			rdma_error_invalid(err, "handle", "%s %u %s", rdma_object_kind_name(kind), handle,
					   r == -EEXIST ? "exists already" : "is out of the table's range");
		else
			rdma_error_limit(err, kind, t->limit);
		return NULL;
	}
	post_object_event(dev, RDMA_EVENT_OBJECT_CREATED, obj);
	return obj;
}

struct rdma_object *rdma_object_create(struct rdma_device *dev, enum rdma_object_kind kind,
				       struct rdma_error *err)
{
	return object_create(dev, kind, 0, err);
}

struct rdma_object *rdma_object_create_at(struct rdma_device *dev, enum rdma_object_kind kind,
					  uint32_t handle, struct rdma_error *err)
{
	if (!handle)
		return rdma_error_invalid(err, "handle", "0 is no handle"), NULL;
	return object_create(dev, kind, handle, err);
}

struct rdma_object *rdma_object_lookup(struct rdma_device *dev, enum rdma_object_kind kind,
				       uint32_t handle, struct rdma_error *err)
{
	struct rdma_object *obj = object_table_find(&dev->tables[kind], handle);

	if (!obj)
		rdma_error_no_such(err, kind, handle);
	return obj;
}

unsigned rdma_object_count_users(struct rdma_device *dev, const struct rdma_object *target,
				 enum rdma_object_kind kind)
{
	struct rdma_object *obj;
	unsigned n = 0;

	for (uint32_t pos = 0; target->users && (obj = object_table_next(&dev->tables[kind], &pos)); )
		for (unsigned i = 0; i < obj->n_refs; i++)
			n += obj->refs[i] == target;
	return n;
}

void rdma_object_free(struct rdma_device *dev, struct rdma_object *obj)
{
	const struct rdma_object_type *type = object_types[obj->kind];

	if (type && type->release)
		type->release(dev, obj);
	rdma_object_unuse_all(obj);
	object_table_remove(&dev->tables[obj->kind], obj);
	rdma_owner_forget(dev, obj);
	post_object_event(dev, RDMA_EVENT_OBJECT_DESTROYED, obj);
	free(obj);
}

int rdma_object_destroy(struct rdma_device *dev, enum rdma_object_kind kind, uint32_t handle,
			struct rdma_error *err)
{
	struct rdma_object *obj = rdma_object_lookup(dev, kind, handle, err);
	struct rdma_object *user;

	if (!obj)
		return -ENOENT;
	user = rdma_object_find_user(dev->tables, obj);
	if (!user && object_types[kind]->busy_user)
		user = object_types[kind]->busy_user(dev, obj);
	if (user)
		return rdma_error_in_use(err, obj, user);
	rdma_object_free(dev, obj);
	return 0;
}

struct rdma_device *rdma_device_find(struct rdma_device *const *devices, unsigned n, const char *name)
{
	for (unsigned i = 0; i < n; i++)
		if (strcmp(devices[i]->name, name) == 0)
			return devices[i];
	return NULL;
}

void rdma_device_free(struct rdma_device *dev)
{
	if (!dev)
		return;
	/* Nobody listens any more while the device goes. */
	memset(dev->event_sinks, 0, sizeof(dev->event_sinks));
	/* Users first: an object goes before what it references. */
	for (int pass = 0; pass < RDMA_OBJ_KIND_COUNT + 1; pass++)
		for (int k = RDMA_OBJ_KIND_COUNT - 1; k >= 0; k--) {
			struct rdma_object *obj;

			for (uint32_t pos = 0; (obj = object_table_next(&dev->tables[k], &pos)); )
				if (!obj->users)
					rdma_object_free(dev, obj);
		}
	for (int k = 0; k < RDMA_OBJ_KIND_COUNT; k++)
		object_table_release(&dev->tables[k]);
	rdma_owner_counts_free(dev);
	/* After the MRs, which held the mappings. */
	rdma_mr_maps_free(dev);
	/* After the objects: AHs and QPs held references to GID entries. */
	rdma_gid_tables_free(dev);
	rdma_crypto_login_free(dev);
	if (dev->ops && dev->ops->destroy)
		dev->ops->destroy(dev);
}
