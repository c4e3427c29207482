/* SPDX-License-Identifier: MIT */
/* Block signature fields: layout, generation, checking (see sig.h) */
#include <stdio.h>
#include <string.h>

#include "dataplane/offload/crc.h"
#include "dataplane/offload/sig.h"

const char *dp_sig_err_type_name(enum dp_sig_err_type t)
{
	switch (t) {
	case DP_SIG_ERR_GUARD:  return "guard";
	case DP_SIG_ERR_APPTAG: return "apptag";
	case DP_SIG_ERR_REFTAG: return "reftag";
	case DP_SIG_ERR_NONE:   break;
	}
	return "none";
}

unsigned dp_sig_field_size(const struct dp_sig_domain *d)
{
	if (!dp_sig_present(d))
		return 0;
	if (d->sig_type == DP_SIG_T10DIF)
		return 8;
	return d->crc.type == DP_CRC_CRC64_XP10 ? 8 : 4;
}

uint8_t dp_sig_field_bits(const struct dp_sig_domain *d)
{
	return dp_sig_field_size(d) == 4 ? 0xf0 : dp_sig_present(d) ? 0xff : 0;
}

uint8_t dp_sig_guard_bits(const struct dp_sig_domain *d)
{
	if (!dp_sig_present(d))
		return 0;
	if (d->sig_type == DP_SIG_T10DIF)
		return DP_SIG_MASK_T10DIF_GUARD;
	return dp_sig_field_bits(d);
}

bool dp_block_size_valid(uint32_t b)
{
	return b == 512 || b == 520 || b == 4048 || b == 4096 || b == 4160;
}

int dp_sig_domain_validate(const struct dp_sig_domain *d, const char *name, struct dp_error *err)
{
	char f[48];

	if (d->sig_type == DP_SIG_NONE)
		return 0;
	if (d->sig_type != DP_SIG_T10DIF && d->sig_type != DP_SIG_CRC) {
		snprintf(f, sizeof(f), "%s.sig_type", name);
		return dp_error_set(err, EINVAL, f, "unknown signature type %d; allowed: \"t10dif\", \"crc\"",
				    (int)d->sig_type);
	}
	if (!dp_block_size_valid(d->block_size)) {
		snprintf(f, sizeof(f), "%s.block_size", name);
		return dp_error_set(err, EINVAL, f, "block size %u not supported; allowed: 512, 520, 4048, 4096, 4160",
				    d->block_size);
	}
	if (d->sig_type == DP_SIG_T10DIF) {
		const struct dp_t10dif *t = &d->t10dif;

		if (t->bg_type != DP_T10DIF_BG_CRC && t->bg_type != DP_T10DIF_BG_CSUM) {
			snprintf(f, sizeof(f), "%s.t10dif.bg_type", name);
			return dp_error_set(err, EINVAL, f, "unknown guard type %d; allowed: \"crc\", \"csum\"",
					    (int)t->bg_type);
		}
		if (t->bg != 0 && t->bg != 0xffff) {
			snprintf(f, sizeof(f), "%s.t10dif.bg", name);
			return dp_error_set(err, EINVAL, f, "guard seed %u not supported; allowed: 0, 65535", t->bg);
		}
		if (t->flags & ~DP_T10DIF_FLAGS_ALL) {
			snprintf(f, sizeof(f), "%s.t10dif.flags", name);
			return dp_error_set(err, EINVAL, f,
					    "unknown flag bits 0x%x; allowed: \"ref_remap\", \"app_escape\", \"app_ref_escape\"",
					    t->flags & ~DP_T10DIF_FLAGS_ALL);
		}
		return 0;
	}
	switch (d->crc.type) {
	case DP_CRC_CRC32:
	case DP_CRC_CRC32C:
		if (d->crc.seed != 0 && d->crc.seed != 0xffffffffull) {
			snprintf(f, sizeof(f), "%s.crc.seed", name);
			return dp_error_set(err, EINVAL, f,
					    "seed 0x%llx not supported for a 32-bit CRC; allowed: 0, 4294967295",
					    (unsigned long long)d->crc.seed);
		}
		return 0;
	case DP_CRC_CRC64_XP10:
		if (d->crc.seed != 0 && d->crc.seed != ~0ull) {
			snprintf(f, sizeof(f), "%s.crc.seed", name);
			return dp_error_set(err, EINVAL, f,
					    "seed 0x%llx not supported for crc64_xp10; allowed: 0, 18446744073709551615",
					    (unsigned long long)d->crc.seed);
		}
		return 0;
	}
	snprintf(f, sizeof(f), "%s.crc.type", name);
	return dp_error_set(err, EINVAL, f, "unknown CRC type %d; allowed: \"crc32\", \"crc32c\", \"crc64_xp10\"",
			    (int)d->crc.type);
}

