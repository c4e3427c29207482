/* SPDX-License-Identifier: MIT */
/*
 * The IPv4 Identification a received RoCE v2 packet was sent with, found from its ICRC.
 *
 * A socket receiver does not see the IP header, and the ICRC covers the Identification
 * (icrc.h): a daemon that sends with ID 0 is checked by rebuilding the header with 0, but
 * other senders (Linux rxe, RoCE NICs) number their packets.  CRC-32 is affine, so two
 * messages that differ only in the two ID bytes have CRCs that differ by
 *
 *     delta = raw(id) * x^(8 n)  mod P
 *
 * where raw(id) is the CRC register (reflected, zero start) after the two ID bytes alone and
 * n the number of bytes after them.  Multiplying delta by x^(-8 n) gives raw(id), and raw is a
 * linear one-to-one map from 16 bits to 32: solving it gives the one ID that makes the
 * packet's ICRC right, or none, in which case the packet is damaged.  The check keeps 16 of
 * its 32 bits for such packets (a damaged one passes with odds 2^-16 instead of 2^-32); a
 * packet sent with ID 0 still gets the whole check (docs/decisions.md, "RoCE v2 packets").
 */
#include <pthread.h>

#include "dataplane/roce/icrc.h"

#define POLY		0xedb88320u	/* CRC-32 reflected: bit 31 is x^0 */
#define X_ONE		(1u << 31)
#define X_INVERSE	0xdb710641u	/* x^-1 mod P: x * X_INVERSE = 1 */

/* a * b mod P, in the reflected representation (zlib's multmodp, without its a != 0 need). */
static uint32_t mult(uint32_t a, uint32_t b)
{
	uint32_t p = 0;

	for (int i = 0; i < 32; i++) {
		if (a & (X_ONE >> i))
			p ^= b;
		b = b & 1 ? (b >> 1) ^ POLY : b >> 1;
	}
	return p;
}

/*
 * x^(-8 n) mod P, from a small cache per thread: a flow's packets have a few lengths
 * (the path MTU's, the last of a message, ACKs), and the power costs some 30 products.
 */
#define POWER_CACHE 16

static uint32_t x_to_minus_8n_computed(uint64_t n);

static uint32_t x_to_minus_8n(uint64_t n)
{
	static __thread struct { uint64_t n; uint32_t power; bool set; } cache[POWER_CACHE];
	unsigned slot = (unsigned)(n % POWER_CACHE);

	if (!cache[slot].set || cache[slot].n != n) {
		cache[slot].power = x_to_minus_8n_computed(n);
		cache[slot].n = n;
		cache[slot].set = true;
	}
	return cache[slot].power;
}

static uint32_t x_to_minus_8n_computed(uint64_t n)
{
	uint32_t base = X_INVERSE, r = X_ONE;

	for (int i = 0; i < 3; i++)
		base = mult(base, base);	/* x^-8 */
	for (; n; n >>= 1) {
		if (n & 1)
			r = mult(r, base);
		base = mult(base, base);
	}
	return r;
}

/* raw(id): the register after the ID's two bytes, most significant first, from zero. */
static uint32_t raw_of_id(uint16_t id)
{
	const uint8_t bytes[2] = { id >> 8, id & 0xff };
	uint32_t crc = 0;

	for (int i = 0; i < 2; i++) {
		crc ^= bytes[i];
		for (int k = 0; k < 8; k++)
			crc = crc & 1 ? (crc >> 1) ^ POLY : crc >> 1;
	}
	return crc;
}

/*
 * raw() in row echelon form: pivot[i] is a vector whose highest set bit no later vector has,
 * made of the IDs' bits in ids[i].  Solving walks them once.
 */
static struct {
	uint32_t pivot[16];
	uint16_t ids[16];
} echelon;
static pthread_once_t echelon_once = PTHREAD_ONCE_INIT;

static int top_bit(uint32_t v)
{
	return 31 - __builtin_clz(v);
}

static void echelon_build(void)
{
	for (int i = 0; i < 16; i++) {
		uint32_t v = raw_of_id((uint16_t)(1u << i));
		uint16_t id = (uint16_t)(1u << i);

		/* Reduce by the pivots so far, highest bit first, then insert in order. */
		for (int j = 0; j < i; j++)
			if (v & (1u << top_bit(echelon.pivot[j]))) {
				v ^= echelon.pivot[j];
				id ^= echelon.ids[j];
			}
		int at = i;

		while (at > 0 && top_bit(echelon.pivot[at - 1]) < top_bit(v)) {
			echelon.pivot[at] = echelon.pivot[at - 1];
			echelon.ids[at] = echelon.ids[at - 1];
			at--;
		}
		echelon.pivot[at] = v;
		echelon.ids[at] = id;
	}
}

bool roce_icrc_solve_ipv4_id(uint32_t delta, size_t transport_len, uint16_t *id)
{
	/* After the ID: the rest of the IPv4 header (14), UDP (8), the transport packet but its ICRC. */
	uint32_t raw = mult(delta, x_to_minus_8n((uint64_t)ROCE_IPV4_HDR_LEN - 6 + ROCE_UDP_HDR_LEN +
						  transport_len - ROCE_ICRC_LEN));
	uint16_t found = 0;

	pthread_once(&echelon_once, echelon_build);
	for (int i = 0; i < 16; i++)
		if (raw & (1u << top_bit(echelon.pivot[i]))) {
			raw ^= echelon.pivot[i];
			found ^= echelon.ids[i];
		}
	if (raw)
		return false;
	*id = found;
	return true;
}
