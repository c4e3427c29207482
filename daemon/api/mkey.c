/* SPDX-License-Identifier: MIT */
/* io.rdmad.Mkey */
#include "daemon/api/api.h"
#include "daemon/soft/datapath.h"
#include "daemon/verbs/mkey.h"
#include "daemon/verbs/pool.h"
#include "dataplane/offload/transform_json.h"
#include "lib/base64.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IFACE "io.rdmad.Mkey"

/* Bytes of one Tx reply chunk: its base64 stays well inside a 16 MiB message. */
#define CHUNK_MAX (8u << 20)

static struct json_object *words_json(uint32_t bits, const char *(*name)(uint32_t))
{
	struct json_object *a = json_object_new_array();

	for (uint32_t bit = 1; bit && bit <= bits; bit <<= 1)
		if ((bits & bit) && name(bit))
			json_object_array_add(a, json_object_new_string(name(bit)));
	return a;
}

/* A word list (checked by the IDL) as bits. */
static uint32_t words_bits(struct json_object *list, uint32_t all, const char *(*name)(uint32_t))
{
	uint32_t bits = 0;

	for (size_t i = 0; i < json_object_array_length(list); i++) {
		const char *word = json_object_get_string(json_object_array_get_idx(list, i));

		for (uint32_t bit = 1; bit && bit <= all; bit <<= 1)
			if ((all & bit) && name(bit) && strcmp(word, name(bit)) == 0)
				bits |= bit;
	}
	return bits;
}

static struct json_object *layout_json(const struct rdma_mkey_layout *l)
{
	struct json_object *o, *entries;

	if (l->type == RDMA_LAYOUT_NONE)
		return NULL;
	o = json_object_new_object();
	entries = json_object_new_array();
	json_add_string(o, "layout_type", l->type == RDMA_LAYOUT_LIST ? "list" : "interleaved");
	json_add_uint(o, "repeat_count", l->type == RDMA_LAYOUT_LIST ? 1 : l->repeat_count);
	for (unsigned i = 0; i < l->n; i++) {
		struct json_object *e = json_object_new_object();

		json_add_uint(e, "mr", l->entries[i].mr);
		json_add_uint(e, "offset", l->entries[i].offset);
		json_add_uint(e, "bytes_count", l->entries[i].length);
		json_add_uint(e, "bytes_skip", l->entries[i].skip);
		json_object_array_add(entries, e);
	}
	json_object_object_add(o, "entries", entries);
	return o;
}

static struct json_object *config_json(const struct rdma_mkey *mkey)
{
	struct json_object *o, *crypto;

	if (!mkey->sig_set && !mkey->crypto_set)
		return NULL;
	o = dp_transform_cfg_to_json(&mkey->cfg);
	if (mkey->crypto_set && json_object_object_get_ex(o, "crypto", &crypto) && crypto) {
		json_add_uint(crypto, "dek", mkey->crypto.dek);
		json_add_bool(crypto, "keytag", mkey->crypto.has_keytag);
	}
	return o;
}

static struct json_object *mkey_json(struct rdma_device *dev, struct rdma_mkey *mkey)
{
	struct json_object *o = json_object_new_object();

	json_add_string(o, "device", dev->name);
	json_add_uint(o, "handle", mkey->obj.handle);
	json_add_uint(o, "mkeyn", mkey->obj.handle >> 8);
	json_add_uint(o, "pdn", mkey->pd->handle);
	json_add_uint(o, "lkey", mkey->obj.handle);
	json_add_uint(o, "rkey", mkey->obj.handle);
	json_object_object_add(o, "flags", words_json(mkey->flags, rdma_mkey_flag_name));
	json_add_uint(o, "max_entries", mkey->max_entries);
	json_add_string(o, "state", mkey->configured ? "configured" : "free");
	json_object_object_add(o, "access", words_json(mkey->access, rdma_mkey_access_name));
	json_object_object_add(o, "layout", layout_json(&mkey->layout));
	json_add_uint(o, "length", rdma_mkey_length(mkey));
	json_object_object_add(o, "config", config_json(mkey));
	json_add_bool(o, "sig_armed", mkey->sig_armed);
	json_add_bool(o, "sig_error_pending", mkey->err_pending);
	json_add_uint(o, "configures", mkey->configures);
	json_add_uint(o, "transfers", mkey->counters.transfers);
	json_add_uint(o, "sig_errors", mkey->counters.sig_errors);
	json_object_object_add(o, "pool", mkey->pool ?
			       json_object_new_string(rdma_pool_name(mkey->pool)) : NULL);
	json_add_bool(o, "borrowed", mkey->borrower != NULL);
	return o;
}

