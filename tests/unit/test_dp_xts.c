/* AES-XTS: IEEE Std 1619-2007 test vectors (1-5, 10, 15-18), the reference §4.4 KAT, tweak
 * increment per data unit, the job-size rule examples of seed 001, key refusals. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "dataplane/offload/xts.h"

static size_t unhex(const char *s, uint8_t *out)
{
	size_t n = 0;

	for (; s[0] && s[1]; s += 2) {
		unsigned v;

		sscanf(s, "%2x", &v);
		out[n++] = (uint8_t)v;
	}
	return n;
}

struct vec {
	const char *name, *key, *tweak, *pt, *ct;
};

#define PATTERN_MARK "PATTERN"   /* bytes 00..ff twice (512 bytes) */

static const char *const v4_ct =
	"27a7479befa1d476489f308cd4cfa6e2a96e4bbe3208ff25287dd3819616e89c"
	"c78cf7f5e543445f8333d8fa7f56000005279fa5d8b5e4ad40e736ddb4d35412"
	"328063fd2aab53e5ea1e0a9f332500a5df9487d07a5c92cc512c8866c7e860ce"
	"93fdf166a24912b422976146ae20ce846bb7dc9ba94a767aaef20c0d61ad0265"
	"5ea92dc4c4e41a8952c651d33174be51a10c421110e6d81588ede82103a252d8"
	"a750e8768defffed9122810aaeb99f9172af82b604dc4b8e51bcb08235a6f434"
	"1332e4ca60482a4ba1a03b3e65008fc5da76b70bf1690db4eae29c5f1badd03c"
	"5ccf2a55d705ddcd86d449511ceb7ec30bf12b1fa35b913f9f747a8afd1b130e"
	"94bff94effd01a91735ca1726acd0b197c4e5b03393697e126826fb6bbde8ecc"
	"1e08298516e2c9ed03ff3c1b7860f6de76d4cecd94c8119855ef5297ca67e9f3"
	"e7ff72b1e99785ca0a7e7720c5b36dc6d72cac9574c8cbbc2f801e23e56fd344"
	"b07f22154beba0f08ce8891e643ed995c94d9a69c9f1b5f499027a78572aeebd"
	"74d20cc39881c213ee770b1010e4bea718846977ae119f7a023ab58cca0ad752"
	"afe656bb3c17256a9f6e9bf19fdd5a38fc82bbe872c5539edb609ef4f79c203e"
	"bb140f2e583cb2ad15b4aa5b655016a8449277dbd477ef2c8d6c017db738b18d"
	"eb4a427d1923ce3ff262735779a418f20a282df920147beabe421ee5319d0568";

static const char *const v5_ct =
	"264d3ca8512194fec312c8c9891f279fefdd608d0c027b60483a3fa811d65ee5"
	"9d52d9e40ec5672d81532b38b6b089ce951f0f9c35590b8b978d175213f329bb"
	"1c2fd30f2f7f30492a61a532a79f51d36f5e31a7c9a12c286082ff7d2394d18f"
	"783e1a8e72c722caaaa52d8f065657d2631fd25bfd8e5baad6e527d763517501"
	"c68c5edc3cdd55435c532d7125c8614deed9adaa3acade5888b87bef641c4c99"
	"4c8091b5bcd387f3963fb5bc37aa922fbfe3df4e5b915e6eb514717bdd2a7407"
	"9a5073f5c4bfd46adf7d282e7a393a52579d11a028da4d9cd9c77124f9648ee3"
	"83b1ac763930e7162a8d37f350b2f74b8472cf09902063c6b32e8c2d9290cefb"
	"d7346d1c779a0df50edcde4531da07b099c638e83a755944df2aef1aa31752fd"
	"323dcb710fb4bfbb9d22b925bc3577e1b8949e729a90bbafeacf7f7879e7b114"
	"7e28ba0bae940db795a61b15ecf4df8db07b824bb062802cc98a9545bb2aaeed"
	"77cb3fc6db15dcd7d80d7d5bc406c4970a3478ada8899b329198eb61c193fb62"
	"75aa8ca340344a75a862aebe92eee1ce032fd950b47d7704a3876923b4ad6284"
	"4bf4a09c4dbe8b4397184b7471360c9564880aedddb9baa4af2e75394b08cd32"
	"ff479c57a07d3eab5d54de5f9738b8d27f27a9f0ab11799d7b7ffefb2704c95c"
	"6ad12c39f1e867a4b7b1d7818a4b753dfd2a89ccb45e001a03a867b187f225dd";

