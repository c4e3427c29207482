/* SPDX-License-Identifier: MIT */
/*
 * 24-bit PSN arithmetic (reference roce_virtio.md §2.6).  PSNs wrap at 2^24, so order is only
 * meaningful within half the space: a is after b when (a - b) mod 2^24 lies in [1, 2^23).
 * dp_psn_diff() gives that signed distance in [-2^23, 2^23).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define DP_PSN_SPACE	(1u << 24)
#define DP_PSN_HALF	(1u << 23)

static inline uint32_t dp_psn_add(uint32_t psn, uint32_t n)
{
	return (psn + n) & (DP_PSN_SPACE - 1);
}

/* Signed distance from b to a, sign-extended from 24 bits without relying on >> of negatives. */
static inline int32_t dp_psn_diff(uint32_t a, uint32_t b)
{
	uint32_t d = (a - b) & (DP_PSN_SPACE - 1);

	return (int32_t)(d ^ DP_PSN_HALF) - (int32_t)DP_PSN_HALF;
}

/* <0, 0, >0 as a is before, equal to, after b. */
static inline int dp_psn_cmp(uint32_t a, uint32_t b)
{
	int32_t d = dp_psn_diff(a, b);

	return (d > 0) - (d < 0);
}

/* psn is one of the size PSNs starting at base: base, base+1, ..., base+size-1 (mod 2^24).
 * size <= 2^23, so that "within" is unambiguous. */
static inline bool dp_psn_in_window(uint32_t psn, uint32_t base, uint32_t size)
{
	return ((psn - base) & (DP_PSN_SPACE - 1)) < size && size <= DP_PSN_HALF;
}
