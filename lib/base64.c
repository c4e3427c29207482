/* SPDX-License-Identifier: MIT */
#include "lib/base64.h"

#include <errno.h>
#include <stdbool.h>

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t base64_encoded_size(size_t n)
{
	return (n + 2) / 3 * 4;
}

void base64_encode(const uint8_t *in, size_t n, char *out)
{
	size_t i = 0;

	for (; i + 3 <= n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];

		*out++ = alphabet[v >> 18];
		*out++ = alphabet[(v >> 12) & 63];
		*out++ = alphabet[(v >> 6) & 63];
		*out++ = alphabet[v & 63];
	}
	if (n - i == 1) {
		uint32_t v = (uint32_t)in[i] << 16;

		*out++ = alphabet[v >> 18];
		*out++ = alphabet[(v >> 12) & 63];
		*out++ = '=';
		*out++ = '=';
	} else if (n - i == 2) {
		uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8;

		*out++ = alphabet[v >> 18];
		*out++ = alphabet[(v >> 12) & 63];
		*out++ = alphabet[(v >> 6) & 63];
		*out++ = '=';
	}
	*out = '\0';
}

size_t base64_decoded_max(size_t len)
{
	return len / 4 * 3;
}

static int sextet(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

int base64_decode(const char *in, size_t len, uint8_t *out, size_t *out_len)
{
	size_t n = 0;

	if (len % 4)
		return -EINVAL;
	for (size_t i = 0; i < len; i += 4) {
		bool last = i + 4 == len;
		unsigned pad = last ? (in[i + 3] == '=') + (in[i + 2] == '=' && in[i + 3] == '=') : 0;
		uint32_t v = 0;

		for (unsigned k = 0; k < 4 - pad; k++) {
			int s = sextet(in[i + k]);

			if (s < 0)
				return -EINVAL;
			v = v << 6 | (uint32_t)s;
		}
		v <<= 6 * pad;
		/* The bits a padded group leaves over must be zero (RFC 4648 §3.5). */
		if ((pad == 1 && (v & 0xff)) || (pad == 2 && (v & 0xffff)))
			return -EINVAL;
		out[n++] = v >> 16;
		if (pad < 2)
			out[n++] = (v >> 8) & 0xff;
		if (pad < 1)
			out[n++] = v & 0xff;
	}
	*out_len = n;
	return 0;
}
