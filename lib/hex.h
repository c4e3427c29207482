/* SPDX-License-Identifier: MIT */
/* Short byte strings (keytags, opaque values, check values) as hexadecimal text. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Writes 2n lower-case digits and a NUL into out (2n + 1 bytes). */
void hex_encode(const uint8_t *in, size_t n, char *out);
/* Exactly 2n hex digits (either case) into n bytes; -EINVAL for anything else. */
int hex_decode(const char *s, uint8_t *out, size_t n);
