/* SPDX-License-Identifier: MIT */
/*
 * The varlink side of lending DEKs and pools (daemon/verbs/lend.h): who
 * calls, the "allow" and "disallow" parameters, the "allow" and
 * "allow_unresolved" members of a record.
 */
#pragma once

#include "daemon/verbs/lend.h"
#include "lib/json-util.h"
#include "lib/varlink/varlink.h"

/* The caller's credentials, valid while the call is. */
struct rdma_lend_caller api_lend_caller(const struct varlink_call *call);
/*
 * base edited by the call's "allow" (entries added) and "disallow" (entries
 * taken back) into *out, names looked up; InvalidArgument naming the
 * parameter otherwise.
 */
int api_lend_edit(struct json_object *params, const struct rdma_lend_policy *base,
		  struct rdma_lend_policy *out, struct rdma_error *err);
/* "allow": the entries as typed; "allow_unresolved": those that let nobody in now. */
void api_lend_add_json(struct json_object *record, const struct rdma_lend_policy *p);
