/* The 512-bit kernels (dataplane/offload/kern512_body.h) on a CPU without AVX-512: the very
 * source of level vpclmul512, instantiated here with its 512-bit operations emulated by pairs
 * of 256-bit AVX2/VPCLMULQDQ ones (the low register holds 128-bit lanes 0 and 1, the high one
 * lanes 2 and 3), against the portable level.  What this checks is the kernels' lane
 * arrangement, constants, walk and tails; the real AVX-512 instructions are checked only by the
 * start-up self-test on a machine that has them (docs/decisions.md).  Skipped, with the reason,
 * on a CPU without VPCLMULQDQ. */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <immintrin.h>

#include "tests/unit/test_rng.h"

#include "dataplane/offload/kern.h"
#include "dataplane/offload/kern_csum.h"
#include "dataplane/offload/kern_impl.h"
#include "dataplane/offload/kern_selftest.h"
#include "tests/unit/sig_domains.h"

/* ---------------------------------------------------------------- emulated operations */

#define Z_TARGET __attribute__((target("avx2,vpclmulqdq,pclmul,sse4.2")))

typedef struct {
	__m256i lo, hi;
} zvec;

#define Z2(op, a, b) ((zvec){ op((a).lo, (b).lo), op((a).hi, (b).hi) })

Z_TARGET static inline zvec z_loadu(const void *p)
{
	return (zvec){ _mm256_loadu_si256((const __m256i *)p), _mm256_loadu_si256((const __m256i *)p + 1) };
}

Z_TARGET static inline void z_storeu(void *p, zvec v)
{
	_mm256_storeu_si256((__m256i *)p, v.lo);
	_mm256_storeu_si256((__m256i *)p + 1, v.hi);
}

Z_TARGET static inline __m256i clmul_lo(__m256i a, __m256i b)
{
	return _mm256_clmulepi64_epi128(a, b, 0x00);
}

Z_TARGET static inline __m256i clmul_hi(__m256i a, __m256i b)
{
	return _mm256_clmulepi64_epi128(a, b, 0x11);
}

Z_TARGET static inline zvec z_set128(__m128i x0, __m128i x1, __m128i x2, __m128i x3)
{
	return (zvec){ _mm256_set_m128i(x1, x0), _mm256_set_m128i(x3, x2) };
}

Z_TARGET static inline zvec z_bcast128(__m128i x)
{
	return z_set128(x, x, x, x);
}

Z_TARGET static inline zvec z_srli32(zvec v, int n)
{
	return (zvec){ _mm256_srli_epi32(v.lo, n), _mm256_srli_epi32(v.hi, n) };
}

Z_TARGET static inline zvec z_set1_32(uint32_t x)
{
	return (zvec){ _mm256_set1_epi32((int)x), _mm256_set1_epi32((int)x) };
}

Z_TARGET static inline zvec z_zero(void)
{
	return (zvec){ _mm256_setzero_si256(), _mm256_setzero_si256() };
}

#define Z_LOADU(p) z_loadu((const void *)(p))
#define Z_STOREU(p, v) z_storeu((void *)(p), (v))
#define Z_XOR(a, b) Z2(_mm256_xor_si256, a, b)
#define Z_AND(a, b) Z2(_mm256_and_si256, a, b)
#define Z_CLMUL_LO(a, b) Z2(clmul_lo, a, b)
#define Z_CLMUL_HI(a, b) Z2(clmul_hi, a, b)
#define Z_SHUF(a, b) Z2(_mm256_shuffle_epi8, a, b)
#define Z_BCAST128 z_bcast128
#define Z_SET128 z_set128
#define Z_EXTRACT128(v, i) _mm256_extracti128_si256((i) < 2 ? (v).lo : (v).hi, (i) & 1)
#define Z_ADD32(a, b) Z2(_mm256_add_epi32, a, b)
#define Z_SRLI32 z_srli32
#define Z_SET1_32 z_set1_32
#define Z_ZERO z_zero

#include "dataplane/offload/kern512_body.h"

/* The level prefetches and walks forward on blocks of 2048 bytes or more (PF_ALWAYS, as
 * vpclmul256 measured best on Zen 3), so its backward walk only runs when that choice is
 * changed: this instance of the same loop takes it, for test_emulated_backward. */
#define PF_NEVER(kd) false
DEFINE_FOLD_BLOCKS(fold_blocks512_nopf, Z_TARGET, fold_fwd512, fold_bwd512, PF_NEVER)

/* ---------------------------------------------------------------- tests */

static void need_vpclmul(void)
{
	if (!dp_kern_level_supported(DP_KERN_VPCLMUL256)) {
		print_message("# skip: the emulation needs AVX2 + VPCLMULQDQ (level vpclmul256: %s)\n",
			      dp_kern_level_selftest(DP_KERN_VPCLMUL256));
		skip();
	}
}