static int api_reply_mkey(struct varlink_call *call, struct rdma_device *dev, struct rdma_mkey *mkey)
{
	struct json_object *reply = json_object_new_object();

	json_object_object_add(reply, "mkey", mkey_json(dev, mkey));
	return varlink_call_reply(call, reply);
}

/* The device and the MKEY named by "handle"; NULL when the call was answered. */
static struct rdma_mkey *call_mkey(struct varlink_call *call, struct json_object *params,
				   void *userdata, struct rdma_device **dev)
{
	struct rdma_error err = { 0 };
	struct rdma_mkey *mkey;
	uint32_t handle;

	*dev = api_device(call, userdata, params, IFACE);
	if (!*dev || api_get_handle(call, params, "handle", &handle) < 0)
		return NULL;
	mkey = rdma_mkey_lookup(*dev, handle, &err);
	if (!mkey)
		api_reply_error(call, IFACE, &err);
	return mkey;
}

static int create(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev = api_device(call, userdata, params, IFACE);
	struct rdma_error err = { 0 };
	struct rdma_mkey *mkey;
	int64_t entries = json_get_int(params, "max_entries", -1);
	uint32_t pd, flags;
	int r;

	if (!dev || api_get_handle(call, params, "pd", &pd) < 0)
		return 0;
	if (entries < 0 || entries > UINT32_MAX)
		return varlink_call_error_invalid_parameter(call, "max_entries");
	flags = words_bits(json_object_object_get(params, "flags"), RDMA_MKEY_FLAGS_ALL,
			   rdma_mkey_flag_name);
	r = rdma_mkey_create(dev, pd, flags, (uint32_t)entries, &mkey, &err);
	if (r < 0)
		return api_reply_failure(call, IFACE, &err, r);
	return api_reply_mkey(call, dev, mkey);
}

static int list(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev = api_device(call, userdata, params, IFACE);
	struct json_object *reply, *mkeys;
	struct rdma_object *obj;

	if (!dev)
		return 0;
	mkeys = json_object_new_array();
	for (uint32_t pos = 0; (obj = object_table_next(&dev->tables[RDMA_OBJ_MKEY], &pos)); )
		json_object_array_add(mkeys, mkey_json(dev, rdma_mkey(obj)));
	reply = json_object_new_object();
	json_object_object_add(reply, "mkeys", mkeys);
	return varlink_call_reply(call, reply);
}

static int show(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_mkey *mkey = call_mkey(call, params, userdata, &dev);

	return mkey ? api_reply_mkey(call, dev, mkey) : 0;
}

static int destroy(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev = api_device(call, userdata, params, IFACE);
	struct rdma_error err = { 0 };
	uint32_t handle;
	int r;

	if (!dev || api_get_handle(call, params, "handle", &handle) < 0)
		return 0;
	r = rdma_mkey_destroy(dev, handle, &err);
	if (r < 0)
		return api_reply_failure(call, IFACE, &err, r);
	return varlink_call_reply(call, NULL);
}

/* ---- configure: JSON to struct rdma_mkey_conf ---- */

/* A member of an entry as an unsigned number up to max; InvalidArgument naming it otherwise. */
static int entry_number(struct json_object *entry, const char *key, uint64_t max, const char *prefix,
			size_t i, uint64_t *out, struct rdma_error *err)
{
	int64_t v = json_get_int(entry, key, -1);
	char field[64];

	if (v >= 0 && (uint64_t)v <= max) {
		*out = (uint64_t)v;
		return 0;
	}
	snprintf(field, sizeof(field), "%s[%zu].%s", prefix, i, key);
	return rdma_error_invalid(err, field, "0 to %llu", (unsigned long long)max);
}

