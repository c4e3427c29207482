/* SPDX-License-Identifier: MIT */
/*
 * AES Key Wrap (RFC 3394, NIST SP 800-38F "KW") with the default IV
 * A6A6A6A6A6A6A6A6, as mlx5 devices take wrapped DEKs and login credentials
 * (reference mlx5_sig_crypto.md 4.1, 4.3).  libgcrypt's AESWRAP mode does the work.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Wrapped data is this much longer than what it wraps (the integrity block). */
#define KEYWRAP_OVERHEAD 8

/*
 * Unwraps in (in_len bytes: a multiple of 8, at least 24) with kek (16, 24 or
 * 32 bytes) into out (in_len - 8 bytes, the caller's secure memory).  Returns
 * 0; -EINVAL for lengths it cannot take; -EBADMSG when the integrity check
 * fails (another KEK, or damaged data), with out wiped.
 */
int keywrap_unwrap(const uint8_t *kek, size_t kek_len, const uint8_t *in, size_t in_len,
		   uint8_t *out);