static const char *const v10_ct =
	"1c3b3a102f770386e4836c99e370cf9bea00803f5e482357a4ae12d414a3e63b"
	"5d31e276f8fe4a8d66b317f9ac683f44680a86ac35adfc3345befecb4bb188fd"
	"5776926c49a3095eb108fd1098baec70aaa66999a72a82f27d848b21d4a741b0"
	"c5cd4d5fff9dac89aeba122961d03a757123e9870f8acf1000020887891429ca"
	"2a3e7a7d7df7b10355165c8b9a6d0a7de8b062c4500dc4cd120c0f7418dae3d0"
	"b5781c34803fa75421c790dfe1de1834f280d7667b327f6c8cd7557e12ac3a0f"
	"93ec05c52e0493ef31a12d3d9260f79a289d6a379bc70c50841473d1a8cc81ec"
	"583e9645e07b8d9670655ba5bbcfecc6dc3966380ad8fecb17b6ba02469a020a"
	"84e18e8f84252070c13e9f1f289be54fbc481457778f616015e1327a02b140f1"
	"505eb309326d68378f8374595c849d84f4c333ec4423885143cb47bd71c5edae"
	"9be69a2ffeceb1bec9de244fbe15992b11b77c040f12bd8f6a975a44a0f90c29"
	"a9abc3d4d893927284c58754cce294529f8614dcd2aba991925fedc4ae74ffac"
	"6e333b93eb4aff0479da9a410e4450e0dd7ae4c6e2910900575da401fc07059f"
	"645e8b7e9bfdef33943054ff84011493c27b3429eaedb4ed5376441a77ed4385"
	"1ad77f16f541dfd269d50d6a5f14fb0aab1cbb4c1550be97f7ab4066193c4caa"
	"773dad38014bd2092fa755c824bb5e54c4f36ffda9fcea70b9c6e693e148c151";

#define K4 "2718281828459045235360287471352631415926535897932384626433832795"
#define K10 "2718281828459045235360287471352662497757247093699959574966967627" \
	    "3141592653589793238462643383279502884197169399375105820974944592"
#define K15 "fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0bfbebdbcbbbab9b8b7b6b5b4b3b2b1b0"

static const struct vec vecs[] = {
	{ "IEEE 1619 vector 1", "0000000000000000000000000000000000000000000000000000000000000000",
	  "00000000000000000000000000000000",
	  "0000000000000000000000000000000000000000000000000000000000000000",
	  "917cf69ebd68b2ec9b9fe9a3eadda692cd43d2f59598ed858c02c2652fbf922e" },
	{ "IEEE 1619 vector 2", "1111111111111111111111111111111122222222222222222222222222222222",
	  "33333333330000000000000000000000",
	  "4444444444444444444444444444444444444444444444444444444444444444",
	  "c454185e6a16936e39334038acef838bfb186fff7480adc4289382ecd6d394f0" },
	{ "IEEE 1619 vector 3", "fffefdfcfbfaf9f8f7f6f5f4f3f2f1f022222222222222222222222222222222",
	  "33333333330000000000000000000000",
	  "4444444444444444444444444444444444444444444444444444444444444444",
	  "af85336b597afc1a900b2eb21ec949d292df4c047e0b21532186a5971a227a89" },
	{ "IEEE 1619 vector 4", K4, "00000000000000000000000000000000", PATTERN_MARK, NULL /* v4_ct */ },
	{ "IEEE 1619 vector 5", K4, "01000000000000000000000000000000", NULL /* v4_ct */, NULL /* v5_ct */ },
	{ "IEEE 1619 vector 10", K10, "ff000000000000000000000000000000", PATTERN_MARK, NULL /* v10_ct */ },
	{ "IEEE 1619 vector 15", K15, "9a785634120000000000000000000000",
	  "000102030405060708090a0b0c0d0e0f10", "6c1625db4671522d3d7599601de7ca09ed" },
	{ "IEEE 1619 vector 16", K15, "9a785634120000000000000000000000",
	  "000102030405060708090a0b0c0d0e0f1011", "d069444b7a7e0cab09e24447d24deb1fedbf" },
	{ "IEEE 1619 vector 17", K15, "9a785634120000000000000000000000",
	  "000102030405060708090a0b0c0d0e0f101112", "e5df1351c0544ba1350b3363cd8ef4beedbf9d" },
	{ "IEEE 1619 vector 18", K15, "9a785634120000000000000000000000",
	  "000102030405060708090a0b0c0d0e0f10111213", "9d84c813f719aa2c7be3f66171c7c5c2edbf9dac" },
};

