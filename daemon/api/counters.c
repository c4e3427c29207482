/* SPDX-License-Identifier: MIT */
#include "daemon/api/counters.h"
#include "daemon/api/vocab.h"
#include "lib/json-util.h"

static uint64_t get(_Atomic uint64_t *v)
{
	return atomic_load_explicit(v, memory_order_relaxed);
}

static struct json_object *roce_json(struct dp_roce_counters *c)
{
	struct json_object *o = json_object_new_object();

	json_add_uint(o, "tx_packets", get(&c->tx_packets));
	json_add_uint(o, "rx_packets", get(&c->rx_packets));
	json_add_uint(o, "retransmits", get(&c->retransmits));
	json_add_uint(o, "timeouts", get(&c->timeouts));
	json_add_uint(o, "naks_sent", get(&c->naks_sent));
	json_add_uint(o, "naks_received", get(&c->naks_received));
	json_add_uint(o, "rnr_naks_sent", get(&c->rnr_naks_sent));
	json_add_uint(o, "duplicates", get(&c->duplicates));
	json_add_uint(o, "out_of_sequence", get(&c->out_of_sequence));
	json_add_uint(o, "kept", get(&c->kept));
	json_add_uint(o, "go_backs", get(&c->go_backs));
	json_add_uint(o, "icrc_errors", get(&c->icrc_errors));
	json_add_uint(o, "icrc_other_id", get(&c->icrc_other_id));
	json_add_uint(o, "rx_dropped", get(&c->rx_dropped));
	json_add_uint(o, "faults", get(&c->faults));
	json_add_uint(o, "tx_errors", get(&c->tx_errors));
	return o;
}

struct json_object *api_dp_counters_json(struct dp_counters *c, const struct rdma_sqd_stats *sqd)
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
	json_add_uint(o, "refused_not_peer", get(&c->refused_not_peer));
	uint64_t sig[DP_SIG_ERR_APPTAG + 1];

	for (unsigned t = 0; t <= DP_SIG_ERR_APPTAG; t++)
		sig[t] = get(&c->sig_errors[t]);
	json_object_object_add(o, "sig_errors", api_sig_errors_json(sig));
	json_add_uint(o, "sig_stops", get(&c->sig_stops));
	json_add_uint(o, "sqd_entries", sqd->sqd_entries);
	json_add_uint(o, "recoveries", sqd->recoveries);
	json_add_uint(o, "wrs_canceled", sqd->wrs_canceled);
	json_add_uint(o, "nops", get(&c->nops));
	json_object_object_add(o, "roce", roce_json(&c->roce));
	return o;
}
