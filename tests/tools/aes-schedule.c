/* SPDX-License-Identifier: MIT */
/*
 * The AES key schedule of a key, for tests/bats/coredump.bats, which looks
 * for round keys in a core file of rdmad: libgcrypt keeps them as the bytes
 * FIPS-197 §5.2 gives, four words a round, each word's bytes in order.
 *
 *   aes-schedule HEXKEY
 *       HEXKEY is 16, 24 or 32 bytes; prints round keys 1 to Nr, one line of
 *       32 hex digits each (round key 0 is the key itself), then the round
 *       keys 1 to Nr-1 of the equivalent inverse cipher (§5.3.5: each
 *       through InvMixColumns), which decryption keeps.
 *
 * Written from the standard, not with a crypto library, so that it cannot
 * share a mistake with the code it checks.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint8_t xtime(uint8_t b)
{
	return (uint8_t)((b << 1) ^ ((b & 0x80) ? 0x1b : 0));
}

static uint8_t mul(uint8_t a, uint8_t b)
{
	uint8_t p = 0;

	for (; b; b >>= 1, a = xtime(a))
		if (b & 1)
			p ^= a;
	return p;
}

/* The S-box of §5.1.1: the inverse in GF(2^8), then the affine map. */
static uint8_t sbox(uint8_t x)
{
	uint8_t inv = 0, s;

	for (unsigned c = 1; c < 256 && x; c++)
		if (mul(x, (uint8_t)c) == 1) {
			inv = (uint8_t)c;
			break;
		}
	s = inv;
	for (int i = 1; i <= 4; i++)
		s ^= (uint8_t)((inv << i) | (inv >> (8 - i)));
	return s ^ 0x63;
}

/* InvMixColumns (§5.3.3) of one 4-byte column, in place. */
static void inv_mix_column(uint8_t c[4])
{
	uint8_t a[4];

	memcpy(a, c, 4);
	for (int i = 0; i < 4; i++)
		c[i] = mul(a[i], 0x0e) ^ mul(a[(i + 1) % 4], 0x0b) ^ mul(a[(i + 2) % 4], 0x0d) ^
		       mul(a[(i + 3) % 4], 0x09);
}

static void print_round(uint8_t w[][4], int r, bool inverse)
{
	uint8_t col[4];

	for (int c = 0; c < 4; c++) {
		memcpy(col, w[4 * r + c], 4);
		if (inverse)
			inv_mix_column(col);
		printf("%02x%02x%02x%02x", col[0], col[1], col[2], col[3]);
	}
	printf("\n");
}

static int unhex(const char *s, uint8_t *out, size_t max)
{
	size_t n = strlen(s);
	unsigned v;

	if (n % 2 || n / 2 > max)
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		out[i] = (uint8_t)v;
	}
	return (int)(n / 2);
}

int main(int argc, char **argv)
{
	uint8_t w[60][4], key[32], rcon = 1, t[4];
	int len = argc == 2 ? unhex(argv[1], key, sizeof(key)) : -1;
	int nk, nr;

	if (len != 16 && len != 24 && len != 32) {
		fprintf(stderr, "usage: aes-schedule HEXKEY (16, 24 or 32 bytes)\n");
		return 2;
	}
	nk = len / 4;
	nr = nk + 6;
	memcpy(w, key, (size_t)len);
	for (int i = nk; i < 4 * (nr + 1); i++) {
		memcpy(t, w[i - 1], 4);
		if (i % nk == 0) {
			uint8_t first = t[0];

			t[0] = sbox(t[1]) ^ rcon;
			t[1] = sbox(t[2]);
			t[2] = sbox(t[3]);
			t[3] = sbox(first);
			rcon = xtime(rcon);
		} else if (nk > 6 && i % nk == 4) {
			for (int j = 0; j < 4; j++)
				t[j] = sbox(t[j]);
		}
		for (int j = 0; j < 4; j++)
			w[i][j] = w[i - nk][j] ^ t[j];
	}
	for (int r = 1; r <= nr; r++)
		print_round(w, r, false);
	for (int r = 1; r < nr; r++)
		print_round(w, r, true);
	return 0;
}