/* The level's kernels as the self-test calls them: the emulated instantiation for any level
 * but portable, the reference. */
static void emulated_at(enum dp_kern_level at, const struct dp_sig_domain *d, uint64_t *g, uint8_t *dst,
			size_t ds, const uint8_t *src, size_t ss, size_t len, size_t n)
{
	if (at == DP_KERN_PORTABLE)
		dp_kern_guard_blocks_at(DP_KERN_PORTABLE, d, g, dst, ds, src, ss, len, n);
	else
		kern512_guard_blocks(d, g, dst, ds, src, ss, len, n);
}

/* The start-up self-test (known answers; every guard type at 512/520/4048/4096/4160, generated
 * and copied, a corrupted block) passes on the emulated instantiation. */
static void test_emulated_selftest(void **state)
{
	char reason[192] = "";

	(void)state;
	need_vpclmul();
	if (dp_kern_selftest(DP_KERN_VPCLMUL512, emulated_at, reason, sizeof(reason)) < 0)
		fail_msg("%s", reason);
}

#define MAX_LEN 8448            /* 33 groups of 256: past the backward walk's NORM_MAX */
#define MAX_N 5
/* a whole number of pages: aligned_alloc takes sizes that are multiples of the alignment */
#define AREA ((MAX_N * (MAX_LEN + 16) + 4096 + 64 + 4095) / 4096 * 4096)

/* n blocks of len at src (stride ss) through the emulated kernels and the portable level,
 * generated (dst NULL) or copied to dst (stride ds): the same guards, the same bytes, and the
 * gaps between copied blocks untouched. */
static void compare(const struct dp_sig_domain *d, const uint8_t *src, size_t ss, uint8_t *dst, size_t ds,
		    size_t len, size_t n, bool copy)
{
	uint64_t g[MAX_N], want[MAX_N];

	memset(dst, 0x5a, n * ds);
	kern512_guard_blocks(d, g, copy ? dst : NULL, ds, src, ss, len, n);
	dp_kern_guard_blocks_at(DP_KERN_PORTABLE, d, want, NULL, 0, src, ss, len, n);
	for (size_t i = 0; i < n; i++) {
		if (g[i] != want[i])
			fail_msg("sig %d type %d seed %#llx, %zu-byte blocks, %s, block %zu of %zu: 0x%llx, "
				 "portable 0x%llx", d->sig_type, d->sig_type == DP_SIG_CRC ? (int)d->crc.type :
				 (int)d->t10dif.bg_type, (unsigned long long)(d->sig_type == DP_SIG_CRC ?
				 d->crc.seed : d->t10dif.bg), len, copy ? "copy" : "generate", i, n,
				 (unsigned long long)g[i], (unsigned long long)want[i]);
		if (copy) {
			assert_memory_equal(dst + i * ds, src + i * ss, len);
			for (size_t j = len; j < ds; j++)
				assert_int_equal(dst[i * ds + j], 0x5a);
		}
	}
	if (!copy)
		for (size_t j = 0; j < n * ds; j++)
			assert_int_equal(dst[j], 0x5a);
}

/* Every guard type at the device's block sizes and odd ones (under 256 bytes the 256-bit
 * kernels run), generated and copied, with dst placed so that both the forward and the
 * backward walk run (backward: dst a little above src modulo 4 KiB, kern_impl.h ALIAS_4K). */
static void test_emulated_sizes(void **state)
{
	static const size_t lens[] = { 512, 520, 4048, 4096, 4160, 1, 127, 128, 255, 256, 257, 300, 319, 320,
				       383, 384, 511, 513, 777, 1000, 2047, 2048, 2049, 2112, 2176, 3333,
				       4095, 4097, 8191, 8192, 8320, 8447, MAX_LEN };
	struct dp_sig_domain d[SIG_DOMAINS];
	int nd = sig_domains(d);
	uint8_t *src = aligned_alloc(4096, AREA), *area = aligned_alloc(4096, AREA + 8192);

	(void)state;
	need_vpclmul();
	test_rng_state = 0x5DEECE66Dull;
	for (size_t i = 0; i < AREA; i++)
		src[i] = (uint8_t)rnd();
	for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++)
		for (int k = 0; k < nd; k++)
			for (int place = 0; place < 3; place++) {
				size_t len = lens[l], n = 1 + (l + (size_t)k) % MAX_N;
				size_t ss = len + ((len & 1) ? 1 : 8), ds = len + 8;
				/* forward, backward (64 above modulo 4 KiB), and anywhere */
				size_t doff = place == 0 ? 2048 : place == 1 ? 64 : rnd() % 4096;

				compare(&d[k], src, ss, area + doff, ds, len, n, true);
				compare(&d[k], src + 3, ss, area + doff, ds, len, n, false);
			}
	free(src);
	free(area);
}

