/* SPDX-License-Identifier: MIT */
/* The kernel levels' self-test results as JSON, for rdmactl offload levels and the Device record. */
#pragma once

#include <json-c/json.h>

/* [{"kernel": "portable", "result": "passed"}, ..., {"kernel": "vpclmul512", "result": "not run:
 * CPU lacks avx512f"}]: every level, dp_kern_level_selftest() of each. */
struct json_object *dp_kern_selftest_json(void);
