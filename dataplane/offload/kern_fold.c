/* SPDX-License-Identifier: MIT */
/*
 * Carry-less multiply folding kernels that copy as they go (kern_impl.h), for the four CRCs of
 * the engine: CRC-16/T10-DIF and CRC32 (FC-PH) MSB-first, CRC64_XP10 and CRC-32C reflected.
 *
 * Written for what bounds these loops on x86-64: the carry-less multiply (and PSHUFB) issue on
 * one or two ports, while loads and stores have their own.  So the copy costs almost nothing
 * when it is made of the lanes the CRC loads anyway, and a run of blocks in one loop lets the
 * out-of-order core overlap one block's final reduction with the next block's folding.  Each
 * kernel is compiled for its ISA with a target attribute (no global flags): 128-bit PCLMULQDQ
 * in SSE and in VEX encoding, and 256-bit VPCLMULQDQ.  ISA-L has no folding constants for the
 * CRC64_XP10 polynomial nor a copying CRC32, so every constant is computed here at load time
 * from the polynomials.
 */
#include "dataplane/offload/kern_fold_lanes.h"

struct kfold dp_fold_consts[KINDS];

/* r * x^n mod P (r in the kind's own representation), n may be negative. */
static uint64_t xstep(enum dp_fold_kind kd, uint64_t r, long n)
{
	unsigned w = kinds[kd].width;
	uint64_t p = kinds[kd].poly, mask = w == 64 ? ~0ull : (1ull << w) - 1;

	for (; n > 0; n--) {
		if (!kinds[kd].refl) {
			r <<= 1;
			if ((r >> w) & 1)
				r ^= p;
		} else {
			r = (r >> 1) ^ ((r & 1) ? p : 0);
		}
	}
	for (; n < 0; n++) {
		if (!kinds[kd].refl) {
			r = (r & 1) ? (r ^ p) >> 1 : r >> 1;
		} else {
			uint64_t b = (r >> (w - 1)) & 1;

			r = (((r ^ (b ? p : 0)) << 1) & mask) | b;
		}
	}
	return r;
}

/* CRC-32C runs in the 64-bit reflected layout of the fold: its values sit in the high half. */
static uint64_t to_layout(enum dp_fold_kind kd, uint64_t r)
{
	return kd == DP_FOLD_CRC32C ? r << 32 : r;
}

/* x^n mod P for the kind, n may be negative; representation as the fold uses it. */
static uint64_t xmod(enum dp_fold_kind kd, long n)
{
	uint64_t one = kinds[kd].refl ? 1ull << (kinds[kd].width - 1) : 1;

	return to_layout(kd, xstep(kd, one, n));
}

static void kconst(enum dp_fold_kind kd, long d, uint64_t k[2])
{
	if (!kinds[kd].refl) {
		k[0] = xmod(kd, d);
		k[1] = xmod(kd, d + 64);
	} else {
		k[0] = xmod(kd, d + 63);
		k[1] = xmod(kd, d - 1);
	}
}

static void kfold_init(enum dp_fold_kind kd, struct kfold *kf)
{
	unsigned w = kinds[kd].width;

	for (unsigned j = 0; j < 8; j++)
		kconst(kd, j ? 128 * (long)j : 1024, kf->k[j]);
	kconst(kd, -1024, kf->back);
	kconst(kd, 1536, kf->k1536);
	kconst(kd, 2048, kf->k2048);
	kconst(kd, -2048, kf->back2048);
	/* norm[g]: D = 1024 (g - 1), each from the previous one by 1024 steps (from scratch, the
	 * 64 constants of each kind took ~30 M instructions at every process start) */
	kconst(kd, 0, kf->norm[1]);
	for (long g = 2; g <= NORM_MAX; g++)
		for (int j = 0; j < 2; j++) {
			uint64_t r = kf->norm[g - 1][j];

			if (kd == DP_FOLD_CRC32C)
				r >>= 32;
			kf->norm[g][j] = to_layout(kd, xstep(kd, r, 1024));
		}
	if (!kinds[kd].refl) {
		unsigned __int128 rem = (unsigned __int128)1 << (63 + w);
		uint64_t mu = 0;

		kf->red[0] = xmod(kd, w);
		kf->red[1] = xmod(kd, 64 + w);
		for (unsigned i = 63 + w; i >= w; i--)
			if ((rem >> i) & 1) {
				rem ^= (unsigned __int128)kinds[kd].poly << (i - w);
				mu |= 1ull << (i - w);
			}
		kf->mu_p[0] = mu;
		kf->mu_p[1] = kinds[kd].poly;
	}
}

/* Priority 101: before kern.c's level choice (102), whose self-test runs these tables. */
__attribute__((constructor(101))) static void kern_fold_init(void)
{
	for (int kd = 0; kd < KINDS; kd++)
		kfold_init((enum dp_fold_kind)kd, &dp_fold_consts[kd]);
}

