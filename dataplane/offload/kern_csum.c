/* SPDX-License-Identifier: MIT */
/*
 * IP checksum guard (T10-DIF bg_type csum) summed from the 256-bit lanes the copy loads
 * (kern_impl.h).  The ones'-complement sum does not depend on the byte order of its words
 * (RFC 1071: swapping the bytes of the sum of little-endian words gives the sum of the
 * big-endian ones), so each 32-bit lane adds its two little-endian halves and the byte swap
 * happens once per block.
 */
#include <string.h>
#include <immintrin.h>

#include "dataplane/offload/crc.h"
#include "dataplane/offload/kern_impl.h"

#define CSUM_TARGET __attribute__((target("avx2")))
/* 32-bit lanes take two halves of at most 0xffff per 32 bytes: 2^14 steps stay below 2^31 */
#define CSUM_CHUNK (32u << 14)

/* Copy (if dst) and sum len & ~31 bytes; returns the little-endian word sum folded to 16 bits. */
CSUM_TARGET static uint32_t sum_copy32(uint8_t *dst, const uint8_t *src, size_t len)
{
	const __m256i lo16 = _mm256_set1_epi32(0xffff);
	uint64_t total = 0;
	size_t p = 0;

	while (p + 32 <= len) {
		size_t end = len - p > CSUM_CHUNK ? p + CSUM_CHUNK : len;
		__m256i a = _mm256_setzero_si256(), b = _mm256_setzero_si256();
		uint32_t lanes[8];

		for (; p + 32 <= end; p += 32) {
			__m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(src + p));

			if (dst)
				_mm256_storeu_si256((__m256i *)(void *)(dst + p), v);
			a = _mm256_add_epi32(a, _mm256_and_si256(v, lo16));
			b = _mm256_add_epi32(b, _mm256_srli_epi32(v, 16));
		}
		_mm256_storeu_si256((__m256i *)(void *)lanes, _mm256_add_epi32(a, b));
		for (int i = 0; i < 8; i++)
			total += lanes[i];
	}
	while (total >> 16)
		total = (total & 0xffff) + (total >> 16);
	return (uint32_t)total;
}

void dp_csum_blocks_avx2(uint16_t bg, uint64_t *guard, uint8_t *dst, size_t dstride,
			 const uint8_t *src, size_t sstride, size_t len, size_t n)
{
	size_t head = len & ~(size_t)31;

	for (size_t i = 0; i < n; i++, src += sstride) {
		uint32_t le = sum_copy32(dst, src, len);
		uint32_t be = ((le & 0xff) << 8) | (le >> 8);

		if (dst) {
			memcpy(dst + head, src + head, len - head);
			dst += dstride;
		}
		guard[i] = dp_ip_csum_final(bg, dp_ip_csum_update(be, src + head, len - head));
	}
}
