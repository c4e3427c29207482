/* SPDX-License-Identifier: MIT */
/*
 * Tenants: the uids other than root whose programs use the devices, and what
 * each holds against the limits rdmad.conf(5) sets for it ("Tenants"):
 * objects of the kinds a program owns, and registered bytes.  What a uid
 * holds is counted from the object tables when asked (at a create, for a
 * status), so it cannot drift from what exists.
 */
#pragma once

#include <json-c/json.h>
#include <stdint.h>

#include "daemon/core/manager.h"
#include "daemon/verbs/error.h"
#include "lib/varlink/varlink.h"

/*
 * Whether call may create one more object of kind, which registers bytes
 * (an MR's length; 0 for the rest): 0, or -ENOSPC with LimitReached naming
 * the limit, its setting, the uid and what it holds.  Root's calls pass.
 */
int api_tenant_may_create(struct varlink_call *call, struct manager *m, enum rdma_object_kind kind,
			  uint64_t bytes, struct rdma_error *err);
/* Each tenant's use and limits, the caller's own alone when the caller is a tenant. */
struct json_object *api_tenants_json(struct varlink_call *call, struct manager *m);
