/* SPDX-License-Identifier: MIT */
/*
 * The MKEY transform: signature domains + AES-XTS, TX and RX.
 *
 * What a ConnectX NIC does to the bytes of a transfer through a signature and/or crypto MKEY
 * (reference §2, §4.4; seeds 000 and 001; decisions in docs/offload.md):
 *
 *   TX: memory bytes -> wire bytes.  RX: wire bytes -> memory bytes.
 *   The input domain is memory on TX and wire on RX; its fields are checked (check_mask) and
 *   stripped or copied; the output domain's fields are generated (or copied, copy mask).
 *   Crypto: signature_before_crypto_on_tx encrypts the wire-domain stream, ..._after_... the
 *   memory-domain stream; direction = encrypt iff (TX == encrypt_on_tx).
 *
 * Usage:
 *   struct dp_transform_cfg cfg; dp_transform_cfg_init(&cfg); ... fill in ...
 *   dp_transform_create(&cfg, key, key_len, &t, &err);     // validates, refuses naming the field
 *   dp_transform_out_len(t, DP_TX, in_len, &out_len, &err);  // validates the input length
 *   dp_transform_run(t, DP_TX, in, in_len, out, out_cap, &out_len, &xfer_err, &err);
 *   dp_transform_transfer(t, DP_TX, mem, mem_len, wire, wire_len, &xfer_err, &err);  // sized in wire bytes
 *   dp_transform_check(t, &rec);                               // mkey-check: read and clear
 *
 * A transform is not thread-safe: one owner (the worker that owns the MKEY) at a time.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dataplane/offload/dp_error.h"
#include "dataplane/offload/sig.h"

enum dp_dir {
	DP_TX = 0,      /* memory -> wire */
	DP_RX = 1,      /* wire -> memory */
};

enum dp_crypto_order {                       /* enum mlx5dv_signature_crypto_order */
	DP_SIG_AFTER_CRYPTO_ON_TX  = 0,      /* crypto applies to the memory-domain stream */
	DP_SIG_BEFORE_CRYPTO_ON_TX = 1,      /* crypto applies to the wire-domain stream */
};

enum dp_crypto_standard {
	DP_CRYPTO_AES_XTS = 0,
};

struct dp_crypto_cfg {
	bool enabled;                        /* false: no crypto */
	enum dp_crypto_standard standard;
	bool encrypt_on_tx;                  /* true: memory plaintext, wire ciphertext */
	enum dp_crypto_order order;
	uint32_t data_unit_size;             /* bytes: 512, 520, 4048, 4096, 4160 */
	uint8_t initial_tweak[16];           /* 128-bit little-endian integer, as stored */
};

struct dp_transform_cfg {
	struct dp_sig_domain mem;            /* sig_type DP_SIG_NONE: no signature in memory */
	struct dp_sig_domain wire;           /* sig_type DP_SIG_NONE: no signature on the wire */
	uint8_t check_mask;                  /* default 0xFF */
	bool copy_mask_set;                  /* false: automatic copy rules (§2.7) */
	uint8_t copy_mask;
	struct dp_crypto_cfg crypto;
};

struct dp_transform;

/* Defaults: both domains absent, check_mask 0xFF, automatic copy, no crypto. */
void dp_transform_cfg_init(struct dp_transform_cfg *cfg);

/* Validate a configuration (everything except the key).  0 or -EINVAL with err->field set. */
int dp_transform_cfg_validate(const struct dp_transform_cfg *cfg, struct dp_error *err);

/* Validate cfg and the key (key1||key2, 32 or 64 bytes; required iff crypto is enabled) and
 * build the transform.  The key is copied into libgcrypt secure memory; wipe your copy. */
int dp_transform_create(const struct dp_transform_cfg *cfg, const uint8_t *key, size_t key_len,
			struct dp_transform **out, struct dp_error *err);
void dp_transform_destroy(struct dp_transform *t);

const struct dp_transform_cfg *dp_transform_get_cfg(const struct dp_transform *t);
/* The copy mask in effect (explicit, or computed by §2.7; 0 when nothing is copied). */
uint8_t dp_transform_copy_mask(const struct dp_transform *t);

/* Output length for an input of in_len bytes, or -EINVAL (field "input") when the input does not
 * map (reference §2.1 "partial trailing block": it ends inside a field, or a memory input ends
 * between a block's data and its field) or the crypted stream breaks the job-size rule.  RX maps
 * wire bytes to the memory bytes of that transfer; TX gives the wire bytes with the field of
 * every complete block (a transfer may leave the last one out: dp_transform_transfer()). */
int dp_transform_out_len(const struct dp_transform *t, enum dp_dir dir, size_t in_len,
			 size_t *out_len, struct dp_error *err);

/* Run one transfer.  Returns 0 when the bytes were delivered (also when a signature error was
 * found: it is reported in *xfer_err if not NULL, and kept as the mkey-check record), or a
 * negative errno (-EINVAL bad input length, -ENOSPC out_cap too small) with nothing valid in
 * out.  in and out must not overlap. */
int dp_transform_run(struct dp_transform *t, enum dp_dir dir, const void *in, size_t in_len,
		     void *out, size_t out_cap, size_t *out_len, struct dp_sig_err *xfer_err,
		     struct dp_error *err);

/* The memory offset of a transfer that starts wire_off wire bytes into the MKEY, or -EINVAL when
 * that is not whole blocks of each domain with a signature (field "offset"), or does not map. */
int dp_transform_offset(const struct dp_transform *t, size_t wire_off, size_t *mem_off, struct dp_error *err);

/* One transfer through an MKEY, sized in wire bytes as the hardware counts it (reference §2.1):
 * TX turns in_len memory bytes into out_len wire bytes, RX out_len memory bytes from in_len wire
 * bytes.  The memory length must be dp_transform_out_len(RX) of the wire length; a complete last
 * block whose wire field does not fit in the wire length is sent without it (TX).  As
 * dp_transform_run() otherwise; -EINVAL when the lengths do not map. */
int dp_transform_transfer(struct dp_transform *t, enum dp_dir dir, const void *in, size_t in_len,
			  void *out, size_t out_len, struct dp_sig_err *xfer_err, struct dp_error *err);

/* mlx5dv_mkey_check: the first signature error recorded since the last check (type NONE and
 * zeros if none), then cleared.  While a record is pending, later errors do not replace it. */
void dp_transform_check(struct dp_transform *t, struct dp_sig_err *rec);
