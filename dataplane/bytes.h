/* SPDX-License-Identifier: MIT */
/*
 * Unaligned fixed-order loads and stores for the packet codecs.  Wire formats differ: the
 * OPA 16B header is little-endian words, the 9B headers, MADs and RoCE headers big-endian,
 * so each use says which.
 */
#pragma once

#include <stdint.h>

static inline uint16_t dp_get_le16(const uint8_t *p)
{
	return p[0] | p[1] << 8;
}

static inline void dp_put_le16(uint8_t *p, uint16_t v)
{
	p[0] = v;
	p[1] = v >> 8;
}

static inline uint32_t dp_get_le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void dp_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static inline uint16_t dp_get_be16(const uint8_t *p)
{
	return p[0] << 8 | p[1];
}

static inline void dp_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static inline uint32_t dp_get_be24(const uint8_t *p)
{
	return p[0] << 16 | p[1] << 8 | p[2];
}

static inline void dp_put_be24(uint8_t *p, uint32_t v)
{
	p[0] = v >> 16;
	p[1] = v >> 8;
	p[2] = v;
}

static inline uint32_t dp_get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

static inline void dp_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static inline uint64_t dp_get_be64(const uint8_t *p)
{
	return (uint64_t)dp_get_be32(p) << 32 | dp_get_be32(p + 4);
}

static inline void dp_put_be64(uint8_t *p, uint64_t v)
{
	dp_put_be32(p, v >> 32);
	dp_put_be32(p + 4, v);
}
