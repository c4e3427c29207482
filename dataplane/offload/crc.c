/* SPDX-License-Identifier: MIT */
/*
 * Checksums of the integrity fields (see crc.h for the exact definitions).
 *
 * CRC-16/T10-DIF, CRC32 (FC-PH, MSB-first) and CRC-32C come from ISA-L.  ISA-L 2.30 has no
 * CRC-64/NVME (= CRC64_XP10), so that one is implemented here: PCLMULQDQ folding (eight
 * 128-bit lanes, 128 bytes per step) for long buffers, slicing-by-8 tables for short ones and
 * for the tail.  The folding constants are x^n mod P, computed once at load time.
 */
#include <string.h>
#include <immintrin.h>
#include <isa-l/crc.h>

#include "dataplane/offload/crc.h"

/* ---------------------------------------------------------------- ISA-L wrappers */

uint16_t dp_crc16_t10dif(uint16_t bg, const void *buf, size_t len)
{
	return crc16_t10dif(bg, buf, len);
}

uint16_t dp_crc16_t10dif_copy(uint16_t bg, void *dst, const void *src, size_t len)
{
	return crc16_t10dif_copy(bg, dst, (uint8_t *)src, len);
}

/* crc32_ieee() complements its init argument and its result, so the value chains:
 * crc32_ieee(~seed, ...) starts the register at seed and ends with the final XOR. */
uint32_t dp_crc32_fcph(uint32_t seed, const void *buf, size_t len)
{
	return crc32_ieee(~seed, buf, len);
}

uint32_t dp_crc32_fcph_update(uint32_t value, const void *buf, size_t len)
{
	return crc32_ieee(value, buf, len);
}

/* crc32_iscsi() works on the raw register: no complement in or out. */
uint32_t dp_crc32c_update(uint32_t reg, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	while (len > 0x40000000u) {           /* its length is an int */
		reg = crc32_iscsi((unsigned char *)p, 0x40000000, reg);
		p += 0x40000000u;
		len -= 0x40000000u;
	}
	return crc32_iscsi((unsigned char *)p, (int)len, reg);
}

uint32_t dp_crc32c(uint32_t seed, const void *buf, size_t len)
{
	return ~dp_crc32c_update(seed, buf, len);
}

/* ---------------------------------------------------------------- IP checksum */

/* Ones'-complement sum of the buffer taken as little-endian 16-bit words, folded to 16 bits.
 * Byte-swapping it gives the sum of the big-endian words (end-around carry is symmetric). */
static uint32_t csum_le(const uint8_t *p, size_t len)
{
	uint64_t a0 = 0, a1 = 0;

	while (len >= 16) {
		uint64_t x, y;

		memcpy(&x, p, 8);
		memcpy(&y, p + 8, 8);
		a0 += (x & 0xffffffffu) + (x >> 32);
		a1 += (y & 0xffffffffu) + (y >> 32);
		p += 16;
		len -= 16;
	}
	while (len >= 2) {
		uint16_t w;

		memcpy(&w, p, 2);
		a0 += w;
		p += 2;
		len -= 2;
	}
	if (len)
		a0 += p[0];           /* odd trailing byte: high byte of a BE word = low byte LE */
	a0 += a1;
	a0 = (a0 & 0xffffffffu) + (a0 >> 32);
	a0 = (a0 & 0xffffffffu) + (a0 >> 32);
	a0 = (a0 & 0xffffu) + (a0 >> 16);
	a0 = (a0 & 0xffffu) + (a0 >> 16);
	a0 = (a0 & 0xffffu) + (a0 >> 16);
	return (uint32_t)a0;
}

uint32_t dp_ip_csum_update(uint32_t sum, const void *buf, size_t len)
{
	uint32_t s = csum_le(buf, len);

	s = ((s & 0xff) << 8) | (s >> 8);     /* to the big-endian word sum */
	sum += s;
	sum = (sum & 0xffffu) + (sum >> 16);
	sum = (sum & 0xffffu) + (sum >> 16);
	return sum;
}

uint16_t dp_ip_csum_final(uint16_t bg, uint32_t sum)
{
	sum += bg;
	sum = (sum & 0xffffu) + (sum >> 16);
	sum = (sum & 0xffffu) + (sum >> 16);
	return (uint16_t)~sum;
}

uint16_t dp_ip_csum(uint16_t bg, const void *buf, size_t len)
{
	return dp_ip_csum_final(bg, dp_ip_csum_update(0, buf, len));
}

/* ---------------------------------------------------------------- CRC64_XP10 (CRC-64/NVME) */

#define XP10_POLY_REFLECTED 0x9A6C9329AC4BC9B5ull   /* reference §2.5 (Zipline RTL) */

static uint64_t crc64_tab[8][256];

