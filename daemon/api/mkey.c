/* SPDX-License-Identifier: MIT */
/* io.rdmad.Mkey */
#include "daemon/api/vocab.h"
#include "daemon/api/api.h"
#include "daemon/api/tenant.h"
#include "daemon/api/application.h"
#include "daemon/api/dispatch.h"
#include "daemon/api/mkey_conf.h"
#include "daemon/api/lend.h"
#include "daemon/verbs/dek.h"
#include "daemon/verbs/mkey.h"
#include "daemon/verbs/pool.h"
#include "dataplane/offload/transform_json.h"
#include "lib/base64.h"

#include <errno.h>
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

/*
 * The configuration in effect; crypto.dek (the handle) and crypto.dek_name are
 * null for a caller who may not know DEKs.
 */
static struct json_object *config_json(const struct rdma_mkey *mkey, bool knows_deks)
{
	struct json_object *o, *crypto;

	if (!mkey->sig_set && !mkey->crypto_set)
		return NULL;
	o = dp_transform_cfg_to_json(&mkey->cfg);
	if (mkey->crypto_set && json_object_object_get_ex(o, "crypto", &crypto) && crypto) {
		bool named = knows_deks && mkey->dek_obj;

		api_add_named_ref(crypto, "dek", knows_deks, mkey->crypto.dek,
				  named ? rdma_dek(mkey->dek_obj)->name : NULL);
		json_add_bool(crypto, "keytag", mkey->crypto.has_keytag);
	}
	return o;
}

static struct json_object *mkey_json(struct varlink_call *call, struct rdma_device *dev,
				     struct rdma_object *obj)
{
	struct rdma_mkey *mkey = rdma_mkey(obj);
	struct json_object *o = json_object_new_object();
	uint64_t transfers, sig_errors[DP_SIG_ERR_APPTAG + 1];

	api_add_record_head(o, dev, &mkey->obj);
	json_add_uint(o, "mkeyn", mkey->obj.handle >> 8);
	json_add_uint(o, "pd", mkey->pd->handle);
	json_add_uint(o, "lkey", mkey->obj.handle);
	json_add_uint(o, "rkey", mkey->obj.handle);
	json_object_object_add(o, "flags", words_json(mkey->flags, rdma_mkey_flag_name));
	json_add_uint(o, "max_entries", mkey->max_entries);
	json_add_string(o, "state", mkey->configured ? "configured" : "free");
	json_object_object_add(o, "access", words_json(mkey->access, rdma_mkey_access_name));
	json_object_object_add(o, "layout", layout_json(&mkey->layout));
	json_add_uint(o, "length", rdma_mkey_length(mkey));
	json_object_object_add(o, "config", config_json(mkey, api_caller_knows_deks(call)));
	json_add_bool(o, "sig_armed", mkey->sig_armed);
	json_add_bool(o, "sig_error_pending", mkey->err_pending);
	json_add_uint(o, "configures", mkey->configures);
	rdma_mkey_counts(mkey, &transfers, sig_errors);
	json_add_uint(o, "transfers", transfers);
	json_object_object_add(o, "sig_errors", api_sig_errors_json(sig_errors));
	api_add_named_ref(o, "pool", mkey->pool != NULL, mkey->pool ? mkey->pool->obj.handle : 0,
			  mkey->pool ? rdma_pool_name(mkey->pool) : NULL);
	json_add_bool(o, "borrowed", mkey->borrower != NULL);
	return o;
}

static int api_reply_mkey(struct varlink_call *call, struct rdma_device *dev, struct rdma_mkey *mkey)
{
	struct json_object *reply = json_object_new_object();

	json_object_object_add(reply, "mkey", mkey_json(call, dev, &mkey->obj));
	return api_reply(call, reply);
}

/* The device and the MKEY named by "handle"; NULL when the call was answered. */
static struct rdma_mkey *call_mkey(struct varlink_call *call, struct json_object *params,
				   void *userdata, struct rdma_device **dev)
{
	struct rdma_object *obj = api_lookup(call, userdata, params, IFACE, RDMA_OBJ_MKEY, dev);

	return obj ? rdma_mkey(obj) : NULL;
}

struct create_params {
	uint32_t pd, max_entries, flags;
};

static const struct api_field create_fields[] = {
	{ .name = "pd", .type = API_FIELD_HANDLE, .offset = offsetof(struct create_params, pd),
	  .required = true },
	{ .name = "max_entries", .type = API_FIELD_U32, .required = true, .invalid_parameter = true,
	  .offset = offsetof(struct create_params, max_entries) },
	{ .name = "flags", .type = API_FIELD_FLAGS, .offset = offsetof(struct create_params, flags),
	  .word = rdma_mkey_flag_name, .max = RDMA_MKEY_FLAGS_ALL },
	{ NULL },
};

/* An application's MKEY goes on its own PD. */
static const struct api_ref pd_ref[] = { { "pd", RDMA_OBJ_PD }, { NULL, 0 } };

