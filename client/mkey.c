/* SPDX-License-Identifier: MIT */
/* Indirect MKEYs (mlx5dv_create_mkey, configure, check), MKEY pools, and DEK lookup. */
#include "client/internal.h"

#include <stdlib.h>
#include <string.h>

/* The configuration object rdmad takes: bounded, as everything a caller hands in. */
#define CONFIG_JSON_MAX 65536

static struct rdmad_mkey *mkey_new(struct rdmad_context *ctx, struct rdmad_pd *pd, uint32_t key,
				   bool from_pool)
{
	struct rdmad_mkey *mkey = calloc(1, sizeof(*mkey));

	if (!mkey)
		return NULL;
	*mkey = (struct rdmad_mkey){ .context = ctx, .pd = pd, .lkey = key, .rkey = key,
				     .from_pool = from_pool };
	return client_hold(ctx, mkey);
}

struct rdmad_mkey *rdmad_create_mkey(struct rdmad_pd *pd, unsigned flags, unsigned max_entries)
{
	struct json_object *p = json_object_new_object(), *words = json_object_new_array();
	struct json_object *reply = NULL;
	struct rdmad_mkey *mkey;
	int r;

	client_add_u64(p, "pd", pd->handle);
	client_add_u64(p, "max_entries", max_entries);
	if (flags & RDMAD_MKEY_BLOCK_SIGNATURE)
		json_object_array_add(words, json_object_new_string("block_signature"));
	if (flags & RDMAD_MKEY_CRYPTO)
		json_object_array_add(words, json_object_new_string("crypto"));
	if (flags & RDMAD_MKEY_REMOTE_INVALIDATE)
		json_object_array_add(words, json_object_new_string("remote_invalidate"));
	json_object_object_add(p, "flags", words);
	r = client_call(pd->context, "io.rdmad.Mkey.Create", p, NULL, 0, &reply);
	if (r < 0)
		return client_fail_null(r);
	mkey = mkey_new(pd->context, pd, (uint32_t)client_get_u64(client_get(reply, "mkey"), "handle"),
			false);
	json_object_put(reply);
	/* Created but not described: rdmad reclaims it when the context closes. */
	return mkey ? mkey : client_fail_null(client_fail(-ENOMEM, "out of memory"));
}

int rdmad_destroy_mkey(struct rdmad_mkey *mkey)
{
	int r;

	if (mkey->from_pool)
		return client_fail(-EINVAL, "MKEY 0x%x is a pool's: give it back with rdmad_pool_return",
				   mkey->lkey);
	r = client_destroy_handle(mkey->context, "io.rdmad.Mkey.Destroy", mkey->lkey);
	if (r == 0)
		client_release(mkey->context, mkey);
	return r;
}

static struct json_object *layout_json(const struct rdmad_mkey_layout_entry *layout, unsigned n)
{
	struct json_object *list = json_object_new_array();

	for (unsigned i = 0; i < n; i++) {
		struct json_object *e = json_object_new_object();

		client_add_u64(e, "mr", layout[i].mr->lkey);
		client_add_u64(e, "offset", layout[i].offset);
		client_add_u64(e, "length", layout[i].length);
		json_object_array_add(list, e);
	}
	return list;
}

int client_configure_mkey(struct rdmad_mkey *mkey, unsigned access,
			  const struct rdmad_mkey_layout_entry *layout, unsigned n,
			  struct json_object *config, int reset_sig_attr)
{
	struct json_object *p = json_object_new_object();

	for (unsigned i = 0; i < n; i++)
		if (!layout || !layout[i].mr) {
			json_object_put(config);
			json_object_put(p);
			return client_fail(-EINVAL, "layout[%u]: no MR", i);
		}
	if (config)
		json_object_object_add(p, "config", config);
	client_add_u64(p, "handle", mkey->lkey);
	client_add_bool(p, "reset_sig_attr", reset_sig_attr);
	json_object_object_add(p, "access", client_access_words(access & ~RDMAD_ACCESS_ON_DEMAND));
	if (n)
		json_object_object_add(p, "layout", layout_json(layout, n));
	return client_call(mkey->context, "io.rdmad.Mkey.Configure", p, NULL, 0, NULL);
}

