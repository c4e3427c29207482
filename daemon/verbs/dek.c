/* SPDX-License-Identifier: MIT */
/* DEKs: creation from a key file or bytes, plaintext or wrapped; restore; what MKEYs use. */
#include "daemon/verbs/dek.h"
#include "daemon/verbs/crypto_login.h"
#include "daemon/verbs/keyfile.h"
#include "daemon/verbs/keywrap.h"
#include "daemon/verbs/secret.h"
#include "lib/log.h"

#include <ctype.h>
#include <errno.h>
#include <gcrypt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* key1 || key2 || keytag of an AES-256-XTS DEK, the most a DEK holds. */
#define SECRET_MAX (64 + RDMA_DEK_KEYTAG_LEN)

static void dek_release(struct rdma_device *dev, struct rdma_object *obj)
{
	struct rdma_dek *dek = rdma_dek(obj);

	secret_free(dek->secret, SECRET_MAX);
	dek->secret = NULL;
	free(dek->key_file);
	rdma_lend_release(&dek->allow);
}

const struct rdma_object_type rdma_dek_type = {
	.size = sizeof(struct rdma_dek),
	.release = dek_release,
};

const char *rdma_dek_state_name(enum rdma_dek_state state)
{
	return state == RDMA_DEK_READY ? "ready" : "error";
}

/* A pending DEK's refusal, as InvalidState on field. */
static int pending_refusal(const struct rdma_dek *dek, const char *field, struct rdma_error *err)
{
	static const char *const doing[] = {
		[RDMA_DEK_CREATING] = "created", [RDMA_DEK_DESTROYING] = "destroyed",
		[RDMA_DEK_LENDING] = "lent to other users",
	};

	return rdma_error_state(err, field, "DEK %u '%s' is being %s: its change is not saved yet; "
				"retry once it is answered", dek->obj.handle, dek->name,
				doing[dek->pending]);
}

const char *rdma_dek_import_name(enum rdma_dek_import import)
{
	return import == RDMA_DEK_WRAPPED ? "wrapped" : "plaintext";
}

/* key1 || key2: 32 bytes for AES-128-XTS, 64 for AES-256-XTS. */
static size_t xts_key_len(unsigned key_bits)
{
	return key_bits / 4;
}

struct rdma_dek *rdma_dek_lookup(struct rdma_device *dev, uint32_t handle, struct rdma_error *err)
{
	struct rdma_object *obj = rdma_object_lookup(dev, RDMA_OBJ_DEK, handle, err);

	return obj ? rdma_dek(obj) : NULL;
}

struct rdma_dek *rdma_dek_find(struct rdma_device *dev, const char *name, struct rdma_error *err)
{
	struct rdma_object *obj;

	for (uint32_t pos = 0; (obj = object_table_next(&dev->tables[RDMA_OBJ_DEK], &pos)); )
		if (strcmp(rdma_dek(obj)->name, name) == 0)
			return rdma_dek(obj);
	if (err)
		rdma_dek_refuse_unknown(name, NULL, err);
	return NULL;
}

/* A letter first, so that a name never reads as a handle. */
static bool valid_name(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n >= RDMA_DEK_NAME_MAX || !isalpha((unsigned char)name[0]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && !strchr("_.-", name[i]))
			return false;
	return true;
}

static int check_params(struct rdma_device *dev, const struct rdma_dek_params *p,
			struct rdma_error *err)
{
	struct rdma_dek *other;

