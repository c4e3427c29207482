/* SPDX-License-Identifier: MIT */
/* io.rdmad.Dek: DEKs and the crypto login.  Every method is API_METHOD_SECRET (root only). */
#include "daemon/api/vocab.h"
#include "daemon/api/api.h"
#include "daemon/api/change.h"
#include "daemon/api/dispatch.h"
#include "daemon/api/lend.h"
#include "daemon/verbs/crypto_login.h"
#include "daemon/verbs/dek.h"
#include "daemon/verbs/secret.h"
#include "daemon/core/state.h"
#include "lib/base64.h"
#include "lib/hex.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define IFACE "io.rdmad.Dek"

static struct json_object *dek_json(struct rdma_device *dev, struct rdma_object *obj)
{
	struct rdma_dek *dek = rdma_dek(obj);
	struct json_object *o = json_object_new_object();
	char opaque[2 * RDMA_DEK_OPAQUE_LEN + 1];

	hex_encode(dek->opaque, RDMA_DEK_OPAQUE_LEN, opaque);
	api_add_device(o, dev);
	json_add_uint(o, "handle", obj->handle);
	json_add_string(o, "name", dek->name);
	json_add_uint(o, "size", dek->key_bits);
	json_add_bool(o, "keytag", dek->has_keytag);
	json_add_string(o, "opaque", opaque);
	json_add_string(o, "import", rdma_dek_import_name(dek->import));
	json_object_object_add(o, "kek", dek->import == RDMA_DEK_WRAPPED ?
				      json_object_new_string(dek->kek) : NULL);
	json_object_object_add(o, "key_file", dek->key_file ? json_object_new_string(dek->key_file) :
								 NULL);
	json_add_bool(o, "persistent", dek->key_file != NULL);
	/* No PD is null, as every reference to nothing; 0 is no PD's handle to show. */
	json_object_object_add(o, "pd", dek->pd ? json_object_new_int64(dek->pd) : NULL);
	json_add_string(o, "state", rdma_dek_state_name(dek->state));
	json_object_object_add(o, "error", dek->state == RDMA_DEK_ERROR ?
					json_object_new_string(dek->error) : NULL);
	json_add_uint(o, "mkeys", rdma_object_count_users(dev, obj, RDMA_OBJ_MKEY));
	api_lend_add_json(o, rdma_lend_latest(&dek->allow));
	return o;
}

static int reply_login(struct varlink_call *call, struct manager *m, struct rdma_device *dev)
{
	struct json_object *o = json_object_new_object();
	const char *kek;
	enum rdma_crypto_login_state state = rdma_crypto_login_state(dev, &m->config.crypto, &kek);

	api_add_device(o, dev);
	json_add_string(o, "state", rdma_crypto_login_state_name(state));
	json_object_object_add(o, "kek", kek ? json_object_new_string(kek) : NULL);
	return api_reply_record(call, "login", o);
}

/* An optional parameter of 8 bytes as 16 hex digits; InvalidArgument naming it otherwise. */
static int get_hex8(const char *s, const char *key, uint8_t out[8], bool *given,
		    struct rdma_error *err)
{
	*given = s != NULL;
	memset(out, 0, 8);
	if (s && hex_decode(s, out, 8) < 0)
		return rdma_error_invalid(err, key, "'%s' is not 16 hexadecimal digits (8 bytes)", s);
	return 0;
}

/* Room for the longest key material, and then some, so an over-long key is told apart. */
#define KEY_TEXT_MAX (2 * RDMA_DEK_INPUT_MAX)
#define KEY_BUF      (KEY_TEXT_MAX / 4 * 3)

/*
 * The "key" parameter, base64, into key (KEY_BUF bytes).  The parameter's
 * text is wiped in every case: it is key material too, and json-c would free
 * it as it is.
 */
static int key_from_text(struct json_object *v, uint8_t *key, size_t *len, struct rdma_error *err)
{
	char *text = (char *)json_object_get_string(v);
	size_t n = strlen(text);
	int r = 0;

	if (n > KEY_TEXT_MAX)
		r = rdma_error_invalid(err, "key", "has more bytes than any key");
	else if (base64_decode(text, n, key, len) < 0)
		r = rdma_error_invalid(err, "key", "is not base64 (RFC 4648, with padding)");
	explicit_bzero(text, n);
	return r;
}

