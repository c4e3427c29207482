/* SPDX-License-Identifier: MIT */
/* The data path's counters as JSON (DataPathCounters of io.rdmad.Qp and io.rdmad.Device). */
#pragma once

#include <json-c/json.h>

#include "daemon/soft/datapath.h"

/* What the workers counted, and what the main thread counted of SQD stops. */
struct json_object *api_dp_counters_json(struct dp_counters *c, const struct rdma_sqd_stats *sqd);