	if (!valid_name(p->name))
		return rdma_error_invalid(err, "name", "'%s' is not a name: a letter, then letters, "
					  "digits, '_', '.' or '-', at most %d in all", p->name,
					  RDMA_DEK_NAME_MAX - 1);
	other = rdma_dek_find(dev, p->name, NULL);
	/* The name is free or taken for good only once the other's change is saved. */
	if (other && other->pending)
		return pending_refusal(other, "name", err);
	if (other)
		return rdma_error_invalid(err, "name", "DEK %u is named '%s' already",
					  other->obj.handle, p->name);
	if (p->key_bits != 128 && p->key_bits != 256)
		return rdma_error_invalid(err, "size", "%u is not a DEK size: 128 (AES-128-XTS) or 256 "
					  "(AES-256-XTS)", p->key_bits);
	if (!(dev->caps.crypto_engines & (RDMA_CRYPTO_AES_XTS_SINGLE_BLOCK |
					  RDMA_CRYPTO_AES_XTS_MULTI_BLOCK)))
		return rdma_error_unsupported(err, "size", "%s has no AES-XTS engine", dev->name);
	if (p->import == RDMA_DEK_PLAINTEXT && dev->caps.wrapped_import_only)
		return rdma_error_unsupported(err, "import", "%s takes wrapped DEKs only", dev->name);
	if (p->import == RDMA_DEK_WRAPPED && p->has_keytag)
		return rdma_error_invalid(err, "keytag", "a wrapped key carries its keytag inside the "
					  "wrapping");
	if (!p->key_file == !p->key)
		return rdma_error_invalid(err, "key_file", "give either a key file or the key itself");
	return 0;
}

/* First bytes of SHA-256 over a label and the key material: tells a changed key file, reveals nothing. */
static int fingerprint(const uint8_t *secret, size_t len, uint8_t check[RDMA_DEK_CHECK_LEN])
{
	static const char label[] = "rdmad DEK check value";
	gcry_md_hd_t md;

	if (gcry_md_open(&md, GCRY_MD_SHA256, GCRY_MD_FLAG_SECURE))
		return -ENOMEM;
	gcry_md_write(md, label, sizeof(label));
	gcry_md_write(md, secret, len);
	memcpy(check, gcry_md_read(md, GCRY_MD_SHA256), RDMA_DEK_CHECK_LEN);
	gcry_md_close(md);
	return 0;
}

/* The key material's input: what the key file or the caller holds, wrapped or not. */
struct dek_input {
	const char *field;       /* "key_file" or "key" */
	const char *what;        /* the file's path, or "the key" */
	uint8_t *bytes;          /* secure memory, RDMA_DEK_INPUT_MAX */
	size_t len;
};

static int input_read(const struct rdma_dek_params *p, struct dek_input *in, struct rdma_error *err)
{
	in->field = p->key_file ? "key_file" : "key";
	in->what = p->key_file ? p->key_file : "the key";
	in->bytes = secret_alloc(RDMA_DEK_INPUT_MAX);
	if (!in->bytes)
		return rdma_error_unsupported(err, in->field, "out of secure memory");
	if (p->key_file)
		return keyfile_read(p->key_file, in->field, in->bytes, RDMA_DEK_INPUT_MAX, &in->len, err);
	if (p->key_len > RDMA_DEK_INPUT_MAX)
		return rdma_error_invalid(err, in->field, "has %zu bytes, more than any key", p->key_len);
	memcpy(in->bytes, p->key, p->key_len);
	in->len = p->key_len;
	return 0;
}

static int load_plaintext(struct rdma_dek *dek, const struct rdma_dek_params *p,
			  const struct dek_input *in, struct rdma_error *err)
{
	size_t klen = xts_key_len(dek->key_bits);

	if (in->len != klen)
		return rdma_error_invalid(err, in->field, "%s holds %zu bytes; a %u-bit plaintext DEK "
					  "is %zu bytes (key1 || key2)%s", in->what, in->len,
					  dek->key_bits, klen, in->len == klen + RDMA_DEK_KEYTAG_LEN ?
					  ", the keytag is given apart" : "");
	memcpy(dek->secret, in->bytes, klen);
	if (dek->has_keytag)
		memcpy(dek->secret + klen, p->keytag, RDMA_DEK_KEYTAG_LEN);
	return 0;
}

