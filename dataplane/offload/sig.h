/* SPDX-License-Identifier: MIT */
/*
 * Block signature domains (reference §1.5, §2.1-2.7).
 *
 * A domain is either absent (DP_SIG_NONE) or a sequence of block_size data bytes each followed by
 * its protection-information field: T10-DIF (8 bytes: guard BE16, app tag BE16, ref tag BE32),
 * CRC32 (4 bytes, big-endian), CRC32C (4 bytes, little-endian), CRC64_XP10 (8 bytes,
 * little-endian).  Masks: bit 7-i of a check/copy mask covers byte i of the field as stored.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dataplane/offload/dp_error.h"

enum dp_sig_type {
	DP_SIG_NONE   = 0,      /* the domain has no signature */
	DP_SIG_T10DIF = 1,
	DP_SIG_CRC    = 2,
};

enum dp_t10dif_bg_type {
	DP_T10DIF_BG_CRC  = 0,  /* CRC-16/T10-DIF guard */
	DP_T10DIF_BG_CSUM = 1,  /* IP checksum guard */
};

enum dp_crc_type {
	DP_CRC_CRC32      = 0,  /* FC-PH */
	DP_CRC_CRC32C     = 1,
	DP_CRC_CRC64_XP10 = 2,
};

enum {
	DP_T10DIF_FLAG_REF_REMAP      = 1 << 0,
	DP_T10DIF_FLAG_APP_ESCAPE     = 1 << 1,
	DP_T10DIF_FLAG_APP_REF_ESCAPE = 1 << 2,
	DP_T10DIF_FLAGS_ALL           = 0x7,
};

/* Common masks (mlx5dv_sig_mask). */
enum {
	DP_SIG_MASK_T10DIF_GUARD  = 0xc0,
	DP_SIG_MASK_T10DIF_APPTAG = 0x30,
	DP_SIG_MASK_T10DIF_REFTAG = 0x0f,
	DP_SIG_MASK_CRC32         = 0xf0,
	DP_SIG_MASK_CRC32C        = 0xf0,
	DP_SIG_MASK_CRC64_XP10    = 0xff,
};

struct dp_t10dif {
	enum dp_t10dif_bg_type bg_type;
	uint16_t bg;            /* guard seed: 0 or 0xFFFF */
	uint16_t app_tag;
	uint32_t ref_tag;       /* tag of the first block of a transfer */
	uint16_t flags;         /* DP_T10DIF_FLAG_* */
};

struct dp_sig_crc {
	enum dp_crc_type type;
	uint64_t seed;          /* 0 or the all-ones value of the CRC's width */
};

struct dp_sig_domain {
	enum dp_sig_type sig_type;
	uint32_t block_size;    /* data bytes per block: 512, 520, 4048, 4096 or 4160 */
	struct dp_t10dif t10dif;        /* when sig_type == DP_SIG_T10DIF */
	struct dp_sig_crc crc;          /* when sig_type == DP_SIG_CRC */
};

/* mkey-check error types, numbered as enum mlx5dv_mkey_err_type. */
enum dp_sig_err_type {
	DP_SIG_ERR_NONE   = 0,
	DP_SIG_ERR_GUARD  = 1,
	DP_SIG_ERR_REFTAG = 2,
	DP_SIG_ERR_APPTAG = 3,
};

/* The mkey-check record.  GUARD: expected = value found in the field, actual = value computed
 * from the data.  APPTAG/REFTAG: expected = configured value (ref tag + block index with
 * REF_REMAP), actual = value found.  offset = block index * (block size + field size) in the
 * input domain.  Whole field values even with a partial check_mask.  No error: all zero. */
struct dp_sig_err {
	enum dp_sig_err_type type;
	uint64_t expected;
	uint64_t actual;
	uint64_t offset;
};

const char *dp_sig_err_type_name(enum dp_sig_err_type t);   /* "none" "guard" "reftag" "apptag" */

static inline bool dp_sig_present(const struct dp_sig_domain *d)
{
	return d && d->sig_type != DP_SIG_NONE;
}

/* Field size in bytes (0 for an absent domain). */
unsigned dp_sig_field_size(const struct dp_sig_domain *d);
/* Mask bits that mean something for this field type (T10-DIF 0xFF, CRC32/C 0xF0, CRC64 0xFF). */
uint8_t dp_sig_field_bits(const struct dp_sig_domain *d);
/* Mask bits of the guard (CRC) bytes: T10-DIF 0xC0, CRC32/C 0xF0, CRC64 0xFF. */
uint8_t dp_sig_guard_bits(const struct dp_sig_domain *d);

bool dp_block_size_valid(uint32_t bytes);

/* Validate one domain; name is its JSON name ("mem" or "wire") used as the field prefix. */
int dp_sig_domain_validate(const struct dp_sig_domain *d, const char *name, struct dp_error *err);

/* Same block structure (§2.7): same sig_type, block_size and, for CRC, CRC type. */
bool dp_sig_same_structure(const struct dp_sig_domain *a, const struct dp_sig_domain *b);
/* The automatically computed copy mask (§2.7); 0 unless both present and same structure. */
uint8_t dp_sig_auto_copy_mask(const struct dp_sig_domain *a, const struct dp_sig_domain *b);
/* Both domains compute their guard with the same algorithm and seed. */
bool dp_sig_same_guard(const struct dp_sig_domain *a, const struct dp_sig_domain *b);

/* Guard (the CRC or checksum value) of a block's data, in one piece or several. */
uint64_t dp_sig_guard(const struct dp_sig_domain *d, const void *data, size_t len);
uint64_t dp_sig_guard_begin(const struct dp_sig_domain *d);
uint64_t dp_sig_guard_update(const struct dp_sig_domain *d, uint64_t st, const void *data, size_t len);
uint64_t dp_sig_guard_end(const struct dp_sig_domain *d, uint64_t st);

/* Expected tags of block k. */
uint32_t dp_sig_ref_tag(const struct dp_sig_domain *d, uint64_t k);

/* Write the field for block k with the given guard value, as stored. */
void dp_sig_field_build(const struct dp_sig_domain *d, uint64_t guard, uint64_t k, uint8_t *field);
/* Decode the guard value stored in a field. */
uint64_t dp_sig_field_guard(const struct dp_sig_domain *d, const uint8_t *field);

/* True if a T10-DIF escape applies to this stored field (checks of the block are skipped). */
bool dp_sig_escaped(const struct dp_sig_domain *d, const uint8_t *field);

/* Check a stored field of block k whose data has guard value `guard` (only consulted when the
 * mask covers guard bytes).  Returns the first failing check (GUARD, APPTAG, REFTAG order) and
 * fills expected/actual.  Escapes are not evaluated here. */
enum dp_sig_err_type dp_sig_field_check(const struct dp_sig_domain *d, uint8_t check_mask,
					const uint8_t *field, uint64_t guard, uint64_t k,
					uint64_t *expected, uint64_t *actual);
