/* SPDX-License-Identifier: MIT */
/*
 * Fused multi-block guard kernels (see kern.h).
 *
 * Written for what bounds these loops on x86-64: PCLMULQDQ (and PSHUFB) issue on one port, the
 * SSE4.2 crc32 instruction on another, while loads and stores have their own ports.  So the
 * copy costs almost nothing when it is done with the lanes the CRC loads anyway (folding
 * kernels) or with wide loads/stores beside the crc32 stream (CRC32C), and a run of blocks in
 * one loop lets the out-of-order core overlap one block's final reduction with the next
 * block's folding.  Each kernel is compiled for its ISA with a target attribute and chosen at
 * run time; the portable path is ISA-L + memcpy.
 */
#include <string.h>
#include <immintrin.h>
#include <isa-l/crc.h>

#include "dataplane/offload/crc.h"
#include "dataplane/offload/kern.h"

#define T10_POLY   0x18BB7u                    /* x^16 + 0x8BB7 */
#define XP10_REFL  0x9A6C9329AC4BC9B5ull       /* CRC-64/NVME, reflected */
#define C32C_REFL  0x82F63B78u                 /* CRC-32C, reflected */
/* dst a little above src modulo 4 KiB: loads just ahead of a store share its low 12 bits */
#define ALIAS_4K(dst, src) (((((uintptr_t)(dst) - (uintptr_t)(src)) & 4095) - 1) < 2047)
#define NORM_MAX   64                          /* backward folding: blocks up to 64 * 128 bytes */
/* ... and from 16 * 128 bytes: on 512/520-byte blocks the forward walk measured 2-6 % faster
 * even with 4K aliasing (the next-line prefetcher only runs forward; a block's stores are
 * few), on 4048-4160-byte blocks the backward walk 5-10 % faster. */
#define BWD_MIN    16

static int kern_level = 1;
static int have_fold;                          /* pclmul, ssse3, sse4.1, sse4.2 */
static int have_crc32c3;                       /* sse4.2, avx2 (+ pclmul: have_fold) */
static int have_avx;                           /* VEX encoding for the folding kernels */

/* Fold constants: after fold(A, k) a lane A stands for A * x^D.
 *  non-reflected (T10-DIF): lo = x^D mod P, hi = x^(D+64) mod P (clmul lo*lo, hi*hi)
 *  reflected (CRC64, CRC32C in the 64-bit reflected layout): lo = x^(D+63), hi = x^(D-1) mod P
 * D may be negative (x is invertible modulo these P): backward folding. */
struct kfold {
	uint64_t k[8][2];          /* k[j]: D = 128 * j, j = 1..7; k[0]: D = 1024 */
	uint64_t back[2];          /* D = -1024 */
	uint64_t norm[NORM_MAX + 1][2];   /* norm[g]: D = 1024 * (g - 1) */
	uint64_t red[2];           /* T10-DIF: x^16, x^80 mod P */
	uint64_t mu_p[2];          /* T10-DIF: floor(x^79 / P), P */
};
static struct kfold kt10, k64, k32c;

/* CRC32C of one long block as three segments (kern.h): shift constants x^(8n - 33) mod P
 * (32-bit reflected) that move a segment's register over the n bytes after it. */
static const uint32_t split_len[3] = { 4048, 4096, 4160 };
static uint64_t split_k[3][2];

enum kind { K_T10, K_C64, K_C32C };

/* r * x^n mod P for the kind (r in the kind's own representation), n may be negative. */
static uint64_t xstep(enum kind kd, uint64_t r, long n)
{
	for (; n > 0; n--) {
		if (kd == K_T10) {
			r <<= 1;
			if (r & 0x10000u)
				r ^= T10_POLY;
		} else if (kd == K_C64) {
			r = (r >> 1) ^ ((r & 1) ? XP10_REFL : 0);
		} else {
			r = (r >> 1) ^ ((r & 1) ? C32C_REFL : 0);
		}
	}
	for (; n < 0; n++) {
		if (kd == K_T10) {
			r = (r & 1) ? (r ^ T10_POLY) >> 1 : r >> 1;
		} else if (kd == K_C64) {
			uint64_t b = r >> 63;

			r = ((r ^ (b ? XP10_REFL : 0)) << 1) | b;
		} else {
			uint64_t b = (r >> 31) & 1;

			r = (((r ^ (b ? C32C_REFL : 0)) << 1) & 0xffffffffu) | b;
		}
	}
	return r;
}

