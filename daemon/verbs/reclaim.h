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
