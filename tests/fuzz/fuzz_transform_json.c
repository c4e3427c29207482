/* SPDX-License-Identifier: MIT */
/* MKEY configurations as users write them (rdmactl offload --config, Mkey.Configure); a
 * configuration that is accepted then runs a transfer each way at every guard kernel level
 * this CPU has, and every level must give the portable level's bytes and record. */
#include "tests/fuzz/fuzz.h"
#include "dataplane/offload/kern.h"
#include "dataplane/offload/transform.h"
#include "dataplane/offload/transform_json.h"
#include "dataplane/offload/xts.h"

#include <json-c/json.h>

#include <stdlib.h>
#include <string.h>

/* 4096 bytes with fields of up to 8 bytes per 512-byte block, and a crypto unit's rounding */
#define XFER_CAP (4096 + 8 * 8 + 4160)

static int run_level(struct dp_transform *t, enum dp_dir dir, enum dp_kern_level level, const uint8_t *in,
		     size_t in_len, uint8_t *out, size_t *out_len, struct dp_sig_err *rec)
{
	struct dp_error err;
	int rc;

	dp_kern_set_level(level);
	memset(out, 0, XFER_CAP);
	rc = dp_transform_run(t, dir, in, in_len, out, XFER_CAP, out_len, NULL, &err);
	dp_transform_check(t, rec);
	return rc;
}

/* Every level against the portable one; a difference is a crash, for the fuzzer to keep. */
static void levels_agree(const struct dp_transform_cfg *cfg, size_t seed)
{
	static uint8_t key[64], raw[XFER_CAP], in[XFER_CAP], ref[XFER_CAP], out[XFER_CAP];
	struct dp_transform *t;
	struct dp_error err;
	int old = dp_kern_level_in_use();

	for (size_t i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)(i * 7 + 1);
	for (size_t i = 0; i < sizeof(raw); i++)
		raw[i] = (uint8_t)(i * 131 + seed);
	if (dp_crypto_global_init(NULL) ||
	    dp_transform_create(cfg, cfg->crypto.enabled ? key : NULL, cfg->crypto.enabled ? 64 : 0, &t, &err))
		return;
	for (int dir = DP_TX; dir <= DP_RX; dir++) {
		size_t in_len = seed % 2 ? 4096 : 1024, ref_len = 0, out_len = 0;
		struct dp_sig_err ref_rec, rec;
		int ref_rc;

		/* an input the checks pass: bytes through the other direction, when it takes them */
		if (run_level(t, !dir, DP_KERN_PORTABLE, raw, in_len, in, &ref_len, &ref_rec) == 0)
			in_len = ref_len;
		else
			memcpy(in, raw, in_len);
		ref_rc = run_level(t, dir, DP_KERN_PORTABLE, in, in_len, ref, &ref_len, &ref_rec);

		for (int l = DP_KERN_PORTABLE + 1; l < DP_KERN_LEVELS; l++) {
			if (!dp_kern_level_supported((enum dp_kern_level)l))
				continue;
			if (run_level(t, dir, (enum dp_kern_level)l, in, in_len, out, &out_len, &rec) != ref_rc ||
			    out_len != ref_len || memcmp(out, ref, XFER_CAP) || memcmp(&rec, &ref_rec, sizeof(rec)))
				abort();
		}
	}
	dp_kern_set_level((enum dp_kern_level)old);
	dp_transform_destroy(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = strndup((const char *)data, size);
	struct dp_transform_cfg cfg;
	struct dp_error err;

	if (!text)
		return 0;
	if (dp_transform_cfg_parse(text, &cfg, &err) == 0) {
		struct json_object *back = dp_transform_cfg_to_json(&cfg);

		if (dp_transform_cfg_validate(&cfg, &err) == 0)
			levels_agree(&cfg, size * 131);
		json_object_put(back);
	}
	free(text);
	return 0;
}
