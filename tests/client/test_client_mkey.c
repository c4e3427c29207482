/* SPDX-License-Identifier: MIT */
/* librdmad's MKEY, pool and DEK calls against a real rdmad. */
#include "tests/client/harness.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

/* T10-DIF on the wire (CRC guard), nothing in memory: as mkey.bats configures. */
#define T10DIF_WIRE "{\"mem\":null,\"wire\":{\"sig_type\":\"t10dif\",\"block_size\":512," \
	"\"t10dif\":{\"bg_type\":\"crc\",\"bg\":65535,\"app_tag\":1,\"ref_tag\":2,\"flags\":[]}}}"

static void assert_refused(int r, int err)
{
	assert_int_equal(r, -err);
	assert_true(rdmad_last_error()[0] != '\0');
}

static int64_t member(struct json_object *o, const char *path1, const char *path2)
{
	struct json_object *v = json_object_object_get(o, path1);

	return json_object_get_int64(path2 ? json_object_object_get(v, path2) : v);
}

static void test_mkey_create_configure_check(void **state)
{
	struct rdmad_context *ctx = harness_open();
	struct rdmad_pd *pd = rdmad_alloc_pd(ctx);
	void *buf = rdmad_alloc_buf(ctx, 8192);
	struct rdmad_mr *mr = rdmad_reg_mr(pd, buf, 8192, RDMAD_ACCESS_LOCAL_WRITE);
	struct rdmad_mkey_layout_entry layout[2] = { { mr, 0, 512 }, { mr, 4096, 512 } };
	struct rdmad_mkey_err err;
	struct rdmad_mkey *mkey;
	struct json_object *reply;
	char params[64];

	assert_non_null(mr);
	assert_null(rdmad_create_mkey(pd, RDMAD_MKEY_BLOCK_SIGNATURE, 0));
	assert_int_equal(errno, EINVAL);
	mkey = rdmad_create_mkey(pd, RDMAD_MKEY_BLOCK_SIGNATURE, 4);
	assert_non_null(mkey);
	assert_int_equal(mkey->lkey, mkey->rkey);
	assert_false(mkey->from_pool);

	assert_refused(rdmad_configure_mkey(mkey, RDMAD_ACCESS_LOCAL_WRITE, layout, 2, "{not json", 0),
		       EINVAL);
	assert_refused(rdmad_configure_mkey(mkey, 0, layout, 2, "{\"crypto\": {}}", 0), EINVAL);
	assert_int_equal(rdmad_configure_mkey(mkey, RDMAD_ACCESS_LOCAL_WRITE | RDMAD_ACCESS_REMOTE_READ,
					      layout, 2, T10DIF_WIRE, 0), 0);
	snprintf(params, sizeof(params), "{\"handle\": %u}", mkey->lkey);
	reply = harness_call("io.rdmad.Mkey.Show", params);
	assert_int_equal(member(reply, "mkey", "length"), 1024);
	assert_string_equal(json_object_get_string(json_object_object_get(
		json_object_object_get(reply, "mkey"), "state")), "configured");
	json_object_put(reply);

	assert_int_equal(rdmad_check_mkey(mkey, &err), 0);
	assert_int_equal(err.err_type, RDMAD_SIG_ERR_NONE);
	/* The MKEY holds the MR. */
	assert_refused(rdmad_dereg_mr(mr), EBUSY);
	assert_int_equal(rdmad_destroy_mkey(mkey), 0);
	assert_int_equal(rdmad_dereg_mr(mr), 0);
	rdmad_close(ctx);
}

