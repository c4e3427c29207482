/* SPDX-License-Identifier: MIT */
/*
 * Fused multi-block guard kernels for the transform engine.
 *
 * One call handles a run of n blocks of len data bytes: block i starts at src + i * sstride;
 * its guard (the value dp_sig_guard() gives, seed of the domain included) goes to guard[i], and
 * when dst is not NULL its len bytes are copied to dst + i * dstride in the same pass.  The
 * type dispatch happens once per call, not per block.
 *
 * Which kernels run is a level, chosen once at start from the CPU's features (the best it
 * has whose start-up self-test passed, kern_selftest.h) or forced by the environment variable RDMAD_OFFLOAD_LEVEL (tests run every level the
 * machine has against the same known answers).  Every level gives the same guards and bytes.
 *
 *   portable    ISA-L per block (crc16_t10dif_copy, crc32_ieee, crc32_iscsi) + memcpy; CRC64
 *               by tables; IP checksum in C.
 *   pclmul      128-bit PCLMULQDQ folding that stores each lane it loads, for T10-DIF, CRC32
 *               (FC-PH), CRC32C and CRC64_XP10 (what a CPU without AVX2 runs).
 *   avx2        as pclmul, but CRC32C by three SSE4.2 crc32 streams with 256-bit copies in the
 *               same loop, and the IP checksum summed by AVX2 from the lanes it copies.
 *   vpclmul256  as avx2, the folding with 256-bit VPCLMULQDQ (two 128-bit lanes per multiply).
 *   vpclmul512  AVX-512F/BW/VL + VPCLMULQDQ: the folding with four 128-bit lanes per multiply
 *               (CRC32C too), the IP checksum summed from 512-bit lanes (kern512_body.h).
 *               Written where no CPU could run it: its lane arrangement and constants are
 *               checked by tests/unit/test_dp_kern512 on an emulated instantiation, its real
 *               instructions only by the start-up self-test on an AVX-512 machine
 *               (docs/offload.md, "Kernel levels").
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dataplane/offload/sig.h"

void dp_sig_guard_blocks(const struct dp_sig_domain *d, uint64_t *guard, uint8_t *dst, size_t dstride,
			 const uint8_t *src, size_t sstride, size_t len, size_t n);

enum dp_kern_level {
	DP_KERN_PORTABLE,
	DP_KERN_PCLMUL,
	DP_KERN_AVX2,
	DP_KERN_VPCLMUL256,
	DP_KERN_VPCLMUL512,
	DP_KERN_LEVELS
};

#define DP_KERN_LEVEL_ENV "RDMAD_OFFLOAD_LEVEL"

/* "portable", "pclmul", "avx2", "vpclmul256", "vpclmul512". */
const char *dp_kern_level_name(enum dp_kern_level level);
/* The level of a name, or -EINVAL. */
int dp_kern_level_parse(const char *name);
/* Whether this CPU can run the level. */
bool dp_kern_level_supported(enum dp_kern_level level);
/* Whether this CPU runs the level and its start-up self-test passed (only such a level is chosen). */
bool dp_kern_level_usable(enum dp_kern_level level);
/* The start-up self-test's result for the level, as rdmactl offload levels and the Device
 * record show it: "passed", "failed: WHY" (the first failing check) or "not run: CPU lacks
 * FEATURE". */
const char *dp_kern_level_selftest(enum dp_kern_level level);
/* Test hook (test_dp_kern_selftest): make the level's self-test fail as a broken kernel's
 * would, then self-test and choose again. */
void dp_kern_selftest_break(enum dp_kern_level level);
/* The level that runs now. */
enum dp_kern_level dp_kern_level_in_use(void);
/* What RDMAD_OFFLOAD_LEVEL did at start: 0 (unset, or a level this CPU runs, now in effect),
 * -EINVAL (not a level name), -EOPNOTSUPP (a level this CPU lacks) or -EIO (a level whose
 * self-test failed); on an error the best
 * level runs, and programs should refuse to go on (a forced level must not pass silently). */
int dp_kern_env_status(void);
/* That status in words for a program's refusal ("RDMAD_OFFLOAD_LEVEL=avx512: ... (levels this
 * CPU runs: portable, ...)"); returns dp_kern_env_status(). */
int dp_kern_env_describe(char *buf, size_t size);

/* Force a level (tests, the benchmark).  Returns the previous level, -EOPNOTSUPP when the
 * CPU cannot run it or -EIO when its self-test failed.  Not thread-safe: set it before any transfer runs. */
int dp_kern_set_level(enum dp_kern_level level);
