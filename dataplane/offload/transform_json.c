/* SPDX-License-Identifier: MIT */
/* JSON <-> struct dp_transform_cfg (see transform_json.h) */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "dataplane/offload/transform_json.h"
#include "lib/hex.h"

static int bad(struct dp_error *err, const char *path, const char *fmt, const char *extra)
{
	return dp_error_set(err, EINVAL, path, fmt, extra);
}

/* buf = a "." b (or b when a is empty), truncated to n bytes. */
static void join(char *buf, size_t n, const char *a, const char *b)
{
	size_t i = 0;

	for (; *a && i + 1 < n; a++)
		buf[i++] = *a;
	if (i && i + 1 < n)
		buf[i++] = '.';
	for (; *b && i + 1 < n; b++)
		buf[i++] = *b;
	buf[i] = 0;
}

/* Refuse members not in the NULL-terminated list. */
static int only_members(struct json_object *o, const char *path, const char *const *names, struct dp_error *err)
{
	json_object_object_foreach(o, key, val) {
		bool ok = false;
		char p[64];

		(void)val;
		for (const char *const *n = names; *n; n++)
			if (!strcmp(key, *n))
				ok = true;
		if (!ok) {
			char allowed[160] = "";

			for (const char *const *n = names; *n; n++) {
				strncat(allowed, *n, sizeof(allowed) - strlen(allowed) - 1);
				if (n[1])
					strncat(allowed, ", ", sizeof(allowed) - strlen(allowed) - 1);
			}
			join(p, sizeof(p), path, key);
			return dp_error_set(err, EINVAL, p, "unknown member; allowed here: %s", allowed);
		}
	}
	return 0;
}

/* An unsigned integer in [0, max]; JSON number or "0x..." / decimal string. */
static int get_uint(struct json_object *v, const char *path, uint64_t max, uint64_t *out, struct dp_error *err)
{
	if (json_object_is_type(v, json_type_int)) {
		if (json_object_get_int64(v) < 0)
			return dp_error_set(err, EINVAL, path, "must be an integer 0-%" PRIu64 ", got a negative number", max);
		*out = json_object_get_uint64(v);
	} else if (json_object_is_type(v, json_type_string)) {
		const char *s = json_object_get_string(v);
		char *end;

		errno = 0;
		if (!*s || *s == '-' || *s == '+' || *s == ' ')
			return dp_error_set(err, EINVAL, path, "must be an integer 0-%" PRIu64 ", got \"%s\"", max, s);
		*out = strtoull(s, &end, 0);
		if (errno || *end)
			return dp_error_set(err, EINVAL, path, "must be an integer 0-%" PRIu64 ", got \"%s\"", max, s);
	} else {
		return dp_error_set(err, EINVAL, path, "must be an integer 0-%" PRIu64, max);
	}
	if (*out > max)
		return dp_error_set(err, EINVAL, path, "%" PRIu64 " is out of range 0-%" PRIu64, *out, max);
	return 0;
}

static int get_enum(struct json_object *v, const char *path, const char *const *names, int *out,
		    const char *allowed, struct dp_error *err)
{
	const char *s;

	if (!json_object_is_type(v, json_type_string))
		return bad(err, path, "must be a string; allowed: %s", allowed);
	s = json_object_get_string(v);
	for (int i = 0; names[i]; i++)
		if (!strcmp(s, names[i])) {
			*out = i;
			return 0;
		}
	return dp_error_set(err, EINVAL, path, "unknown value \"%.60s\"; allowed: %s", s, allowed);
}

static int get_block_size(struct json_object *v, const char *path, uint32_t *out, struct dp_error *err)
{
	uint64_t b;

	if (get_uint(v, path, UINT32_MAX, &b, err) || !dp_block_size_valid((uint32_t)b))
		return dp_error_set(err, EINVAL, path, "block size not supported; allowed: 512, 520, 4048, 4096, 4160");
	*out = (uint32_t)b;
	return 0;
}

static struct json_object *member(struct json_object *o, const char *name)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, name, &v))
		return NULL;
	return v;   /* may be NULL for a JSON null */
}