/*
 * The "key_fd" parameter: the index of a regular file or memfd passed with the
 * call, read from its start straight into key (KEY_BUF bytes), so that the key
 * never travels in a message nor lies in a buffer that is freed as it is.  Not
 * a pipe or a terminal: the event loop must not wait for a writer.
 */
static int key_from_fd(struct varlink_call *call, struct json_object *params, uint8_t *key,
		       size_t *len, struct rdma_error *err)
{
	int f = api_passed_fd(call, params, "key_fd", err);
	struct stat st;
	ssize_t n;
	int r = 0;

	if (f < 0)
		return f;
	if (fstat(f, &st) < 0 || !S_ISREG(st.st_mode))
		r = rdma_error_invalid(err, "key_fd", "not a regular file or memfd (a pipe or a terminal "
				       "would have the daemon wait)");
	else if ((size_t)st.st_size >= KEY_BUF)
		r = rdma_error_invalid(err, "key_fd", "has more bytes than any key");
	else if ((n = pread(f, key, KEY_BUF, 0)) < 0)
		r = rdma_error_invalid(err, "key_fd", "cannot be read (%s)", strerror(errno));
	else if ((size_t)n >= KEY_BUF)
		r = rdma_error_invalid(err, "key_fd", "has more bytes than any key");
	else
		*len = (size_t)n;
	return r;
}

/* The key given by value (key, or key_fd) into *key: secure memory of KEY_BUF bytes, for secret_free. */
static int get_key(struct varlink_call *call, struct json_object *params, uint8_t **key, size_t *len,
		   struct rdma_error *err)
{
	struct json_object *text = NULL, *fd = NULL;

	*key = NULL;
	*len = 0;
	json_object_object_get_ex(params, "key", &text);
	json_object_object_get_ex(params, "key_fd", &fd);
	if (!json_object_is_type(text, json_type_string) && !json_object_is_type(fd, json_type_int))
		return 0;
	*key = secret_alloc(KEY_BUF);
	if (!*key) {
		if (json_object_is_type(text, json_type_string))
			explicit_bzero((char *)json_object_get_string(text), json_object_get_string_len(text));
		return rdma_error_unsupported(err, "key", "out of secure memory");
	}
	if (json_object_is_type(text, json_type_string) && json_object_is_type(fd, json_type_int)) {
		explicit_bzero((char *)json_object_get_string(text), json_object_get_string_len(text));
		return rdma_error_invalid(err, "key_fd", "give key or key_fd, not both");
	}
	return text ? key_from_text(text, *key, len, err) : key_from_fd(call, params, *key, len, err);
}

/* What Create is given besides the key; get_params() checks it into the model's params. */
struct create_params {
	const char *name, *key_file, *keytag, *opaque;
	uint32_t size, pd;
	unsigned import;
};

static const char *import_word(unsigned import)
{
	return rdma_dek_import_name(import);
}

#define CREATE_STRING(member) { .name = #member, .type = API_FIELD_STRING, \
				.offset = offsetof(struct create_params, member) }

static const struct api_field create_fields[] = {
	CREATE_STRING(name), CREATE_STRING(key_file), CREATE_STRING(keytag), CREATE_STRING(opaque),
	{ .name = "size", .type = API_FIELD_U32, .offset = offsetof(struct create_params, size) },
	{ .name = "pd", .type = API_FIELD_U32, .offset = offsetof(struct create_params, pd) },
	{ .name = "import", .type = API_FIELD_ENUM, .offset = offsetof(struct create_params, import),
	  .word = import_word, .max = RDMA_DEK_WRAPPED },
	{ NULL },
};

static int get_params(const struct create_params *c, const uint8_t *key, size_t key_len,
		      struct rdma_dek_params *p, struct rdma_error *err)
{
	bool opaque_given;
	int r;

	memset(p, 0, sizeof(*p));
	p->name = c->name;
	if (c->size != 128 && c->size != 256)
		return rdma_error_invalid(err, "size", "%u is not a DEK size: 128 (AES-128-XTS) or "
					  "256 (AES-256-XTS)", c->size);
	p->key_bits = c->size;
	p->import = c->import;
	p->pd = c->pd;
	r = get_hex8(c->keytag, "keytag", p->keytag, &p->has_keytag, err);
	if (r == 0)
		r = get_hex8(c->opaque, "opaque", p->opaque, &opaque_given, err);
	p->key = key;
	p->key_len = key_len;
	p->key_file = c->key_file;
	return r;
}