static int load_wrapped(struct rdma_dek *dek, const struct dek_input *in, const uint8_t *kek,
			size_t kek_len, struct rdma_error *err)
{
	size_t klen = xts_key_len(dek->key_bits);

	if (in->len != klen + KEYWRAP_OVERHEAD && in->len != klen + KEYWRAP_OVERHEAD + RDMA_DEK_KEYTAG_LEN)
		return rdma_error_invalid(err, in->field, "%s holds %zu bytes; a wrapped %u-bit DEK is "
					  "%zu bytes, or %zu with a keytag", in->what, in->len,
					  dek->key_bits, klen + KEYWRAP_OVERHEAD,
					  klen + KEYWRAP_OVERHEAD + RDMA_DEK_KEYTAG_LEN);
	dek->has_keytag = in->len > klen + KEYWRAP_OVERHEAD;
	if (keywrap_unwrap(kek, kek_len, in->bytes, in->len, dek->secret) < 0)
		return rdma_error_invalid(err, in->field, "%s does not unwrap under import KEK '%s' "
					  "(another KEK, or damaged data)", in->what, dek->kek);
	return 0;
}

/* Fills dek->secret and dek->check from p's key material; kek for a wrapped one. */
static int load_key(struct rdma_dek *dek, const struct rdma_dek_params *p, const uint8_t *kek,
		    size_t kek_len, struct rdma_error *err)
{
	size_t half = xts_key_len(dek->key_bits) / 2;
	struct dek_input in = { 0 };
	int r;

	dek->secret = secret_alloc(SECRET_MAX);
	if (!dek->secret)
		return rdma_error_unsupported(err, "key", "out of secure memory");
	r = input_read(p, &in, err);
	if (r == 0)
		r = p->import == RDMA_DEK_WRAPPED ? load_wrapped(dek, &in, kek, kek_len, err) :
						    load_plaintext(dek, p, &in, err);
	/* OpenSSL refuses key1 == key2 for XTS too: the tweak would be encrypted with the data key. */
	if (r == 0 && secret_equal(dek->secret, dek->secret + half, half))
		r = rdma_error_invalid(err, in.field, "in %s, key1 and key2 (the two halves) are equal; "
				       "AES-XTS needs two different keys", in.what);
	if (r == 0 && fingerprint(dek->secret, 2 * half + (dek->has_keytag ? RDMA_DEK_KEYTAG_LEN : 0),
				  dek->check) < 0)
		r = rdma_error_unsupported(err, "key", "out of secure memory");
	secret_free(in.bytes, RDMA_DEK_INPUT_MAX);
	if (r < 0) {
		secret_free(dek->secret, SECRET_MAX);
		dek->secret = NULL;
	}
	return r;
}

/* A DEK object with p's description, in its table; no key material yet. */
static struct rdma_dek *dek_new(struct rdma_device *dev, uint32_t handle,
				const struct rdma_dek_params *p, struct rdma_error *err)
{
	struct rdma_object *obj;
	struct rdma_dek *dek;

	obj = handle ? rdma_object_create_at(dev, RDMA_OBJ_DEK, handle, err) :
		       rdma_object_create(dev, RDMA_OBJ_DEK, err);
	if (!obj)
		return NULL;
	dek = rdma_dek(obj);
	snprintf(dek->name, sizeof(dek->name), "%s", p->name);
	dek->key_bits = p->key_bits;
	dek->import = p->import;
	dek->has_keytag = p->has_keytag;
	if (p->has_keytag)
		memcpy(dek->keytag_given, p->keytag, RDMA_DEK_KEYTAG_LEN);
	memcpy(dek->opaque, p->opaque, RDMA_DEK_OPAQUE_LEN);
	dek->pd = p->pd;
	if (p->allow)
		dek->allow.now = *p->allow;
	if (p->key_file && !(dek->key_file = strdup(p->key_file))) {
		rdma_object_free(dev, obj);
		rdma_error_system(err, -ENOMEM);
		return NULL;
	}
	return dek;
}