bool dp_sig_same_structure(const struct dp_sig_domain *a, const struct dp_sig_domain *b)
{
	if (!dp_sig_present(a) || !dp_sig_present(b))
		return false;
	if (a->sig_type != b->sig_type || a->block_size != b->block_size)
		return false;
	return a->sig_type != DP_SIG_CRC || a->crc.type == b->crc.type;
}

uint8_t dp_sig_auto_copy_mask(const struct dp_sig_domain *a, const struct dp_sig_domain *b)
{
	uint8_t m = 0;

	if (!dp_sig_same_structure(a, b))
		return 0;
	if (a->sig_type == DP_SIG_CRC)
		return dp_sig_field_bits(a);    /* whole field, even if the seeds differ */
	if (a->t10dif.bg_type == b->t10dif.bg_type && a->t10dif.bg == b->t10dif.bg)
		m |= DP_SIG_MASK_T10DIF_GUARD;
	if (a->t10dif.app_tag == b->t10dif.app_tag)
		m |= DP_SIG_MASK_T10DIF_APPTAG;
	if (a->t10dif.ref_tag == b->t10dif.ref_tag)   /* REF_REMAP differences ignored */
		m |= DP_SIG_MASK_T10DIF_REFTAG;
	return m;
}

bool dp_sig_same_guard(const struct dp_sig_domain *a, const struct dp_sig_domain *b)
{
	if (!dp_sig_present(a) || !dp_sig_present(b) || a->sig_type != b->sig_type)
		return false;
	if (a->sig_type == DP_SIG_T10DIF)
		return a->t10dif.bg_type == b->t10dif.bg_type && a->t10dif.bg == b->t10dif.bg;
	return a->crc.type == b->crc.type && a->crc.seed == b->crc.seed;
}

uint64_t dp_sig_guard_begin(const struct dp_sig_domain *d)
{
	if (d->sig_type == DP_SIG_T10DIF)
		return d->t10dif.bg_type == DP_T10DIF_BG_CRC ? d->t10dif.bg : 0;
	if (d->crc.type == DP_CRC_CRC32)
		return (uint32_t)~d->crc.seed;          /* crc32_ieee chains the complemented value */
	return d->crc.seed;
}

uint64_t dp_sig_guard_update(const struct dp_sig_domain *d, uint64_t st, const void *data, size_t len)
{
	if (d->sig_type == DP_SIG_T10DIF) {
		if (d->t10dif.bg_type == DP_T10DIF_BG_CRC)
			return dp_crc16_t10dif((uint16_t)st, data, len);
		return dp_ip_csum_update((uint32_t)st, data, len);
	}
	switch (d->crc.type) {
	case DP_CRC_CRC32:  return dp_crc32_fcph_update((uint32_t)st, data, len);
	case DP_CRC_CRC32C: return dp_crc32c_update((uint32_t)st, data, len);
	default:            return dp_crc64_xp10_update(st, data, len);
	}
}

uint64_t dp_sig_guard_end(const struct dp_sig_domain *d, uint64_t st)
{
	if (d->sig_type == DP_SIG_T10DIF) {
		if (d->t10dif.bg_type == DP_T10DIF_BG_CRC)
			return st;
		return dp_ip_csum_final(d->t10dif.bg, (uint32_t)st);
	}
	switch (d->crc.type) {
	case DP_CRC_CRC32:  return (uint32_t)st;
	case DP_CRC_CRC32C: return (uint32_t)~st;
	default:            return ~st;
	}
}

uint64_t dp_sig_guard(const struct dp_sig_domain *d, const void *data, size_t len)
{
	if (d->sig_type == DP_SIG_T10DIF) {
		if (d->t10dif.bg_type == DP_T10DIF_BG_CRC)
			return dp_crc16_t10dif(d->t10dif.bg, data, len);
		return dp_ip_csum(d->t10dif.bg, data, len);
	}
	switch (d->crc.type) {
	case DP_CRC_CRC32:  return dp_crc32_fcph((uint32_t)d->crc.seed, data, len);
	case DP_CRC_CRC32C: return dp_crc32c((uint32_t)d->crc.seed, data, len);
	default:            return dp_crc64_xp10(d->crc.seed, data, len);
	}
}

