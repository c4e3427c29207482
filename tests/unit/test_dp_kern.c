/* The fused multi-block guard kernels (dataplane/offload/kern.h) against the reference path
 * (dp_sig_guard + memcpy, itself proven in test_dp_crc): every guard type and seed, random
 * block lengths, strides and alignments, runs of 1..11 blocks (the CRC32C kernel takes blocks in
 * threes), with and without the copy, at every kernel level the CPU runs. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/unit/test_rng.h"

#include "dataplane/offload/crc.h"
#include "dataplane/offload/kern.h"
#include "dataplane/offload/kern_selftest.h"
#include "dataplane/offload/sig.h"
#include "tests/unit/sig_domains.h"


static void run_case(const struct dp_sig_domain *d, const uint8_t *src, size_t ss, size_t len, size_t n,
		     bool copy, uint8_t *dst, size_t ds, size_t dcap)
{
	uint64_t g[16];

	memset(dst, 0x5a, dcap);
	dp_sig_guard_blocks(d, g, copy ? dst : NULL, ds, src, ss, len, n);
	for (size_t i = 0; i < n; i++) {
		assert_true(g[i] == dp_sig_guard(d, src + i * ss, len));
		if (copy) {
			assert_memory_equal(dst + i * ds, src + i * ss, len);
			/* the gap between blocks (where the field goes) is not touched */
			for (size_t j = len; j < ds && i * ds + j < dcap; j++)
				assert_int_equal(dst[i * ds + j], 0x5a);
		} else {
			assert_int_equal(dst[i * ds], 0x5a);
		}
	}
}

static void kern_random(enum dp_kern_level level)
{
	struct dp_sig_domain d[SIG_DOMAINS];
	int nd = sig_domains(d);
	size_t cap = 11 * (4160 + 64) + 64;
	/* one area, so that dst - src modulo 4 KiB takes every value (the folding kernels walk
	 * backward when dst is a little above src modulo 4 KiB) */
	uint8_t *area = malloc(2 * cap + 8192), *src = area, *dst = area + cap + (rnd() % 4096);
	static const size_t sizes[] = { 512, 520, 4048, 4096, 4160 };
	int old = dp_kern_set_level(level);

	assert_true(old >= 0);

	for (size_t i = 0; i < cap; i++)
		src[i] = (uint8_t)rnd();
	for (int it = 0; it < 1500; it++) {
		/* half the cases: a block size of the device; else any length 0..4200 */
		size_t len = (it & 1) ? sizes[rnd() % 5] : rnd() % 4201;
		size_t n = 1 + rnd() % 11;
		size_t sgap = rnd() % 3 == 0 ? 0 : rnd() % 9;      /* 0, or a field-sized gap */
		size_t dgap = rnd() % 3 == 0 ? 0 : rnd() % 9;
		size_t soff = rnd() % 32, doff = rnd() % 4096;
		size_t ss = len + sgap, ds = len + dgap;
		const struct dp_sig_domain *dom = &d[rnd() % (unsigned)nd];

		if (dom->sig_type == DP_SIG_T10DIF && dom->t10dif.bg_type == DP_T10DIF_BG_CSUM && (ss & 1))
			ss++;           /* the checksum takes whole 16-bit words: any even stride */
		if (soff + n * ss > cap || doff + n * ds > cap + 4096)
			continue;
		run_case(dom, src + soff, ss, len, n, rnd() & 1, dst + doff, ds, cap + 4096 - doff);
	}
	/* every type at every device block size, both copy modes, 1..7 blocks */
	for (int k = 0; k < nd; k++)
		for (int s = 0; s < 5; s++)
			for (size_t n = 1; n <= 7; n++) {
				run_case(&d[k], src + 3, sizes[s] + 8, sizes[s], n, true, dst + 5, sizes[s] + 4, cap - 5);
				run_case(&d[k], src, sizes[s] + 4, sizes[s], n, false, dst, sizes[s], cap);
			}
	dp_kern_set_level((enum dp_kern_level)old);
	free(area);
}