/* x^n mod P for the kind, n may be negative; representation as the fold uses it. */
static uint64_t xmod(enum kind kd, long n)
{
	uint64_t r = xstep(kd, kd == K_T10 ? 1 : kd == K_C64 ? 1ull << 63 : 1ull << 31, n);

	return kd == K_C32C ? r << 32 : r;        /* CRC32C: into the 64-bit reflected layout */
}

static void kconst(enum kind kd, long d, uint64_t k[2])
{
	if (kd == K_T10) {
		k[0] = xmod(kd, d);
		k[1] = xmod(kd, d + 64);
	} else {
		k[0] = xmod(kd, d + 63);
		k[1] = xmod(kd, d - 1);
	}
}

static void kfold_init(enum kind kd, struct kfold *kf)
{
	for (unsigned j = 0; j < 8; j++)
		kconst(kd, j ? 128 * (long)j : 1024, kf->k[j]);
	kconst(kd, -1024, kf->back);
	/* norm[g]: D = 1024 (g - 1), each from the previous one by 1024 steps (from scratch, the
	 * 64 constants of the 3 kinds took ~100 M instructions at every process start) */
	kconst(kd, 0, kf->norm[1]);
	for (long g = 2; g <= NORM_MAX; g++)
		for (int j = 0; j < 2; j++) {
			uint64_t r = kf->norm[g - 1][j];

			if (kd == K_C32C)
				r >>= 32;
			r = xstep(kd, r, 1024);
			kf->norm[g][j] = kd == K_C32C ? r << 32 : r;
		}
}

__attribute__((constructor)) static void kern_init(void)
{
	unsigned __int128 rem = (unsigned __int128)1 << 79;
	uint64_t mu = 0;

	kfold_init(K_T10, &kt10);
	kfold_init(K_C64, &k64);
	kfold_init(K_C32C, &k32c);
	kt10.red[0] = xmod(K_T10, 16);
	kt10.red[1] = xmod(K_T10, 80);
	for (int i = 79; i >= 16; i--)
		if ((rem >> i) & 1) {
			rem ^= (unsigned __int128)T10_POLY << (i - 16);
			mu |= 1ull << (i - 16);
		}
	for (int j = 0; j < 3; j++) {
		size_t seg = split_len[j] / 3 & ~(size_t)63;

		split_k[j][0] = xmod(K_C32C, 8 * (long)seg - 33) >> 32;
		split_k[j][1] = xmod(K_C32C, 8 * (long)(split_len[j] - 2 * seg) - 33) >> 32;
	}
	kt10.mu_p[0] = mu;
	kt10.mu_p[1] = T10_POLY;
	__builtin_cpu_init();
	have_fold = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("ssse3") &&
		    __builtin_cpu_supports("sse4.1") && __builtin_cpu_supports("sse4.2");
	have_crc32c3 = __builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("avx2");
	have_avx = !!__builtin_cpu_supports("avx");
}

int dp_kern_set_level(int level)
{
	int old = kern_level;

	kern_level = level;
	return old;
}

/* ---------------------------------------------------------------- folding kernels */

#define FOLD_TARGET __attribute__((target("pclmul,ssse3,sse4.1,sse4.2")))
#define LD(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define ST(p, v) _mm_storeu_si128((__m128i *)(void *)(p), (v))

FOLD_TARGET static inline __m128i kld(const uint64_t k[2])
{
	return _mm_set_epi64x((long long)k[1], (long long)k[0]);
}

FOLD_TARGET static inline __m128i fold(__m128i x, __m128i k)
{
	return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11));
}