int rdma_dek_create(struct rdma_device *dev, const struct rdma_crypto_config *config,
		    const struct rdma_dek_params *p, struct rdma_dek **out, struct rdma_error *err)
{
	struct rdma_object *pd = NULL;
	const uint8_t *kek = NULL;
	const char *kek_name = NULL;
	struct rdma_dek *dek;
	size_t kek_len = 0;
	int r;

	r = check_params(dev, p, err);
	if (r < 0)
		return r;
	if (p->pd && !(pd = rdma_object_lookup(dev, RDMA_OBJ_PD, p->pd, err)))
		return -ENOENT;
	if (p->import == RDMA_DEK_WRAPPED &&
	    !(kek = rdma_crypto_login_kek(dev, config, &kek_len, &kek_name, err)))
		return -EPERM;
	dek = dek_new(dev, 0, p, err);
	if (!dek)
		return -ENOSPC;
	if (kek_name)
		snprintf(dek->kek, sizeof(dek->kek), "%s", kek_name);
	r = load_key(dek, p, kek, kek_len, err);
	if (r < 0) {
		rdma_object_free(dev, &dek->obj);
		return r;
	}
	rdma_object_use(&dek->obj, pd);
	dek->pending = RDMA_DEK_CREATING;
	log_info("%s: DEK %u '%s' created (AES-%u-XTS, %s import%s)", dev->name, dek->obj.handle,
		 dek->name, dek->key_bits, rdma_dek_import_name(dek->import),
		 dek->key_file ? "" : ", key given by value, not persistent");
	*out = dek;
	return 0;
}

static void set_error(struct rdma_device *dev, struct rdma_dek *dek, const struct rdma_error *why)
{
	dek->state = RDMA_DEK_ERROR;
	snprintf(dek->error, sizeof(dek->error), "%s: %s", why->field, why->reason);
	log_error("%s: DEK %u '%s' is in state error: %s", dev->name, dek->obj.handle, dek->name,
		  dek->error);
}

/* Why a saved DEK cannot get its key back, before any file is read; 0 when it can try. */
static int restore_obstacle(const struct rdma_dek_params *p, struct rdma_error *why)
{
	if (!p->key_file)
		return rdma_error_state(why, "key", "the key was given by value, which is not kept "
					"across restarts; destroy the DEK and create it again");
	if (p->pd)
		return rdma_error_state(why, "pd", "the DEK was created on PD %u, and PDs do not "
					"survive a restart; destroy the DEK and create it again", p->pd);
	return 0;
}

int rdma_dek_restore(struct rdma_device *dev, const struct rdma_crypto_config *config, uint32_t handle,
		     const struct rdma_dek_params *p, const char *kek_name,
		     const uint8_t expect_check[RDMA_DEK_CHECK_LEN], struct rdma_dek **out,
		     struct rdma_error *err)
{
	struct rdma_dek_params q = *p;
	struct rdma_error why;
	uint8_t *kek = NULL;
	size_t kek_len = 0;
	struct rdma_dek *dek;
	int r;

	/* The key itself is not saved: only the checks that need no key material apply. */
	q.key = q.key_file ? NULL : (const uint8_t *)"";
	r = check_params(dev, &q, err);
	if (r < 0)
		return r;
	dek = dek_new(dev, handle, &q, err);
	if (!dek)
		return -EEXIST;
	if (kek_name)
		snprintf(dek->kek, sizeof(dek->kek), "%s", kek_name);
	r = restore_obstacle(&q, &why);
	if (r == 0 && q.import == RDMA_DEK_WRAPPED) {
		kek = secret_alloc(CRYPTO_KEK_MAX);
		r = kek ? crypto_import_kek_read(config, dek->kek, "kek", kek, &kek_len, &why) :
			  rdma_error_unsupported(&why, "kek", "out of secure memory");
	}
	if (r == 0)
		r = load_key(dek, &q, kek, kek_len, &why);
	secret_free(kek, CRYPTO_KEK_MAX);
	if (r == 0 && !secret_equal(dek->check, expect_check, RDMA_DEK_CHECK_LEN)) {
		secret_free(dek->secret, SECRET_MAX);
		dek->secret = NULL;
		r = rdma_error_state(&why, "key_file", "%s no longer holds the key the DEK was created "
				     "with", dek->key_file);
	}
	/* The fingerprint stays the saved one, so a key file put back makes the DEK ready again. */
	memcpy(dek->check, expect_check, RDMA_DEK_CHECK_LEN);
	if (r < 0)
		set_error(dev, dek, &why);
	*out = dek;
	return 0;
}