/*
 * Create and Destroy are answered here once saved, or undone if they cannot
 * be: a DEK that would not come back after a restart is not made, one that
 * would come back is not destroyed.
 */
static struct json_object *finish(struct api_change *change, int r)
{
	struct rdma_dek *dek = change->object;
	bool destroyed = dek->pending == RDMA_DEK_DESTROYING;
	struct json_object *reply;

	if (r < 0) {
		rdma_dek_undo(change->dev, dek);
		return NULL;
	}
	rdma_dek_settle(change->dev, dek);
	if (destroyed)
		return NULL;
	reply = json_object_new_object();
	json_object_object_add(reply, "dek", dek_json(change->dev, &dek->obj));
	return reply;
}

/*
 * A Create meeting a pending DEK of its name is refused (InvalidState) rather
 * than run again later: the key would wait in the call's parameters meanwhile.
 */
static int create(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct manager *m = userdata;
	struct create_params c = { 0 };
	struct rdma_lend_policy allow = { 0 };
	struct rdma_device *dev;
	struct rdma_dek_params p;
	struct rdma_error err;
	struct rdma_dek *dek;
	uint8_t *key;
	size_t key_len;
	int r;

	/* First, so that the key's text is wiped whatever happens next. */
	r = get_key(call, params, &key, &key_len, &err);
	dev = api_device(call, m, params, IFACE);
	if (!dev || api_dispatch(call, params, create_fields, &c) < 0) {
		secret_free(key, KEY_BUF);
		return 0;
	}
	if (r == 0)
		r = get_params(&c, key, key_len, &p, &err);
	if (r == 0)
		r = api_lend_edit(params, &allow, &allow, &err);
	p.allow = &allow;
	if (r == 0)
		r = rdma_dek_create(dev, &m->config.crypto, &p, &dek, &err);
	secret_free(key, KEY_BUF);
	if (r < 0)
		return api_reply_error(call, IFACE, &err);
	return api_change_submit(call, m, &state_deks, dev, dek, finish, 0, 0);
}

static int list(struct varlink_call *call, struct json_object *params, void *userdata)
{
	return api_list(call, userdata, params, IFACE, RDMA_OBJ_DEK, "deks", dek_json);
}

struct dek_ref {
	const char *name;
	uint32_t handle;
	bool has_handle;
};

static const struct api_field dek_ref_fields[] = {
	{ .name = "name", .type = API_FIELD_STRING, .offset = offsetof(struct dek_ref, name) },
	{ .name = "handle", .type = API_FIELD_HANDLE, .offset = offsetof(struct dek_ref, handle),
	  .given = API_GIVEN(struct dek_ref, has_handle) },
	{ NULL },
};

/* The DEK named by "handle" or "name", and its device; NULL when the call was answered. */
static struct rdma_dek *call_dek(struct varlink_call *call, struct json_object *params,
				 struct manager *m, struct rdma_device **dev)
{
	struct rdma_lend_caller caller = api_lend_caller(call);
	struct dek_ref ref = { 0 };
	struct rdma_object *obj;
	struct rdma_error err;
	struct rdma_dek *dek;

	*dev = api_device(call, m, params, IFACE);
	if (!*dev || api_dispatch(call, params, dek_ref_fields, &ref) < 0)
		return NULL;
	if (!ref.name && !ref.has_handle) {
		api_error_parameter(call, "handle");
		return NULL;
	}
	/* A caller root has not lent the DEK to learns no more than of a DEK that is not there. */
	if (!ref.name) {
		obj = rdma_object_lookup(*dev, RDMA_OBJ_DEK, ref.handle, &err);
		if (obj && !rdma_lend_allows_caller(&rdma_dek(obj)->allow.now, &caller)) {
			rdma_error_no_such(&err, RDMA_OBJ_DEK, ref.handle);
			obj = NULL;
		}
		if (!obj)
			api_reply_error(call, IFACE, &err);
		return obj ? rdma_dek(obj) : NULL;
	}
	dek = rdma_dek_find(*dev, ref.name, NULL);
	if (!dek || !rdma_lend_allows_caller(&dek->allow.now, &caller)) {
		api_error_string(call, IFACE ".NoSuchDek", "name", ref.name);
		return NULL;
	}
	return dek;
}

/* What a tenant is shown of a DEK lent to it: what its MKEY's configuration needs. */
static const char *const tenant_dek_keys[] = {
	"ifname", "ifindex", "handle", "name", "size", "keytag", "pd", "state",
	"kek", "key_file",
};