static bool has(struct json_object *o, const char *name)
{
	return json_object_object_get_ex(o, name, NULL);
}

const struct dp_required dp_crypto_required[] = {
	{ "standard", "\"aes_xts\"" },
	{ "encrypt_on_tx", "true, false" },
	{ "data_unit_size", "512, 520, 4048, 4096, 4160" },
	{ NULL },
};

static const struct dp_required domain_required[] = {
	{ "sig_type", "\"t10dif\", \"crc\"" },
	{ "block_size", "512, 520, 4048, 4096, 4160" },
	{ NULL },
};

/*
 * One error for every member missing, so that a file written from nothing is
 * corrected in one round, not one member per try.
 */
int dp_json_required(struct json_object *o, const char *path, const struct dp_required *const *lists,
		     struct dp_error *err)
{
	const struct dp_required *missing = NULL;
	char text[sizeof(err->message)] = "";
	unsigned count = 0;

	for (; *lists; lists++)
		for (const struct dp_required *r = *lists; r->name; r++) {
			size_t used = strlen(text);

			if (has(o, r->name))
				continue;
			snprintf(text + used, sizeof(text) - used, "%s%s (allowed: %s)", count ? ", " : "",
				 r->name, r->allowed);
			missing = r;
			count++;
		}
	if (count == 1) {
		char p[64];

		join(p, sizeof(p), path, missing->name);
		return dp_error_set(err, EINVAL, p, "is required; allowed: %s", missing->allowed);
	}
	if (count)
		return dp_error_set(err, EINVAL, path, "missing members: %s", text);
	return 0;
}

static int parse_t10dif(struct json_object *o, const char *dpath, struct dp_t10dif *t, struct dp_error *err)
{
	static const char *const names[] = { "bg_type", "bg", "app_tag", "ref_tag", "flags", NULL };
	static const char *const bg_types[] = { "crc", "csum", NULL };
	char path[64], p[64];
	struct json_object *v;
	uint64_t u;
	int rc, e;

	join(path, sizeof(path), dpath, "t10dif");
	if (!o)
		return 0;       /* absent or null: all members take their zero values */
	if (!json_object_is_type(o, json_type_object))
		return bad(err, path, "must be an object {\"bg_type\", \"bg\", \"app_tag\", \"ref_tag\", \"flags\"}%s", "");
	rc = only_members(o, path, names, err);
	if (rc)
		return rc;
	if ((v = member(o, "bg_type"))) {
		join(p, sizeof(p), path, "bg_type");
		if ((rc = get_enum(v, p, bg_types, &e, "\"crc\", \"csum\"", err)))
			return rc;
		t->bg_type = (enum dp_t10dif_bg_type)e;
	}
	if ((v = member(o, "bg"))) {
		join(p, sizeof(p), path, "bg");
		if ((rc = get_uint(v, p, UINT16_MAX, &u, err)))
			return rc;
		if (u != 0 && u != 0xffff)
			return dp_error_set(err, EINVAL, p, "guard seed %" PRIu64 " not supported; allowed: 0, 65535", u);
		t->bg = (uint16_t)u;
	}
	if ((v = member(o, "app_tag"))) {
		join(p, sizeof(p), path, "app_tag");
		if ((rc = get_uint(v, p, UINT16_MAX, &u, err)))
			return rc;
		t->app_tag = (uint16_t)u;
	}
	if ((v = member(o, "ref_tag"))) {
		join(p, sizeof(p), path, "ref_tag");
		if ((rc = get_uint(v, p, UINT32_MAX, &u, err)))
			return rc;
		t->ref_tag = (uint32_t)u;
	}
	if ((v = member(o, "flags"))) {
		static const char *const flags[] = { "ref_remap", "app_escape", "app_ref_escape", NULL };
		const char *allowed = "\"ref_remap\", \"app_escape\", \"app_ref_escape\"";

		join(p, sizeof(p), path, "flags");
		if (!json_object_is_type(v, json_type_array))
			return bad(err, p, "must be an array of strings; allowed: %s", allowed);
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			if ((rc = get_enum(json_object_array_get_idx(v, i), p, flags, &e, allowed, err)))
				return rc;
			t->flags |= (uint16_t)(1u << e);
		}
	}
	return 0;
}

