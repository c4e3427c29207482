/* SPDX-License-Identifier: MIT */
/*
 * Unaligned big-endian loads and stores: every RoCE header field is network order.  (The ICRC
 * alone is little-endian; icrc.c spells that out where it stores it.)
 */
#pragma once

#include <stdint.h>

static inline uint16_t roce_get_be16(const uint8_t *p)
{
	return p[0] << 8 | p[1];
}

static inline void roce_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static inline uint32_t roce_get_be24(const uint8_t *p)
{
	return p[0] << 16 | p[1] << 8 | p[2];
}

static inline void roce_put_be24(uint8_t *p, uint32_t v)
{
	p[0] = v >> 16;
	p[1] = v >> 8;
	p[2] = v;
}

static inline uint32_t roce_get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

static inline void roce_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static inline uint64_t roce_get_be64(const uint8_t *p)
{
	return (uint64_t)roce_get_be32(p) << 32 | roce_get_be32(p + 4);
}

static inline void roce_put_be64(uint8_t *p, uint64_t v)
{
	roce_put_be32(p, v >> 32);
	roce_put_be32(p + 4, v);
}