/* Load a lane (copying it), in polynomial order for the non-reflected CRC. */
#define LANE(v, s, d, off, copy, refl, bsw)                     \
	do {                                                    \
		v = LD((s) + (off));                            \
		if (copy)                                       \
			ST((d) + (off), v);                     \
		if (!(refl))                                    \
			v = _mm_shuffle_epi8(v, bsw);           \
	} while (0)

#define GROUP(y, s, d, off, copy, refl, bsw)                            \
	do {                                                            \
		LANE(y##0, s, d, (off), copy, refl, bsw);               \
		LANE(y##1, s, d, (off) + 16, copy, refl, bsw);          \
		LANE(y##2, s, d, (off) + 32, copy, refl, bsw);          \
		LANE(y##3, s, d, (off) + 48, copy, refl, bsw);          \
		LANE(y##4, s, d, (off) + 64, copy, refl, bsw);          \
		LANE(y##5, s, d, (off) + 80, copy, refl, bsw);          \
		LANE(y##6, s, d, (off) + 96, copy, refl, bsw);          \
		LANE(y##7, s, d, (off) + 112, copy, refl, bsw);         \
	} while (0)

#define FOLD8(k)                                                \
	do {                                                    \
		x0 = _mm_xor_si128(fold(x0, k), y0);            \
		x1 = _mm_xor_si128(fold(x1, k), y1);            \
		x2 = _mm_xor_si128(fold(x2, k), y2);            \
		x3 = _mm_xor_si128(fold(x3, k), y3);            \
		x4 = _mm_xor_si128(fold(x4, k), y4);            \
		x5 = _mm_xor_si128(fold(x5, k), y5);            \
		x6 = _mm_xor_si128(fold(x6, k), y6);            \
		x7 = _mm_xor_si128(fold(x7, k), y7);            \
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

/* Forward: fold len >= 128 bytes of src (copying them to dst if copy) down to one 128-bit lane
 * congruent to the message (non-reflected: as a polynomial; reflected: in the layout whose
 * CRC-of-16-bytes from a zero register is the message's); init is xor-ed into the first lane.
 * *done = bytes consumed (a multiple of 16; the rest is left to the caller). */
FOLD_TARGET __attribute__((always_inline))
static inline __m128i fold_fwd(const struct kfold *kf, bool refl, bool copy, bool pf, __m128i init,
			       uint8_t *dst, const uint8_t *src, size_t len, size_t *done)
{
	const __m128i bsw = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
	const __m128i k8 = kld(kf->k[0]), k1 = kld(kf->k[1]);
	__m128i x0, x1, x2, x3, x4, x5, x6, x7, acc;
	size_t p = 128;

	GROUP(x, src, dst, 0, copy, refl, bsw);
	x0 = _mm_xor_si128(x0, init);
	for (; p + 128 <= len; p += 128) {
		__m128i y0, y1, y2, y3, y4, y5, y6, y7;

		if (copy && pf) {
			_mm_prefetch((const char *)((uintptr_t)src + p + PF_DIST), _MM_HINT_T0);
			_mm_prefetch((const char *)((uintptr_t)src + p + PF_DIST + 64), _MM_HINT_T0);
			_mm_prefetch((const char *)((uintptr_t)dst + p + PF_DIST), _MM_HINT_T0);
			_mm_prefetch((const char *)((uintptr_t)dst + p + PF_DIST + 64), _MM_HINT_T0);
		}
		GROUP(y, src, dst, p, copy, refl, bsw);
		FOLD8(k8);
	}
	acc = tree8(kf, x0, x1, x2, x3, x4, x5, x6, x7);
	for (; p + 16 <= len; p += 16) {
		__m128i y;

		LANE(y, src, dst, p, copy, refl, bsw);
		acc = _mm_xor_si128(fold(acc, k1), y);
	}
	*done = p;
	return acc;
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

/* CRC-16/T10-DIF of the polynomial lane a (message ≡ a): a * x^16 mod P.  Two folds bring it
 * below x^79, then Barrett with mu = floor(x^79 / P). */
FOLD_TARGET static inline uint64_t t10_reduce(__m128i a)
{
	const __m128i mp = kld(kt10.mu_p);
	__m128i t = fold(a, kld(kt10.red));                     /* deg < 79 */
	/* floor(t / x^15): the low 64 bits hold it */
	__m128i t1 = _mm_or_si128(_mm_srli_epi64(t, 15), _mm_slli_epi64(_mm_srli_si128(t, 8), 49));
	__m128i q = _mm_clmulepi64_si128(t1, mp, 0x00);         /* q = high half */
	__m128i r = _mm_xor_si128(t, _mm_clmulepi64_si128(q, mp, 0x11));

	return (uint16_t)_mm_cvtsi128_si32(r);
}

/* The register after a message ≡ lane a (reflected kinds: the lane's CRC from zero). */
FOLD_TARGET static inline uint64_t fold_reduce(enum kind kd, __m128i a)
{
	uint8_t lane[16];

	if (kd == K_T10)
		return t10_reduce(a);
	if (kd == K_C32C)
		return _mm_crc32_u64(_mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(a)),
				     (uint64_t)_mm_extract_epi64(a, 1));
	ST(lane, a);
	return dp_crc64_xp10_update_table(0, lane, 16);
}

/* Continue the register over a short rest. */
FOLD_TARGET static inline uint64_t reg_continue(enum kind kd, uint64_t reg, const uint8_t *p, size_t n)
{
	if (kd == K_T10)
		return crc16_t10dif((uint16_t)reg, p, n);
	if (kd == K_C64)
		return dp_crc64_xp10_update_table(reg, p, n);
	for (; n >= 8; n -= 8, p += 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		reg = _mm_crc32_u64(reg, v);
	}
	while (n--)
		reg = _mm_crc32_u8((uint32_t)reg, *p++);
	return reg;
}

/* Blocks back to back (len >= 128): register init from the seed, fold forward or backward per
 * block by where dst falls modulo 4 KiB, reduce, finish the rest, final value. */
FOLD_TARGET __attribute__((always_inline))
static inline void fold_blocks_t(enum kind kd, bool copy, uint64_t seed, uint64_t *g, uint8_t *dst, size_t ds,
				 const uint8_t *src, size_t ss, size_t len, size_t n)
{
	const struct kfold *kf = kd == K_T10 ? &kt10 : kd == K_C64 ? &k64 : &k32c;
	bool refl = kd != K_T10;
	__m128i init = kd == K_T10 ? _mm_set_epi64x((long long)(seed << 48), 0)
				   : _mm_cvtsi64_si128((long long)(kd == K_C32C ? (uint32_t)seed : seed));
	size_t groups = len / 128;
	bool pf = kd == K_C64 && len >= PF_MIN;         /* see PF_DIST */

	for (size_t i = 0; i < n; i++, src += ss) {
		size_t done;
		uint64_t reg;

		if (copy && !pf && groups >= BWD_MIN && groups <= NORM_MAX && ALIAS_4K(dst, src)) {
			done = 128 * groups;
			if (done < len)
				memcpy(dst + done, src + done, len - done);
			reg = fold_reduce(kd, fold_bwd(kf, refl, init, dst, src, groups));
		} else {
			if (pf)
				reg = fold_reduce(kd, fold_fwd(kf, refl, copy, true, init, dst, src, len, &done));
			else
				reg = fold_reduce(kd, fold_fwd(kf, refl, copy, false, init, dst, src, len, &done));
			if (copy && done < len)
				memcpy(dst + done, src + done, len - done);
		}
		if (done < len)
			reg = reg_continue(kd, reg, src + done, len - done);
		g[i] = kd == K_T10 ? reg : kd == K_C64 ? ~reg : (uint32_t)~reg;
		if (copy)
			dst += ds;
	}
}

/* Each kernel twice: SSE encoding, and VEX encoding for CPUs with AVX (no SSE/AVX transition
 * cost when it runs between AVX code, e.g. libgcrypt's, that leaves the upper halves dirty). */
#define FOLD_FNS(name, kd, tgt)                                                                   \
	tgt static void name##_copy(uint64_t seed, uint64_t *g, uint8_t *dst, size_t ds,          \
				    const uint8_t *src, size_t ss, size_t len, size_t n)          \
	{                                                                                         \
		fold_blocks_t(kd, true, seed, g, dst, ds, src, ss, len, n);                       \
	}                                                                                         \
	tgt static void name##_nocopy(uint64_t seed, uint64_t *g, const uint8_t *src,             \
				      size_t ss, size_t len, size_t n)                            \
	{                                                                                         \
		fold_blocks_t(kd, false, seed, g, NULL, 0, src, ss, len, n);                      \
	}

#define AVX_TARGET __attribute__((target("avx,pclmul,sse4.2")))
FOLD_FNS(t10_sse, K_T10, FOLD_TARGET)
FOLD_FNS(c64_sse, K_C64, FOLD_TARGET)
FOLD_FNS(c32f_sse, K_C32C, FOLD_TARGET)
FOLD_FNS(t10_avx, K_T10, AVX_TARGET)
FOLD_FNS(c64_avx, K_C64, AVX_TARGET)
FOLD_FNS(c32f_avx, K_C32C, AVX_TARGET)

typedef void copy_fn(uint64_t, uint64_t *, uint8_t *, size_t, const uint8_t *, size_t, size_t, size_t);
typedef void nocopy_fn(uint64_t, uint64_t *, const uint8_t *, size_t, size_t, size_t);

/* The folding kernel of a kind, with or without copy (one indirect call per run of blocks). */
static void fold_run(enum kind kd, uint64_t seed, uint64_t *g, uint8_t *dst, size_t ds,
		     const uint8_t *src, size_t ss, size_t len, size_t n)
{
	static copy_fn *const cp[2][3] = { { t10_sse_copy, c64_sse_copy, c32f_sse_copy },
					   { t10_avx_copy, c64_avx_copy, c32f_avx_copy } };
	static nocopy_fn *const nc[2][3] = { { t10_sse_nocopy, c64_sse_nocopy, c32f_sse_nocopy },
					     { t10_avx_nocopy, c64_avx_nocopy, c32f_avx_nocopy } };

	if (dst)
		cp[have_avx][kd](seed, g, dst, ds, src, ss, len, n);
	else
		nc[have_avx][kd](seed, g, src, ss, len, n);
}

/* ---------------------------------------------------------------- CRC32C, three blocks at once */

#define C32_TARGET __attribute__((target("sse4.2,avx2,pclmul")))

static inline uint64_t ld64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

C32_TARGET static inline void cp32(uint8_t *d, const uint8_t *s)
{
	_mm256_storeu_si256((__m256i *)(void *)d, _mm256_loadu_si256((const __m256i *)(const void *)s));
}

/* One crc32 stream per block: three independent dependency chains keep the crc32 unit busy
 * (latency 3, one per cycle) without any recombination step. */
C32_TARGET __attribute__((always_inline))
static inline void c32c_3_t(bool copy, uint32_t seed, uint64_t *g, uint8_t *d0, uint8_t *d1, uint8_t *d2,
			    const uint8_t *s0, const uint8_t *s1, const uint8_t *s2, size_t len)
{
	uint64_t c0 = seed, c1 = seed, c2 = seed;
	size_t p = 0;

	for (; p + 64 <= len; p += 64) {
#pragma GCC unroll 8
		for (unsigned o = 0; o < 64; o += 8) {
			c0 = _mm_crc32_u64(c0, ld64(s0 + p + o));
			c1 = _mm_crc32_u64(c1, ld64(s1 + p + o));
			c2 = _mm_crc32_u64(c2, ld64(s2 + p + o));
		}
		if (copy) {
			cp32(d0 + p, s0 + p);
			cp32(d0 + p + 32, s0 + p + 32);
			cp32(d1 + p, s1 + p);
			cp32(d1 + p + 32, s1 + p + 32);
			cp32(d2 + p, s2 + p);
			cp32(d2 + p + 32, s2 + p + 32);
		}
	}
	for (; p + 8 <= len; p += 8) {
		if (copy) {
			memcpy(d0 + p, s0 + p, 8);
			memcpy(d1 + p, s1 + p, 8);
			memcpy(d2 + p, s2 + p, 8);
		}
		c0 = _mm_crc32_u64(c0, ld64(s0 + p));
		c1 = _mm_crc32_u64(c1, ld64(s1 + p));
		c2 = _mm_crc32_u64(c2, ld64(s2 + p));
	}
	for (; p < len; p++) {
		if (copy) {
			d0[p] = s0[p];
			d1[p] = s1[p];
			d2[p] = s2[p];
		}
		c0 = _mm_crc32_u8((uint32_t)c0, s0[p]);
		c1 = _mm_crc32_u8((uint32_t)c1, s1[p]);
		c2 = _mm_crc32_u8((uint32_t)c2, s2[p]);
	}
	g[0] = (uint32_t)~c0;
	g[1] = (uint32_t)~c1;
	g[2] = (uint32_t)~c2;
}

/* crc register moved over n zero bytes: c * x^(8n) mod P, with k = x^(8n - 33) mod P. */
C32_TARGET static inline uint64_t c32c_shift(uint64_t c, uint64_t k)
{
	__m128i m = _mm_clmulepi64_si128(_mm_cvtsi64_si128((long long)c), _mm_cvtsi64_si128((long long)k), 0);

	return _mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(m));
}

/* One block of a device size >= 4048 as three segments [0, seg) [seg, 2 seg) [2 seg, len): the
 * three streams of one block sit at different 4 KiB offsets, unlike three 4 KiB blocks.
 * pfw (dst a little above src modulo 4 KiB, ALIAS_4K): each load a few bytes ahead of a copy
 * store has its low 12 address bits and waits for it to commit; a prefetch of the destination
 * lines 256 bytes ahead (PREFETCHT0; PREFETCHW measured the same) makes the stores commit
 * sooner: +4-5 % on TX 4096, but -5 % when dst is not above src, hence the condition. */
C32_TARGET __attribute__((always_inline))
static inline uint64_t c32c_split_t(bool copy, bool pfw, const uint64_t k[2], uint32_t seed, uint8_t *d,
				    const uint8_t *s, size_t len)
{
	size_t seg = len / 3 & ~(size_t)63;
	uint64_t c0 = seed, c1 = 0, c2 = 0;
	const uint8_t *s1 = s + seg, *s2 = s + 2 * seg;
	size_t p = 0;

	for (; p < seg; p += 64) {
#pragma GCC unroll 8
		for (unsigned o = 0; o < 64; o += 8) {
			c0 = _mm_crc32_u64(c0, ld64(s + p + o));
			c1 = _mm_crc32_u64(c1, ld64(s1 + p + o));
			c2 = _mm_crc32_u64(c2, ld64(s2 + p + o));
		}
		if (copy && pfw) {
			_mm_prefetch((const char *)((uintptr_t)d + p + 256), _MM_HINT_T0);
			_mm_prefetch((const char *)((uintptr_t)d + seg + p + 256), _MM_HINT_T0);
			_mm_prefetch((const char *)((uintptr_t)d + 2 * seg + p + 256), _MM_HINT_T0);
		}
		if (copy) {
			cp32(d + p, s + p);
			cp32(d + p + 32, s + p + 32);
			cp32(d + seg + p, s1 + p);
			cp32(d + seg + p + 32, s1 + p + 32);
			cp32(d + 2 * seg + p, s2 + p);
			cp32(d + 2 * seg + p + 32, s2 + p + 32);
		}
	}
	for (p += 2 * seg; p + 8 <= len; p += 8) {
		if (copy)
			memcpy(d + p, s + p, 8);
		c2 = _mm_crc32_u64(c2, ld64(s + p));
	}
	for (; p < len; p++) {
		if (copy)
			d[p] = s[p];
		c2 = _mm_crc32_u8((uint32_t)c2, s[p]);
	}
	c0 = c32c_shift(c0, k[0]) ^ c1;
	c0 = c32c_shift(c0, k[1]) ^ c2;
	return (uint32_t)~c0;
}

static const uint64_t *split_consts(size_t len)
{
	for (int j = 0; j < 3; j++)
		if (len == split_len[j])
			return split_k[j];
	return NULL;
}

C32_TARGET static size_t c32c_blocks_copy(uint32_t seed, uint64_t *g, uint8_t *dst, size_t ds,
					  const uint8_t *src, size_t ss, size_t len, size_t n)
{
	const uint64_t *k = split_consts(len);
	size_t i = 0;

	if (k) {
		for (; i < n; i++, src += ss, dst += ds) {
			if (ALIAS_4K(dst, src))
				g[i] = c32c_split_t(true, true, k, seed, dst, src, len);
			else
				g[i] = c32c_split_t(true, false, k, seed, dst, src, len);
		}
		return n;
	}
	for (; i + 3 <= n; i += 3, src += 3 * ss, dst += 3 * ds)
		c32c_3_t(true, seed, g + i, dst, dst + ds, dst + 2 * ds, src, src + ss, src + 2 * ss, len);
	return i;
}

C32_TARGET static size_t c32c_blocks_nocopy(uint32_t seed, uint64_t *g, const uint8_t *src, size_t ss,
					    size_t len, size_t n)
{
	const uint64_t *k = split_consts(len);
	size_t i = 0;

	if (k) {
		for (; i < n; i++, src += ss)
			g[i] = c32c_split_t(false, false, k, seed, NULL, src, len);
		return n;
	}
	for (; i + 3 <= n; i += 3, src += 3 * ss)
		c32c_3_t(false, seed, g + i, NULL, NULL, NULL, src, src + ss, src + 2 * ss, len);
	return i;
}

/* ---------------------------------------------------------------- dispatch */

static void generic_blocks(const struct dp_sig_domain *d, uint64_t *g, uint8_t *dst, size_t ds,
			   const uint8_t *src, size_t ss, size_t len, size_t n)
{
	bool t10crc = d->sig_type == DP_SIG_T10DIF && d->t10dif.bg_type == DP_T10DIF_BG_CRC;
	bool c64 = d->sig_type == DP_SIG_CRC && d->crc.type == DP_CRC_CRC64_XP10;

	for (size_t i = 0; i < n; i++, src += ss) {
		if (dst && t10crc) {
			g[i] = dp_crc16_t10dif_copy(d->t10dif.bg, dst, src, len);
		} else if (dst && c64) {
			g[i] = dp_crc64_xp10_copy(d->crc.seed, dst, src, len);
		} else {
			if (dst)
				memcpy(dst, src, len);
			g[i] = dp_sig_guard(d, src, len);
		}
		if (dst)
			dst += ds;
	}
}

void dp_sig_guard_blocks(const struct dp_sig_domain *d, uint64_t *g, uint8_t *dst, size_t ds,
			 const uint8_t *src, size_t ss, size_t len, size_t n)
{
	size_t i;

	if (kern_level < 1 || n == 0) {
		generic_blocks(d, g, dst, ds, src, ss, len, n);
		return;
	}
	if (d->sig_type == DP_SIG_T10DIF && d->t10dif.bg_type == DP_T10DIF_BG_CRC && have_fold && len >= 128) {
		fold_run(K_T10, d->t10dif.bg, g, dst, ds, src, ss, len, n);
		return;
	}
	if (d->sig_type == DP_SIG_CRC && d->crc.type == DP_CRC_CRC64_XP10 && have_fold && len >= 128) {
		fold_run(K_C64, d->crc.seed, g, dst, ds, src, ss, len, n);
		return;
	}
	if (d->sig_type == DP_SIG_CRC && d->crc.type == DP_CRC_CRC32C) {
		if (have_crc32c3 && have_fold && kern_level != 2) {
			if (dst)
				i = c32c_blocks_copy((uint32_t)d->crc.seed, g, dst, ds, src, ss, len, n);
			else
				i = c32c_blocks_nocopy((uint32_t)d->crc.seed, g, src, ss, len, n);
			if (i < n)
				generic_blocks(d, g + i, dst ? dst + i * ds : NULL, ds, src + i * ss, ss, len, n - i);
			return;
		}
		if (have_fold && len >= 128) {
			fold_run(K_C32C, (uint32_t)d->crc.seed, g, dst, ds, src, ss, len, n);
			return;
		}
	}
	generic_blocks(d, g, dst, ds, src, ss, len, n);
}