/* Folding constants of one reflected CRC. */
struct fold_k {
	uint64_t k128[2];         /* fold one 128-bit lane forward by 128 bits */
	uint64_t k1024[2];        /* fold each of 8 lanes forward by 1024 bits */
};
static struct fold_k fold_crc64;
static int have_clmul;

static uint64_t reflect64(uint64_t v)
{
	uint64_t r = 0;

	for (int i = 0; i < 64; i++)
		if (v & (1ull << i))
			r |= 1ull << (63 - i);
	return r;
}

/* x^n mod P for a CRC of `width` bits (P = x^width + poly_normal), in normal form. */
static uint64_t xpow_mod(unsigned n, uint64_t poly_normal, unsigned width)
{
	uint64_t top = 1ull << (width - 1);
	uint64_t mask = width == 64 ? ~0ull : (1ull << width) - 1;
	uint64_t r = 1;

	while (n--) {
		uint64_t carry = r & top;

		r = (r << 1) & mask;
		if (carry)
			r ^= poly_normal;
	}
	return r;
}

/* In the reflected layout the low 64 bits of a lane hold the high-degree half H and
 * PCLMULQDQ of two reflected 64-bit operands yields the product times x, so folding a lane by
 * D bits multiplies H by x^(D+63) mod P and the low-degree half by x^(D-1) mod P. */
static void fold_constants(unsigned dist, uint64_t poly_normal, unsigned width, uint64_t k[2])
{
	k[0] = reflect64(xpow_mod(dist + 63, poly_normal, width));
	k[1] = reflect64(xpow_mod(dist - 1, poly_normal, width));
}

/* Priority 101: before kern.c's level choice (102), whose self-test runs these tables. */
__attribute__((constructor(101))) static void crc64_init(void)
{
	uint64_t poly_normal = reflect64(XP10_POLY_REFLECTED);

	for (unsigned b = 0; b < 256; b++) {
		uint64_t r = b;

		for (int i = 0; i < 8; i++)
			r = (r >> 1) ^ ((r & 1) ? XP10_POLY_REFLECTED : 0);
		crc64_tab[0][b] = r;
	}
	for (unsigned b = 0; b < 256; b++)
		for (int k = 1; k < 8; k++)
			crc64_tab[k][b] = (crc64_tab[k - 1][b] >> 8) ^
				crc64_tab[0][crc64_tab[k - 1][b] & 0xff];
	fold_constants(128, poly_normal, 64, fold_crc64.k128);
	fold_constants(1024, poly_normal, 64, fold_crc64.k1024);
	__builtin_cpu_init();
	have_clmul = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
}

uint64_t dp_crc64_xp10_update_table(uint64_t reg, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len >= 8) {
		uint64_t x;

		memcpy(&x, p, 8);
		reg ^= x;
		reg = crc64_tab[7][reg & 0xff] ^ crc64_tab[6][(reg >> 8) & 0xff] ^
		      crc64_tab[5][(reg >> 16) & 0xff] ^ crc64_tab[4][(reg >> 24) & 0xff] ^
		      crc64_tab[3][(reg >> 32) & 0xff] ^ crc64_tab[2][(reg >> 40) & 0xff] ^
		      crc64_tab[1][(reg >> 48) & 0xff] ^ crc64_tab[0][reg >> 56];
		p += 8;
		len -= 8;
	}
	while (len--)
		reg = crc64_tab[0][(reg ^ *p++) & 0xff] ^ (reg >> 8);
	return reg;
}

__attribute__((target("pclmul,sse4.1")))
static inline __m128i fold_lane(__m128i x, __m128i k)
{
	return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11));
}

#define LD(p) _mm_loadu_si128((const __m128i *)(p))
#define ST(p, v) do { if (dst) _mm_storeu_si128((__m128i *)(p), (v)); } while (0)

/* Fold *plen >= 128 bytes of *psrc (with init xor-ed into the first 16 bytes) down to one
 * 128-bit lane standing for the whole message; the bytes folded are copied to dst when dst is
 * not NULL.  Leaves *psrc / *plen on the tail (< 16 bytes). */
