/* The transform configuration JSON (issue 3 §4): parsing, defaults, round trip, and every
 * invalid configuration refused with the offending member named. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "dataplane/offload/transform_json.h"

static void test_full_config(void **state)
{
	struct dp_transform_cfg c;
	struct dp_error err;
	const char *text =
		"{\"mem\": {\"sig_type\": \"t10dif\", \"block_size\": 512,"
		"          \"t10dif\": {\"bg_type\": \"csum\", \"bg\": 65535, \"app_tag\": 4660,"
		"                     \"ref_tag\": 4294967295, \"flags\": [\"ref_remap\", \"app_escape\"]}},"
		" \"wire\": {\"sig_type\": \"crc\", \"block_size\": 4096,"
		"          \"crc\": {\"type\": \"crc64_xp10\", \"seed\": 18446744073709551615}},"
		" \"check_mask\": 15,"
		" \"crypto\": {\"standard\": \"aes_xts\", \"encrypt_on_tx\": false,"
		"            \"signature_crypto_order\": \"signature_after_crypto_on_tx\","
		"            \"data_unit_size\": 4160, \"initial_tweak\": \"0102030405060708090a0b0c0d0e0f10\"}}";

	(void)state;
	assert_int_equal(dp_transform_cfg_parse(text, &c, &err), 0);
	assert_int_equal(c.mem.sig_type, DP_SIG_T10DIF);
	assert_int_equal(c.mem.block_size, 512);
	assert_int_equal(c.mem.t10dif.bg_type, DP_T10DIF_BG_CSUM);
	assert_int_equal(c.mem.t10dif.bg, 0xffff);
	assert_int_equal(c.mem.t10dif.app_tag, 0x1234);
	assert_int_equal(c.mem.t10dif.ref_tag, 0xffffffffu);
	assert_int_equal(c.mem.t10dif.flags, DP_T10DIF_FLAG_REF_REMAP | DP_T10DIF_FLAG_APP_ESCAPE);
	assert_int_equal(c.wire.sig_type, DP_SIG_CRC);
	assert_int_equal(c.wire.crc.type, DP_CRC_CRC64_XP10);
	assert_true(c.wire.crc.seed == ~0ull);
	assert_int_equal(c.check_mask, 15);
	assert_false(c.copy_mask_set);
	assert_true(c.crypto.enabled);
	assert_false(c.crypto.encrypt_on_tx);
	assert_int_equal(c.crypto.order, DP_SIG_AFTER_CRYPTO_ON_TX);
	assert_int_equal(c.crypto.data_unit_size, 4160);
	assert_int_equal(c.crypto.initial_tweak[0], 1);
	assert_int_equal(c.crypto.initial_tweak[15], 0x10);

	/* to_json gives the same configuration back */
	{
		struct json_object *o = dp_transform_cfg_to_json(&c);
		struct dp_transform_cfg c2;

		assert_int_equal(dp_transform_cfg_from_json(o, &c2, &err), 0);
		assert_memory_equal(&c.mem, &c2.mem, sizeof(c.mem));
		assert_memory_equal(&c.wire, &c2.wire, sizeof(c.wire));
		assert_memory_equal(&c.crypto, &c2.crypto, sizeof(c.crypto));
		assert_int_equal(c.check_mask, c2.check_mask);
		json_object_put(o);
	}
}

static void test_defaults(void **state)
{
	struct dp_transform_cfg c;
	struct dp_error err;

	(void)state;
	assert_int_equal(dp_transform_cfg_parse("{\"mem\": null, \"wire\": {\"sig_type\": \"t10dif\", \"block_size\": 520}}",
						&c, &err), 0);
	assert_int_equal(c.mem.sig_type, DP_SIG_NONE);
	assert_int_equal(c.wire.t10dif.bg_type, DP_T10DIF_BG_CRC);
	assert_int_equal(c.wire.t10dif.bg, 0);
	assert_int_equal(c.wire.t10dif.flags, 0);
	assert_int_equal(c.check_mask, 255);
	assert_false(c.crypto.enabled);
	assert_int_equal(dp_transform_cfg_parse("{\"wire\": {\"sig_type\": \"crc\", \"block_size\": 512, "
						"\"crc\": {\"type\": \"crc32c\", \"seed\": \"0xffffffff\"}}, "
						"\"mem\": {\"sig_type\": \"crc\", \"block_size\": 512, "
						"\"crc\": {\"type\": \"crc32c\"}}, \"copy_mask\": 240, \"crypto\": null}",
						&c, &err), 0);
	assert_true(c.wire.crc.seed == 0xffffffffu);
	assert_true(c.copy_mask_set);
	assert_int_equal(c.copy_mask, 240);
	assert_int_equal(dp_transform_cfg_parse("{\"crypto\": {\"standard\": \"aes_xts\", \"encrypt_on_tx\": true, "
						"\"data_unit_size\": 512}}", &c, &err), 0);
	assert_int_equal(c.crypto.order, DP_SIG_AFTER_CRYPTO_ON_TX);
}