/* One bit flipped in one block of a run: only that block's guard changes, to portable's. */
static void test_emulated_corrupt(void **state)
{
	static const size_t lens[] = { 512, 520, 4096, 4160, 777, 2049 };
	struct dp_sig_domain d[SIG_DOMAINS];
	int nd = sig_domains(d);
	uint8_t *src = malloc(AREA), *area = malloc(AREA + 8192);
	uint64_t clean[MAX_N], bad[MAX_N];

	(void)state;
	need_vpclmul();
	test_rng_state = 0xC0FFEE1234ull;
	for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++)
		for (int k = 0; k < nd; k++)
			for (int it = 0; it < 8; it++) {
				size_t len = lens[l], n = MAX_N, ss = len + 8, ds = len + 8;
				size_t blk = rnd() % n, at = blk * ss + rnd() % len;
				uint8_t *dst = area + rnd() % 4096;

				for (size_t i = 0; i < n * ss; i++)
					src[i] = (uint8_t)rnd();
				kern512_guard_blocks(&d[k], clean, dst, ds, src, ss, len, n);
				src[at] ^= (uint8_t)(1u << (rnd() % 8));
				compare(&d[k], src, ss, dst, ds, len, n, true);
				kern512_guard_blocks(&d[k], bad, dst, ds, src, ss, len, n);
				for (size_t i = 0; i < n; i++)
					if ((bad[i] != clean[i]) != (i == blk))
						fail_msg("%zu-byte blocks, bit flipped in block %zu: block %zu's guard %s",
							 len, blk, i, i == blk ? "did not change" : "changed");
			}
	free(src);
	free(area);
}

/* The backward walk (and the forward one without prefetch) over every CRC kind, the block
 * lengths it takes (16 .. NORM_MAX groups of 128 bytes, odd ones too) against the portable
 * level. */
Z_TARGET static void backward(enum dp_fold_kind kind, uint64_t seed, uint64_t *g, uint8_t *dst, size_t ds,
			      const uint8_t *src, size_t ss, size_t len, size_t n)
{
	fold_blocks512_nopf(kind, dst != NULL, seed, g, dst, ds, src, ss, len, n);
}

static void test_emulated_backward(void **state)
{
	static const size_t lens[] = { 2048, 2049, 2176, 2200, 4048, 4096, 4160, 6000, 8191, 8192, 8320, 8447 };
	struct dp_sig_domain d[SIG_DOMAINS];
	int nd = sig_domains(d);
	uint8_t *src = malloc(AREA), *area = aligned_alloc(4096, AREA + 8192);
	uint64_t g[MAX_N], want[MAX_N];

	(void)state;
	need_vpclmul();
	test_rng_state = 0xBADC0DEull;
	for (size_t i = 0; i < AREA; i++)
		src[i] = (uint8_t)rnd();
	for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++)
		for (int k = 0; k < nd; k++) {
			size_t len = lens[l], n = 3, ss = len + 8, ds = len + 64;
			uint64_t seed = d[k].sig_type == DP_SIG_T10DIF ? d[k].t10dif.bg : d[k].crc.seed;

			if (d[k].sig_type == DP_SIG_T10DIF && d[k].t10dif.bg_type == DP_T10DIF_BG_CSUM)
				continue;
			dp_kern_guard_blocks_at(DP_KERN_PORTABLE, &d[k], want, NULL, 0, src, ss, len, n);
			for (int copy = 0; copy < 2; copy++) {
				/* dst 64 bytes above src modulo 4 KiB: the backward walk (kern_impl.h ALIAS_4K) */
				uint8_t *dst = area + (((uintptr_t)src + 64) & 4095);

				assert_true(ALIAS_4K(dst, src));
				memset(dst, 0x5a, n * ds);
				backward(dp_fold_kind_of(&d[k]), seed, g, copy ? dst : NULL, ds, src, ss, len, n);
				for (size_t i = 0; i < n; i++) {
					if (g[i] != want[i])
						fail_msg("kind %d, %zu-byte blocks, %s, block %zu: 0x%llx, portable 0x%llx",
							 dp_fold_kind_of(&d[k]), len, copy ? "copy" : "generate", i,
							 (unsigned long long)g[i], (unsigned long long)want[i]);
					if (copy)
						assert_memory_equal(dst + i * ds, src + i * ss, len);
				}
			}
		}
	free(src);
	free(area);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_emulated_selftest),
		cmocka_unit_test(test_emulated_sizes),
		cmocka_unit_test(test_emulated_corrupt),
		cmocka_unit_test(test_emulated_backward),
	};

	return cmocka_run_group_tests_name("512-bit kernels, emulated", tests, NULL, NULL);
}
