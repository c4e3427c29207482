/* SPDX-License-Identifier: MIT */
#include "daemon/verbs/owner.h"
#include "daemon/verbs/device.h"
#include "lib/log.h"

#include <stdlib.h>

/* uid's entry, made when add (a device has a handful of tenants: a short array); NULL when none. */
static struct rdma_uid_usage *usage_of(struct rdma_device *dev, uint32_t uid, bool add)
{
	struct rdma_uid_usage *u;

	for (unsigned i = 0; i < dev->n_uid_usage; i++)
		if (dev->uid_usage[i].uid == uid)
			return &dev->uid_usage[i];
	if (!add)
		return NULL;
	u = realloc(dev->uid_usage, (dev->n_uid_usage + 1) * sizeof(*u));
	if (!u)
		return NULL;
	dev->uid_usage = u;
	u = &dev->uid_usage[dev->n_uid_usage++];
	*u = (struct rdma_uid_usage){ .uid = uid };
	return u;
}

/* One more (sign 1) or one less (-1) owned object of obj's kind for its uid. */
static void count(struct rdma_device *dev, const struct rdma_object *obj, int sign)
{
	struct rdma_uid_usage *u;

	if (!obj->owner || obj->kind >= RDMA_OWNED_KINDS)
		return;
	u = usage_of(dev, obj->owner_uid, sign > 0);
	if (!u) {
		/* Out of memory for a new tenant's entry: its limits see fewer objects than it has. */
		log_error("%s: cannot count uid %u's objects", dev->name, obj->owner_uid);
		return;
	}
	u->objects[obj->kind] += (unsigned)sign;
	u->registered_bytes += sign > 0 ? obj->registered_bytes : -obj->registered_bytes;
}

void rdma_object_set_owner(struct rdma_device *dev, struct rdma_object *obj, const void *owner, uint32_t uid)
{
	count(dev, obj, -1);
	obj->owner = owner;
	obj->owner_uid = uid;
	count(dev, obj, 1);
}

void rdma_owner_forget(struct rdma_device *dev, const struct rdma_object *obj)
{
	count(dev, obj, -1);
}

struct rdma_uid_usage rdma_device_uid_usage(const struct rdma_device *dev, uint32_t uid)
{
	for (unsigned i = 0; i < dev->n_uid_usage; i++)
		if (dev->uid_usage[i].uid == uid)
			return dev->uid_usage[i];
	return (struct rdma_uid_usage){ .uid = uid };
}

void rdma_owner_counts_free(struct rdma_device *dev)
{
	free(dev->uid_usage);
	dev->uid_usage = NULL;
	dev->n_uid_usage = 0;
}
