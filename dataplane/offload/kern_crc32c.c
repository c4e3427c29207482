/* SPDX-License-Identifier: MIT */
/*
 * CRC32C by the SSE4.2 crc32 instruction, copying in the same loop (kern_impl.h).
 *
 * The crc32 instruction issues on its own port (latency 3, one per cycle), so three
 * independent streams keep it busy while the copy's 256-bit loads and stores go through the
 * load/store ports beside it: 512/520-byte blocks three at a time (one stream per block, no
 * recombination), 4048/4096/4160-byte blocks as three segments at different 4 KiB offsets,
 * recombined with one PCLMULQDQ shift each (x^(8n-33) mod P, computed at load time).
 */
#include <string.h>
#include <immintrin.h>

#include "dataplane/offload/kern_impl.h"

#define C32C_REFL  0x82F63B78u                 /* CRC-32C, reflected */

/* CRC32C of one long block as three segments: shift constants x^(8n - 33) mod P (32-bit
 * reflected) that move a segment's register over the n bytes after it. */
static const uint32_t split_len[3] = { 4048, 4096, 4160 };
static uint64_t split_k[3][2];

/* x^n mod P, reflected, n >= 0 */
static uint64_t xpow(long n)
{
	uint64_t r = 1u << 31;

	for (; n > 0; n--)
		r = (r >> 1) ^ ((r & 1) ? C32C_REFL : 0);
	return r;
}

/* Priority 101: before kern.c's level choice (102), whose self-test runs these tables. */
__attribute__((constructor(101))) static void kern_crc32c_init(void)
{
	for (int j = 0; j < 3; j++) {
		size_t seg = split_len[j] / 3 & ~(size_t)63;

		split_k[j][0] = xpow(8 * (long)seg - 33);
		split_k[j][1] = xpow(8 * (long)(split_len[j] - 2 * seg) - 33);
	}
}

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


size_t dp_crc32c_streams_blocks(uint32_t seed, uint64_t *guard, uint8_t *dst, size_t dstride,
				const uint8_t *src, size_t sstride, size_t len, size_t n)
{
	if (dst)
		return c32c_blocks_copy(seed, guard, dst, dstride, src, sstride, len, n);
	return c32c_blocks_nocopy(seed, guard, src, sstride, len, n);
}
