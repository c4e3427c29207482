/* SPDX-License-Identifier: MIT */
/*
 * io.rdmad.Mkey.Configure's parameters (and a configure WR's, io.rdmad.Qp.PostSend) to the
 * model's struct rdma_mkey_conf: the field table, the layout, and the configuration JSON with
 * its crypto members that name a DEK or give a keytag taken out before the offload engine parses
 * the rest.
 */
#include "daemon/api/mkey_conf.h"
#include "dataplane/offload/transform_json.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define ENTRY_FIELD(key, api_type, member) { .name = key, .type = api_type, \
	.offset = offsetof(struct rdma_mkey_entry, member) }

static const struct api_field list_entry_fields[] = {
	ENTRY_FIELD("mr", API_FIELD_U32, mr),
	ENTRY_FIELD("offset", API_FIELD_U64, offset),
	ENTRY_FIELD("length", API_FIELD_U64, length),
	{ NULL },
};

static const struct api_field interleaved_entry_fields[] = {
	ENTRY_FIELD("mr", API_FIELD_U32, mr),
	ENTRY_FIELD("offset", API_FIELD_U64, offset),
	ENTRY_FIELD("bytes_count", API_FIELD_U64, length),
	ENTRY_FIELD("bytes_skip", API_FIELD_U32, skip),
	{ NULL },
};

static const struct api_field interleaved_fields[] = {
	{ .name = "repeat_count", .type = API_FIELD_U32,
	  .offset = offsetof(struct configure_params, interleaved.repeat_count) },
	{ .name = "entries", .type = API_FIELD_LIST, .fields = interleaved_entry_fields,
	  .offset = offsetof(struct configure_params, interleaved.entries),
	  .count = offsetof(struct configure_params, interleaved.n),
	  .size = sizeof(struct rdma_mkey_entry), .max = UINT16_MAX },
	{ NULL },
};

const struct api_field api_mkey_configure_fields[] = {
	{ .name = "reset_sig_attr", .type = API_FIELD_BOOL,
	  .offset = offsetof(struct configure_params, reset_sig_attr) },
	{ .name = "access", .type = API_FIELD_FLAGS, .offset = offsetof(struct configure_params, access),
	  .given = API_GIVEN(struct configure_params, has_access), .word = rdma_mkey_access_name,
	  .max = RDMA_MKEY_ACCESS_ALL },
	{ .name = "layout", .type = API_FIELD_LIST, .fields = list_entry_fields,
	  .offset = offsetof(struct configure_params, layout),
	  .count = offsetof(struct configure_params, n_layout),
	  .given = API_GIVEN(struct configure_params, has_layout),
	  .size = sizeof(struct rdma_mkey_entry), .max = UINT16_MAX },
	/* Its members are at home in the params struct: the object's offset is 0. */
	{ .name = "interleaved", .type = API_FIELD_OBJECT, .offset = 0, .fields = interleaved_fields,
	  .given = API_GIVEN(struct configure_params, has_interleaved) },
	{ .name = "config", .type = API_FIELD_JSON, .offset = offsetof(struct configure_params, config) },
	{ NULL },
};

static int keytag_from_json(struct json_object *v, struct rdma_mkey_crypto *crypto,
			    struct rdma_error *err)
{
	const char *s = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;

	if (!s || strlen(s) != 16)
		return rdma_error_invalid(err, "config.crypto.keytag", "16 hex digits (8 bytes)");
	for (int i = 0; i < 8; i++) {
		unsigned byte;

		if (sscanf(s + 2 * i, "%2x", &byte) != 1 || !strchr("0123456789abcdefABCDEF", s[2 * i]) ||
		    !strchr("0123456789abcdefABCDEF", s[2 * i + 1]))
			return rdma_error_invalid(err, "config.crypto.keytag", "16 hex digits (8 bytes)");
		crypto->keytag[i] = (uint8_t)byte;
	}
	crypto->has_keytag = true;
	return 0;
}

/* A DEK's name from config.crypto.<key> into out->dek_name (the model finds it). */
static int dek_name_from_json(struct json_object *v, const char *key, struct rdma_mkey_crypto *out,
			      struct rdma_error *err)
{
	const char *name = json_object_get_string(v);
	char field[32];

	snprintf(field, sizeof(field), "config.crypto.%s", key);
	if (strlen(name) == 0 || strlen(name) >= sizeof(out->dek_name))
		return rdma_error_invalid(err, field, "a DEK's name (1 to %zu characters) or handle",
					  sizeof(out->dek_name) - 1);
	if (out->dek_name[0] && strcmp(out->dek_name, name) != 0)
		return rdma_error_invalid(err, field, "dek and dek_name name different DEKs");
	snprintf(out->dek_name, sizeof(out->dek_name), "%s", name);
	return 0;
}

/*
 * Takes crypto.dek (a DEK's handle or name), crypto.dek_name (as mkey show
 * prints it) and crypto.keytag out of the (copied) configuration, which is
 * then exactly what the offload engine parses.
 */
static int crypto_extras(struct json_object *crypto, struct rdma_mkey_crypto *out,
			 struct rdma_error *err)
{
	struct json_object *v;
	int r;

