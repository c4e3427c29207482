/* SPDX-License-Identifier: MIT */
/*
 * What the folding kernels of every lane width share: the CRC kinds, their fold constants
 * (computed in kern_fold.c), the 128-bit lane operations, the final reduction and the loop over
 * a run of blocks.  kern_fold.c builds the 128- and 256-bit kernels on it, kern_fold512.h the
 * 512-bit ones.  Static inline throughout: each kernel inlines it into a function of its own
 * target, and a kind's constants and branches fold at compile time.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
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
	/* the 512-bit lanes' (kern_fold512.h): four 128-bit lanes per register */
	uint64_t k1536[2];         /* D = 1536 */
	uint64_t k2048[2];         /* D = 2048: one 256-byte group of four registers */
	uint64_t back2048[2];      /* D = -2048 */
};
/* Computed at load time from the polynomials (kern_fold.c). */
extern struct kfold dp_fold_consts[KINDS];

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

/* x##i = fold(x##i, k) ^ y##i for four lanes, with the fold and XOR of a width. */
#define FOLD4_W(FOLD, XOR, a, b, c, e, k)                       \
	do {                                                    \
		x##a = XOR(FOLD(x##a, k), y##a);                \
		x##b = XOR(FOLD(x##b, k), y##b);                \
		x##c = XOR(FOLD(x##c, k), y##c);                \
		x##e = XOR(FOLD(x##e, k), y##e);                \
	} while (0)

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
		return msb_reduce(&dp_fold_consts[kd], kinds[kd].width, a);
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
 * for every lane width (FWD, BWD: fold_fwd/fold_bwd or their 256- and 512-bit forms), each instance
 * inlined into functions of its own target.  PF(kd): whether long blocks of the kind prefetch
 * and walk forward (see PF_DIST): with 256-bit lanes every kind gains from it (T10-DIF
 * generate 4096 on Zen 3: x1.43 -> x1.78 of ISA-L's CRC alone, CRC32C x0.88 -> x0.95), the
 * folding then no longer waiting on the PSHUFB/PCLMULQDQ port. */
#define DEFINE_FOLD_BLOCKS(name, tgt, FWD, BWD, PF)                                                    \
	tgt __attribute__((always_inline)) static inline void                                          \
	name(enum dp_fold_kind kd, bool copy, uint64_t seed, uint64_t *g, uint8_t *dst, size_t ds,     \
	     const uint8_t *src, size_t ss, size_t len, size_t n)                                     \
	{                                                                                              \
		const struct kfold *kf = &dp_fold_consts[kd];                                                   \
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

typedef void blocks_fn(uint64_t, uint64_t *, uint8_t *, size_t, const uint8_t *, size_t, size_t, size_t);

#define KIND_ROW(isa, mode) { t10_##isa##_##mode, c32_##isa##_##mode, c64_##isa##_##mode, c32c_##isa##_##mode }
