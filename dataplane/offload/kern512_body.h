/* SPDX-License-Identifier: MIT */
/*
 * The 512-bit kernels (level vpclmul512), written over a thin layer of vector operations so
 * that one source serves two instantiations:
 *
 *   kern512.c                  the operations are AVX-512F/BW + VPCLMULQDQ on __m512i: the
 *                              level's kernels, in the production binary
 *   tests/unit/test_dp_kern512 the operations are emulated by pairs of 256-bit AVX2/VPCLMULQDQ
 *                              ones, so that a CPU without AVX-512 runs this very source
 *                              against the portable level (docs/decisions.md)
 *
 * The includer defines, before including this file:
 *   Z_TARGET                   the target attribute of the kernels
 *   zvec                       a 512-bit value: four 128-bit lanes, lane 0 the lowest bytes
 *   Z_LOADU(p), Z_STOREU(p, v) unaligned 64-byte load and store
 *   Z_XOR(a, b), Z_AND(a, b)
 *   Z_CLMUL_LO(a, b)           per 128-bit lane, the carry-less product of the low halves
 *   Z_CLMUL_HI(a, b)           ... of the high halves
 *   Z_SHUF(a, b)               PSHUFB within each 128-bit lane
 *   Z_BCAST128(x)              __m128i x in every lane
 *   Z_SET128(x0, x1, x2, x3)   lanes from four __m128i
 *   Z_EXTRACT128(v, i)         lane i (a constant) as an __m128i
 *   Z_ADD32(a, b), Z_SRLI32(v, n), Z_SET1_32(x), Z_ZERO()   on 32-bit elements
 * and gets static functions, the entry being kern512_guard_blocks() (as dp_sig_guard_blocks()
 * at this level).
 *
 * The folding: a group is 256 bytes, four registers of four 128-bit lanes (register j holds
 * lanes 4j .. 4j + 3 of the 128-bit layout of kern_fold_lanes.h), folded by x^2048; then the
 * four registers to one (register j moves forward by 512 * (3 - j) bits), 64 bytes at a time
 * while they last, the four lanes to one, and 16 bytes at a time as the narrower kernels do.
 * Blocks under 256 bytes take the 256-bit kernels.
 *
 * CRC32C folds here as at vpclmul256 rather than running three crc32 streams (avx2): the
 * crc32 instruction takes 8 bytes a cycle at best, a 512-bit carry-less multiply 64, and on
 * the AVX-512 machine of issue 30 ISA-L's CRC alone (512-bit folding) ran above 50 GB/s, which
 * three streams at 8 bytes a cycle cannot reach at its clock.
 */
#include "dataplane/offload/kern_fold_lanes.h"

#define FOLD512_MIN_LEN 256

#define LD_512(p) Z_LOADU(p)
#define ST_512(p, v) Z_STOREU(p, v)
#define SHUF_512 Z_SHUF
#define GROUPZ(y, s, d, off, copy, refl, bsw) LANES4(512, y, 0, 1, 2, 3, s, d, off, copy, refl, bsw)
#define FOLD4Z(k) FOLD4_W(foldz, Z_XOR, 0, 1, 2, 3, k)

Z_TARGET static inline zvec foldz(zvec x, zvec k)
{
	return Z_XOR(Z_CLMUL_LO(x, k), Z_CLMUL_HI(x, k));
}

Z_TARGET static inline zvec kldz(const uint64_t k[2])
{
	return Z_BCAST128(kld(k));
}

