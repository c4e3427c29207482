/* SPDX-License-Identifier: MIT */
/* Where `rdmactl offload` cuts a transfer, and what each piece starts from (offload_chunks.h). */
#include "cmd/offload_chunks.h"
#include "dataplane/offload/xts.h"

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t r = a % b;

		a = b;
		b = r;
	}
	return a;
}

static uint64_t lcm(uint64_t a, uint64_t b)
{
	return a / gcd(a, b) * b;
}

/* Bytes of a domain's stream that carry data bytes of whole blocks. */
static uint64_t stream_bytes(const struct dp_sig_domain *d, uint64_t data)
{
	if (!dp_sig_present(d))
		return data;
	return data / d->block_size * (d->block_size + dp_sig_field_size(d));
}

static const struct dp_sig_domain *crypted_domain(const struct dp_transform_cfg *cfg)
{
	return cfg->crypto.order == DP_SIG_BEFORE_CRYPTO_ON_TX ? &cfg->wire : &cfg->mem;
}

/* The fewest data bytes after which every block and data unit ends. */
static uint64_t cut_unit(const struct dp_transform_cfg *cfg)
{
	uint64_t u = 1;

	if (dp_sig_present(&cfg->mem))
		u = lcm(u, cfg->mem.block_size);
	if (dp_sig_present(&cfg->wire))
		u = lcm(u, cfg->wire.block_size);
	if (cfg->crypto.enabled) {
		const struct dp_sig_domain *d = crypted_domain(cfg);
		uint64_t dus = cfg->crypto.data_unit_size;

		if (dp_sig_present(d)) {
			/* m blocks are m * (b + f) stream bytes: whole units when dus divides that. */
			uint64_t step = d->block_size + dp_sig_field_size(d);

			u = lcm(u, d->block_size * (dus / gcd(step, dus)));
		} else {
			u = lcm(u, dus);
		}
	}
	return u;
}

void offload_chunks_init(struct offload_chunks *c, const struct dp_transform_cfg *cfg,
			 uint8_t copy_mask, enum dp_dir dir, size_t target)
{
	const struct dp_sig_domain *in = dir == DP_TX ? &cfg->mem : &cfg->wire;
	uint64_t unit = cut_unit(cfg), in_unit = stream_bytes(in, unit), k;

	c->cfg = *cfg;
	c->dir = dir;
	c->done = 0;
	/*
	 * Shifted ref tags may make the domains' tags equal, or no longer equal,
	 * which the automatic copy mask looks at: the whole transfer's is kept.
	 */
	if (dp_sig_present(&cfg->mem) && dp_sig_present(&cfg->wire) &&
	    dp_sig_same_structure(&cfg->mem, &cfg->wire)) {
		c->cfg.copy_mask_set = true;
		c->cfg.copy_mask = copy_mask;
	}
	k = target / in_unit ? target / in_unit : 1;
	c->in_bytes = (size_t)(k * in_unit);
	c->data_bytes = k * unit;
}

static void shift_ref_tag(struct dp_sig_domain *d, uint64_t data)
{
	if (d->sig_type == DP_SIG_T10DIF && (d->t10dif.flags & DP_T10DIF_FLAG_REF_REMAP))
		d->t10dif.ref_tag = (uint32_t)(d->t10dif.ref_tag + data / d->block_size);
}

void offload_chunks_next_cfg(const struct offload_chunks *c, struct dp_transform_cfg *cfg)
{
	uint64_t data = c->done * c->data_bytes;

	*cfg = c->cfg;
	shift_ref_tag(&cfg->mem, data);
	shift_ref_tag(&cfg->wire, data);
	if (cfg->crypto.enabled)
		dp_tweak_add(cfg->crypto.initial_tweak,
			     stream_bytes(crypted_domain(cfg), data) / cfg->crypto.data_unit_size);
}

uint64_t offload_chunks_in_offset(const struct offload_chunks *c)
{
	return c->done * c->in_bytes;
}