static void pattern(uint8_t *b)
{
	for (int i = 0; i < 512; i++)
		b[i] = (uint8_t)i;
}

static void run_vec(const struct vec *v, const char *pt, const char *ct)
{
	uint8_t key[64], tw[16], p[600], c[600], o[600];
	size_t klen, plen, clen;
	struct dp_xts *x = NULL;
	struct dp_error err;

	klen = unhex(v->key, key);
	unhex(v->tweak, tw);
	if (!strcmp(pt, PATTERN_MARK)) {
		pattern(p);
		plen = 512;
	} else {
		plen = unhex(pt, p);
	}
	clen = unhex(ct, c);
	assert_int_equal(plen, clen);
	if (memcmp(key, key + klen / 2, klen / 2) == 0) {
		/* vector 1 uses key1 == key2: refused by decision (docs/offload.md) */
		assert_int_equal(dp_xts_create(key, klen, &x, &err), -EINVAL);
		assert_string_equal(err.field, "key");
		return;
	}
	assert_int_equal(dp_xts_create(key, klen, &x, &err), 0);
	/* one data unit: dus >= length (the unit is the whole vector) */
	assert_int_equal(dp_xts_crypt(x, true, tw, 0, 4096, o, p, plen, &err), 0);
	assert_memory_equal(o, c, clen);
	assert_int_equal(dp_xts_crypt(x, false, tw, 0, 4096, o, c, clen, &err), 0);
	assert_memory_equal(o, p, plen);
	/* in place */
	memcpy(o, p, plen);
	assert_int_equal(dp_xts_crypt(x, true, tw, 0, 4096, o, o, plen, &err), 0);
	assert_memory_equal(o, c, clen);
	dp_xts_destroy(x);
}

static void test_ieee1619(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++) {
		const struct vec *v = &vecs[i];
		const char *pt = v->pt, *ct = v->ct;

		if (strstr(v->name, "vector 4")) {
			ct = v4_ct;
		} else if (strstr(v->name, "vector 5")) {
			pt = v4_ct;
			ct = v5_ct;
		} else if (strstr(v->name, "vector 10")) {
			ct = v10_ct;
		}
		print_message("# %s\n", v->name);
		run_vec(v, pt, ct);
	}
}

/* A 1024-byte job of two 512-byte units from tweak 0: unit 0 is vector 4, unit 1 (tweak 1) is
 * vector 5, whose plaintext is vector 4's ciphertext. */