static int create(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev = api_device(call, userdata, params, IFACE);
	struct create_params p = { 0 };
	struct rdma_error err = { 0 };
	struct rdma_mkey *mkey;
	int r;

	if (!dev || api_dispatch(call, params, create_fields, &p) < 0 ||
	    !api_application_refs_ok(call, IFACE, dev, params, pd_ref))
		return 0;
	if (api_tenant_may_create(call, userdata, RDMA_OBJ_MKEY, 0, &err) < 0)
		return api_reply_error(call, IFACE, &err);
	r = rdma_mkey_create(dev, p.pd, p.flags, p.max_entries, &mkey, &err);
	if (r < 0)
		return api_reply_failure(call, IFACE, &err, r);
	api_application_own(call, dev, &mkey->obj);
	return api_reply_mkey(call, dev, mkey);
}

static int list(struct varlink_call *call, struct json_object *params, void *userdata)
{
	return api_list_for_caller(call, userdata, params, IFACE, RDMA_OBJ_MKEY, "mkeys", mkey_json);
}

static int show(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_mkey *mkey = call_mkey(call, params, userdata, &dev);

	return mkey ? api_reply_mkey(call, dev, mkey) : 0;
}

/* A pool's MKEY goes with its pool only. */
static int destroy_mkey(struct rdma_device *dev, enum rdma_object_kind kind, uint32_t handle,
			struct rdma_error *err)
{
	return rdma_mkey_destroy(dev, handle, err);
}

static int destroy(struct varlink_call *call, struct json_object *params, void *userdata)
{
	return api_destroy_by(call, userdata, params, IFACE, RDMA_OBJ_MKEY, destroy_mkey);
}

static int configure(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_mkey *mkey = call_mkey(call, params, userdata, &dev);
	struct rdma_lend_caller caller = api_lend_caller(call);
	struct configure_params p = { 0 };
	struct rdma_error err = { 0 };
	struct rdma_mkey_conf conf;
	int r;

	if (!mkey || api_dispatch(call, params, api_mkey_configure_fields, &p) < 0)
		return 0;
	r = api_mkey_conf_from_params(&p, &caller, &conf, &err);
	api_dispatch_free(api_mkey_configure_fields, &p);
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
	r = rdma_mkey_check(mkey, &rec, &err);
	if (r < 0)
		return api_reply_failure(call, IFACE, &err, r);
	reply = json_object_new_object();
	json_object_object_add(reply, "record", dp_sig_err_to_json(&rec));
	return api_reply(call, reply);
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
		r = pos < len ? api_reply_more(call, o) : api_reply(call, o);
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

struct rx_params {
	uint64_t offset;
	const char *data;
	bool last;
};

static const struct api_field rx_fields[] = {
	{ .name = "offset", .type = API_FIELD_U64, .offset = offsetof(struct rx_params, offset),
	  .required = true, .invalid_parameter = true },
	{ .name = "data", .type = API_FIELD_STRING, .offset = offsetof(struct rx_params, data) },
	{ .name = "last", .type = API_FIELD_BOOL, .offset = offsetof(struct rx_params, last) },
	{ NULL },
};

static int rx(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_mkey *mkey = call_mkey(call, params, userdata, &dev);
	struct rdma_error err = { 0 };
	struct rx_params p = { .data = "" };
	struct json_object *reply;
	struct dp_sig_err xfer;
	struct upload *u = NULL;
	size_t out_len = 0;
	int r;

	if (!mkey || api_dispatch(call, params, rx_fields, &p) < 0)
		return 0;
	r = upload_add(call, dev, mkey->obj.handle, p.offset, p.data, &u, &err);
	if (r < 0) {
		/* A broken upload is not continued. */
		upload_drop(upload_find(varlink_call_connection(call)));
		return api_reply_failure(call, IFACE, &err, r);
	}
	reply = json_object_new_object();
	json_add_uint(reply, "received", u->len);
	if (!p.last) {
		json_add_uint(reply, "length", 0);
		return api_reply(call, reply);
	}
	r = rdma_mkey_rx(dev, mkey, u->buf, u->len, &out_len, &xfer, &err);
	upload_drop(upload_find(varlink_call_connection(call)));
	if (r < 0) {
		json_object_put(reply);
		return api_reply_failure(call, IFACE, &err, r);
	}
	json_add_uint(reply, "length", out_len);
	json_object_object_add(reply, "sig_error", dp_sig_err_to_json(&xfer));
	return api_reply(call, reply);
}

const struct varlink_method api_mkey_methods[] = {
	{ "Create", create, VARLINK_METHOD_PRIVILEGED | API_METHOD_OWN },
	{ "List", list, 0 },
	{ "Show", show, 0 },
	{ "Destroy", destroy, VARLINK_METHOD_PRIVILEGED | API_METHOD_OWN },
	{ "Configure", configure, VARLINK_METHOD_PRIVILEGED | API_METHOD_OWN },
	{ "Check", check, VARLINK_METHOD_PRIVILEGED | API_METHOD_OWN },
	{ "Tx", tx, VARLINK_METHOD_PRIVILEGED | API_METHOD_OWN },
	{ "Rx", rx, VARLINK_METHOD_PRIVILEGED | API_METHOD_OWN },
	{ NULL, NULL, 0 },
};