static void test_pool_borrow_return(void **state)
{
	struct rdmad_context *ctx = harness_open();
	struct rdmad_mkey *mkey;
	struct json_object *reply;

	json_object_put(harness_call("io.rdmad.Pool.Create",
				     "{\"name\": \"lib\", \"type\": \"signature\", \"size\": 1}"));
	assert_null(rdmad_pool_borrow(ctx, "nosuch"));
	assert_int_equal(errno, ENOENT);
	mkey = rdmad_pool_borrow(ctx, "lib");
	assert_non_null(mkey);
	assert_true(mkey->from_pool);
	/* The pool is empty now. */
	assert_null(rdmad_pool_borrow(ctx, "lib"));
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(rdmad_last_error(), "InvalidState"));
	assert_refused(rdmad_destroy_mkey(mkey), EINVAL);
	reply = harness_call("io.rdmad.Pool.Show", "{\"name\": \"lib\"}");
	assert_int_equal(member(reply, "pool", "in_use"), 1);
	json_object_put(reply);
	assert_int_equal(rdmad_pool_return(mkey), 0);
	reply = harness_call("io.rdmad.Pool.Show", "{\"name\": \"lib\"}");
	assert_int_equal(member(reply, "pool", "in_use"), 0);
	assert_int_equal(member(reply, "pool", "returns"), 1);
	json_object_put(reply);
	json_object_put(harness_call("io.rdmad.Pool.Destroy", "{\"name\": \"lib\"}"));
	rdmad_close(ctx);
}

static void test_dek_lookup(void **state)
{
	struct rdmad_context *ctx = harness_open();
	struct rdmad_dek_attr attr;

	assert_refused(rdmad_dek_lookup(ctx, "nosuch", &attr), ENOENT);
	assert_refused(rdmad_dek_lookup(ctx, NULL, &attr), EINVAL);
	/* 32 bytes 0..31: key1 and key2 differ. */
	json_object_put(harness_call("io.rdmad.Dek.Create", "{\"name\": \"libdek\", \"size\": 128, "
				     "\"key\": \"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\"}"));
	assert_int_equal(rdmad_dek_lookup(ctx, "libdek", &attr), 0);
	assert_int_equal(attr.size, 128);
	assert_true(attr.handle > 0);
	assert_false(attr.has_keytag);
	assert_true(attr.ready);
	json_object_put(harness_call("io.rdmad.Dek.Destroy", "{\"name\": \"libdek\"}"));
	rdmad_close(ctx);
}

/* The "config" of an MKEY as rdmad shows it. */
static struct json_object *shown_config(uint32_t key)
{
	char params[64];
	struct json_object *reply, *config;

	snprintf(params, sizeof(params), "{\"handle\": %u}", key);
	reply = harness_call("io.rdmad.Mkey.Show", params);
	config = json_object_get(json_object_object_get(json_object_object_get(reply, "mkey"), "config"));
	json_object_put(reply);
	return config;
}

/*
 * mlx5dv's attribute structures configure what the JSON does: two MKEYs, one
 * each way, show the same configuration; crypto with a DEK; refusals name the member.
 */
