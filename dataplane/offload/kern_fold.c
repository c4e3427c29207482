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
#include <string.h>
#include <immintrin.h>
#include <isa-l/crc.h>

#include "dataplane/offload/crc.h"
#include "dataplane/offload/kern_impl.h"

#define KINDS 4

/* A CRC as the fold sees it.  MSB-first: poly with its x^width term, lanes byte-swapped into
 * polynomial order.  Reflected: poly reflected without the x^width term. */
static const struct {
	bool refl;
	unsigned width;
	uint64_t poly;
} kinds[KINDS] = {
	[DP_FOLD_T10DIF] = { false, 16, 0x18BB7u },
	[DP_FOLD_CRC32]  = { false, 32, 0x104C11DB7ull },
	[DP_FOLD_CRC64]  = { true,  64, 0x9A6C9329AC4BC9B5ull },  /* CRC-64/NVME */
	[DP_FOLD_CRC32C] = { true,  32, 0x82F63B78u },
};

#define NORM_MAX   64                          /* backward folding: blocks up to 64 * 128 bytes */
/* ... and from 16 * 128 bytes: on 512/520-byte blocks the forward walk measured 2-6 % faster
 * even with 4K aliasing (the next-line prefetcher only runs forward; a block's stores are
 * few), on 4048-4160-byte blocks the backward walk 5-10 % faster. */
#define BWD_MIN    16

/* Fold constants: after fold(A, k) a lane A stands for A * x^D.
 *  MSB-first: lo = x^D mod P, hi = x^(D+64) mod P (clmul lo*lo, hi*hi)
 *  reflected (CRC32C in the 64-bit reflected layout): lo = x^(D+63), hi = x^(D-1) mod P
 * D may be negative (x is invertible modulo these P): backward folding. */
struct kfold {
	uint64_t k[8][2];          /* k[j]: D = 128 * j, j = 1..7; k[0]: D = 1024 */
	uint64_t back[2];          /* D = -1024 */
	uint64_t norm[NORM_MAX + 1][2];   /* norm[g]: D = 1024 * (g - 1) */
	uint64_t red[2];           /* MSB-first: x^w, x^(64+w) mod P */
	uint64_t mu_p[2];          /* MSB-first: floor(x^(63+w) / P), P */
};
static struct kfold kf_of[KINDS];

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
		kfold_init((enum dp_fold_kind)kd, &kf_of[kd]);
}

/* ---------------------------------------------------------------- 128-bit lanes */

#define FOLD_TARGET __attribute__((target("pclmul,ssse3,sse4.1,sse4.2")))

FOLD_TARGET static inline __m128i kld(const uint64_t k[2])
{
	return _mm_set_epi64x((long long)k[1], (long long)k[0]);
}

FOLD_TARGET static inline __m128i fold(__m128i x, __m128i k)
{
	return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11));
}

/* Load a lane of W bits (copying it), in polynomial order for the MSB-first CRCs. */
#define LD_128(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define ST_128(p, v) _mm_storeu_si128((__m128i *)(void *)(p), (v))
#define SHUF_128 _mm_shuffle_epi8
#define LD_256(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define ST_256(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), (v))
#define SHUF_256 _mm256_shuffle_epi8
#define LANE_W(W, v, s, d, off, copy, refl, bsw)                \
	do {                                                    \
		v = LD_##W((s) + (off));                        \
		if (copy)                                       \
			ST_##W((d) + (off), v);                 \
		if (!(refl))                                    \
			v = SHUF_##W(v, bsw);                   \
	} while (0)
#define LANE(v, s, d, off, copy, refl, bsw) LANE_W(128, v, s, d, off, copy, refl, bsw)

