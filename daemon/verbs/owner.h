/* SPDX-License-Identifier: MIT */
/*
 * Who owns a device's objects, counted as owners change: what each uid's
 * programs (and VMs) hold on the device, by kind, and the bytes their MRs
 * register, so that checking a tenant's limits at each create costs the
 * same with 65,536 objects on the device as with none.  Main thread only.
 */
#pragma once

#include <stdint.h>

#include "daemon/verbs/object.h"

struct rdma_device;

/* The kinds a program owns and a tenant's limits count: PD to MKEY. */
#define RDMA_OWNED_KINDS (RDMA_OBJ_MKEY + 1)

struct rdma_uid_usage {
	uint32_t uid;
	unsigned objects[RDMA_OWNED_KINDS];
	uint64_t registered_bytes;  /* of its MRs */
};

/*
 * obj belongs to owner (an application's connection, a VM's session;
 * NULL: nobody, the device's) of uid from now on; the counts follow.
 */
void rdma_object_set_owner(struct rdma_device *dev, struct rdma_object *obj, const void *owner, uint32_t uid);
/* What uid's owned objects on dev add up to (zeros when none). */
struct rdma_uid_usage rdma_device_uid_usage(const struct rdma_device *dev, uint32_t uid);
/* obj goes: it no longer counts (rdma_object_free). */
void rdma_owner_forget(struct rdma_device *dev, const struct rdma_object *obj);
void rdma_owner_counts_free(struct rdma_device *dev);