int rdmad_configure_mkey(struct rdmad_mkey *mkey, unsigned access,
			 const struct rdmad_mkey_layout_entry *layout, unsigned n,
			 const char *config_json, int reset_sig_attr)
{
	struct json_object *config = NULL;

	client_ok();
	if (config_json) {
		config = strnlen(config_json, CONFIG_JSON_MAX + 1) <= CONFIG_JSON_MAX ?
			 json_tokener_parse(config_json) : NULL;
		if (!config || !json_object_is_type(config, json_type_object)) {
			json_object_put(config);
			return client_fail(-EINVAL, "config: not a JSON object");
		}
	}
	return client_configure_mkey(mkey, access, layout, n, config, reset_sig_attr);
}

int rdmad_check_mkey(struct rdmad_mkey *mkey, struct rdmad_mkey_err *err)
{
	static const char *const types[] = { "none", "guard", "apptag", "reftag" };
	struct json_object *reply = NULL, *rec;
	const char *type;
	int r;

	r = client_call(mkey->context, "io.rdmad.Mkey.Check",
			client_add_u64(json_object_new_object(), "handle", mkey->lkey), NULL, 0, &reply);
	if (r < 0)
		return r;
	rec = client_get(reply, "record");
	type = client_get_str(rec, "err_type");
	memset(err, 0, sizeof(*err));
	for (uint32_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(type, types[i]))
			err->err_type = i;
	err->expected_value = client_get_u64(rec, "expected_value");
	err->actual_value = client_get_u64(rec, "actual_value");
	err->offset = client_get_u64(rec, "offset");
	json_object_put(reply);
	return 0;
}

struct rdmad_mkey *rdmad_pool_borrow(struct rdmad_context *ctx, const char *name)
{
	struct json_object *reply = NULL;
	struct rdmad_mkey *mkey;
	int r;

	client_ok();
	if (!name)
		return client_fail_null(client_fail(-EINVAL, "name: a pool's name"));
	/* Held by the connection, not an owner name: it comes back when the program goes. */
	r = client_call(ctx, "io.rdmad.Pool.Borrow", client_add_str(json_object_new_object(), "name", name),
			NULL, 0, &reply);
	if (r < 0)
		return client_fail_null(r);
	mkey = mkey_new(ctx, NULL, (uint32_t)client_get_u64(reply, "mkey"), true);
	json_object_put(reply);
	return mkey ? mkey : client_fail_null(client_fail(-ENOMEM, "out of memory"));
}

int rdmad_pool_return(struct rdmad_mkey *mkey)
{
	int r;

	if (!mkey->from_pool)
		return client_fail(-EINVAL, "MKEY 0x%x is no pool's: destroy it", mkey->lkey);
	r = client_call(mkey->context, "io.rdmad.Pool.Return",
			client_add_u64(json_object_new_object(), "handle", mkey->lkey), NULL, 0, NULL);
	if (r == 0)
		client_release(mkey->context, mkey);
	return r;
}

int rdmad_dek_lookup(struct rdmad_context *ctx, const char *name, struct rdmad_dek_attr *attr)
{
	struct json_object *reply = NULL, *d;
	int r;

	client_ok();
	if (!name)
		return client_fail(-EINVAL, "name: a DEK's name");
	r = client_call(ctx, "io.rdmad.Dek.Show", client_add_str(json_object_new_object(), "name", name),
			NULL, 0, &reply);
	if (r < 0)
		return r;
	d = client_get(reply, "dek");
	memset(attr, 0, sizeof(*attr));
	attr->handle = (uint32_t)client_get_u64(d, "handle");
	attr->size = (uint32_t)client_get_u64(d, "size");
	attr->has_keytag = json_object_get_boolean(client_get(d, "keytag"));
	attr->ready = !strcmp(client_get_str(d, "state"), "ready");
	json_object_put(reply);
	return 0;
}