/* Four lanes of W bits at off, named y##a .. y##d (a group is 128 bytes of lanes). */
#define LANES4(W, y, a, b, c, e, s, d, off, copy, refl, bsw)                            \
	do {                                                                            \
		LANE_W(W, y##a, s, d, (off), copy, refl, bsw);                          \
		LANE_W(W, y##b, s, d, (off) + (W) / 8, copy, refl, bsw);                \
		LANE_W(W, y##c, s, d, (off) + 2 * (W) / 8, copy, refl, bsw);            \
		LANE_W(W, y##e, s, d, (off) + 3 * (W) / 8, copy, refl, bsw);            \
	} while (0)
#define GROUP(y, s, d, off, copy, refl, bsw)                                            \
	do {                                                                            \
		LANES4(128, y, 0, 1, 2, 3, s, d, (off), copy, refl, bsw);               \
		LANES4(128, y, 4, 5, 6, 7, s, d, (off) + 64, copy, refl, bsw);          \
	} while (0)

/* x##i = fold(x##i, k) ^ y##i for four lanes, with the fold and XOR of a width. */
#define FOLD4_W(FOLD, XOR, a, b, c, e, k)                       \
	do {                                                    \
		x##a = XOR(FOLD(x##a, k), y##a);                \
		x##b = XOR(FOLD(x##b, k), y##b);                \
		x##c = XOR(FOLD(x##c, k), y##c);                \
		x##e = XOR(FOLD(x##e, k), y##e);                \
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

/* Software prefetch of the source and destination lines PF_DIST bytes ahead, CRC64 with copy
 * on blocks of PF_MIN bytes or more only.  The CRC64 loop issues only its loads, stores and
 * PCLMULQDQ/XOR, and copying it waits on the L2 for both streams: measured +9 % walking
 * backward and +5-18 % forward on 4096-byte blocks; forward with it beats backward with it by
 * 4 % even where the output sits above the input modulo 4 KiB, so these blocks always go
 * forward; 512 bytes ahead beat 768 by 4-8 % (384 and 256: no clear difference).  T10-DIF
 * (PSHUFB on the PCLMULQDQ port) and 512-byte blocks lost 2-15 % with it. */
#define PF_DIST 512
#define PF_MIN  2048

static inline void prefetch_ahead(const uint8_t *src, const uint8_t *dst, size_t p)
{
	_mm_prefetch((const char *)((uintptr_t)src + p + PF_DIST), _MM_HINT_T0);
	_mm_prefetch((const char *)((uintptr_t)src + p + PF_DIST + 64), _MM_HINT_T0);
	_mm_prefetch((const char *)((uintptr_t)dst + p + PF_DIST), _MM_HINT_T0);
	_mm_prefetch((const char *)((uintptr_t)dst + p + PF_DIST + 64), _MM_HINT_T0);
}

/* The rest after the 128-byte groups, 16 bytes at a time; *done = bytes consumed. */
FOLD_TARGET __attribute__((always_inline))
static inline __m128i fold_lanes16(const struct kfold *kf, bool refl, bool copy, __m128i acc,
				   uint8_t *dst, const uint8_t *src, size_t p, size_t len, size_t *done)
{
	const __m128i bsw = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
	const __m128i k1 = kld(kf->k[1]);

	for (; p + 16 <= len; p += 16) {
		__m128i y;

		LANE(y, src, dst, p, copy, refl, bsw);
		acc = _mm_xor_si128(fold(acc, k1), y);
	}
	*done = p;
	return acc;
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

/* ---------------------------------------------------------------- reduction, blocks */

/* The register of an MSB-first CRC of width w after a message ≡ polynomial lane a:
 * a * x^w mod P.  Two folds bring it below x^(63+w), then Barrett with mu = floor(x^(63+w) / P). */
FOLD_TARGET static inline uint64_t msb_reduce(const struct kfold *kf, unsigned w, __m128i a)
{
	const __m128i mp = kld(kf->mu_p);
	__m128i t = fold(a, kld(kf->red));                      /* deg < 63 + w */
	/* floor(t / x^(w-1)): the low 64 bits hold it */
	__m128i t1 = _mm_or_si128(_mm_srli_epi64(t, (int)w - 1), _mm_slli_epi64(_mm_srli_si128(t, 8), 65 - (int)w));
	__m128i q = _mm_clmulepi64_si128(t1, mp, 0x00);         /* q = high half */
	__m128i r = _mm_xor_si128(t, _mm_clmulepi64_si128(q, mp, 0x11));
	uint64_t v = (uint64_t)_mm_cvtsi128_si64(r);

	return v & ((1ull << w) - 1);
}

/* The register after a message ≡ lane a (reflected kinds: the lane's CRC from zero). */
FOLD_TARGET static inline uint64_t fold_reduce(enum dp_fold_kind kd, __m128i a)
{
	uint8_t lane[16];

	if (!kinds[kd].refl)
		return msb_reduce(&kf_of[kd], kinds[kd].width, a);
	if (kd == DP_FOLD_CRC32C)
		return _mm_crc32_u64(_mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(a)),
				     (uint64_t)_mm_extract_epi64(a, 1));
	ST_128(lane, a);
	return dp_crc64_xp10_update_table(0, lane, 16);
}

/* Continue the register over a short rest. */
FOLD_TARGET static inline uint64_t reg_continue(enum dp_fold_kind kd, uint64_t reg, const uint8_t *p, size_t n)
{
	switch (kd) {
	case DP_FOLD_T10DIF:
		return crc16_t10dif((uint16_t)reg, p, n);
	case DP_FOLD_CRC32:     /* crc32_ieee complements its register in and out */
		return (uint32_t)~crc32_ieee((uint32_t)~reg, p, n);
	case DP_FOLD_CRC64:
		return dp_crc64_xp10_update_table(reg, p, n);
	default:
		break;
	}
	for (; n >= 8; n -= 8, p += 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		reg = _mm_crc32_u64(reg, v);
	}
	while (n--)
		reg = _mm_crc32_u8((uint32_t)reg, *p++);
	return reg;
}

FOLD_TARGET static inline __m128i seed_lane(enum dp_fold_kind kd, uint64_t seed)
{
	unsigned w = kinds[kd].width;

	if (!kinds[kd].refl)            /* the register meets the first bits of the message */
		return _mm_set_epi64x((long long)((seed & ((1ull << w) - 1)) << (64 - w)), 0);
	return _mm_cvtsi64_si128((long long)(w == 64 ? seed : (uint32_t)seed));
}

/* The field value from the register: T10-DIF none, the others a final XOR of all ones. */
static inline uint64_t final_value(enum dp_fold_kind kd, uint64_t reg)
{
	if (kd == DP_FOLD_T10DIF)
		return reg;
	return kd == DP_FOLD_CRC64 ? ~reg : (uint32_t)~reg;
}

/* Blocks back to back (len >= 128): register init from the seed, fold forward or backward per
 * block by where dst falls modulo 4 KiB, reduce, finish the rest, final value.  Written once
 * for both lane widths (FWD, BWD: fold_fwd/fold_bwd or their 256-bit forms), each instance
 * inlined into functions of its own target.  PF(kd): whether long blocks of the kind prefetch
 * and walk forward (see PF_DIST): with 256-bit lanes every kind gains from it (T10-DIF
 * generate 4096 on Zen 3: x1.43 -> x1.78 of ISA-L's CRC alone, CRC32C x0.88 -> x0.95), the
 * folding then no longer waiting on the PSHUFB/PCLMULQDQ port. */
#define DEFINE_FOLD_BLOCKS(name, tgt, FWD, BWD, PF)                                                    \
	tgt __attribute__((always_inline)) static inline void                                          \
	name(enum dp_fold_kind kd, bool copy, uint64_t seed, uint64_t *g, uint8_t *dst, size_t ds,     \
	     const uint8_t *src, size_t ss, size_t len, size_t n)                                     \
	{                                                                                              \
		const struct kfold *kf = &kf_of[kd];                                                   \
		bool refl = kinds[kd].refl;                                                            \
		__m128i init = seed_lane(kd, seed);                                                    \
		size_t groups = len / 128;                                                             \
		bool pf = PF(kd) && len >= PF_MIN;                                                     \
                                                                                                       \
		for (size_t i = 0; i < n; i++, src += ss) {                                            \
			size_t done;                                                                   \
			__m128i lane;                                                                  \
			uint64_t reg;                                                                  \
                                                                                                       \
			if (copy && !pf && groups >= BWD_MIN && groups <= NORM_MAX && ALIAS_4K(dst, src)) { \
				done = 128 * groups;                                                   \
				lane = BWD(kf, refl, init, dst, src, groups);                          \
			} else if (pf) {                                                               \
				lane = FWD(kf, refl, copy, true, init, dst, src, len, &done);          \
			} else {                                                                       \
				lane = FWD(kf, refl, copy, false, init, dst, src, len, &done);         \
			}                                                                              \
			if (copy && done < len)                                                        \
				memcpy(dst + done, src + done, len - done);                            \
			reg = fold_reduce(kd, lane);                                                   \
			if (done < len)                                                                \
				reg = reg_continue(kd, reg, src + done, len - done);                   \
			g[i] = final_value(kd, reg);                                                   \
			if (copy)                                                                      \
				dst += ds;                                                             \
		}                                                                                      \
	}

#define PF_CRC64_ONLY(kd) ((kd) == DP_FOLD_CRC64)
#define PF_ALWAYS(kd) true
DEFINE_FOLD_BLOCKS(fold_blocks128, FOLD_TARGET, fold_fwd, fold_bwd, PF_CRC64_ONLY)
DEFINE_FOLD_BLOCKS(fold_blocks256, VPCL_TARGET, fold_fwd256, fold_bwd256, PF_ALWAYS)

/* Each kind and copy mode its own function per ISA, so that the kind's constants and branches
 * fold at compile time.  128-bit lanes twice: SSE encoding, and VEX encoding for CPUs with AVX
 * (no SSE/AVX transition cost when it runs between AVX code, e.g. libgcrypt's, that leaves
 * the upper halves dirty). */
#define FOLD_FNS(name, kd, tgt, blocks)                                                           \
	tgt static void name##_copy(uint64_t seed, uint64_t *g, uint8_t *dst, size_t ds,          \
				    const uint8_t *src, size_t ss, size_t len, size_t n)          \
	{                                                                                         \
		blocks(kd, true, seed, g, dst, ds, src, ss, len, n);                              \
	}                                                                                         \
	tgt static void name##_nocopy(uint64_t seed, uint64_t *g, uint8_t *dst, size_t ds,        \
				      const uint8_t *src, size_t ss, size_t len, size_t n)        \
	{                                                                                         \
		blocks(kd, false, seed, g, dst, ds, src, ss, len, n);                             \
	}

#define FOLD_KINDS(isa, tgt, blocks)                                    \
	FOLD_FNS(t10_##isa, DP_FOLD_T10DIF, tgt, blocks)                \
	FOLD_FNS(c32_##isa, DP_FOLD_CRC32, tgt, blocks)                 \
	FOLD_FNS(c64_##isa, DP_FOLD_CRC64, tgt, blocks)                 \
	FOLD_FNS(c32c_##isa, DP_FOLD_CRC32C, tgt, blocks)

#define AVX_TARGET __attribute__((target("avx,pclmul,sse4.2")))
FOLD_KINDS(sse, FOLD_TARGET, fold_blocks128)
FOLD_KINDS(avx, AVX_TARGET, fold_blocks128)
FOLD_KINDS(vpcl, VPCL_TARGET, fold_blocks256)

typedef void blocks_fn(uint64_t, uint64_t *, uint8_t *, size_t, const uint8_t *, size_t, size_t, size_t);

#define KIND_ROW(isa, mode) { t10_##isa##_##mode, c32_##isa##_##mode, c64_##isa##_##mode, c32c_##isa##_##mode }

void dp_fold_blocks(enum dp_fold_kind kind, enum dp_fold_isa isa, uint64_t seed, uint64_t *guard,
		    uint8_t *dst, size_t dstride, const uint8_t *src, size_t sstride, size_t len, size_t n)
{
	static blocks_fn *const fns[2][3][KINDS] = {
		{ KIND_ROW(sse, nocopy), KIND_ROW(avx, nocopy), KIND_ROW(vpcl, nocopy) },
		{ KIND_ROW(sse, copy), KIND_ROW(avx, copy), KIND_ROW(vpcl, copy) },
	};

	fns[dst != NULL][isa][kind](seed, guard, dst, dstride, src, sstride, len, n);
}
