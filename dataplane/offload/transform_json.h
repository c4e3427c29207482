/* SPDX-License-Identifier: MIT */
/*
 * The transform configuration as JSON (issue 3 §4).
 *
 * The one place in dataplane that knows JSON: the MKEY configure varlink method and the
 * offline `rdmactl offload` command take the same object:
 *
 *   {"mem":  DOMAIN or null, "wire": DOMAIN or null,
 *    "check_mask": 0-255 (default 255), "copy_mask": 0-255 (absent or null = automatic),
 *    "crypto": {"standard": "aes_xts", "encrypt_on_tx": true|false,
 *               "signature_crypto_order": "signature_after_crypto_on_tx" (default)
 *                                        | "signature_before_crypto_on_tx",
 *               "data_unit_size": 512|520|4048|4096|4160,
 *               "initial_tweak": "32 hex digits, the 16 bytes as stored" (default zeros)}
 *              or null/absent}
 *   DOMAIN = {"sig_type": "t10dif", "block_size": 512|520|4048|4096|4160,
 *             "t10dif": {"bg_type": "crc"|"csum", "bg": 0|65535, "app_tag": 0-65535,
 *                        "ref_tag": 0-4294967295, "flags": ["ref_remap", "app_escape",
 *                        "app_ref_escape"]}}
 *          | {"sig_type": "crc", "block_size": ..., "crc": {"type": "crc32"|"crc32c"|"crc64_xp10",
 *                                                         "seed": 0 | all-ones of its width}}
 *
 * Absent optional members take the zero value of the mlx5dv structs (bg_type crc, bg 0,
 * app_tag 0, ref_tag 0, flags [], seed 0).  Unknown members are refused.  Integers may also be
 * given as "0x..." strings.  Errors name the member as a dotted path ("wire.crc.seed").
 */
#pragma once

#include "dataplane/offload/dp_error.h"
#include "dataplane/offload/sig.h"
#include "dataplane/offload/transform.h"

struct json_object;

/* A member an object must have, and the values it allows (said when it is missing). */
struct dp_required {
	const char *name;
	const char *allowed;
};
/* crypto's required members (ending with { NULL }); the daemon adds its dek to them. */
extern const struct dp_required dp_crypto_required[];
/*
 * 0 when o has every member of the lists (each ending with { NULL }, the
 * lists ending with NULL); else -EINVAL naming all it lacks in one error: one
 * as field PATH.NAME "is required; allowed: ...", several as field PATH
 * "missing members: NAME (allowed: ...), ...".
 */
int dp_json_required(struct json_object *o, const char *path, const struct dp_required *const *lists,
		     struct dp_error *err);

/* Parse and validate (dp_transform_cfg_validate) a configuration object. */
int dp_transform_cfg_from_json(struct json_object *obj, struct dp_transform_cfg *cfg, struct dp_error *err);
/* Same, from JSON text. */
int dp_transform_cfg_parse(const char *text, struct dp_transform_cfg *cfg, struct dp_error *err);
/* The configuration as a new JSON object of the same shape (copy_mask only if explicit). */
struct json_object *dp_transform_cfg_to_json(const struct dp_transform_cfg *cfg);
/* The mkey-check record: {"err_type": "none"|"guard"|"apptag"|"reftag",
 * "expected_value": N, "actual_value": N, "offset": N}. */
struct json_object *dp_sig_err_to_json(const struct dp_sig_err *e);
