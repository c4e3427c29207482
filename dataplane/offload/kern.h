/* SPDX-License-Identifier: MIT */
/*
 * Fused multi-block guard kernels for the transform engine.
 *
 * One call handles a run of n blocks of len data bytes: block i starts at src + i * sstride;
 * its guard (the value dp_sig_guard() gives, seed of the domain included) goes to guard[i], and
 * when dst is not NULL its len bytes are copied to dst + i * dstride in the same pass.  The
 * type dispatch happens once per call, not per block.
 *
 * What runs (docs/offload.md, "Performance"):
 *   CRC-16/T10-DIF  own PCLMULQDQ folding, 8 lanes, storing each lane as it is loaded, tree
 *                   reduction and Barrett; blocks back to back in one loop.
 *                   Portable: ISA-L crc16_t10dif_copy per block.
 *   CRC32C          own SSE4.2 crc32 over three blocks at once (one stream per block, so no
 *                   stream recombination), 32-byte copies in the same loop; a run's last one or
 *                   two blocks and the portable path: ISA-L crc32_iscsi + memcpy.
 *   CRC64_XP10      own PCLMULQDQ folding with the copy stitched in (crc.c does the single-buffer
 *                   form), tree reduction; blocks back to back.  Portable: tables + memcpy.
 *   IP checksum, CRC32 (FC-PH): memcpy + dp_sig_guard per block.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "dataplane/offload/sig.h"

void dp_sig_guard_blocks(const struct dp_sig_domain *d, uint64_t *guard, uint8_t *dst, size_t dstride,
			 const uint8_t *src, size_t sstride, size_t len, size_t n);

/* Kernel level, for tests and the benchmark: 0 = portable only (ISA-L / tables, memcpy),
 * 1 = the best the CPU supports (default), 2 = as 1 but CRC32C by folding (what a CPU with
 * PCLMULQDQ and no AVX2 runs).  Returns the previous level.  Not thread-safe:
 * set it before any transfer runs. */
int dp_kern_set_level(int level);
