/* Known-answer tests of the integrity-field checksums: reference mlx5_sig_crypto.md §2.2-2.5 and
 * §2.8, and the CRC catalogue check values.  Expected values are the published ones. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "dataplane/offload/crc.h"

static const char check9[] = "123456789";

static void fill(uint8_t *b, size_t n, uint8_t v)
{
	memset(b, v, n);
}

static void test_t10dif_catalogue(void **state)
{
	(void)state;
	assert_int_equal(dp_crc16_t10dif(0, check9, 9), 0xD0DB);        /* CRC-16/T10-DIF */
	assert_int_equal(dp_crc16_t10dif(0xFFFF, check9, 9), 0x8E3C);   /* §2.8 bg=0xFFFF */
}

static void test_t10dif_hw_vector(void **state)
{
	uint8_t b[512], c[512];

	(void)state;
	fill(b, 512, 0xA5);
	assert_int_equal(dp_crc16_t10dif(0xFFFF, b, 512), 0xEC7D);      /* §2.8, HW [EX] */
	assert_int_equal(dp_crc16_t10dif_copy(0xFFFF, c, b, 512), 0xEC7D);
	assert_memory_equal(b, c, 512);
}

static void test_crc32_fcph(void **state)
{
	uint8_t b[512];

	(void)state;
	assert_int_equal(dp_crc32_fcph(0xFFFFFFFF, check9, 9), 0xFC891918);   /* CRC-32/BZIP2 */
	assert_int_equal(dp_crc32_fcph(0, check9, 9), 0x765E7680);            /* CRC-32/CKSUM w/o length */
	fill(b, 512, 0x01);
	assert_int_equal(dp_crc32_fcph(0, b, 512), 0x15D286F7);               /* §2.8 HW [EX] */
	assert_int_equal(dp_crc32_fcph(0xFFFFFFFF, b, 512), 0xF4832C45);      /* §2.8 */
}

static void test_crc32c(void **state)
{
	uint8_t b[512];

	(void)state;
	assert_int_equal(dp_crc32c(0xFFFFFFFF, check9, 9), 0xE3069283);       /* CRC-32/ISCSI */
	assert_int_equal(dp_crc32c(0, check9, 9), 0xA71C05DF);                /* §2.4 seed 0 */
	fill(b, 512, 0x00);
	assert_int_equal(dp_crc32c(0xFFFFFFFF, b, 512), 0x30FCEDC0);          /* §2.8 */
}

static void test_crc64_xp10(void **state)
{
	uint8_t b[512];

	(void)state;
	/* CRC-64/NVME catalogue check; §2.5 */
	assert_true(dp_crc64_xp10(~0ull, check9, 9) == 0xAE8B14860A799888ull);
	assert_true(dp_crc64_xp10(0, check9, 9) == 0x87FF3F9B2B57C87Bull);
	fill(b, 512, 0x00);
	assert_true(dp_crc64_xp10(~0ull, b, 512) == 0x1DE60E2868A782E9ull);  /* §2.8 */
}

/* Bit-at-a-time CRC-64/NVME straight from the definition: reflected poly 0x9A6C9329AC4BC9B5. */
static uint64_t crc64_bitwise(uint64_t reg, const uint8_t *p, size_t n)
{
	while (n--) {
		reg ^= *p++;
		for (int i = 0; i < 8; i++)
			reg = (reg >> 1) ^ ((reg & 1) ? 0x9A6C9329AC4BC9B5ull : 0);
	}
	return reg;
}

static void test_crc64_fast_equals_definition(void **state)
{
	size_t cap = 20000;
	uint8_t *b = malloc(cap + 8);

	(void)state;
	srand(42);
	for (size_t i = 0; i < cap + 8; i++)
		b[i] = (uint8_t)rand();
	for (size_t n = 0; n <= cap; n += n < 1100 ? 1 : 331)
		for (size_t off = 0; off < 8; off += 3) {
			uint64_t seed = (n & 1) ? ~0ull : 0x0123456789abcdefull;

			assert_true(dp_crc64_xp10_update(seed, b + off, n) == crc64_bitwise(seed, b + off, n));
			assert_true(dp_crc64_xp10_update_table(seed, b + off, n) == crc64_bitwise(seed, b + off, n));
		}
	free(b);
}

