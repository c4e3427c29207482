/* SPDX-License-Identifier: MIT */
/*
 * Base64 (RFC 4648 §4, standard alphabet, '=' padding), for carrying bytes in
 * JSON strings: json-c has no public encoder.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Characters base64_encode writes for n bytes, without the NUL. */
size_t base64_encoded_size(size_t n);
/* Writes the text and a NUL into out, which holds base64_encoded_size(n) + 1 bytes. */
void base64_encode(const uint8_t *in, size_t n, char *out);
/* Most bytes base64_decode can give for len characters. */
size_t base64_decoded_max(size_t len);
/*
 * Decodes len characters into out (base64_decoded_max(len) bytes).  Refuses
 * (-EINVAL) a length that is not a multiple of 4, characters outside the
 * alphabet, padding anywhere but at the end, and non-zero bits after the last
 * byte, so every byte string has exactly one accepted encoding.
 */
int base64_decode(const char *in, size_t len, uint8_t *out, size_t *out_len);