__attribute__((target("pclmul,sse4.1"), always_inline))
static inline __m128i fold_run_t(const struct fold_k *fk, __m128i init, uint8_t *dst, const uint8_t **psrc,
				 size_t *plen)
{
	const uint8_t *p = *psrc;
	size_t len = *plen;
	__m128i x0, x1, x2, x3, x4, x5, x6, x7, acc;
	const __m128i k8 = _mm_set_epi64x((long long)fk->k1024[1], (long long)fk->k1024[0]);
	const __m128i k1 = _mm_set_epi64x((long long)fk->k128[1], (long long)fk->k128[0]);

	x0 = LD(p); x1 = LD(p + 16); x2 = LD(p + 32); x3 = LD(p + 48);
	x4 = LD(p + 64); x5 = LD(p + 80); x6 = LD(p + 96); x7 = LD(p + 112);
	ST(dst, x0); ST(dst + 16, x1); ST(dst + 32, x2); ST(dst + 48, x3);
	ST(dst + 64, x4); ST(dst + 80, x5); ST(dst + 96, x6); ST(dst + 112, x7);
	x0 = _mm_xor_si128(x0, init);
	p += 128;
	len -= 128;
	if (dst)
		dst += 128;
	while (len >= 128) {
		__m128i y0 = LD(p), y1 = LD(p + 16), y2 = LD(p + 32), y3 = LD(p + 48);
		__m128i y4 = LD(p + 64), y5 = LD(p + 80), y6 = LD(p + 96), y7 = LD(p + 112);

		ST(dst, y0); ST(dst + 16, y1); ST(dst + 32, y2); ST(dst + 48, y3);
		ST(dst + 64, y4); ST(dst + 80, y5); ST(dst + 96, y6); ST(dst + 112, y7);
		x0 = _mm_xor_si128(fold_lane(x0, k8), y0);
		x1 = _mm_xor_si128(fold_lane(x1, k8), y1);
		x2 = _mm_xor_si128(fold_lane(x2, k8), y2);
		x3 = _mm_xor_si128(fold_lane(x3, k8), y3);
		x4 = _mm_xor_si128(fold_lane(x4, k8), y4);
		x5 = _mm_xor_si128(fold_lane(x5, k8), y5);
		x6 = _mm_xor_si128(fold_lane(x6, k8), y6);
		x7 = _mm_xor_si128(fold_lane(x7, k8), y7);
		p += 128;
		len -= 128;
		if (dst)
			dst += 128;
	}
	acc = _mm_xor_si128(fold_lane(x0, k1), x1);
	acc = _mm_xor_si128(fold_lane(acc, k1), x2);
	acc = _mm_xor_si128(fold_lane(acc, k1), x3);
	acc = _mm_xor_si128(fold_lane(acc, k1), x4);
	acc = _mm_xor_si128(fold_lane(acc, k1), x5);
	acc = _mm_xor_si128(fold_lane(acc, k1), x6);
	acc = _mm_xor_si128(fold_lane(acc, k1), x7);
	while (len >= 16) {
		__m128i y = LD(p);

		ST(dst, y);
		acc = _mm_xor_si128(fold_lane(acc, k1), y);
		p += 16;
		len -= 16;
		if (dst)
			dst += 16;
	}
	*psrc = p;
	*plen = len;
	return acc;
}

/* Two instances: with the stores (dst != NULL) and without, so the loop has no branch. */
__attribute__((target("pclmul,sse4.1")))
static __m128i fold_run_copy(const struct fold_k *fk, __m128i init, uint8_t *dst, const uint8_t **psrc, size_t *plen)
{
	return fold_run_t(fk, init, dst, psrc, plen);
}

__attribute__((target("pclmul,sse4.1")))
static __m128i fold_run_nocopy(const struct fold_k *fk, __m128i init, const uint8_t **psrc, size_t *plen)
{
	return fold_run_t(fk, init, NULL, psrc, plen);
}

__attribute__((target("pclmul,sse4.1")))
static inline __m128i fold_run(const struct fold_k *fk, __m128i init, uint8_t *dst, const uint8_t **psrc, size_t *plen)
{
	return dst ? fold_run_copy(fk, init, dst, psrc, plen) : fold_run_nocopy(fk, init, psrc, plen);
}

/* The lane stands for the whole message so far: running its 16 bytes through a zero register
 * is exactly the reduction modulo P that is left to do. */
__attribute__((target("pclmul,sse4.1")))
static uint64_t crc64_clmul(uint64_t reg, uint8_t *dst, const uint8_t *p, size_t len)
{
	const uint8_t *s = p;
	uint8_t tmp[16];
	__m128i acc = fold_run(&fold_crc64, _mm_cvtsi64_si128((long long)reg), dst, &s, &len);

	_mm_storeu_si128((__m128i *)tmp, acc);
	reg = dp_crc64_xp10_update_table(0, tmp, 16);
	if (dst && len)
		memcpy(dst + (s - p), s, len);
	return dp_crc64_xp10_update_table(reg, s, len);
}

uint64_t dp_crc64_xp10_copy(uint64_t seed, void *dst, const void *src, size_t len)
{
	if (len >= 256 && have_clmul)
		return ~crc64_clmul(seed, dst, src, len);
	memcpy(dst, src, len);
	return dp_crc64_xp10(seed, src, len);
}

uint64_t dp_crc64_xp10_update(uint64_t reg, const void *buf, size_t len)
{
	if (len >= 256 && have_clmul)
		return crc64_clmul(reg, NULL, buf, len);
	return dp_crc64_xp10_update_table(reg, buf, len);
}

uint64_t dp_crc64_xp10(uint64_t seed, const void *buf, size_t len)
{
	return ~dp_crc64_xp10_update(seed, buf, len);
}