#define GROUP(y, s, d, off, copy, refl, bsw)                                            \
	do {                                                                            \
		LANES4(128, y, 0, 1, 2, 3, s, d, (off), copy, refl, bsw);               \
		LANES4(128, y, 4, 5, 6, 7, s, d, (off) + 64, copy, refl, bsw);          \
	} while (0)

#define FOLD8(k)                                                                \
	do {                                                                    \
		FOLD4_W(fold, _mm_xor_si128, 0, 1, 2, 3, k);                    \
		FOLD4_W(fold, _mm_xor_si128, 4, 5, 6, 7, k);                    \
	} while (0)

/* The eight lanes to one: lane j moves forward by 128 * (7 - j) bits, all at once. */
FOLD_TARGET static inline __m128i tree8(const struct kfold *kf, __m128i x0, __m128i x1, __m128i x2, __m128i x3,
					__m128i x4, __m128i x5, __m128i x6, __m128i x7)
{
	x0 = _mm_xor_si128(fold(x0, kld(kf->k[7])), fold(x1, kld(kf->k[6])));
	x2 = _mm_xor_si128(fold(x2, kld(kf->k[5])), fold(x3, kld(kf->k[4])));
	x4 = _mm_xor_si128(fold(x4, kld(kf->k[3])), fold(x5, kld(kf->k[2])));
	x6 = _mm_xor_si128(fold(x6, kld(kf->k[1])), x7);
	return _mm_xor_si128(_mm_xor_si128(x0, x2), _mm_xor_si128(x4, x6));
}

/* Forward: fold len >= 128 bytes of src (copying them to dst if copy) down to one 128-bit lane
 * congruent to the message (MSB-first: as a polynomial; reflected: in the layout whose
 * CRC-of-16-bytes from a zero register is the message's); init is xor-ed into the first lane.
 * *done = bytes consumed (a multiple of 16; the rest is left to the caller). */
FOLD_TARGET __attribute__((always_inline))
static inline __m128i fold_fwd(const struct kfold *kf, bool refl, bool copy, bool pf, __m128i init,
			       uint8_t *dst, const uint8_t *src, size_t len, size_t *done)
{
	const __m128i bsw = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
	const __m128i k8 = kld(kf->k[0]);
	__m128i x0, x1, x2, x3, x4, x5, x6, x7;
	size_t p = 128;

	GROUP(x, src, dst, 0, copy, refl, bsw);
	x0 = _mm_xor_si128(x0, init);
	for (; p + 128 <= len; p += 128) {
		__m128i y0, y1, y2, y3, y4, y5, y6, y7;

		if (copy && pf)
			prefetch_ahead(src, dst, p);
		GROUP(y, src, dst, p, copy, refl, bsw);
		FOLD8(k8);
	}
	return fold_lanes16(kf, refl, copy, tree8(kf, x0, x1, x2, x3, x4, x5, x6, x7), dst, src, p, len, done);
}

/* Backward: the same over the first 128 * G bytes (G = len / 128, 1..NORM_MAX), walking down
 * from the last group to the first with folds by x^-1024, then multiplying by x^(1024 (G-1)).
 * Loads and stores move down: used when dst is a little above src modulo 4 KiB, where a
 * forward walk would have each load wait on a store to the same 4 KiB offset (4K aliasing). */
FOLD_TARGET __attribute__((always_inline))
static inline __m128i fold_bwd(const struct kfold *kf, bool refl, __m128i init,
			       uint8_t *dst, const uint8_t *src, size_t groups)
{
	const __m128i bsw = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
	const __m128i kb = kld(kf->back);
	__m128i x0, x1, x2, x3, x4, x5, x6, x7, acc;
	size_t p = 128 * (groups - 1);

	GROUP(x, src, dst, p, true, refl, bsw);
	while (p) {
		__m128i y0, y1, y2, y3, y4, y5, y6, y7;

		p -= 128;
		GROUP(y, src, dst, p, true, refl, bsw);
		FOLD8(kb);
	}
	x0 = _mm_xor_si128(x0, init);
	acc = tree8(kf, x0, x1, x2, x3, x4, x5, x6, x7);
	if (groups > 1)
		acc = fold(acc, kld(kf->norm[groups]));
	return acc;
}

/* ---------------------------------------------------------------- 256-bit lanes */

/* Two 128-bit lanes per register and per multiply: ymm j of a group holds lanes 2j (low half)
 * and 2j + 1 of the 128-bit layout above, so the same constants, tree and reduction serve. */
#define VPCL_TARGET __attribute__((target("avx2,vpclmulqdq,pclmul")))

#define LO(v) _mm256_castsi256_si128(v)
#define HI(v) _mm256_extracti128_si256(v, 1)

VPCL_TARGET static inline __m256i foldy(__m256i x, __m256i k)
{
	return _mm256_xor_si256(_mm256_clmulepi64_epi128(x, k, 0x00), _mm256_clmulepi64_epi128(x, k, 0x11));
}

#define GROUPY(y, s, d, off, copy, refl, bsw) LANES4(256, y, 0, 1, 2, 3, s, d, off, copy, refl, bsw)