static int parse_crc(struct json_object *o, const char *dpath, struct dp_sig_crc *c, struct dp_error *err)
{
	static const char *const names[] = { "type", "seed", NULL };
	static const char *const types[] = { "crc32", "crc32c", "crc64_xp10", NULL };
	char path[64], p[64];
	struct json_object *v;
	uint64_t u;
	int rc, e;

	join(path, sizeof(path), dpath, "crc");
	if (!o || !json_object_is_type(o, json_type_object))
		return bad(err, path, "must be an object {\"type\", \"seed\"}%s", "");
	if ((rc = only_members(o, path, names, err)))
		return rc;
	join(p, sizeof(p), path, "type");
	if (!(v = member(o, "type")))
		return bad(err, p, "is required; allowed: %s", "\"crc32\", \"crc32c\", \"crc64_xp10\"");
	if ((rc = get_enum(v, p, types, &e, "\"crc32\", \"crc32c\", \"crc64_xp10\"", err)))
		return rc;
	c->type = (enum dp_crc_type)e;
	if ((v = member(o, "seed"))) {
		join(p, sizeof(p), path, "seed");
		if ((rc = get_uint(v, p, UINT64_MAX, &u, err)))
			return rc;
		if (c->type == DP_CRC_CRC64_XP10 ? (u != 0 && u != UINT64_MAX) : (u != 0 && u != UINT32_MAX))
			return dp_error_set(err, EINVAL, p, "seed %" PRIu64 " not supported; allowed: 0, %s", u,
					    c->type == DP_CRC_CRC64_XP10 ? "18446744073709551615" : "4294967295");
		c->seed = u;
	}
	return 0;
}

static int parse_domain(struct json_object *o, const char *name, struct dp_sig_domain *d, struct dp_error *err)
{
	static const char *const names[] = { "sig_type", "block_size", "t10dif", "crc", NULL };
	static const char *const types[] = { "t10dif", "crc", NULL };
	char p[64];
	int rc, e;

	memset(d, 0, sizeof(*d));
	if (!o)
		return 0;       /* null: no signature in this domain */
	if (!json_object_is_type(o, json_type_object))
		return bad(err, name, "must be a signature domain object or null%s", "");
	if ((rc = only_members(o, name, names, err)))
		return rc;
	if ((rc = dp_json_required(o, name, (const struct dp_required *const[]){ domain_required, NULL }, err)))
		return rc;
	join(p, sizeof(p), name, "sig_type");
	if ((rc = get_enum(member(o, "sig_type"), p, types, &e, "\"t10dif\", \"crc\"", err)))
		return rc;
	d->sig_type = e == 0 ? DP_SIG_T10DIF : DP_SIG_CRC;
	join(p, sizeof(p), name, "block_size");
	if ((rc = get_block_size(member(o, "block_size"), p, &d->block_size, err)))
		return rc;
	if (d->sig_type == DP_SIG_T10DIF) {
		if (has(o, "crc")) {
			join(p, sizeof(p), name, "crc");
			return bad(err, p, "not allowed with sig_type \"t10dif\"%s", "");
		}
		return parse_t10dif(member(o, "t10dif"), name, &d->t10dif, err);
	}
	if (has(o, "t10dif")) {
		join(p, sizeof(p), name, "t10dif");
		return bad(err, p, "not allowed with sig_type \"crc\"%s", "");
	}
	return parse_crc(member(o, "crc"), name, &d->crc, err);
}