/* Every level against the reference; a level this CPU cannot run is skipped, with the reason. */
static void kern_level_random(enum dp_kern_level level)
{
	if (!dp_kern_level_supported(level)) {
		print_message("# skip level %s: %s\n", dp_kern_level_name(level), dp_kern_level_selftest(level));
		skip();
	}
	kern_random(level);
}

static void test_kern_portable(void **state)
{
	(void)state;
	kern_level_random(DP_KERN_PORTABLE);
}

static void test_kern_pclmul(void **state)
{
	(void)state;
	kern_level_random(DP_KERN_PCLMUL);
}

static void test_kern_avx2(void **state)
{
	(void)state;
	kern_level_random(DP_KERN_AVX2);
}

static void test_kern_vpclmul256(void **state)
{
	(void)state;
	kern_level_random(DP_KERN_VPCLMUL256);
}

/* Three blocks of 512 bytes of fill through the kernels (with the copy when copy): each
 * guard must be want. */
static void expect_guards(struct dp_sig_domain *d, uint8_t fill, bool copy, uint64_t want)
{
	uint8_t b[3 * 512], o[3 * 520];
	uint64_t g[3];

	d->block_size = 512;
	memset(b, fill, sizeof(b));
	dp_sig_guard_blocks(d, g, copy ? o : NULL, 520, b, 512, 512, 3);
	for (int i = 0; i < 3; i++)
		assert_true(g[i] == want);
}

/* Known answers through the kernels at one level: the self-test's vectors (§2.8, hardware-
 * confirmed), with and without the copy. */
static void kern_known(void)
{
	for (size_t k = 0; k < dp_kern_known_answer_count; k++) {
		struct dp_sig_domain d = dp_kern_known_answers[k].domain;

		expect_guards(&d, dp_kern_known_answers[k].fill, false, dp_kern_known_answers[k].guard);
		expect_guards(&d, dp_kern_known_answers[k].fill, true, dp_kern_known_answers[k].guard);
	}
}

static void test_kern_vpclmul512(void **state)
{
	(void)state;
	kern_level_random(DP_KERN_VPCLMUL512);
}

static void test_kern_known(void **state)
{
	int old = dp_kern_level_in_use();

	(void)state;
	for (int l = 0; l < DP_KERN_LEVELS; l++)
		if (dp_kern_level_supported((enum dp_kern_level)l)) {
			dp_kern_set_level((enum dp_kern_level)l);
			kern_known();
		}
	dp_kern_set_level((enum dp_kern_level)old);
}

/* Level names round-trip; an unknown name is refused; the best supported level runs unless
 * RDMAD_OFFLOAD_LEVEL forced one. */
static void test_kern_levels(void **state)
{
	(void)state;
	for (int l = 0; l < DP_KERN_LEVELS; l++)
		assert_int_equal(dp_kern_level_parse(dp_kern_level_name((enum dp_kern_level)l)), l);
	assert_int_equal(dp_kern_level_parse("avx512"), -EINVAL);
	assert_true(dp_kern_level_supported(DP_KERN_PORTABLE));
	assert_false(dp_kern_level_supported(DP_KERN_LEVELS));
	assert_int_equal(dp_kern_set_level(DP_KERN_LEVELS), -EOPNOTSUPP);
	if (!getenv(DP_KERN_LEVEL_ENV))
		for (int l = dp_kern_level_in_use() + 1; l < DP_KERN_LEVELS; l++)
			assert_false(dp_kern_level_supported((enum dp_kern_level)l));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kern_levels),
		cmocka_unit_test(test_kern_known),
		cmocka_unit_test(test_kern_portable),
		cmocka_unit_test(test_kern_pclmul),
		cmocka_unit_test(test_kern_avx2),
		cmocka_unit_test(test_kern_vpclmul256),
		cmocka_unit_test(test_kern_vpclmul512),
	};

	return cmocka_run_group_tests_name("dataplane kernels", tests, NULL, NULL);
}
