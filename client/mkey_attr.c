/* SPDX-License-Identifier: MIT */
/*
 * mlx5dv's MKEY attribute structures (include/rdmad/verbs.h) as the JSON
 * configuration object rdmad's Mkey.Configure takes (docs/offload.md): one
 * word or number per member, nothing checked here that rdmad checks, so a
 * refusal names the member as rdmad names it (config.wire.t10dif.bg_type).
 */
#include "client/internal.h"

#include <inttypes.h>
#include <stdio.h>

/* A word of words[n] for value, or NULL: rdmad refuses what has no word ("value N is none"). */
static struct json_object *word(unsigned value, const char *const *words, unsigned n)
{
	char other[32];

	if (value < n)
		return json_object_new_string(words[value]);
	snprintf(other, sizeof(other), "%u", value);
	return json_object_new_string(other);
}

#define WORD(value, words) word((value), (words), sizeof(words) / sizeof((words)[0]))

static struct json_object *t10dif_json(const struct rdmad_sig_t10dif *d)
{
	static const char *const bg_types[] = { "crc", "csum" };
	static const char *const flags[] = { "ref_remap", "app_escape", "app_ref_escape" };
	struct json_object *o = json_object_new_object(), *list = json_object_new_array();

	json_object_object_add(o, "bg_type", WORD(d->bg_type, bg_types));
	client_add_u64(o, "bg", d->bg);
	client_add_u64(o, "app_tag", d->app_tag);
	client_add_u64(o, "ref_tag", d->ref_tag);
	for (unsigned i = 0; i < 3; i++)
		if (d->flags & (1u << i))
			json_object_array_add(list, json_object_new_string(flags[i]));
	json_object_object_add(o, "flags", list);
	return o;
}

static struct json_object *crc_json(const struct rdmad_sig_crc *c)
{
	static const char *const types[] = { "crc32", "crc32c", "crc64_xp10" };
	struct json_object *o = json_object_new_object();
	char seed[24];

	json_object_object_add(o, "type", WORD(c->type, types));
	/* 64-bit seeds as "0x..." strings: JSON numbers lose bits past 2^53 in some readers. */
	snprintf(seed, sizeof(seed), "0x%" PRIx64, c->seed);
	client_add_str(o, "seed", seed);
	return o;
}

static struct json_object *domain_json(const struct rdmad_sig_block_domain *d)
{
	struct json_object *o;

	if (!d)
		return NULL;
	o = json_object_new_object();
	switch (d->sig_type) {
	case RDMAD_SIG_TYPE_T10DIF:
		client_add_str(o, "sig_type", "t10dif");
		json_object_object_add(o, "t10dif", t10dif_json(&d->sig.dif));
		break;
	case RDMAD_SIG_TYPE_CRC:
		client_add_str(o, "sig_type", "crc");
		json_object_object_add(o, "crc", crc_json(&d->sig.crc));
		break;
	default:
		json_object_object_add(o, "sig_type", json_object_new_int64(d->sig_type));
	}
	client_add_u64(o, "block_size", d->block_size);
	return o;
}

static void add_hex(struct json_object *o, const char *key, const uint8_t *bytes, size_t n)
{
	char text[2 * 16 + 1];

	for (size_t i = 0; i < n; i++)
		snprintf(text + 2 * i, 3, "%02x", bytes[i]);
	client_add_str(o, key, text);
}

static struct json_object *crypto_json(const struct rdmad_crypto_attr *c)
{
	static const char *const standards[] = { "aes_xts" };
	static const char *const orders[] = { "signature_after_crypto_on_tx", "signature_before_crypto_on_tx" };
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "standard", WORD(c->crypto_standard, standards));
	client_add_bool(o, "encrypt_on_tx", c->encrypt_on_tx);
	json_object_object_add(o, "signature_crypto_order", WORD(c->signature_crypto_order, orders));
	client_add_u64(o, "data_unit_size", c->data_unit_size);
	add_hex(o, "initial_tweak", c->initial_tweak, sizeof(c->initial_tweak));
	client_add_u64(o, "dek", c->dek);
	if (c->has_keytag)
		add_hex(o, "keytag", c->keytag, sizeof(c->keytag));
	return o;
}

int rdmad_configure_mkey_attr(struct rdmad_mkey *mkey, unsigned access,
			      const struct rdmad_mkey_layout_entry *layout, unsigned n,
			      const struct rdmad_sig_block_attr *sig, const struct rdmad_crypto_attr *crypto,
			      int reset_sig_attr)
{
	struct json_object *config = NULL;

	client_ok();
	if (sig || crypto) {
		config = json_object_new_object();
		/* Absent domains are null: the configuration is the whole of the MKEY's. */
		json_object_object_add(config, "mem", sig ? domain_json(sig->mem) : NULL);
		json_object_object_add(config, "wire", sig ? domain_json(sig->wire) : NULL);
		if (sig) {
			client_add_u64(config, "check_mask", sig->check_mask);
			if (sig->flags & RDMAD_SIG_BLOCK_ATTR_FLAG_COPY_MASK)
				client_add_u64(config, "copy_mask", sig->copy_mask);
		}
		if (crypto)
			json_object_object_add(config, "crypto", crypto_json(crypto));
	}
	return client_configure_mkey(mkey, access, layout, n, config, reset_sig_attr);
}
