/* SPDX-License-Identifier: MIT */
/*
 * The integrity-field checksums of reference §2.2-2.5.
 *
 * Every "value" function returns the number that goes into the field (before byte ordering),
 * with the seed meaning exactly what mlx5dv's seed / bg means:
 *
 *   dp_crc16_t10dif   CRC-16/T10-DIF, poly 0x8BB7, MSB-first, init = bg, no final XOR (ISA-L)
 *   dp_ip_csum        ones' complement of the ones'-complement sum of big-endian 16-bit words,
 *                     the sum starting at bg (decision, docs/offload.md)
 *   dp_crc32_fcph     CRC32 "FC-PH": poly 0x04C11DB7, MSB-first, init = seed, final XOR ~0
 *                     (seed ~0 = CRC-32/BZIP2, seed 0 = CRC-32/CKSUM w/o length) (ISA-L crc32_ieee)
 *   dp_crc32c         CRC-32C: reflected 0x82F63B78, init = seed, final XOR ~0 (ISA-L crc32_iscsi)
 *   dp_crc64_xp10     CRC64_XP10 = CRC-64/NVME: reflected 0x9A6C9329AC4BC9B5, init = seed,
 *                     final XOR ~0 (own PCLMULQDQ folding; ISA-L 2.30 lacks this polynomial)
 *
 * The *_update functions work on the raw shift register (no final XOR) so a value can be
 * computed over several pieces: value = final(update(update(init(seed), a), b)).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

uint16_t dp_crc16_t10dif(uint16_t bg, const void *buf, size_t len);
/* Same value, and copies len bytes from src to dst in the same pass (ISA-L stitched copy). */
uint16_t dp_crc16_t10dif_copy(uint16_t bg, void *dst, const void *src, size_t len);
uint16_t dp_ip_csum(uint16_t bg, const void *buf, size_t len);
uint32_t dp_crc32_fcph(uint32_t seed, const void *buf, size_t len);
uint32_t dp_crc32c(uint32_t seed, const void *buf, size_t len);
uint64_t dp_crc64_xp10(uint64_t seed, const void *buf, size_t len);

/* Same value, copying len bytes from src to dst in the same pass (the folding loop stores each
 * 16-byte lane it loads). */
uint64_t dp_crc64_xp10_copy(uint64_t seed, void *dst, const void *src, size_t len);

/* Piecewise forms.  len of every piece except the last must be even for the IP checksum. */
uint32_t dp_ip_csum_update(uint32_t sum, const void *buf, size_t len); /* sum: folded 16-bit */
uint16_t dp_ip_csum_final(uint16_t bg, uint32_t sum);
uint32_t dp_crc32_fcph_update(uint32_t value, const void *buf, size_t len); /* chains values */
uint32_t dp_crc32c_update(uint32_t reg, const void *buf, size_t len);
uint64_t dp_crc64_xp10_update(uint64_t reg, const void *buf, size_t len);

/* CRC64_XP10 register update by table (slicing-by-8); exported for tests and the benchmark. */
uint64_t dp_crc64_xp10_update_table(uint64_t reg, const void *buf, size_t len);
