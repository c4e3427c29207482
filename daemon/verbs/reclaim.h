/* SPDX-License-Identifier: MIT */
/*
 * Reclaim: the objects of a program that went away go, whatever still names
 * them, as the kernel destroys a closed uverbs context's objects.  What
 * another connection built on them (a QP on its PD or CQ, an MR, MKEY or AH
 * in its PD, an MKEY over its MR) goes first, since it cannot outlive them;
 * a posted WR of another PD's QP that names one of its keys does not keep it
 * (keys resolve against the PD of the QP that uses them, so such a WR never
 * reaches the memory: it fails when it executes).  Only what the device
 * keeps beyond any program, a DEK or a pool (and a pool's MKEY still lent),
 * keeps an object it uses.
 */
#pragma once

#include "daemon/verbs/device.h"

/*
 * obj goes, and before it every object built on it (fn(user, data) told of
 * each first).  ObjectInUse naming the DEK, pool or pool MKEY that keeps it,
 * and nothing gone, when one does.
 */
int rdma_object_reclaim(struct rdma_device *dev, struct rdma_object *obj,
			void (*fn)(const struct rdma_object *user, void *data), void *data,
			struct rdma_error *err);

/* The kinds an owner (a program, a VM) owns, in the order they are reclaimed: users first. */
extern const enum rdma_object_kind rdma_reclaim_order[];
#define RDMA_RECLAIM_KINDS 6

/*
 * Destroys everything owner owns on dev, kind by kind in rdma_reclaim_order,
 * each with what others built on it (fn told of those, as above); counts
 * what went into reclaimed[], by the kind's place in the order.  An object
 * the device keeps (a DEK or pool uses it) stays, owned by nobody from now
 * on; kept(obj, err, data) is told of it.
 */
void rdma_owner_reclaim(struct rdma_device *dev, const void *owner,
			unsigned reclaimed[RDMA_RECLAIM_KINDS],
			void (*fn)(const struct rdma_object *user, void *data),
			void (*kept)(const struct rdma_object *obj, const struct rdma_error *err, void *data),
			void *data);