static void test_tweak_per_unit(void **state)
{
	uint8_t key[32], tw[16] = { 0 }, in[1024], out[1024], want[1024];
	struct dp_xts *x;
	struct dp_error err;

	(void)state;
	unhex(K4, key);
	pattern(in);
	unhex(v4_ct, in + 512);
	unhex(v4_ct, want);
	unhex(v5_ct, want + 512);
	assert_int_equal(dp_xts_create(key, 32, &x, &err), 0);
	assert_int_equal(dp_xts_crypt(x, true, tw, 0, 512, out, in, 1024, &err), 0);
	assert_memory_equal(out, want, 1024);
	/* starting at unit 1 of the same job */
	assert_int_equal(dp_xts_crypt(x, true, tw, 1, 512, out, in + 512, 512, &err), 0);
	assert_memory_equal(out, want + 512, 512);
	assert_int_equal(dp_xts_crypt(x, false, tw, 0, 512, out, want, 1024, &err), 0);
	assert_memory_equal(out, in, 1024);
	dp_xts_destroy(x);
}

static void test_tweak_add(void **state)
{
	uint8_t t[16];

	(void)state;
	memset(t, 0xff, 8);
	memset(t + 8, 0, 8);
	dp_tweak_add(t, 1);                      /* carry out of the low 64 bits */
	assert_int_equal(t[0], 0);
	assert_int_equal(t[7], 0);
	assert_int_equal(t[8], 1);
	memset(t, 0xff, 16);
	dp_tweak_add(t, 2);                      /* wraps modulo 2^128 */
	assert_int_equal(t[0], 1);
	for (int i = 1; i < 16; i++)
		assert_int_equal(t[i], 0);
}

static void test_job_size_rule(void **state)
{
	(void)state;
	/* seed 001 examples */
	assert_true(dp_xts_job_size_ok(512, 512));
	assert_true(dp_xts_job_size_ok(128, 512));
	assert_false(dp_xts_job_size_ok(47, 512));
	assert_true(dp_xts_job_size_ok(520, 520));
	assert_true(dp_xts_job_size_ok(496, 520));
	assert_false(dp_xts_job_size_ok(512, 520));
	/* decision: a short last unit below 16 bytes is refused (528 = 520 + 8) */
	assert_false(dp_xts_job_size_ok(528, 520));
	assert_true(dp_xts_job_size_ok(544, 520));
	assert_true(dp_xts_job_size_ok(0, 512));
}

static void test_keys_refused(void **state)
{
	uint8_t key[64];
	struct dp_xts *x;
	struct dp_error err;

	(void)state;
	memset(key, 0x11, sizeof(key));
	assert_int_equal(dp_xts_create(key, 32, &x, &err), -EINVAL);   /* key1 == key2 */
	assert_string_equal(err.field, "key");
	assert_int_equal(dp_xts_create(key, 64, &x, &err), -EINVAL);
	key[40] = 0x22;
	assert_int_equal(dp_xts_create(key, 48, &x, &err), -EINVAL);   /* AES-192 is not XTS here */
	assert_string_equal(err.field, "key");
	assert_int_equal(dp_xts_create(key, 64, &x, &err), 0);
	assert_int_equal(dp_xts_key_bits(x), 256);
	dp_xts_destroy(x);
}

static void test_short_unit_refused(void **state)
{
	uint8_t key[32], tw[16] = { 0 }, buf[600];
	struct dp_xts *x;
	struct dp_error err;

	(void)state;
	unhex(K4, key);
	memset(buf, 0, sizeof(buf));
	assert_int_equal(dp_xts_create(key, 32, &x, &err), 0);
	assert_int_equal(dp_xts_crypt(x, true, tw, 0, 520, buf, buf, 528, &err), -EINVAL);
	assert_int_equal(dp_xts_crypt(x, true, tw, 0, 512, buf, buf, 15, &err), -EINVAL);
	dp_xts_destroy(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ieee1619),
		cmocka_unit_test(test_tweak_per_unit),
		cmocka_unit_test(test_tweak_add),
		cmocka_unit_test(test_job_size_rule),
		cmocka_unit_test(test_keys_refused),
		cmocka_unit_test(test_short_unit_refused),
	};

	return cmocka_run_group_tests_name("dataplane xts", tests, NULL, NULL);
}
