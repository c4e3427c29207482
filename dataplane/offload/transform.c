/* SPDX-License-Identifier: MIT */
/*
 * The MKEY transform (see transform.h, docs/offload.md): its configuration checked, the object
 * built with its cipher and its input-crypto window, and the mkey-check record.  Planning a
 * transfer is transform_plan.c, running it transform_run.c, the block engine transform_steps.c.
 */
#include <stdlib.h>
#include <string.h>

#include "dataplane/offload/transform-internal.h"
#include "dataplane/offload/xts.h"

#define SCRATCH_TARGET 16384u

void dp_transform_cfg_init(struct dp_transform_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->check_mask = 0xff;
}

static bool block_size_ok(uint32_t b)
{
	return dp_block_size_valid(b);
}

int dp_transform_cfg_validate(const struct dp_transform_cfg *cfg, struct dp_error *err)
{
	const struct dp_sig_domain *mem = &cfg->mem, *wire = &cfg->wire;
	int rc;

	rc = dp_sig_domain_validate(mem, "mem", err);
	if (rc)
		return rc;
	rc = dp_sig_domain_validate(wire, "wire", err);
	if (rc)
		return rc;
	if (!dp_sig_present(mem) && !dp_sig_present(wire) && !cfg->crypto.enabled)
		return dp_error_set(err, EINVAL, "mem",
				    "nothing to do: neither a signature domain (mem, wire) nor crypto is configured");
	if (cfg->copy_mask_set) {
		if (!dp_sig_present(mem) || !dp_sig_present(wire))
			return dp_error_set(err, EINVAL, "copy_mask",
					    "copy_mask needs a signature in both domains (mem and wire)");
		if (!dp_sig_same_structure(mem, wire))
			return dp_error_set(err, EINVAL, "copy_mask",
					    "copy_mask needs the same block structure in both domains "
					    "(same sig_type, block_size and CRC type)");
	}
	if (cfg->crypto.enabled) {
		const struct dp_crypto_cfg *c = &cfg->crypto;

		if (c->standard != DP_CRYPTO_AES_XTS)
			return dp_error_set(err, EINVAL, "crypto.standard",
					    "unknown crypto standard %d; allowed: \"aes_xts\"", (int)c->standard);
		if (c->order != DP_SIG_AFTER_CRYPTO_ON_TX && c->order != DP_SIG_BEFORE_CRYPTO_ON_TX)
			return dp_error_set(err, EINVAL, "crypto.signature_crypto_order",
					    "unknown order %d; allowed: \"signature_after_crypto_on_tx\", "
					    "\"signature_before_crypto_on_tx\"", (int)c->order);
		if (!block_size_ok(c->data_unit_size))
			return dp_error_set(err, EINVAL, "crypto.data_unit_size",
					    "data unit size %u not supported; allowed: 512, 520, 4048, 4096, 4160",
					    c->data_unit_size);
		/* rdma-core: RAW_WIRE (encrypt_on_tx, after) and RAW_MEMORY (!encrypt_on_tx, before)
		 * with a signature in both domains are "not yet supported by the device". */
		if (dp_sig_present(mem) && dp_sig_present(wire) &&
		    c->encrypt_on_tx == (c->order == DP_SIG_AFTER_CRYPTO_ON_TX))
			return dp_error_set(err, EINVAL, "crypto.signature_crypto_order",
					    "with a signature in both domains, encrypt_on_tx %s requires "
					    "\"signature_%s_crypto_on_tx\" (rows E and I)",
					    c->encrypt_on_tx ? "true" : "false",
					    c->encrypt_on_tx ? "before" : "after");
	}
	return 0;
}

int dp_transform_create(const struct dp_transform_cfg *cfg, const uint8_t *key, size_t key_len,
			struct dp_transform **out, struct dp_error *err)
{
	struct dp_transform *t;
	int rc;

	*out = NULL;
	rc = dp_transform_cfg_validate(cfg, err);
	if (rc)
		return rc;
	if (cfg->crypto.enabled && !key)
		return dp_error_set(err, EINVAL, "key", "crypto is configured but no AES-XTS key was given");
	if (!cfg->crypto.enabled && key)
		return dp_error_set(err, EINVAL, "key", "a key was given but the configuration has no crypto");
	t = calloc(1, sizeof(*t));
	if (!t)
		return dp_error_set(err, ENOMEM, "", "out of memory");
	t->cfg = *cfg;
	if (cfg->copy_mask_set)
		t->copy = cfg->copy_mask & dp_sig_field_bits(&cfg->mem);
	else
		t->copy = dp_sig_auto_copy_mask(&cfg->mem, &cfg->wire);
	if (cfg->crypto.enabled) {
		uint32_t dus = cfg->crypto.data_unit_size;

		rc = dp_xts_create(key, key_len, &t->xts, err);
		if (rc) {
			free(t);
			return rc;
		}
		if (dp_sig_present(&cfg->mem) || dp_sig_present(&cfg->wire)) {
			t->chunk = (SCRATCH_TARGET / dus > 0 ? SCRATCH_TARGET / dus : 1) * dus;
			/* a window fill plus what is left of a block: at most 4160 + 8 bytes */
			t->scratch = malloc(t->chunk + 4160 + 8);
			if (!t->scratch) {
				dp_xts_destroy(t->xts);
				free(t);
				return dp_error_set(err, ENOMEM, "", "out of memory");
			}
		}
	}
	*out = t;
	return 0;
}

void dp_transform_destroy(struct dp_transform *t)
{
	if (!t)
		return;
	dp_xts_destroy(t->xts);
	if (t->scratch) {
		/* decrypted user data may linger in the window */
		explicit_bzero(t->scratch, t->chunk + 4160 + 8);
		free(t->scratch);
	}
	free(t);
}

const struct dp_transform_cfg *dp_transform_get_cfg(const struct dp_transform *t)
{
	return &t->cfg;
}

uint8_t dp_transform_copy_mask(const struct dp_transform *t)
{
	return t->copy;
}

void dp_transform_check(struct dp_transform *t, struct dp_sig_err *rec)
{
	*rec = t->rec;
	memset(&t->rec, 0, sizeof(t->rec));
}
