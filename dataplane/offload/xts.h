/* SPDX-License-Identifier: MIT */
/*
 * AES-XTS-128/256 per data unit through libgcrypt (IEEE 1619).
 *
 * A job (a byte stream) is cut into data units of data_unit_size bytes; unit j is one XTS
 * data unit whose tweak is initial_tweak + j, the tweak being a 128-bit little-endian integer
 * (mlx5dv initial_tweak, IEEE 1619 data-unit sequence number).  A unit that is not a multiple
 * of 16 bytes goes through ciphertext stealing.  Units shorter than 16 bytes do not exist in
 * XTS and are refused.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dataplane/offload/dp_error.h"

struct dp_xts;

/* Initialise libgcrypt (version check, secure memory) once per process.  Safe to call from
 * several threads and harmless if the application already initialised libgcrypt. */
int dp_crypto_global_init(struct dp_error *err);

/* key = key1 || key2 (32 bytes: AES-128-XTS, 64 bytes: AES-256-XTS).  Refused (-EINVAL,
 * field "key"): other lengths, key1 == key2.  The key is copied into libgcrypt secure memory;
 * the caller wipes its own copy. */
int dp_xts_create(const uint8_t *key, size_t key_len, struct dp_xts **out, struct dp_error *err);
void dp_xts_destroy(struct dp_xts *x);
/* 128 or 256 */
unsigned dp_xts_key_bits(const struct dp_xts *x);

/* Encrypt (or decrypt) len bytes, starting with data unit first_unit of a job whose first unit
 * has tweak initial_tweak; unit j of the job uses initial_tweak + j.  in may equal out (in
 * place).  len need not be a multiple of dus: the last unit may be short, but at least 16
 * bytes (-EINVAL, field "input" otherwise). */
int dp_xts_crypt(struct dp_xts *x, bool encrypt, const uint8_t initial_tweak[16], uint64_t first_unit,
		 uint32_t dus, void *out, const void *in, size_t len, struct dp_error *err);

/* n data units of len bytes each (16 <= len, not checked): unit i from in + i * istride to
 * out + i * ostride (in place when in == out and the strides are equal), tweaks tweak,
 * tweak + 1, ...; tweak is left at tweak + n (at the failing unit on an error).  The one
 * loop over units: dp_xts_crypt and the engine's batches (one call per batch) go through it. */
int dp_xts_crypt_units(struct dp_xts *x, bool encrypt, uint8_t tweak[16], uint8_t *out, size_t ostride,
		       const uint8_t *in, size_t istride, size_t len, size_t n, struct dp_error *err);

/* tweak += n, as a 128-bit little-endian integer. */
void dp_tweak_add(uint8_t tweak[16], uint64_t n);

/* The mlx5dv job-size rule (seed 001): job % dus == 0, or job % 16 == 0 and
 * job % dus <= dus - 16; additionally a short last unit must be >= 16 bytes. */
bool dp_xts_job_size_ok(size_t job, uint32_t dus);