static int parse_crypto(struct json_object *o, struct dp_crypto_cfg *c, struct dp_error *err)
{
	static const char *const names[] = { "standard", "encrypt_on_tx", "signature_crypto_order",
					     "data_unit_size", "initial_tweak", NULL };
	static const char *const standards[] = { "aes_xts", NULL };
	static const char *const orders[] = { "signature_after_crypto_on_tx", "signature_before_crypto_on_tx", NULL };
	struct json_object *v;
	int rc, e;

	memset(c, 0, sizeof(*c));
	if (!o)
		return 0;
	if (!json_object_is_type(o, json_type_object))
		return bad(err, "crypto", "must be an object or null%s", "");
	if ((rc = only_members(o, "crypto", names, err)))
		return rc;
	c->enabled = true;
	if ((rc = dp_json_required(o, "crypto", (const struct dp_required *const[]){ dp_crypto_required, NULL },
				   err)))
		return rc;
	if ((rc = get_enum(member(o, "standard"), "crypto.standard", standards, &e, "\"aes_xts\"", err)))
		return rc;
	c->standard = DP_CRYPTO_AES_XTS;
	if (!(v = member(o, "encrypt_on_tx")) || !json_object_is_type(v, json_type_boolean))
		return bad(err, "crypto.encrypt_on_tx", "must be true or false%s", "");
	c->encrypt_on_tx = json_object_get_boolean(v);
	if ((v = member(o, "signature_crypto_order"))) {
		if ((rc = get_enum(v, "crypto.signature_crypto_order", orders, &e,
				   "\"signature_after_crypto_on_tx\", \"signature_before_crypto_on_tx\"", err)))
			return rc;
		c->order = (enum dp_crypto_order)e;
	}
	if ((rc = get_block_size(member(o, "data_unit_size"), "crypto.data_unit_size", &c->data_unit_size, err)))
		return rc;
	if ((v = member(o, "initial_tweak"))) {
		const char *s = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;

		if (!s || strlen(s) != 32)
			return bad(err, "crypto.initial_tweak",
				   "must be a string of 32 hex digits: the 16 tweak bytes as stored "
				   "(little-endian integer)%s", "");
		if (hex_decode(s, c->initial_tweak, sizeof(c->initial_tweak)) < 0)
			return bad(err, "crypto.initial_tweak", "must be 32 hex digits, got \"%s\"", s);
	}
	return 0;
}

int dp_transform_cfg_from_json(struct json_object *obj, struct dp_transform_cfg *cfg, struct dp_error *err)
{
	static const char *const names[] = { "mem", "wire", "check_mask", "copy_mask", "crypto", NULL };
	struct json_object *v;
	uint64_t u;
	int rc;

	dp_transform_cfg_init(cfg);
	if (!obj || !json_object_is_type(obj, json_type_object))
		return bad(err, "", "the configuration must be a JSON object%s", "");
	if ((rc = only_members(obj, "", names, err)))
		return rc;
	if ((rc = parse_domain(member(obj, "mem"), "mem", &cfg->mem, err)))
		return rc;
	if ((rc = parse_domain(member(obj, "wire"), "wire", &cfg->wire, err)))
		return rc;
	if ((v = member(obj, "check_mask"))) {
		if ((rc = get_uint(v, "check_mask", 255, &u, err)))
			return rc;
		cfg->check_mask = (uint8_t)u;
	}
	if ((v = member(obj, "copy_mask"))) {
		if ((rc = get_uint(v, "copy_mask", 255, &u, err)))
			return rc;
		cfg->copy_mask = (uint8_t)u;
		cfg->copy_mask_set = true;
	}
	if ((rc = parse_crypto(member(obj, "crypto"), &cfg->crypto, err)))
		return rc;
	return dp_transform_cfg_validate(cfg, err);
}

int dp_transform_cfg_parse(const char *text, struct dp_transform_cfg *cfg, struct dp_error *err)
{
	enum json_tokener_error jerr;
	struct json_tokener *tok;
	struct json_object *obj;
	int rc;

	tok = json_tokener_new();
	if (!tok)
		return dp_error_set(err, ENOMEM, "", "out of memory");
	obj = json_tokener_parse_ex(tok, text, (int)strlen(text));
	jerr = json_tokener_get_error(tok);
	if (jerr == json_tokener_success && (int)json_tokener_get_parse_end(tok) < (int)strlen(text)) {
		/* trailing text other than white space */
		for (const char *p = text + (int)json_tokener_get_parse_end(tok); *p; p++)
			if (*p != ' ' && *p != '\n' && *p != '\t' && *p != '\r') {
				jerr = json_tokener_error_parse_unexpected;
				break;
			}
	}
	if (jerr != json_tokener_success || !obj) {
		rc = dp_error_set(err, EINVAL, "", "not valid JSON: %s",
				  jerr == json_tokener_continue ? "unexpected end of input" : json_tokener_error_desc(jerr));
		json_object_put(obj);
		json_tokener_free(tok);
		return rc;
	}
	json_tokener_free(tok);
	rc = dp_transform_cfg_from_json(obj, cfg, err);
	json_object_put(obj);
	return rc;
}