#define FOLD4Y(k) FOLD4_W(foldy, _mm256_xor_si256, 0, 1, 2, 3, k)


VPCL_TARGET static inline __m256i kldy(const uint64_t k[2])
{
	return _mm256_broadcastsi128_si256(kld(k));
}

VPCL_TARGET static inline __m256i bswap_y(void)
{
	return _mm256_broadcastsi128_si256(_mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
}

VPCL_TARGET static inline __m256i low_lane(__m128i v)
{
	return _mm256_set_m128i(_mm_setzero_si128(), v);
}

/* Two constants in one register: k_lo for the low 128-bit lane, k_hi for the high one. */
VPCL_TARGET static inline __m256i kpair(const uint64_t k_lo[2], const uint64_t k_hi[2])
{
	return _mm256_set_m128i(kld(k_hi), kld(k_lo));
}

/* tree8 with two lanes per multiply: 3 wide folds and one narrow instead of 7 narrow ones,
 * which on 512-byte blocks is a fifth of the carry-less multiplies. */
VPCL_TARGET static inline __m128i tree8y(const struct kfold *kf, __m256i x0, __m256i x1, __m256i x2, __m256i x3)
{
	__m256i t = _mm256_xor_si256(foldy(x0, kpair(kf->k[7], kf->k[6])), foldy(x1, kpair(kf->k[5], kf->k[4])));
	__m128i a;

	t = _mm256_xor_si256(t, foldy(x2, kpair(kf->k[3], kf->k[2])));
	a = _mm_xor_si128(LO(t), HI(t));
	return _mm_xor_si128(_mm_xor_si128(a, fold(LO(x3), kld(kf->k[1]))), HI(x3));
}

VPCL_TARGET __attribute__((always_inline))
static inline __m128i fold_fwd256(const struct kfold *kf, bool refl, bool copy, bool pf, __m128i init,
				  uint8_t *dst, const uint8_t *src, size_t len, size_t *done)
{
	const __m256i bsw = bswap_y(), k8 = kldy(kf->k[0]);
	__m256i x0, x1, x2, x3;
	size_t p = 128;

	GROUPY(x, src, dst, 0, copy, refl, bsw);
	x0 = _mm256_xor_si256(x0, low_lane(init));
	for (; p + 128 <= len; p += 128) {
		__m256i y0, y1, y2, y3;

		if (copy && pf)
			prefetch_ahead(src, dst, p);
		GROUPY(y, src, dst, p, copy, refl, bsw);
		FOLD4Y(k8);
	}
	return fold_lanes16(kf, refl, copy, tree8y(kf, x0, x1, x2, x3), dst, src, p, len, done);
}

VPCL_TARGET __attribute__((always_inline))
static inline __m128i fold_bwd256(const struct kfold *kf, bool refl, __m128i init,
				  uint8_t *dst, const uint8_t *src, size_t groups)
{
	const __m256i bsw = bswap_y(), kb = kldy(kf->back);
	__m256i x0, x1, x2, x3;
	__m128i acc;
	size_t p = 128 * (groups - 1);

	GROUPY(x, src, dst, p, true, refl, bsw);
	while (p) {
		__m256i y0, y1, y2, y3;

		p -= 128;
		GROUPY(y, src, dst, p, true, refl, bsw);
		FOLD4Y(kb);
	}
	x0 = _mm256_xor_si256(x0, low_lane(init));
	acc = tree8y(kf, x0, x1, x2, x3);
	if (groups > 1)
		acc = fold(acc, kld(kf->norm[groups]));
	return acc;
}

/* ---------------------------------------------------------------- blocks */

DEFINE_FOLD_BLOCKS(fold_blocks128, FOLD_TARGET, fold_fwd, fold_bwd, PF_CRC64_ONLY)
DEFINE_FOLD_BLOCKS(fold_blocks256, VPCL_TARGET, fold_fwd256, fold_bwd256, PF_ALWAYS)

#define AVX_TARGET __attribute__((target("avx,pclmul,sse4.2")))
FOLD_KINDS(sse, FOLD_TARGET, fold_blocks128)
FOLD_KINDS(avx, AVX_TARGET, fold_blocks128)
FOLD_KINDS(vpcl, VPCL_TARGET, fold_blocks256)

void dp_fold_blocks(enum dp_fold_kind kind, enum dp_fold_isa isa, uint64_t seed, uint64_t *guard,
		    uint8_t *dst, size_t dstride, const uint8_t *src, size_t sstride, size_t len, size_t n)
{
	static blocks_fn *const fns[2][3][KINDS] = {
		{ KIND_ROW(sse, nocopy), KIND_ROW(avx, nocopy), KIND_ROW(vpcl, nocopy) },
		{ KIND_ROW(sse, copy), KIND_ROW(avx, copy), KIND_ROW(vpcl, copy) },
	};

	fns[dst != NULL][isa][kind](seed, guard, dst, dstride, src, sstride, len, n);
}
