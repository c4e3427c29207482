/* SPDX-License-Identifier: MIT */
/*
 * DEKs in the state directory (deks.json): per device, each DEK's handle,
 * name, size, import method and KEK, key file, opaque value, PD, a plaintext
 * import's keytag, a fingerprint of the key material, and who it is lent to
 * (by name: the numbers are looked up again at start).  Never key bytes:
 * the key file is read again at start, and checked against the fingerprint.
 * A DEK being destroyed is left out, one being created is in: the file is
 * what holds once the pending changes settle.
 */
#include "daemon/verbs/dek.h"
#include "daemon/core/manager.h"
#include "daemon/core/state.h"
#include "daemon/core/lend_state.h"
#include "lib/hex.h"
#include "lib/json-util.h"
#include "lib/log.h"

#include <string.h>

static void add_hex(struct json_object *o, const char *key, const uint8_t *bytes, size_t n)
{
	char text[2 * 16 + 1];

	hex_encode(bytes, n, text);
	json_add_string(o, key, text);
}

static struct json_object *dek_record(struct rdma_object *obj)
{
	const struct rdma_dek *dek = rdma_dek(obj);
	struct json_object *o = json_object_new_object();

	json_add_uint(o, "handle", dek->obj.handle);
	json_add_string(o, "name", dek->name);
	json_add_uint(o, "size", dek->key_bits);
	json_add_string(o, "import", rdma_dek_import_name(dek->import));
	if (dek->import == RDMA_DEK_WRAPPED)
		json_add_string(o, "kek", dek->kek);
	json_object_object_add(o, "key_file", dek->key_file ? json_object_new_string(dek->key_file) :
								 NULL);
	if (dek->import == RDMA_DEK_PLAINTEXT && dek->has_keytag)
		add_hex(o, "keytag", dek->keytag_given, RDMA_DEK_KEYTAG_LEN);
	add_hex(o, "opaque", dek->opaque, RDMA_DEK_OPAQUE_LEN);
	json_add_uint(o, "pd", dek->pd);
	add_hex(o, "check", dek->check, RDMA_DEK_CHECK_LEN);
	lend_state_add(o, rdma_lend_latest(&dek->allow));
	return o;
}

static bool dek_kept(struct rdma_object *obj)
{
	return rdma_dek(obj)->pending != RDMA_DEK_DESTROYING;
}

static struct json_object *deks_save_device(struct manager *m, struct rdma_device *dev)
{
	return state_save_table(dev, RDMA_OBJ_DEK, dek_kept, dek_record);
}

/* What a record says, as creation parameters; NULL or a field name that is wrong. */
static const char *parse_record(struct json_object *rec, struct rdma_dek_params *p, uint32_t *handle,
				const char **kek, uint8_t check[RDMA_DEK_CHECK_LEN])
{
	const char *import = json_get_string(rec, "import");
	const char *keytag = json_get_string(rec, "keytag");
	const char *opaque = json_get_string(rec, "opaque");
	const char *chk = json_get_string(rec, "check");
	int64_t h = json_get_int(rec, "handle", 0), pd = json_get_int(rec, "pd", 0);

	memset(p, 0, sizeof(*p));
	p->name = json_get_string(rec, "name");
	p->key_bits = (unsigned)json_get_int(rec, "size", 0);
	p->key_file = json_get_string(rec, "key_file");
	*kek = json_get_string(rec, "kek");
	if (h <= 0 || h > UINT32_MAX)
		return "handle";
	*handle = (uint32_t)h;
	if (!p->name)
		return "name";
	if (!import || (strcmp(import, "plaintext") != 0 && strcmp(import, "wrapped") != 0))
		return "import";
	p->import = strcmp(import, "wrapped") == 0 ? RDMA_DEK_WRAPPED : RDMA_DEK_PLAINTEXT;
	if (keytag && hex_decode(keytag, p->keytag, RDMA_DEK_KEYTAG_LEN) < 0)
		return "keytag";
	p->has_keytag = keytag != NULL;
	if (!opaque || hex_decode(opaque, p->opaque, RDMA_DEK_OPAQUE_LEN) < 0)
		return "opaque";
	if (pd < 0 || pd > UINT32_MAX)
		return "pd";
	p->pd = (uint32_t)pd;
	if (!chk || hex_decode(chk, check, RDMA_DEK_CHECK_LEN) < 0)
		return "check";
	return NULL;
}

static void deks_restore_device(struct manager *m, struct rdma_device *dev, struct json_object *list)
{
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		struct json_object *rec = json_object_array_get_idx(list, i);
		uint8_t check[RDMA_DEK_CHECK_LEN];
		struct rdma_lend_policy allow;
		struct rdma_dek_params p;
		struct rdma_error err;
		struct rdma_dek *dek;
		const char *bad, *kek;
		uint32_t handle = 0;

		bad = parse_record(rec, &p, &handle, &kek, check);
		if (bad) {
			log_error("%s: saved DEK #%zu has no valid '%s'; not restored", dev->name, i, bad);
			continue;
		}
		lend_state_restore(rec, &allow, dev, "DEK", p.name);
		p.allow = &allow;
		if (rdma_dek_restore(dev, &m->config.crypto, handle, &p, kek, check, &dek, &err) < 0)
			log_error("%s: saved DEK %u '%s' not restored: %s: %s", dev->name, handle, p.name,
				  err.field, err.reason);
		else if (dek->state == RDMA_DEK_READY)
			log_info("%s: DEK %u '%s' restored", dev->name, handle, dek->name);
	}
}

const struct state_kind state_deks = {
	.name = "deks",
	.items = "DEKs",
	.save_device = deks_save_device,
	.restore_device = deks_restore_device,
};
