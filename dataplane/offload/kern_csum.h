/* SPDX-License-Identifier: MIT */
/*
 * The IP checksum's vector sum, written once for every lane width (kern_csum.c: 256-bit,
 * kern512_body.h: 512-bit).  The ones'-complement sum does not depend on the byte order of its
 * words (RFC 1071: swapping the bytes of the sum of little-endian words gives the sum of the
 * big-endian ones), so each 32-bit element adds its two little-endian halves and the byte swap
 * happens once per block (dp_csum_blocks_with).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* name(dst, src, len): copy (if dst) and sum len & ~(W - 1) bytes, W bytes a step; returns the
 * little-endian word sum folded to 16 bits.  Each 32-bit element takes two halves of at most
 * 0xffff a step: 2^14 steps per chunk keep a + b below 2^31. */
#define DEFINE_CSUM_SUM(name, tgt, vec, W, LOADU, STOREU, ADD32, AND, SRLI32, SET1_32, ZERO)        \
	tgt static uint32_t name(uint8_t *dst, const uint8_t *src, size_t len)                      \
	{                                                                                           \
		const vec lo16 = SET1_32(0xffff);                                                   \
		uint64_t total = 0;                                                                 \
		size_t p = 0;                                                                       \
                                                                                                    \
		while (p + (W) <= len) {                                                            \
			size_t end = len - p > ((W) << 14) ? p + ((W) << 14) : len;                 \
			vec a = ZERO(), b = ZERO();                                                 \
			uint32_t lanes[(W) / 4];                                                    \
                                                                                                    \
			for (; p + (W) <= end; p += (W)) {                                          \
				vec v = LOADU(src + p);                                             \
                                                                                                    \
				if (dst)                                                            \
					STOREU(dst + p, v);                                         \
				a = ADD32(a, AND(v, lo16));                                         \
				b = ADD32(b, SRLI32(v, 16));                                        \
			}                                                                           \
			STOREU(lanes, ADD32(a, b));                                                 \
			for (int i = 0; i < (W) / 4; i++)                                           \
				total += lanes[i];                                                  \
		}                                                                                   \
		while (total >> 16)                                                                 \
			total = (total & 0xffff) + (total >> 16);                                   \
		return (uint32_t)total;                                                             \
	}
