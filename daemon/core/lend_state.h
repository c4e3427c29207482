/* SPDX-License-Identifier: MIT */
/* A DEK's or pool's allow list in its state file: the names, looked up again when read. */
#pragma once

#include "daemon/verbs/device.h"
#include "daemon/verbs/lend.h"
#include "lib/json-util.h"

/* "allow": the entries as typed. */
void lend_state_add(struct json_object *record, const struct rdma_lend_policy *p);
/* The record's "allow" (absent: root only), its names looked up; what is wrong is logged. */
void lend_state_restore(struct json_object *record, struct rdma_lend_policy *p,
			const struct rdma_device *dev, const char *kind, const char *name);
/* Every DEK's and pool's names looked up again (reload). */
void lend_state_resolve(struct rdma_device *dev);
