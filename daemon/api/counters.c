/* SPDX-License-Identifier: MIT */
#include "daemon/api/counters.h"
#include "lib/json-util.h"

static uint64_t get(_Atomic uint64_t *v)
{
	return atomic_load_explicit(v, memory_order_relaxed);
}

struct json_object *api_dp_counters_json(struct rdma_dp_counters *c)
{
	struct json_object *o = json_object_new_object();
	struct json_object *wrs = json_object_new_object();
	struct json_object *wcs = json_object_new_object();

	for (unsigned i = 0; i < DP_WR_OPCODE_COUNT; i++)
		json_add_uint(wrs, dp_wr_opcode_name(i), get(&c->wrs[i]));
	for (unsigned i = 0; i < DP_WC_STATUS_COUNT; i++)
		json_add_uint(wcs, dp_wc_status_name(i), get(&c->completions[i]));
	json_object_object_add(o, "wrs", wrs);
	json_add_uint(o, "recvs", get(&c->recvs));
	json_add_uint(o, "bytes_sent", get(&c->bytes_sent));
	json_add_uint(o, "bytes_read", get(&c->bytes_read));
	json_object_object_add(o, "completions", wcs);
	json_add_uint(o, "rnr_naks", get(&c->rnr_naks));
	json_add_uint(o, "cq_overflows", get(&c->cq_overflows));
	json_add_uint(o, "lost", get(&c->lost));
	return o;
}
