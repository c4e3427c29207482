/* SPDX-License-Identifier: MIT */
/* lib/base64.c against the RFC 4648 §10 test vectors, and what the decoder refuses. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lib/base64.h"

static const struct { const char *plain, *encoded; } vectors[] = {
	{ "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" }, { "foo", "Zm9v" },
	{ "foob", "Zm9vYg==" }, { "fooba", "Zm9vYmE=" }, { "foobar", "Zm9vYmFy" },
};

static void test_rfc4648_vectors(void **state)
{
	for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		size_t n = strlen(vectors[i].plain), len;
		char text[16];
		uint8_t bytes[16];

		assert_int_equal(base64_encoded_size(n), strlen(vectors[i].encoded));
		base64_encode((const uint8_t *)vectors[i].plain, n, text);
		assert_string_equal(text, vectors[i].encoded);
		assert_int_equal(base64_decode(vectors[i].encoded, strlen(vectors[i].encoded), bytes,
					       &len), 0);
		assert_int_equal(len, n);
		assert_memory_equal(bytes, vectors[i].plain, n);
	}
}

static void test_every_byte_round_trips(void **state)
{
	uint8_t in[256], out[256];
	char text[400];
	size_t len;

	for (int i = 0; i < 256; i++)
		in[i] = (uint8_t)(255 - i);
	for (size_t n = 250; n <= 256; n++) {
		base64_encode(in, n, text);
		assert_int_equal(base64_decode(text, strlen(text), out, &len), 0);
		assert_int_equal(len, n);
		assert_memory_equal(in, out, n);
	}
	base64_encode(in, 3, text);
	assert_string_equal(text, "//79");   /* the last two letters of the alphabet */
}

static void test_decoder_refusals(void **state)
{
	static const char *const bad[] = {
		"Zg=", "Zg", "Z===", "Zm9v=Zm9", "Zm 9", "Zm9\n", "Zh==", "Zm9=", "Zm-v", "=Zg=",
	};
	uint8_t out[16];
	size_t len;

	/* Wrong length, padding in the middle, non-alphabet, non-zero bits under the padding. */
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(base64_decode(bad[i], strlen(bad[i]), out, &len), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc4648_vectors),
		cmocka_unit_test(test_every_byte_round_trips),
		cmocka_unit_test(test_decoder_refusals),
	};

	return cmocka_run_group_tests_name("base64", tests, NULL, NULL);
}
