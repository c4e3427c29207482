/* SPDX-License-Identifier: MIT */
/*
 * IP checksum guard (T10-DIF bg_type csum) summed from the 256-bit lanes the copy loads
 * (kern_impl.h; the sum itself is kern_csum.h's, shared with the 512-bit level).
 */
#include <string.h>
#include <immintrin.h>

#include "dataplane/offload/crc.h"
#include "dataplane/offload/kern_csum.h"
#include "dataplane/offload/kern_impl.h"

#define CSUM_TARGET __attribute__((target("avx2")))

#define LOADU_256(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define STOREU_256(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), (v))
DEFINE_CSUM_SUM(sum_copy32, CSUM_TARGET, __m256i, 32, LOADU_256, STOREU_256, _mm256_add_epi32,
		_mm256_and_si256, _mm256_srli_epi32, _mm256_set1_epi32, _mm256_setzero_si256)

void dp_csum_blocks_with(dp_csum_sum_fn *sum, size_t width, uint16_t bg, uint64_t *guard, uint8_t *dst,
			 size_t dstride, const uint8_t *src, size_t sstride, size_t len, size_t n)
{
	size_t head = len & ~(width - 1);

	for (size_t i = 0; i < n; i++, src += sstride) {
		uint32_t le = sum(dst, src, len);
		uint32_t be = ((le & 0xff) << 8) | (le >> 8);

		if (dst) {
			memcpy(dst + head, src + head, len - head);
			dst += dstride;
		}
		guard[i] = dp_ip_csum_final(bg, dp_ip_csum_update(be, src + head, len - head));
	}
}

void dp_csum_blocks_avx2(uint16_t bg, uint64_t *guard, uint8_t *dst, size_t dstride,
			 const uint8_t *src, size_t sstride, size_t len, size_t n)
{
	dp_csum_blocks_with(sum_copy32, 32, bg, guard, dst, dstride, src, sstride, len, n);
}