uint32_t dp_sig_ref_tag(const struct dp_sig_domain *d, uint64_t k)
{
	if (d->t10dif.flags & DP_T10DIF_FLAG_REF_REMAP)
		return (uint32_t)(d->t10dif.ref_tag + k);
	return d->t10dif.ref_tag;
}

static void put_be(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

static void put_le(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_be(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v = (v << 8) | p[i];
	return v;
}

static uint64_t get_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = n; i-- > 0;)
		v = (v << 8) | p[i];
	return v;
}

void dp_sig_field_build(const struct dp_sig_domain *d, uint64_t guard, uint64_t k, uint8_t *f)
{
	if (d->sig_type == DP_SIG_T10DIF) {
		put_be(f, guard, 2);
		put_be(f + 2, d->t10dif.app_tag, 2);
		put_be(f + 4, dp_sig_ref_tag(d, k), 4);
		return;
	}
	switch (d->crc.type) {
	case DP_CRC_CRC32:  put_be(f, guard, 4); break;       /* decision: CRC32 big-endian */
	case DP_CRC_CRC32C: put_le(f, guard, 4); break;       /* decision: CRC32C little-endian */
	default:            put_le(f, guard, 8); break;       /* decision: CRC64_XP10 little-endian */
	}
}

uint64_t dp_sig_field_guard(const struct dp_sig_domain *d, const uint8_t *f)
{
	if (d->sig_type == DP_SIG_T10DIF)
		return get_be(f, 2);
	switch (d->crc.type) {
	case DP_CRC_CRC32:  return get_be(f, 4);
	case DP_CRC_CRC32C: return get_le(f, 4);
	default:            return get_le(f, 8);
	}
}

bool dp_sig_escaped(const struct dp_sig_domain *d, const uint8_t *f)
{
	uint16_t app;

	if (d->sig_type != DP_SIG_T10DIF)
		return false;
	app = (uint16_t)get_be(f + 2, 2);
	if (d->t10dif.flags & DP_T10DIF_FLAG_APP_REF_ESCAPE)     /* wins over APP_ESCAPE */
		return app == 0xffff && get_be(f + 4, 4) == 0xffffffffu;
	if (d->t10dif.flags & DP_T10DIF_FLAG_APP_ESCAPE)
		return app == 0xffff;
	return false;
}

/* Any byte i with mask bit 7-i set, first..first+n-1, differs. */
static bool masked_diff(const uint8_t *a, const uint8_t *b, unsigned first, unsigned n, uint8_t mask)
{
	for (unsigned i = first; i < first + n; i++)
		if ((mask & (0x80u >> i)) && a[i] != b[i])
			return true;
	return false;
}

enum dp_sig_err_type dp_sig_field_check(const struct dp_sig_domain *d, uint8_t mask,
					const uint8_t *f, uint64_t guard, uint64_t k,
					uint64_t *expected, uint64_t *actual)
{
	uint8_t want[8];
	unsigned glen;

	mask &= dp_sig_field_bits(d);
	if (!mask)
		return DP_SIG_ERR_NONE;
	dp_sig_field_build(d, guard, k, want);
	glen = d->sig_type == DP_SIG_T10DIF ? 2 : dp_sig_field_size(d);
	if (masked_diff(want, f, 0, glen, mask)) {
		*expected = dp_sig_field_guard(d, f);
		*actual = guard;
		return DP_SIG_ERR_GUARD;
	}
	if (d->sig_type != DP_SIG_T10DIF)
		return DP_SIG_ERR_NONE;
	if (masked_diff(want, f, 2, 2, mask)) {
		*expected = d->t10dif.app_tag;
		*actual = get_be(f + 2, 2);
		return DP_SIG_ERR_APPTAG;
	}
	if (masked_diff(want, f, 4, 4, mask)) {
		*expected = dp_sig_ref_tag(d, k);
		*actual = get_be(f + 4, 4);
		return DP_SIG_ERR_REFTAG;
	}
	return DP_SIG_ERR_NONE;
}
