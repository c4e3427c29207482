/* SPDX-License-Identifier: MIT */
/*
 * Level vpclmul512: the kernels of kern512_body.h on AVX-512F/BW/VL and 512-bit VPCLMULQDQ,
 * each compiled with the target attribute below (no global flags).  Only a CPU that has them
 * runs this (kern.c probe_cpu), and only after its start-up self-test passed
 * (kern_selftest.c); tests/unit/test_dp_kern512.c runs the same source, its operations
 * emulated by 256-bit ones, on CPUs without AVX-512.
 */
#include <immintrin.h>

#include "dataplane/offload/kern_csum.h"
#include "dataplane/offload/kern_impl.h"

#define Z_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,vpclmulqdq,pclmul,sse4.2")))

typedef __m512i zvec;

#define Z_LOADU(p) _mm512_loadu_si512((const void *)(p))
#define Z_STOREU(p, v) _mm512_storeu_si512((void *)(p), (v))
#define Z_XOR _mm512_xor_si512
#define Z_AND _mm512_and_si512
#define Z_CLMUL_LO(a, b) _mm512_clmulepi64_epi128((a), (b), 0x00)
#define Z_CLMUL_HI(a, b) _mm512_clmulepi64_epi128((a), (b), 0x11)
#define Z_SHUF _mm512_shuffle_epi8
#define Z_BCAST128 _mm512_broadcast_i32x4
#define Z_SET128(x0, x1, x2, x3)                                                                 \
	_mm512_inserti32x4(_mm512_inserti32x4(_mm512_inserti32x4(_mm512_castsi128_si512(x0), (x1), 1), \
					      (x2), 2), (x3), 3)
#define Z_EXTRACT128(v, i) _mm512_extracti32x4_epi32((v), (i))
#define Z_ADD32 _mm512_add_epi32
#define Z_SRLI32 _mm512_srli_epi32
#define Z_SET1_32(x) _mm512_set1_epi32((int)(x))
#define Z_ZERO _mm512_setzero_si512

#include "dataplane/offload/kern512_body.h"

void dp_kern512_guard_blocks(const struct dp_sig_domain *d, uint64_t *guard, uint8_t *dst, size_t dstride,
			     const uint8_t *src, size_t sstride, size_t len, size_t n)
{
	kern512_guard_blocks(d, guard, dst, dstride, src, sstride, len, n);
}