static struct json_object *tenant_dek_json(struct json_object *full)
{
	struct json_object *o = json_object_new_object(), *v;

	for (size_t i = 0; i < sizeof(tenant_dek_keys) / sizeof(tenant_dek_keys[0]); i++) {
		if (!json_object_object_get_ex(full, tenant_dek_keys[i], &v))
			continue;
		/* The key's origin (kek, key_file) stays root's; the members are there, null. */
		if (strcmp(tenant_dek_keys[i], "kek") == 0 || strcmp(tenant_dek_keys[i], "key_file") == 0)
			v = NULL;
		json_object_object_add(o, tenant_dek_keys[i], json_object_get(v));
	}
	json_object_put(full);
	return o;
}

static int show(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_dek *dek = call_dek(call, params, userdata, &dev);
	struct json_object *record;

	if (!dek)
		return 0;
	record = dek_json(dev, &dek->obj);
	if (varlink_call_peer(call)->uid != 0)
		record = tenant_dek_json(record);
	return api_reply_record(call, "dek", record);
}

static int destroy(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_dek *dek = call_dek(call, params, userdata, &dev);
	struct rdma_error err;

	if (!dek)
		return 0;
	if (dek->pending)
		return api_change_wait(call, params, destroy, userdata, userdata, dek);
	if (rdma_dek_destroy(dev, dek, &err) < 0)
		return api_reply_error(call, IFACE, &err);
	return api_change_submit(call, userdata, &state_deks, dev, dek, finish, 0, 0);
}

/* Who besides root may configure MKEYs with the DEK: entries added (allow), taken back (disallow). */
static int modify(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_dek *dek = call_dek(call, params, userdata, &dev);
	struct rdma_lend_policy allow;
	struct rdma_error err;
	int r;

	if (!dek)
		return 0;
	if (dek->pending)
		return api_change_wait(call, params, modify, userdata, userdata, dek);
	r = api_lend_edit(params, &dek->allow.now, &allow, &err);
	if (r == 0)
		r = rdma_dek_lend(dek, &allow, &err);
	if (r < 0)
		return api_reply_failure(call, IFACE, &err, r);
	return api_change_submit(call, userdata, &state_deks, dev, dek, finish, 0, 0);
}

struct login_params {
	const char *credential_file, *kek;
};

static const struct api_field login_fields[] = {
	{ .name = "credential_file", .type = API_FIELD_STRING,
	  .offset = offsetof(struct login_params, credential_file) },
	{ .name = "kek", .type = API_FIELD_STRING, .offset = offsetof(struct login_params, kek) },
	{ NULL },
};

static int login(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct manager *m = userdata;
	struct rdma_device *dev = api_device(call, m, params, IFACE);
	struct login_params p = { 0 };
	struct rdma_error err;

	if (!dev || api_dispatch(call, params, login_fields, &p) < 0)
		return 0;
	if (rdma_crypto_login(dev, &m->config.crypto, p.credential_file, p.kek, &err) < 0)
		return api_reply_error(call, IFACE, &err);
	return reply_login(call, m, dev);
}

static int logout(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev = api_device(call, userdata, params, IFACE);
	struct rdma_error err;

	if (!dev)
		return 0;
	if (rdma_crypto_logout(dev, &err) < 0)
		return api_reply_error(call, IFACE, &err);
	return api_reply(call, NULL);
}

static int get_login(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev = api_device(call, userdata, params, IFACE);

	return dev ? reply_login(call, userdata, dev) : 0;
}

#define SECRET_READ   API_METHOD_SECRET
#define SECRET_CHANGE (API_METHOD_SECRET | VARLINK_METHOD_PRIVILEGED)

const struct varlink_method api_dek_methods[] = {
	{ "Create", create, SECRET_CHANGE },
	{ "List", list, SECRET_READ },
	/* Open to tenants' programs for the DEKs lent to them (call_dek() checks). */
	{ "Show", show, API_METHOD_OWN },
	{ "Destroy", destroy, SECRET_CHANGE },
	{ "Modify", modify, SECRET_CHANGE },
	{ "Login", login, SECRET_CHANGE },
	{ "Logout", logout, SECRET_CHANGE },
	{ "GetLogin", get_login, SECRET_READ },
	{ NULL, NULL, 0 },
};
