/* SPDX-License-Identifier: MIT */
/*
 * The kernels behind dp_sig_guard_blocks() (kern.h), one file per family; kern.c chooses
 * among them by level.  Each takes a run of n blocks as dp_sig_guard_blocks() does; dst NULL
 * means no copy.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dataplane/offload/kern.h"
#include "dataplane/offload/sig.h"

/* dp_sig_guard_blocks() at level l rather than the one in effect (the self-test runs each). */
void dp_kern_guard_blocks_at(enum dp_kern_level l, const struct dp_sig_domain *d, uint64_t *guard, uint8_t *dst,
			     size_t dstride, const uint8_t *src, size_t sstride, size_t len, size_t n);

/* dst a little above src modulo 4 KiB: loads just ahead of a store share its low 12 bits
 * (4K aliasing), which the kernels avoid by walking backward or prefetching the stores. */
#define ALIAS_4K(dst, src) (((((uintptr_t)(dst) - (uintptr_t)(src)) & 4095) - 1) < 2047)

/* kern_fold.c: carry-less multiply folding, for blocks of 128 bytes or more. */
enum dp_fold_kind {
	DP_FOLD_T10DIF,         /* CRC-16/T10-DIF, MSB-first */
	DP_FOLD_CRC32,          /* CRC32 (FC-PH), MSB-first */
	DP_FOLD_CRC64,          /* CRC64_XP10, reflected */
	DP_FOLD_CRC32C,         /* CRC-32C, reflected */
};

/* The folding kind of a CRC guard (T10-DIF CRC or one of the CRC types). */
static inline enum dp_fold_kind dp_fold_kind_of(const struct dp_sig_domain *d)
{
	if (d->sig_type == DP_SIG_T10DIF)
		return DP_FOLD_T10DIF;
	switch (d->crc.type) {
	case DP_CRC_CRC32:  return DP_FOLD_CRC32;
	case DP_CRC_CRC32C: return DP_FOLD_CRC32C;
	default:            return DP_FOLD_CRC64;
	}
}

enum dp_fold_isa {
	DP_FOLD_SSE,            /* 128-bit PCLMULQDQ, SSE encoding */
	DP_FOLD_AVX,            /* 128-bit PCLMULQDQ, VEX encoding */
	DP_FOLD_VPCLMUL256,     /* 256-bit VPCLMULQDQ */
};

#define DP_FOLD_MIN_LEN 128

void dp_fold_blocks(enum dp_fold_kind kind, enum dp_fold_isa isa, uint64_t seed, uint64_t *guard,
		    uint8_t *dst, size_t dstride, const uint8_t *src, size_t sstride, size_t len, size_t n);

/* kern_crc32c.c: CRC32C by SSE4.2 crc32 streams with AVX2 copies (needs sse4.2, avx2,
 * pclmul).  Returns how many of the n blocks it did (the rest: from that index on). */
size_t dp_crc32c_streams_blocks(uint32_t seed, uint64_t *guard, uint8_t *dst, size_t dstride,
				const uint8_t *src, size_t sstride, size_t len, size_t n);

/* kern_csum.c: IP checksum (T10-DIF bg_type csum) summed by AVX2 from the lanes it copies. */
void dp_csum_blocks_avx2(uint16_t bg, uint64_t *guard, uint8_t *dst, size_t dstride,
			 const uint8_t *src, size_t sstride, size_t len, size_t n);

/* The same with the sum of another lane width (kern_csum.h): sum copies (if dst) and sums the
 * first len & ~(width - 1) bytes of a block, the rest is summed in C. */
typedef uint32_t dp_csum_sum_fn(uint8_t *dst, const uint8_t *src, size_t len);
void dp_csum_blocks_with(dp_csum_sum_fn *sum, size_t width, uint16_t bg, uint64_t *guard, uint8_t *dst,
			 size_t dstride, const uint8_t *src, size_t sstride, size_t len, size_t n);

/* kern512.c: dp_sig_guard_blocks() at level vpclmul512 (kern512_body.h; needs AVX-512F/BW/VL
 * and VPCLMULQDQ). */
void dp_kern512_guard_blocks(const struct dp_sig_domain *d, uint64_t *guard, uint8_t *dst, size_t dstride,
			     const uint8_t *src, size_t sstride, size_t len, size_t n);