static struct json_object *domain_to_json(const struct dp_sig_domain *d)
{
	struct json_object *o, *s;

	if (!dp_sig_present(d))
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "sig_type", json_object_new_string(d->sig_type == DP_SIG_T10DIF ? "t10dif" : "crc"));
	json_object_object_add(o, "block_size", json_object_new_int64(d->block_size));
	s = json_object_new_object();
	if (d->sig_type == DP_SIG_T10DIF) {
		struct json_object *fl = json_object_new_array();

		json_object_object_add(s, "bg_type", json_object_new_string(d->t10dif.bg_type == DP_T10DIF_BG_CSUM ? "csum" : "crc"));
		json_object_object_add(s, "bg", json_object_new_int64(d->t10dif.bg));
		json_object_object_add(s, "app_tag", json_object_new_int64(d->t10dif.app_tag));
		json_object_object_add(s, "ref_tag", json_object_new_int64(d->t10dif.ref_tag));
		if (d->t10dif.flags & DP_T10DIF_FLAG_REF_REMAP)
			json_object_array_add(fl, json_object_new_string("ref_remap"));
		if (d->t10dif.flags & DP_T10DIF_FLAG_APP_ESCAPE)
			json_object_array_add(fl, json_object_new_string("app_escape"));
		if (d->t10dif.flags & DP_T10DIF_FLAG_APP_REF_ESCAPE)
			json_object_array_add(fl, json_object_new_string("app_ref_escape"));
		json_object_object_add(s, "flags", fl);
		json_object_object_add(o, "t10dif", s);
	} else {
		static const char *const types[] = { "crc32", "crc32c", "crc64_xp10" };

		json_object_object_add(s, "type", json_object_new_string(types[d->crc.type <= 2 ? d->crc.type : 0]));
		json_object_object_add(s, "seed", json_object_new_uint64(d->crc.seed));
		json_object_object_add(o, "crc", s);
	}
	return o;
}

struct json_object *dp_transform_cfg_to_json(const struct dp_transform_cfg *cfg)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "mem", domain_to_json(&cfg->mem));
	json_object_object_add(o, "wire", domain_to_json(&cfg->wire));
	json_object_object_add(o, "check_mask", json_object_new_int(cfg->check_mask));
	if (cfg->copy_mask_set)
		json_object_object_add(o, "copy_mask", json_object_new_int(cfg->copy_mask));
	if (cfg->crypto.enabled) {
		struct json_object *c = json_object_new_object();
		char hex[33];

		for (int i = 0; i < 16; i++)
			snprintf(hex + 2 * i, 3, "%02x", cfg->crypto.initial_tweak[i]);
		json_object_object_add(c, "standard", json_object_new_string("aes_xts"));
		json_object_object_add(c, "encrypt_on_tx", json_object_new_boolean(cfg->crypto.encrypt_on_tx));
		json_object_object_add(c, "signature_crypto_order", json_object_new_string(
			cfg->crypto.order == DP_SIG_BEFORE_CRYPTO_ON_TX ? "signature_before_crypto_on_tx"
									 : "signature_after_crypto_on_tx"));
		json_object_object_add(c, "data_unit_size", json_object_new_int64(cfg->crypto.data_unit_size));
		json_object_object_add(c, "initial_tweak", json_object_new_string(hex));
		json_object_object_add(o, "crypto", c);
	}
	return o;
}

struct json_object *dp_sig_err_to_json(const struct dp_sig_err *e)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "err_type", json_object_new_string(dp_sig_err_type_name(e->type)));
	json_object_object_add(o, "expected_value", json_object_new_uint64(e->expected));
	json_object_object_add(o, "actual_value", json_object_new_uint64(e->actual));
	json_object_object_add(o, "offset", json_object_new_uint64(e->offset));
	return o;
}