Z_TARGET static inline zvec bswap_z(void)
{
	return Z_BCAST128(_mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
}

Z_TARGET static inline zvec low_lane_z(__m128i v)
{
	return Z_SET128(v, _mm_setzero_si128(), _mm_setzero_si128(), _mm_setzero_si128());
}

/* The four registers of a group to one: register j moves forward by 512 * (3 - j) bits. */
Z_TARGET static inline zvec group_to_one(const struct kfold *kf, zvec x0, zvec x1, zvec x2, zvec x3)
{
	return Z_XOR(Z_XOR(foldz(x0, kldz(kf->k1536)), foldz(x1, kldz(kf->k[0]))),
		     Z_XOR(foldz(x2, kldz(kf->k[4])), x3));
}

/* The four lanes of a register to one: lane i moves forward by 128 * (3 - i) bits, the last
 * by the D = 0 constant (congruent, as every fold is), all in one wide multiply. */
Z_TARGET static inline __m128i lanes_to_one(const struct kfold *kf, zvec x)
{
	zvec t = foldz(x, Z_SET128(kld(kf->k[3]), kld(kf->k[2]), kld(kf->k[1]), kld(kf->norm[1])));

	return _mm_xor_si128(_mm_xor_si128(Z_EXTRACT128(t, 0), Z_EXTRACT128(t, 1)),
			     _mm_xor_si128(Z_EXTRACT128(t, 2), Z_EXTRACT128(t, 3)));
}

/* Fold one 64-byte register at p into acc (acc moves forward by 512 bits). */
#define FOLD64Z(acc, src, dst, p, copy, refl, bsw, k4)                  \
	do {                                                            \
		zvec y_;                                                \
                                                                        \
		LANE_W(512, y_, src, dst, p, copy, refl, bsw);          \
		acc = Z_XOR(foldz(acc, k4), y_);                        \
	} while (0)

/* Forward over len >= 256 bytes, as fold_fwd (kern_fold.c) does with 128-byte groups. */
Z_TARGET __attribute__((always_inline))
static inline __m128i fold_fwd512(const struct kfold *kf, bool refl, bool copy, bool pf, __m128i init,
				  uint8_t *dst, const uint8_t *src, size_t len, size_t *done)
{
	const zvec bsw = bswap_z(), k16 = kldz(kf->k2048), k4 = kldz(kf->k[4]);
	zvec x0, x1, x2, x3;
	size_t p = 256;

	GROUPZ(x, src, dst, 0, copy, refl, bsw);
	x0 = Z_XOR(x0, low_lane_z(init));
	for (; p + 256 <= len; p += 256) {
		zvec y0, y1, y2, y3;

		if (copy && pf) {
			prefetch_ahead(src, dst, p);
			prefetch_ahead(src, dst, p + 128);
		}
		GROUPZ(y, src, dst, p, copy, refl, bsw);
		FOLD4Z(k16);
	}
	x0 = group_to_one(kf, x0, x1, x2, x3);
	for (; p + 64 <= len; p += 64)
		FOLD64Z(x0, src, dst, p, copy, refl, bsw, k4);
	return fold_lanes16(kf, refl, copy, lanes_to_one(kf, x0), dst, src, p, len, done);
}

/* Backward over the first 128 * groups bytes (groups = len / 128, 16..NORM_MAX), as fold_bwd
 * does: the 256-byte groups walked down by x^-2048, then moved up by x^(2048 (G - 1)); an odd
 * last 128 bytes follow forward as two 64-byte registers. */
Z_TARGET __attribute__((always_inline))
static inline __m128i fold_bwd512(const struct kfold *kf, bool refl, __m128i init,
				  uint8_t *dst, const uint8_t *src, size_t groups)
{
	const zvec bsw = bswap_z(), kb = kldz(kf->back2048), k4 = kldz(kf->k[4]);
	size_t g256 = groups / 2, p = 256 * (g256 - 1);
	zvec x0, x1, x2, x3;

	GROUPZ(x, src, dst, p, true, refl, bsw);
	while (p) {
		zvec y0, y1, y2, y3;

		p -= 256;
		GROUPZ(y, src, dst, p, true, refl, bsw);
		FOLD4Z(kb);
	}
	x0 = group_to_one(kf, Z_XOR(x0, low_lane_z(init)), x1, x2, x3);
	if (g256 > 1)
		x0 = foldz(x0, kldz(kf->norm[2 * g256 - 1]));
	for (p = 256 * g256; p < 128 * groups; p += 64)
		FOLD64Z(x0, src, dst, p, true, refl, bsw, k4);
	return lanes_to_one(kf, x0);
}

DEFINE_FOLD_BLOCKS(fold_blocks512, Z_TARGET, fold_fwd512, fold_bwd512, PF_ALWAYS)
FOLD_KINDS(z, Z_TARGET, fold_blocks512)

/* IP checksum: 64-byte lanes summed as kern_csum.c sums 32-byte ones. */
DEFINE_CSUM_SUM(sum_copy64, Z_TARGET, zvec, 64, Z_LOADU, Z_STOREU, Z_ADD32, Z_AND, Z_SRLI32, Z_SET1_32, Z_ZERO)

static void kern512_guard_blocks(const struct dp_sig_domain *d, uint64_t *g, uint8_t *dst, size_t ds,
				 const uint8_t *src, size_t ss, size_t len, size_t n)
{
	static blocks_fn *const fns[2][KINDS] = { KIND_ROW(z, nocopy), KIND_ROW(z, copy) };

	if (d->sig_type == DP_SIG_T10DIF && d->t10dif.bg_type == DP_T10DIF_BG_CSUM) {
		dp_csum_blocks_with(sum_copy64, 64, d->t10dif.bg, g, dst, ds, src, ss, len, n);
		return;
	}
	if (len < FOLD512_MIN_LEN) {
		dp_kern_guard_blocks_at(DP_KERN_VPCLMUL256, d, g, dst, ds, src, ss, len, n);
		return;
	}
	fns[dst != NULL][dp_fold_kind_of(d)](d->sig_type == DP_SIG_T10DIF ? d->t10dif.bg : d->crc.seed, g, dst,
					     ds, src, ss, len, n);
}