/* The stitched copy variant: same value as the CRC-64/NVME definition, and an exact copy, for
 * every length 0..1100 and a spread of longer ones, at several alignments. */
static void test_copy_variants(void **state)
{
	size_t cap = 9000;
	uint8_t *b = malloc(cap + 16), *d = malloc(cap + 16);

	(void)state;
	srand(7);
	for (size_t i = 0; i < cap + 16; i++)
		b[i] = (uint8_t)rand();
	for (size_t n = 0; n <= cap; n += n < 1100 ? 1 : 97)
		for (size_t off = 0; off < 16; off += 5) {
			uint64_t seed64 = (n & 2) ? ~0ull : 0;

			memset(d, 0xcc, cap + 16);
			assert_true(dp_crc64_xp10_copy(seed64, d + 1, b + off, n) == ~crc64_bitwise(seed64, b + off, n));
			assert_memory_equal(d + 1, b + off, n);
			assert_int_equal(d[1 + n], 0xcc);
		}
	assert_true(dp_crc64_xp10_copy(~0ull, d, check9, 9) == 0xAE8B14860A799888ull);
	free(b);
	free(d);
}

static void test_ip_csum(void **state)
{
	uint8_t b[512];

	(void)state;
	fill(b, 512, 0xA5);
	assert_int_equal(dp_ip_csum(0, b, 512), 0x5A5A);       /* §2.8 */
	assert_int_equal(dp_ip_csum(0xFFFF, b, 512), 0x5A5A);  /* bg only matters for all-zero data */
	fill(b, 512, 0);
	assert_int_equal(dp_ip_csum(0, b, 512), 0xFFFF);
	assert_int_equal(dp_ip_csum(0xFFFF, b, 512), 0x0000);
	/* RFC 1071 style example: words 0x0001 0xf203 0xf4f5 0xf6f7 sum 0x2ddf0 -> 0xddf2 -> ~ 0x220d */
	{
		const uint8_t w[] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };

		assert_int_equal(dp_ip_csum(0, w, sizeof(w)), 0x220d);
	}
}

static void test_piecewise(void **state)
{
	uint8_t b[4160];

	(void)state;
	for (size_t i = 0; i < sizeof(b); i++)
		b[i] = (uint8_t)(i * 7 + 3);
	/* pieces of even length chain to the one-shot value */
	{
		uint32_t s = dp_ip_csum_update(0, b, 1000);

		s = dp_ip_csum_update(s, b + 1000, 3160);
		assert_int_equal(dp_ip_csum_final(0xFFFF, s), dp_ip_csum(0xFFFF, b, 4160));
	}
	{
		uint32_t v = dp_crc32_fcph_update((uint32_t)~0u, b, 1000);   /* seed 0: value starts at ~0 */

		v = dp_crc32_fcph_update(v, b + 1000, 3160);
		assert_int_equal(v, dp_crc32_fcph(0, b, 4160));
	}
	{
		uint32_t r = dp_crc32c_update(0xFFFFFFFF, b, 1234);

		r = dp_crc32c_update(r, b + 1234, 4160 - 1234);
		assert_int_equal(~r, dp_crc32c(0xFFFFFFFF, b, 4160));
	}
	{
		uint64_t r = dp_crc64_xp10_update(~0ull, b, 777);

		r = dp_crc64_xp10_update(r, b + 777, 4160 - 777);
		assert_true(~r == dp_crc64_xp10(~0ull, b, 4160));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_t10dif_catalogue),
		cmocka_unit_test(test_t10dif_hw_vector),
		cmocka_unit_test(test_crc32_fcph),
		cmocka_unit_test(test_crc32c),
		cmocka_unit_test(test_crc64_xp10),
		cmocka_unit_test(test_crc64_fast_equals_definition),
		cmocka_unit_test(test_copy_variants),
		cmocka_unit_test(test_ip_csum),
		cmocka_unit_test(test_piecewise),
	};

	return cmocka_run_group_tests_name("dataplane crc", tests, NULL, NULL);
}