	if (json_object_object_get_ex(crypto, "dek", &v) && json_object_is_type(v, json_type_string)) {
		r = dek_name_from_json(v, "dek", out, err);
		if (r < 0)
			return r;
		json_object_object_del(crypto, "dek");
	} else if (json_object_object_get_ex(crypto, "dek", &v)) {
		int64_t dek = json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : -1;

		if (dek <= 0 || dek > UINT32_MAX)
			return rdma_error_invalid(err, "config.crypto.dek", "a DEK's handle or name");
		out->dek = (uint32_t)dek;
		json_object_object_del(crypto, "dek");
	}
	/* null is what mkey show prints to a caller who may not know DEKs: no name given. */
	if (json_object_object_get_ex(crypto, "dek_name", &v)) {
		if (v && !json_object_is_type(v, json_type_string))
			return rdma_error_invalid(err, "config.crypto.dek_name", "a DEK's name");
		r = v ? dek_name_from_json(v, "dek_name", out, err) : 0;
		if (r < 0)
			return r;
		json_object_object_del(crypto, "dek_name");
	}
	if (json_object_object_get_ex(crypto, "keytag", &v)) {
		r = keytag_from_json(v, out, err);
		if (r < 0)
			return r;
		json_object_object_del(crypto, "keytag");
	}
	return 0;
}

static bool has_non_null(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) && v;
}

/*
 * The crypto members the engine requires and the DEK, all named in one
 * error when several are missing (dek_name alone names the DEK too).
 */
static int crypto_missing(struct json_object *crypto, struct dp_error *de)
{
	static const struct dp_required dek[] = { { "dek", "a DEK's name or handle" }, { NULL } };
	const struct dp_required *const lists[] = {
		dp_crypto_required, has_non_null(crypto, "dek_name") ? NULL : dek, NULL,
	};

	return dp_json_required(crypto, "crypto", lists, de);
}

static bool has_key(struct json_object *o, const char *key)
{
	return json_object_object_get_ex(o, key, NULL);
}

/* The engine's refusal of a member of config, named from config. */
static int config_refusal(const struct dp_error *de, struct rdma_error *err)
{
	char field[64];

	snprintf(field, sizeof(field), "config%s%.56s", *de->field ? "." : "", de->field);
	return rdma_error_invalid(err, field, "%s", de->message);
}

/* The setters config holds: its signature members, its crypto member. */
static int config_from_json(struct json_object *config, struct rdma_mkey_conf *conf,
			    struct rdma_error *err)
{
	struct json_object *copy = NULL, *crypto;
	struct dp_error de;
	int r = 0;

	conf->set_crypto = has_non_null(config, "crypto");
	/*
	 * mem and wire both null beside crypto are no signature setter: that is
	 * how the offload file of a crypto-only configuration reads.
	 */
	conf->set_sig = has_non_null(config, "mem") || has_non_null(config, "wire") ||
			has_key(config, "check_mask") || has_key(config, "copy_mask") ||
			(!conf->set_crypto && (has_key(config, "mem") || has_key(config, "wire")));
	/* A signature setter with neither domain: the model refuses it, naming the rule. */
	if (!conf->set_crypto && !has_non_null(config, "mem") && !has_non_null(config, "wire"))
		return 0;
	if (json_object_deep_copy(config, &copy, NULL) < 0)
		return rdma_error_system(err, -ENOMEM);
	if (conf->set_crypto && json_object_object_get_ex(copy, "crypto", &crypto) &&
	    json_object_is_type(crypto, json_type_object)) {
		if (crypto_missing(crypto, &de) < 0)
			r = config_refusal(&de, err);
		else
			r = crypto_extras(crypto, &conf->crypto, err);
	}
	if (r == 0 && dp_transform_cfg_from_json(copy, &conf->cfg, &de) < 0)
		r = config_refusal(&de, err);
	json_object_put(copy);
	return r;
}

int api_mkey_conf_from_params(struct configure_params *p, const struct rdma_lend_caller *caller,
			      struct rdma_mkey_conf *conf, struct rdma_error *err)
{
	rdma_mkey_conf_init(conf);
	conf->caller = caller;
	conf->reset_sig_attr = p->reset_sig_attr;
	conf->set_access = p->has_access;
	conf->access = p->access;
	if (p->has_layout && p->has_interleaved)
		return rdma_error_invalid(err, "interleaved", "one layout per configure: layout or interleaved");
	conf->set_layout = p->has_layout || p->has_interleaved;
	if (p->has_interleaved) {
		conf->layout.type = RDMA_LAYOUT_INTERLEAVED;
		conf->layout.repeat_count = p->interleaved.repeat_count;
		conf->layout.n = (uint16_t)p->interleaved.n;
		conf->layout.entries = p->interleaved.entries;
		p->interleaved.entries = NULL;
	} else if (p->has_layout) {
		conf->layout.type = RDMA_LAYOUT_LIST;
		conf->layout.n = (uint16_t)p->n_layout;
		conf->layout.entries = p->layout;
		p->layout = NULL;
	}
	if (p->config)
		return config_from_json(p->config, conf, err);
	return 0;
}