static void test_error_record_json(void **state)
{
	struct dp_sig_err e = { DP_SIG_ERR_REFTAG, 1002, 1003, 1040 };
	struct json_object *o = dp_sig_err_to_json(&e);

	(void)state;
	assert_string_equal(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
			    "{\"err_type\":\"reftag\",\"expected_value\":1002,\"actual_value\":1003,\"offset\":1040}");
	json_object_put(o);
	memset(&e, 0, sizeof(e));
	o = dp_sig_err_to_json(&e);
	assert_string_equal(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
			    "{\"err_type\":\"none\",\"expected_value\":0,\"actual_value\":0,\"offset\":0}");
	json_object_put(o);
}

struct bad {
	const char *json, *field;
};

#define T10 "{\"sig_type\": \"t10dif\", \"block_size\": 512}"
#define CRYPTO(extra) "\"crypto\": {\"standard\": \"aes_xts\", \"encrypt_on_tx\": true, \"data_unit_size\": 512" extra "}"

static const struct bad bads[] = {
	{ "[]", "" },
	{ "{\"mem\": 5}", "mem" },
	{ "{}", "mem" },                                          /* neither signature nor crypto */
	{ "{\"mem\": null, \"wire\": null}", "mem" },
	{ "{\"bogus\": 1, \"wire\": " T10 "}", "bogus" },
	{ "{\"wire\": {\"block_size\": 512}}", "wire.sig_type" },
	{ "{\"wire\": {\"sig_type\": \"dif\", \"block_size\": 512}}", "wire.sig_type" },
	{ "{\"wire\": {\"sig_type\": \"t10dif\"}}", "wire.block_size" },
	{ "{\"wire\": {\"sig_type\": \"t10dif\", \"block_size\": 1024}}", "wire.block_size" },
	{ "{\"wire\": {\"sig_type\": \"t10dif\", \"block_size\": \"abc\"}}", "wire.block_size" },
	{ "{\"mem\": {\"sig_type\": \"t10dif\", \"block_size\": 512, \"extra\": 1}}", "mem.extra" },
	{ "{\"mem\": {\"sig_type\": \"t10dif\", \"block_size\": 512, \"t10dif\": {\"bg_type\": \"xor\"}}}", "mem.t10dif.bg_type" },
	{ "{\"mem\": {\"sig_type\": \"t10dif\", \"block_size\": 512, \"t10dif\": {\"bg\": 1}}}", "mem.t10dif.bg" },
	{ "{\"mem\": {\"sig_type\": \"t10dif\", \"block_size\": 512, \"t10dif\": {\"bg\": -1}}}", "mem.t10dif.bg" },
	{ "{\"mem\": {\"sig_type\": \"t10dif\", \"block_size\": 512, \"t10dif\": {\"app_tag\": 65536}}}", "mem.t10dif.app_tag" },
	{ "{\"mem\": {\"sig_type\": \"t10dif\", \"block_size\": 512, \"t10dif\": {\"ref_tag\": 4294967296}}}", "mem.t10dif.ref_tag" },
	{ "{\"mem\": {\"sig_type\": \"t10dif\", \"block_size\": 512, \"t10dif\": {\"ref_tag\": 1.5}}}", "mem.t10dif.ref_tag" },
	{ "{\"mem\": {\"sig_type\": \"t10dif\", \"block_size\": 512, \"t10dif\": {\"flags\": [\"remap\"]}}}", "mem.t10dif.flags" },
	{ "{\"mem\": {\"sig_type\": \"t10dif\", \"block_size\": 512, \"t10dif\": {\"flags\": \"ref_remap\"}}}", "mem.t10dif.flags" },
	{ "{\"mem\": {\"sig_type\": \"t10dif\", \"block_size\": 512, \"t10dif\": {\"guard\": 1}}}", "mem.t10dif.guard" },
	{ "{\"mem\": {\"sig_type\": \"t10dif\", \"block_size\": 512, \"crc\": {\"type\": \"crc32\"}}}", "mem.crc" },
	{ "{\"wire\": {\"sig_type\": \"crc\", \"block_size\": 512}}", "wire.crc" },
	{ "{\"wire\": {\"sig_type\": \"crc\", \"block_size\": 512, \"crc\": {}}}", "wire.crc.type" },
	{ "{\"wire\": {\"sig_type\": \"crc\", \"block_size\": 512, \"crc\": {\"type\": \"crc16\"}}}", "wire.crc.type" },
	{ "{\"wire\": {\"sig_type\": \"crc\", \"block_size\": 512, \"crc\": {\"type\": \"crc32\", \"seed\": 1}}}", "wire.crc.seed" },
	{ "{\"wire\": {\"sig_type\": \"crc\", \"block_size\": 512, \"crc\": {\"type\": \"crc32c\", "
	  "\"seed\": 18446744073709551615}}}", "wire.crc.seed" },
	{ "{\"wire\": {\"sig_type\": \"crc\", \"block_size\": 512, \"crc\": {\"type\": \"crc64_xp10\", "
	  "\"seed\": 4294967295}}}", "wire.crc.seed" },
	{ "{\"wire\": {\"sig_type\": \"crc\", \"block_size\": 512, \"t10dif\": {}, \"crc\": {\"type\": \"crc32\"}}}", "wire.t10dif" },
	{ "{\"wire\": " T10 ", \"check_mask\": 256}", "check_mask" },
	{ "{\"wire\": " T10 ", \"check_mask\": true}", "check_mask" },
	{ "{\"wire\": " T10 ", \"copy_mask\": 255}", "copy_mask" },        /* memory domain absent */
	{ "{\"wire\": " T10 ", \"mem\": {\"sig_type\": \"t10dif\", \"block_size\": 4096}, \"copy_mask\": 255}", "copy_mask" },
	{ "{\"wire\": " T10 ", \"mem\": {\"sig_type\": \"crc\", \"block_size\": 512, \"crc\": {\"type\": \"crc32\"}}, "
	  "\"copy_mask\": 192}", "copy_mask" },
	{ "{\"wire\": " T10 ", \"copy_mask\": -1}", "copy_mask" },
	{ "{\"crypto\": 1}", "crypto" },
	{ "{\"crypto\": {\"encrypt_on_tx\": true, \"data_unit_size\": 512}}", "crypto.standard" },
	{ "{\"crypto\": {\"standard\": \"aes_gcm\", \"encrypt_on_tx\": true, \"data_unit_size\": 512}}", "crypto.standard" },
	{ "{\"crypto\": {\"standard\": \"aes_xts\", \"data_unit_size\": 512}}", "crypto.encrypt_on_tx" },
	{ "{\"crypto\": {\"standard\": \"aes_xts\", \"encrypt_on_tx\": 1, \"data_unit_size\": 512}}", "crypto.encrypt_on_tx" },
	{ "{\"crypto\": {\"standard\": \"aes_xts\", \"encrypt_on_tx\": true}}", "crypto.data_unit_size" },
	{ "{" CRYPTO(", \"data_unit_size\": 1024") "}", "crypto.data_unit_size" },
	{ "{" CRYPTO(", \"signature_crypto_order\": \"before\"") "}", "crypto.signature_crypto_order" },
	{ "{" CRYPTO(", \"initial_tweak\": \"00\"") "}", "crypto.initial_tweak" },
	{ "{" CRYPTO(", \"initial_tweak\": \"0000000000000000000000000000000g\"") "}", "crypto.initial_tweak" },
	{ "{" CRYPTO(", \"initial_tweak\": 0") "}", "crypto.initial_tweak" },
	{ "{" CRYPTO(", \"keytag\": \"00\"") "}", "crypto.keytag" },
	/* RAW_WIRE / RAW_MEMORY with a signature in both domains */
	{ "{\"mem\": " T10 ", \"wire\": " T10 ", " CRYPTO(", \"signature_crypto_order\": \"signature_after_crypto_on_tx\"") "}",
	  "crypto.signature_crypto_order" },
	{ "{\"mem\": " T10 ", \"wire\": " T10 ", \"crypto\": {\"standard\": \"aes_xts\", \"encrypt_on_tx\": false, "
	  "\"data_unit_size\": 512, \"signature_crypto_order\": \"signature_before_crypto_on_tx\"}}",
	  "crypto.signature_crypto_order" },
	{ "{\"wire\": " T10 "} trailing", "" },
	{ "{\"wire\": ", "" },
};

static void test_invalid_configs(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		struct dp_transform_cfg c;
		struct dp_error err;
		int rc = dp_transform_cfg_parse(bads[i].json, &c, &err);

		print_message("# %-32s %s\n", bads[i].field, err.message);
		assert_int_equal(rc, -EINVAL);
		assert_string_equal(err.field, bads[i].field);
		assert_true(strlen(err.message) > 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_config),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_error_record_json),
		cmocka_unit_test(test_invalid_configs),
	};

	return cmocka_run_group_tests_name("dataplane transform json", tests, NULL, NULL);
}