static int layout_from_json(struct json_object *list, bool interleaved, struct rdma_mkey_layout *l,
			    struct rdma_error *err)
{
	const char *prefix = interleaved ? "interleaved.entries" : "layout";
	size_t n = json_object_array_length(list);

	if (n > UINT16_MAX)
		return rdma_error_invalid(err, prefix, "at most %u entries", UINT16_MAX);
	l->type = interleaved ? RDMA_LAYOUT_INTERLEAVED : RDMA_LAYOUT_LIST;
	l->n = (uint16_t)n;
	l->entries = calloc(n ? n : 1, sizeof(*l->entries));
	if (!l->entries)
		return rdma_error_system(err, -ENOMEM);
	for (size_t i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(list, i);
		struct rdma_mkey_entry *d = &l->entries[i];
		uint64_t mr, skip = 0;
		int r;

		r = entry_number(e, "mr", UINT32_MAX, prefix, i, &mr, err);
		if (r == 0)
			r = entry_number(e, "offset", INT64_MAX, prefix, i, &d->offset, err);
		if (r == 0)
			r = entry_number(e, interleaved ? "bytes_count" : "length", INT64_MAX, prefix, i,
					 &d->length, err);
		if (r == 0 && interleaved)
			r = entry_number(e, "bytes_skip", UINT32_MAX, prefix, i, &skip, err);
		if (r < 0)
			return r;
		d->mr = (uint32_t)mr;
		d->skip = (uint32_t)skip;
	}
	return 0;
}

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

/*
 * Takes crypto.dek and crypto.keytag out of the (copied) configuration, which
 * is then exactly what the offload engine parses.
 */
static int crypto_extras(struct json_object *crypto, struct rdma_mkey_crypto *out,
			 struct rdma_error *err)
{
	struct json_object *v;

	if (json_object_object_get_ex(crypto, "dek", &v)) {
		int64_t dek = json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : -1;

		if (dek <= 0 || dek > UINT32_MAX)
			return rdma_error_invalid(err, "config.crypto.dek", "the handle of a DEK");
		out->dek = (uint32_t)dek;
		json_object_object_del(crypto, "dek");
	}
	if (json_object_object_get_ex(crypto, "keytag", &v)) {
		int r = keytag_from_json(v, out, err);

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

static bool has_key(struct json_object *o, const char *key)
{
	return json_object_object_get_ex(o, key, NULL);
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
	    json_object_is_type(crypto, json_type_object))
		r = crypto_extras(crypto, &conf->crypto, err);
	if (r == 0 && dp_transform_cfg_from_json(copy, &conf->cfg, &de) < 0) {
		char field[64];

		snprintf(field, sizeof(field), "config%s%.56s", *de.field ? "." : "", de.field);
		r = rdma_error_invalid(err, field, "%s", de.message);
	}
	json_object_put(copy);
	return r;
}

static int conf_from_json(struct json_object *params, struct rdma_mkey_conf *conf,
			  struct rdma_error *err)
{
	struct json_object *v, *layout = NULL, *interleaved = NULL;

