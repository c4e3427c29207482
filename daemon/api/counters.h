/* SPDX-License-Identifier: MIT */
/* The data path's counters as JSON (DataPathCounters of io.rdmad.Qp and io.rdmad.Device). */
#pragma once

#include <json-c/json.h>

#include "daemon/datapath.h"

struct json_object *api_dp_counters_json(struct rdma_dp_counters *c);