static void test_mkey_attr_structures(void **state)
{
	struct rdmad_context *ctx = harness_open();
	struct rdmad_pd *pd = rdmad_alloc_pd(ctx);
	void *buf = rdmad_alloc_buf(ctx, 8192);
	struct rdmad_mr *mr = rdmad_reg_mr(pd, buf, 8192, RDMAD_ACCESS_LOCAL_WRITE);
	struct rdmad_mkey_layout_entry layout = { mr, 0, 4096 };
	const struct rdmad_sig_block_domain wire = {
		.sig_type = RDMAD_SIG_TYPE_T10DIF, .block_size = 512,
		.sig.dif = { .bg_type = RDMAD_SIG_T10DIF_CRC, .bg = 0xffff, .app_tag = 1, .ref_tag = 2 },
	};
	struct rdmad_sig_block_domain mem_crc = {
		.sig_type = RDMAD_SIG_TYPE_CRC, .block_size = 512,
		.sig.crc = { .type = RDMAD_SIG_CRC_TYPE_CRC64_XP10, .seed = 0xffffffffffffffffull },
	};
	struct rdmad_sig_block_attr sig = { .wire = &wire, .check_mask = 0xff };
	struct rdmad_crypto_attr crypto = { .crypto_standard = RDMAD_CRYPTO_STANDARD_AES_XTS,
					    .encrypt_on_tx = 1, .data_unit_size = 512 };
	struct rdmad_dek_attr dek;
	struct rdmad_mkey *by_json = rdmad_create_mkey(pd, RDMAD_MKEY_BLOCK_SIGNATURE, 1);
	struct rdmad_mkey *by_attr = rdmad_create_mkey(pd, RDMAD_MKEY_BLOCK_SIGNATURE | RDMAD_MKEY_CRYPTO, 1);
	struct json_object *a, *b;

	assert_non_null(by_json);
	assert_non_null(by_attr);
	assert_int_equal(rdmad_configure_mkey(by_json, RDMAD_ACCESS_LOCAL_WRITE, &layout, 1, T10DIF_WIRE, 0), 0);
	assert_int_equal(rdmad_configure_mkey_attr(by_attr, RDMAD_ACCESS_LOCAL_WRITE, &layout, 1, &sig,
						   NULL, 0), 0);
	a = shown_config(by_json->lkey);
	b = shown_config(by_attr->lkey);
	assert_string_equal(json_object_to_json_string(a), json_object_to_json_string(b));
	json_object_put(a);
	json_object_put(b);
	/* Both domains, a 64-bit seed, and AES-XTS with a DEK. */
	json_object_put(harness_call("io.rdmad.Dek.Create", "{\"name\": \"attrdek\", \"size\": 128, "
				     "\"key\": \"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\"}"));
	assert_int_equal(rdmad_dek_lookup(ctx, "attrdek", &dek), 0);
	crypto.dek = dek.handle;
	sig.mem = &mem_crc;
	sig.wire = NULL;
	assert_int_equal(rdmad_configure_mkey_attr(by_attr, RDMAD_ACCESS_LOCAL_WRITE, &layout, 1, &sig,
						   &crypto, 0), 0);
	a = shown_config(by_attr->lkey);
	assert_string_equal(json_object_get_string(json_object_object_get(
		json_object_object_get(json_object_object_get(a, "mem"), "crc"), "type")), "crc64_xp10");
	assert_int_equal(json_object_get_int64(json_object_object_get(json_object_object_get(a, "crypto"),
								      "dek")), dek.handle);
	json_object_put(a);
	/* What rdmad refuses is named as rdmad names it, and changes nothing. */
	mem_crc.sig.crc.type = 9;
	assert_refused(rdmad_configure_mkey_attr(by_attr, RDMAD_ACCESS_LOCAL_WRITE, &layout, 1, &sig,
						 NULL, 0), EINVAL);
	assert_non_null(strstr(rdmad_last_error(), "mem.crc.type"));
	mem_crc.sig.crc = (struct rdmad_sig_crc){ .type = RDMAD_SIG_CRC_TYPE_CRC32C, .seed = 0 };
	crypto.data_unit_size = 513;
	assert_refused(rdmad_configure_mkey_attr(by_attr, RDMAD_ACCESS_LOCAL_WRITE, &layout, 1, &sig,
						 &crypto, 0), EINVAL);
	assert_non_null(strstr(rdmad_last_error(), "data_unit_size"));
	a = shown_config(by_attr->lkey);
	assert_string_equal(json_object_get_string(json_object_object_get(
		json_object_object_get(json_object_object_get(a, "mem"), "crc"), "type")), "crc64_xp10");
	json_object_put(a);
	rdmad_close(ctx);
	json_object_put(harness_call("io.rdmad.Dek.Destroy", "{\"name\": \"attrdek\"}"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mkey_create_configure_check),
		cmocka_unit_test(test_pool_borrow_return),
		cmocka_unit_test(test_dek_lookup),
		cmocka_unit_test(test_mkey_attr_structures),
	};

	return cmocka_run_group_tests_name("librdmad MKEYs, pools, DEKs", tests, harness_start,
					   harness_stop);
}