	rdma_mkey_conf_init(conf);
	if (json_object_object_get_ex(params, "reset_sig_attr", &v) && v)
		conf->reset_sig_attr = json_object_get_boolean(v);
	if (json_object_object_get_ex(params, "access", &v) && v) {
		conf->set_access = true;
		conf->access = words_bits(v, RDMA_MKEY_ACCESS_ALL, rdma_mkey_access_name);
	}
	json_object_object_get_ex(params, "layout", &layout);
	json_object_object_get_ex(params, "interleaved", &interleaved);
	if (layout && interleaved)
		return rdma_error_invalid(err, "interleaved", "one layout per configure: layout or interleaved");
	if (layout || interleaved) {
		int r;

		conf->set_layout = true;
		if (interleaved) {
			int64_t repeat = json_get_int(interleaved, "repeat_count", -1);

			if (repeat < 0 || repeat > UINT32_MAX)
				return rdma_error_invalid(err, "interleaved.repeat_count", "1 to %u", UINT32_MAX);
			conf->layout.repeat_count = (uint32_t)repeat;
			r = layout_from_json(json_object_object_get(interleaved, "entries"), true,
					     &conf->layout, err);
		} else {
			r = layout_from_json(layout, false, &conf->layout, err);
		}
		if (r < 0)
			return r;
	}
	if (json_object_object_get_ex(params, "config", &v) && v)
		return config_from_json(v, conf, err);
	return 0;
}

static int configure(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_mkey *mkey = call_mkey(call, params, userdata, &dev);
	struct rdma_error err = { 0 };
	struct rdma_mkey_conf conf;
	int r;

	if (!mkey)
		return 0;
	r = conf_from_json(params, &conf, &err);
	if (r == 0)
		r = rdma_mkey_configure(dev, mkey, &conf, &err);
	free(conf.layout.entries);
	explicit_bzero(&conf.crypto, sizeof(conf.crypto));
	if (r < 0)
		return api_reply_failure(call, IFACE, &err, r);
	return api_reply_mkey(call, dev, mkey);
}

static int check(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_mkey *mkey = call_mkey(call, params, userdata, &dev);
	struct rdma_error err = { 0 };
	struct json_object *reply;
	struct dp_sig_err rec;
	int r;

	if (!mkey)
		return 0;
	/* As polling the CQ first: the errors the workers found are on the MKEY before it is read. */
	rdma_datapath_sync(dev);
	r = rdma_mkey_check(mkey, &rec, &err);
	if (r < 0)
		return api_reply_failure(call, IFACE, &err, r);
	reply = json_object_new_object();
	json_object_object_add(reply, "record", dp_sig_err_to_json(&rec));
	return varlink_call_reply(call, reply);
}

/* ---- transfers ---- */

static struct json_object *chunk_json(const uint8_t *p, size_t n, size_t offset, size_t total)
{
	struct json_object *o = json_object_new_object();
	char *text = malloc(base64_encoded_size(n) + 1);

	if (!text) {
		json_object_put(o);
		return NULL;
	}
	base64_encode(p, n, text);
	json_object_object_add(o, "data", json_object_new_string(text));
	free(text);
	json_add_uint(o, "offset", offset);
	json_add_uint(o, "length", total);
	return o;
}

static int tx(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_mkey *mkey = call_mkey(call, params, userdata, &dev);
	struct rdma_error err = { 0 };
	struct dp_sig_err xfer;
	uint8_t *out = NULL;
	size_t len, pos = 0;
	int r;

	if (!mkey)
		return 0;
	r = rdma_mkey_tx_length(dev, mkey, &len, &err);
	if (r == 0 && len > CHUNK_MAX && !varlink_call_wants_more(call))
		r = rdma_error_invalid(&err, "more", "%zu bytes come in several replies: call with more",
				       len);
	if (r == 0)
		r = rdma_mkey_tx(dev, mkey, &out, &len, &xfer, &err);
	if (r < 0)
		return api_reply_failure(call, IFACE, &err, r);
	do {
		size_t n = len - pos < CHUNK_MAX ? len - pos : CHUNK_MAX;
		struct json_object *o = chunk_json(out + pos, n, pos, len);

		if (!o) {
			r = -ENOMEM;
			break;
		}
		json_object_object_add(o, "sig_error", dp_sig_err_to_json(&xfer));
		pos += n;
		r = pos < len ? varlink_call_reply_more(call, o) : varlink_call_reply(call, o);
	} while (r == 0 && pos < len);
	free(out);
	return r;
}

/* An RX transfer being uploaded on a connection (one at a time per connection). */
struct upload {
	struct upload *next;
	struct varlink_connection *conn;
	struct rdma_device *dev;
	uint32_t handle;
	uint8_t *buf;
	size_t len, cap;
};

static struct upload *uploads;

static struct upload **upload_find(struct varlink_connection *conn)
{
	struct upload **u = &uploads;