int rdma_dek_destroy(struct rdma_device *dev, struct rdma_dek *dek, struct rdma_error *err)
{
	struct rdma_object *user;

	if (dek->pending)
		return pending_refusal(dek, "name", err);
	user = rdma_object_find_user(dev->tables, &dek->obj);
	if (user)
		return rdma_error_in_use(err, &dek->obj, user);
	dek->pending = RDMA_DEK_DESTROYING;
	return 0;
}

/* The DEK and its key material: gone from memory (wiped) as from the state file. */
static void dek_free(struct rdma_device *dev, struct rdma_dek *dek, const char *what)
{
	log_info("%s: DEK %u '%s' %s", dev->name, dek->obj.handle, dek->name, what);
	rdma_object_free(dev, &dek->obj);
}

int rdma_dek_lend(struct rdma_dek *dek, const struct rdma_lend_policy *allow, struct rdma_error *err)
{
	if (dek->pending)
		return pending_refusal(dek, "name", err);
	if (rdma_lend_change(&dek->allow, allow) < 0)
		return rdma_error_system(err, -ENOMEM);
	dek->pending = RDMA_DEK_LENDING;
	return 0;
}

void rdma_dek_settle(struct rdma_device *dev, struct rdma_dek *dek)
{
	if (dek->pending == RDMA_DEK_DESTROYING) {
		dek_free(dev, dek, "destroyed");
		return;
	}
	rdma_lend_settle(&dek->allow);
	dek->pending = RDMA_DEK_SETTLED;
}

void rdma_dek_undo(struct rdma_device *dev, struct rdma_dek *dek)
{
	if (dek->pending == RDMA_DEK_CREATING) {
		dek_free(dev, dek, "not kept: its creation could not be saved");
		return;
	}
	rdma_lend_undo(&dek->allow);
	dek->pending = RDMA_DEK_SETTLED;
}

int rdma_dek_refuse_unknown(const char *given, const struct rdma_lend_caller *caller,
			    struct rdma_error *err)
{
	if (!caller || caller->uid == 0)
		return rdma_error_invalid(err, "dek", "no DEK is named '%s'", given);
	return rdma_error_invalid(err, "dek", "no DEK '%s' that user %u may use: root creates it or "
				  "allows the user with rdmactl dek modify DEK --allow USER|@GROUP",
				  given, (unsigned)caller->uid);
}

int rdma_dek_check_caller(const struct rdma_dek *dek, const char *given,
			  const struct rdma_lend_caller *caller, struct rdma_error *err)
{
	if (!caller || rdma_lend_allows_caller(&dek->allow.now, caller))
		return 0;
	return rdma_dek_refuse_unknown(given, caller, err);
}

const uint8_t *rdma_dek_key(const struct rdma_dek *dek, size_t *len, struct rdma_error *err)
{
	/* A change of who may use it is no change of the key. */
	if (dek->pending == RDMA_DEK_CREATING || dek->pending == RDMA_DEK_DESTROYING) {
		pending_refusal(dek, "dek", err);
		return NULL;
	}
	if (dek->state != RDMA_DEK_READY || !dek->secret) {
		rdma_error_state(err, "dek", "DEK %u '%s' is in state error: %s", dek->obj.handle,
				 dek->name, dek->error);
		return NULL;
	}
	*len = xts_key_len(dek->key_bits);
	return dek->secret;
}

int rdma_dek_check_keytag(const struct rdma_dek *dek, const uint8_t keytag[RDMA_DEK_KEYTAG_LEN],
			  struct rdma_error *err)
{
	if (!dek->has_keytag || !dek->secret)
		return 0;
	if (!secret_equal(dek->secret + xts_key_len(dek->key_bits), keytag, RDMA_DEK_KEYTAG_LEN))
		return rdma_error_invalid(err, "keytag", "does not match the keytag of DEK %u '%s'",
					  dek->obj.handle, dek->name);
	return 0;
}

int rdma_dek_check_pd(const struct rdma_dek *dek, uint32_t pd, struct rdma_error *err)
{
	if (dek->pd && dek->pd != pd)
		return rdma_error_invalid(err, "dek", "DEK %u '%s' belongs to PD %u, not PD %u",
					  dek->obj.handle, dek->name, dek->pd, pd);
	return 0;
}
