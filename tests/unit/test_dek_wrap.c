/* AES Key Wrap unwrapping (daemon/verbs/keywrap.c): the six test vectors of RFC 3394 section 4,
 * refusal of damaged data and of a wrong KEK (the integrity check), and of lengths KW
 * cannot have. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "daemon/verbs/keywrap.h"

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

#define KEK256 "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F"

/* RFC 3394 4.1-4.6: the KEK is the first bits of KEK256, the key data the first bits of DATA. */
#define DATA "00112233445566778899AABBCCDDEEFF000102030405060708090A0B0C0D0E0F"
static const struct {
	const char *section;
	size_t kek_len, data_len;
	const char *ciphertext;
} rfc3394[] = {
	{ "4.1", 16, 16, "1FA68B0A8112B447AEF34BD8FB5A7B829D3E862371D2CFE5" },
	{ "4.2", 24, 16, "96778B25AE6CA435F92B5B97C050AED2468AB8A17AD84E5D" },
	{ "4.3", 32, 16, "64E8C3F9CE0F5BA263E9777905818A2A93C8191E7D6E8AE7" },
	{ "4.4", 24, 24, "031D33264E15D33268F24EC260743EDCE1C6C7DDEE725A936BA814915C6762D2" },
	{ "4.5", 32, 24, "A8F9BC1612C68B3FF6E6F4FBE30E71E4769C8B80A32CB8958CD5D17D6B254DA1" },
	{ "4.6", 32, 32, "28C9F404C4B810F4CBCCB35CFB87F8263F5786E2D80ED326CBC7F0E71A99F43B"
			 "FB988B9B7A02DD21" },
};

static void test_rfc3394_vectors(void **state)
{
	uint8_t kek[32], data[32], ct[40], out[40];

	unhex(KEK256, kek);
	unhex(DATA, data);
	for (size_t i = 0; i < sizeof(rfc3394) / sizeof(rfc3394[0]); i++) {
		size_t n = unhex(rfc3394[i].ciphertext, ct);

		assert_int_equal(n, rfc3394[i].data_len + KEYWRAP_OVERHEAD);
		memset(out, 0xee, sizeof(out));
		assert_int_equal(keywrap_unwrap(kek, rfc3394[i].kek_len, ct, n, out), 0);
		assert_memory_equal(out, data, rfc3394[i].data_len);
	}
}

static void test_damaged_data_refused(void **state)
{
	uint8_t kek[32], ct[40], out[40];
	size_t n;

	unhex(KEK256, kek);
	n = unhex(rfc3394[5].ciphertext, ct);
	ct[n - 1] ^= 0x01;
	memset(out, 0xee, sizeof(out));
	assert_int_equal(keywrap_unwrap(kek, 32, ct, n, out), -EBADMSG);
	/* Nothing of the failed unwrap is left behind. */
	for (size_t i = 0; i < n - KEYWRAP_OVERHEAD; i++)
		assert_int_equal(out[i], 0);
}

static void test_wrong_kek_refused(void **state)
{
	uint8_t kek[32], ct[40], out[40];
	size_t n;

	unhex(KEK256, kek);
	kek[0] ^= 0x80;
	n = unhex(rfc3394[2].ciphertext, ct);
	assert_int_equal(keywrap_unwrap(kek, 32, ct, n, out), -EBADMSG);
}

static void test_lengths_refused(void **state)
{
	uint8_t kek[32] = { 0 }, ct[48] = { 0 }, out[48];

	/* KW needs two 64-bit blocks of data plus the integrity block, in whole blocks. */
	assert_int_equal(keywrap_unwrap(kek, 16, ct, 16, out), -EINVAL);
	assert_int_equal(keywrap_unwrap(kek, 16, ct, 25, out), -EINVAL);
	/* AES keys only. */
	assert_int_equal(keywrap_unwrap(kek, 20, ct, 24, out), -EINVAL);
	assert_int_equal(keywrap_unwrap(kek, 0, ct, 24, out), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc3394_vectors),
		cmocka_unit_test(test_damaged_data_refused),
		cmocka_unit_test(test_wrong_kek_refused),
		cmocka_unit_test(test_lengths_refused),
	};

	return cmocka_run_group_tests_name("dek key wrap", tests, NULL, NULL);
}