	while (*u && (*u)->conn != conn)
		u = &(*u)->next;
	return u;
}

static void upload_drop(struct upload **u)
{
	struct upload *dead = *u;

	if (!dead)
		return;
	*u = dead->next;
	free(dead->buf);
	free(dead);
}

void api_mkey_connection_closed(struct varlink_connection *conn, struct manager *m)
{
	upload_drop(upload_find(conn));
}

/* Appends a chunk at offset to this connection's upload (offset 0 starts one). */
static int upload_add(struct varlink_call *call, struct rdma_device *dev, uint32_t handle,
		      uint64_t offset, const char *text, struct upload **out, struct rdma_error *err)
{
	struct upload **slot = upload_find(varlink_call_connection(call)), *u;
	size_t text_len = strlen(text), n;

	if (offset == 0) {
		upload_drop(slot);
		u = calloc(1, sizeof(*u));
		if (!u)
			return rdma_error_system(err, -ENOMEM);
		u->conn = varlink_call_connection(call);
		u->dev = dev;
		u->handle = handle;
		u->next = uploads;
		uploads = u;
		slot = &uploads;
	}
	u = *slot;
	if (!u)
		return rdma_error_state(err, "offset", "no transfer in progress: start at offset 0");
	if (u->dev != dev || u->handle != handle)
		return rdma_error_state(err, "handle", "the transfer in progress is for MKEY %u", u->handle);
	if (offset != u->len)
		return rdma_error_invalid(err, "offset", "the next chunk starts at %zu", u->len);
	if (u->len + base64_decoded_max(text_len) > u->cap) {
		size_t cap = u->len + base64_decoded_max(text_len);
		uint8_t *buf = realloc(u->buf, cap ? cap : 1);

		if (!buf)
			return rdma_error_system(err, -ENOMEM);
		u->buf = buf;
		u->cap = cap;
	}
	if (base64_decode(text, text_len, u->buf + u->len, &n) < 0)
		return rdma_error_invalid(err, "data", "not base64 (RFC 4648, with padding)");
	if (n > RDMA_MKEY_TRANSFER_MAX - u->len)
		return rdma_error_unsupported(err, "data", "one transfer carries at most %u bytes",
					      RDMA_MKEY_TRANSFER_MAX);
	u->len += n;
	*out = u;
	return 0;
}

static int rx(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_mkey *mkey = call_mkey(call, params, userdata, &dev);
	struct rdma_error err = { 0 };
	struct json_object *reply;
	struct dp_sig_err xfer;
	struct upload *u = NULL;
	int64_t offset = json_get_int(params, "offset", -1);
	size_t out_len = 0;
	int r;

	if (!mkey)
		return 0;
	if (offset < 0)
		return varlink_call_error_invalid_parameter(call, "offset");
	r = upload_add(call, dev, mkey->obj.handle, (uint64_t)offset, json_get_string(params, "data"),
		       &u, &err);
	if (r < 0) {
		/* A broken upload is not continued. */
		upload_drop(upload_find(varlink_call_connection(call)));
		return api_reply_failure(call, IFACE, &err, r);
	}
	reply = json_object_new_object();
	json_add_uint(reply, "received", u->len);
	if (!json_object_get_boolean(json_object_object_get(params, "last"))) {
		json_add_uint(reply, "length", 0);
		return varlink_call_reply(call, reply);
	}
	r = rdma_mkey_rx(dev, mkey, u->buf, u->len, &out_len, &xfer, &err);
	upload_drop(upload_find(varlink_call_connection(call)));
	if (r < 0) {
		json_object_put(reply);
		return api_reply_failure(call, IFACE, &err, r);
	}
	json_add_uint(reply, "length", out_len);
	json_object_object_add(reply, "sig_error", dp_sig_err_to_json(&xfer));
	return varlink_call_reply(call, reply);
}

const struct varlink_method api_mkey_methods[] = {
	{ "Create", create, VARLINK_METHOD_PRIVILEGED },
	{ "List", list, 0 },
	{ "Show", show, 0 },
	{ "Destroy", destroy, VARLINK_METHOD_PRIVILEGED },
	{ "Configure", configure, VARLINK_METHOD_PRIVILEGED },
	{ "Check", check, VARLINK_METHOD_PRIVILEGED },
	{ "Tx", tx, VARLINK_METHOD_PRIVILEGED },
	{ "Rx", rx, VARLINK_METHOD_PRIVILEGED },
	{ NULL, NULL, 0 },
};
