/* SPDX-License-Identifier: MIT */
/*
 * The block engine of the MKEY transform (see transform.h, docs/offload.md).
 *
 * One pass over the input, one input-domain block at a time:
 *   - input crypto (the crypted stream is the input one): data units are decrypted/encrypted
 *     into a small scratch window (16 KiB of units) just before their blocks are processed;
 *   - per block: the data is copied to the output while the guard is computed (ISA-L's stitched
 *     CRC16+copy for T10-DIF CRC guards; one computation when both domains use the same guard),
 *     the input field is checked, the output field generated / copied;
 *   - output crypto (the crypted stream is the output one): every data unit completed by the
 *     block just written is encrypted/decrypted in place while it is still in cache.
 */
#include <string.h>

#include "dataplane/offload/crc.h"
#include "dataplane/offload/kern.h"
#include "dataplane/offload/transform-internal.h"
#include "dataplane/offload/xts.h"

/* Copy n bytes and return the guard of domain d over them: in one pass with ISA-L's stitched
 * CRC16+copy and with the CRC64 folding loop that stores what it loads; otherwise the CRC
 * (ISA-L) then memcpy while the block is in L1 (measured faster than a stitched CRC32C whose
 * 16-byte stores land misaligned behind 4-byte fields). */
static inline uint64_t guard_copy(const struct dp_sig_domain *d, uint8_t *dst, const uint8_t *src, size_t n)
{
	if (d->sig_type == DP_SIG_T10DIF) {
		if (d->t10dif.bg_type == DP_T10DIF_BG_CRC)
			return dp_crc16_t10dif_copy(d->t10dif.bg, dst, src, n);
	} else if (d->crc.type == DP_CRC_CRC64_XP10) {
		return dp_crc64_xp10_copy(d->crc.seed, dst, src, n);
	}
	memcpy(dst, src, n);
	return dp_sig_guard(d, src, n);
}

/* The field of block k of domain d as stored, loaded as a little-endian integer (byte i of
 * the field = bits 8i..8i+7), so that a whole field is checked or built with one operation. */
static inline uint64_t field_u64(const struct dp_sig_domain *d, uint64_t guard, uint64_t k)
{
	if (d->sig_type == DP_SIG_T10DIF)
		return (uint64_t)__builtin_bswap16((uint16_t)guard) |
		       (uint64_t)__builtin_bswap16(d->t10dif.app_tag) << 16 |
		       (uint64_t)__builtin_bswap32(dp_sig_ref_tag(d, k)) << 32;
	if (d->crc.type == DP_CRC_CRC32)
		return __builtin_bswap32((uint32_t)guard);      /* big-endian */
	return guard;                                           /* CRC32C, CRC64: little-endian */
}

static inline uint64_t load_field(const uint8_t *f, unsigned n)
{
	uint64_t v;
	uint32_t w;

	if (n == 8) {
		memcpy(&v, f, 8);       /* little-endian host (x86-64) */
		return v;
	}
	memcpy(&w, f, 4);
	return w;
}

static uint64_t byte_mask64(uint8_t bits)
{
	uint64_t m = 0;

	for (unsigned i = 0; i < 8; i++)
		if (bits & (0x80u >> i))
			m |= 0xffull << (8 * i);
	return m;
}

static inline void check_block(struct transform_run *r, const uint8_t *f, uint64_t guard)
{
	const struct transform_plan *p = r->p;
	uint64_t exp = 0, act = 0;
	enum dp_sig_err_type ty;

	/* fast path: the masked bytes all match */
	if (((load_field(f, p->fin) ^ field_u64(p->in, guard, r->k_in)) & r->cmask64) == 0)
		return;
	ty = dp_sig_field_check(p->in, r->cmask, f, guard, r->k_in, &exp, &act);
	if (ty != DP_SIG_ERR_NONE) {
		r->e.type = ty;
		r->e.expected = exp;
		r->e.actual = act;
		r->e.offset = r->k_in * ((uint64_t)p->bin + p->fin);
	}
}

static inline void emit_field(struct transform_run *r, uint64_t guard, const uint8_t *fin)
{
	const struct transform_plan *p = r->p;
	uint64_t v;

	if (r->k_out == r->fields_out)
		return;         /* the last block's wire field lies outside the transfer */
	v = field_u64(p->out, guard, r->k_out);
	if (r->copy64 && fin)
		v = (v & ~r->copy64) | (load_field(fin, p->fout) & r->copy64);
	if (p->fout == 8)
		memcpy(r->out + r->opos, &v, 8);
	else
		memcpy(r->out + r->opos, &v, 4);
	r->opos += p->fout;
	r->k_out++;
}

/* One input step: a whole input block (data + field f), or with f NULL raw data: a run of it
 * when the input domain is absent (one output block, or what is left of the transfer), or the
 * last input block, without its field (reference §2.1 "partial trailing block"). */
static void do_step(struct transform_run *r, const uint8_t *d, size_t dlen, const uint8_t *f)
{
	const struct transform_plan *p = r->p;
	bool chk = f && r->cmask && r->e.type == DP_SIG_ERR_NONE &&
		   !(r->in_escapes && dp_sig_escaped(p->in, f));
	bool need_in = chk && r->chk_guard;
	uint64_t gin = 0, gout = 0;

	if (r->aligned) {
		uint8_t *od = r->out + r->opos;
		bool full_out = p->out && dlen == p->bout;
		/* no input field to copy from (a last block without it): the output field is generated */
		bool need_out = full_out && (r->gen_guard || !f);

		if (need_out) {
			gout = guard_copy(p->out, od, d, dlen);
			if (need_in)
				gin = r->shared ? gout : dp_sig_guard(p->in, d, dlen);
		} else if (need_in) {
			gin = guard_copy(p->in, od, d, dlen);
		} else {
			memcpy(od, d, dlen);
		}
		if (chk)
			check_block(r, f, gin);
		r->opos += dlen;
		if (full_out)
			emit_field(r, gout, f);
	} else {
		/* both domains present, different block sizes: re-block the data stream */
		if (need_in)
			gin = dp_sig_guard(p->in, d, dlen);
		if (chk)
			check_block(r, f, gin);
		while (dlen) {
			size_t piece = p->bout - r->ofill;

			if (piece > dlen)
				piece = dlen;
			memcpy(r->out + r->opos, d, piece);
			r->oacc = dp_sig_guard_update(p->out, r->oacc, d, piece);
			r->opos += piece;
			r->ofill += piece;
			d += piece;
			dlen -= piece;
			if (r->ofill == p->bout) {
				emit_field(r, dp_sig_guard_end(p->out, r->oacc), NULL);
				r->ofill = 0;
				r->oacc = dp_sig_guard_begin(p->out);
			}
		}
		/* an output block cut short by the end of the transfer keeps no field */
	}
	if (f)
		r->k_in++;
}

/* A run of nb whole steps that all map block to block (input block -> output block of the same
 * data size, or raw data -> full output block, or input block -> raw data): the data is copied
 * and the guards computed by one kernel call for the whole run (kern.h), then the fields are
 * checked and built.  The result is what do_step() gives step by step. */
#define BATCH_MAX 48
static void do_batch(struct transform_run *r, const uint8_t *src, size_t nb)
{
	const struct transform_plan *p = r->p;
	size_t len = p->in ? p->bin : p->bout;
	size_t ss = p->in ? (size_t)p->bin + p->fin : p->bout;
	size_t ds = p->out ? (size_t)p->bout + p->fout : len;
	uint8_t *od = r->out + r->opos;
	bool need_out = p->out && r->gen_guard;
	bool need_in = p->in && r->cmask && r->chk_guard && r->e.type == DP_SIG_ERR_NONE;
	uint64_t gout[BATCH_MAX], gin_buf[BATCH_MAX], *gin = gin_buf;

	if (need_out) {
		dp_sig_guard_blocks(p->out, gout, od, ds, src, ss, len, nb);
		if (need_in) {
			if (r->shared)
				gin = gout;
			else
				dp_sig_guard_blocks(p->in, gin, NULL, 0, src, ss, len, nb);
		}
	} else if (need_in) {
		dp_sig_guard_blocks(p->in, gin, od, ds, src, ss, len, nb);
	} else {
		for (size_t i = 0; i < nb; i++)
			memcpy(od + i * ds, src + i * ss, len);
	}
	for (size_t i = 0; i < nb; i++) {
		const uint8_t *f = p->in ? src + i * ss + len : NULL;

		if (f && r->cmask && r->e.type == DP_SIG_ERR_NONE &&
		    !(r->in_escapes && dp_sig_escaped(p->in, f)))
			check_block(r, f, need_in ? gin[i] : 0);
		r->opos += len;
		if (p->out)
			emit_field(r, need_out ? gout[i] : 0, f);
		if (f)
			r->k_in++;
	}
}

/* Run the whole steps of src[0..len) (steps of `step` bytes), in batches of at most max steps;
 * with final, a short last step too (raw input, or a last input block without its field).
 * Output crypto keeps up after each batch, while the batch is in cache.  Returns the bytes
 * consumed. */
static int run_steps(struct transform_run *r, const uint8_t *src, size_t len, size_t step,
		     size_t max, bool final, size_t *used, struct dp_error *err);

/* Crypt, in place, every data unit of the output completed so far (all that is left: final). */
static int crypt_out_progress(struct transform_run *r, bool final, struct dp_error *err)
{
	const struct dp_crypto_cfg *c = &r->t->cfg.crypto;
	size_t n = r->opos - r->ocrypted;
	uint8_t *u = r->out + r->ocrypted;
	int rc;

	if (!final)
		n -= n % c->data_unit_size;
	if (!n)
		return 0;
	/* ocrypted is a whole number of units until the final call */
	rc = dp_xts_crypt(r->t->xts, r->p->encrypt, c->initial_tweak, r->ocrypted / c->data_unit_size,
			  c->data_unit_size, u, u, n, err);
	if (rc)
		return rc;
	r->ocrypted += n;
	return 0;
}

static int run_steps(struct transform_run *r, const uint8_t *src, size_t len, size_t step,
		     size_t max, bool final, size_t *used, struct dp_error *err)
{
	const struct transform_plan *p = r->p;
	size_t off = 0;
	int rc;

	while (len - off >= step) {
		size_t nb = (len - off) / step;

		if (nb > max)
			nb = max;
		if (r->aligned) {
			do_batch(r, src + off, nb);
		} else {
			for (size_t i = 0; i < nb; i++)
				do_step(r, src + off + i * step, p->bin, src + off + i * step + p->bin);
		}
		off += nb * step;
		if (p->crypt_out) {
			rc = crypt_out_progress(r, false, err);
			if (rc)
				return rc;
		}
	}
	if (final && off < len) {
		do_step(r, src + off, len - off, NULL);     /* a short last step: no input field */
		off = len;
	}
	*used = off;
	return 0;
}

/* Steps of `step` bytes in a batch that stays in L1 while the cipher runs over it; a multiple
 * of 3 (the CRC32C kernel takes blocks in threes). */
static size_t l1_batch(size_t step)
{
	size_t nb = 12288 / step / 3 * 3;

	return nb < 3 ? 3 : nb;
}

/* Steps per batch: a run that stays in L1 when output crypto follows it. */
static size_t batch_steps(const struct transform_plan *p, size_t step)
{
	return p->crypt_out ? l1_batch(step) : BATCH_MAX;
}

/* Run the signature steps over src[0..len), from a fresh input stream (no crypto on it). */
static int steps_direct(struct transform_run *r, const uint8_t *src, size_t len, size_t step,
			struct dp_error *err)
{
	size_t used;
	int rc;

	rc = run_steps(r, src, len, step, batch_steps(r->p, step), true, &used, err);
	if (rc)
		return rc;
	if (r->p->crypt_out)
		return crypt_out_progress(r, true, err);
	return 0;
}

/* Rows D and J on TX (and their like): the input blocks carry a field, the output has none and
 * each data unit of the output is exactly one block's data.  The guard is computed on the input
 * and the unit is encrypted/decrypted straight from the input block into the output: the copy is
 * the cipher's own output, no separate pass. */
static int steps_check_crypt(struct transform_run *r, const uint8_t *in, size_t in_len,
			     struct dp_error *err)
{
	const struct transform_plan *p = r->p;
	size_t step = (size_t)p->bin + p->fin, nblk = in_len / step, max = l1_batch(step);
	uint64_t g[BATCH_MAX];
	uint8_t tweak[16];
	int rc;

	memcpy(tweak, r->t->cfg.crypto.initial_tweak, 16);
	/* a batch of blocks: guards by one kernel call (no copy: the cipher writes the output),
	 * the checks, then the units crypted from the input blocks by one call, all in L1 */
	for (size_t b = 0; b < nblk;) {
		const uint8_t *base = in + b * step;
		size_t nb = nblk - b < max ? nblk - b : max;
		bool need = r->cmask && r->chk_guard && r->e.type == DP_SIG_ERR_NONE;

		if (need)
			dp_sig_guard_blocks(p->in, g, NULL, 0, base, step, p->bin, nb);
		for (size_t i = 0; i < nb; i++) {
			const uint8_t *f = base + i * step + p->bin;

			if (r->cmask && r->e.type == DP_SIG_ERR_NONE && !(r->in_escapes && dp_sig_escaped(p->in, f)))
				check_block(r, f, need ? g[i] : 0);
			r->k_in++;
		}
		rc = dp_xts_crypt_units(r->t->xts, p->encrypt, tweak, r->out + r->opos, p->bin, base, step,
					p->bin, nb, err);
		if (rc)
			return rc;
		r->opos += nb * p->bin;
		b += nb;
	}
	/* a last block cut short, or (wire input) without its field: its data is the last unit */
	if (in_len > nblk * step) {
		size_t n = in_len - nblk * step;

		rc = dp_xts_crypt(r->t->xts, p->encrypt, r->t->cfg.crypto.initial_tweak, nblk,
				  r->t->cfg.crypto.data_unit_size, r->out + r->opos, in + nblk * step, n, err);
		if (rc)
			return rc;
		r->opos += n;
	}
	return 0;
}

/* The mirror image (rows D and J on RX): raw input units are encrypted/decrypted straight into
 * the output blocks' data, a batch at a time, then the guards of the batch are computed there by
 * the level's kernels while it is still in L1, and the fields appended.  A short last unit is a
 * short last block: delivered without field. */
static int steps_crypt_generate(struct transform_run *r, const uint8_t *in, size_t in_len,
				struct dp_error *err)
{
	const struct dp_crypto_cfg *c = &r->t->cfg.crypto;
	const struct transform_plan *p = r->p;
	size_t ostep = (size_t)p->bout + p->fout, nunits = in_len / p->bout, max = l1_batch(ostep);
	uint64_t g[BATCH_MAX];
	uint8_t tweak[16];
	int rc;

	memcpy(tweak, c->initial_tweak, 16);
	for (size_t b = 0; b < nunits;) {
		size_t nb = nunits - b < max ? nunits - b : max;
		uint8_t *od = r->out + r->opos;

		rc = dp_xts_crypt_units(r->t->xts, p->encrypt, tweak, od, ostep, in + b * p->bout, p->bout,
					p->bout, nb, err);
		if (rc)
			return rc;
		dp_sig_guard_blocks(p->out, g, NULL, 0, od, ostep, p->bout, nb);
		for (size_t i = 0; i < nb; i++) {
			r->opos += p->bout;
			emit_field(r, g[i], NULL);
		}
		b += nb;
	}
	if (in_len > nunits * p->bout) {
		size_t n = in_len - nunits * p->bout;

		rc = dp_xts_crypt(r->t->xts, p->encrypt, c->initial_tweak, nunits, c->data_unit_size,
				  r->out + r->opos, in + nunits * p->bout, n, err);
		if (rc)
			return rc;
		r->opos += n;
	}
	return 0;
}

/* Input crypto: crypt a window of data units, run the whole steps it holds, keep the rest. */
static int steps_crypt_in(struct transform_run *r, const uint8_t *in, size_t in_len, size_t step,
			  struct dp_error *err)
{
	struct dp_transform *t = r->t;
	const struct dp_crypto_cfg *c = &t->cfg.crypto;
	const struct transform_plan *p = r->p;
	size_t have = 0, done = 0;
	int rc;

	while (done < in_len) {
		size_t n = in_len - done < t->chunk ? in_len - done : t->chunk;
		size_t used = 0;
		bool last;

		rc = dp_xts_crypt(t->xts, p->encrypt, c->initial_tweak, done / c->data_unit_size,
				  c->data_unit_size, t->scratch + have, in + done, n, err);
		if (rc)
			return rc;
		done += n;
		have += n;
		last = done == in_len;
		rc = run_steps(r, t->scratch, have, step, BATCH_MAX, last, &used, err);
		if (rc)
			return rc;
		if (used < have)
			memmove(t->scratch, t->scratch + used, have - used);
		have -= used;
	}
	return 0;
}

void transform_run_init(struct transform_run *r, struct dp_transform *t,
			const struct transform_plan *p, void *out, size_t olen, bool last_field)
{
	memset(r, 0, sizeof(*r));
	r->t = t;
	r->p = p;
	r->out = out;
	r->fields_out = UINT64_MAX;
	if (p->out && !last_field && olen % ((size_t)p->bout + p->fout) == p->bout)
		r->fields_out = olen / ((size_t)p->bout + p->fout);
	r->aligned = !p->in || !p->out || p->bin == p->bout;
	r->cmask = p->in ? (uint8_t)(t->cfg.check_mask & dp_sig_field_bits(p->in)) : 0;
	r->chk_guard = p->in && (r->cmask & dp_sig_guard_bits(p->in));
	r->gen_guard = p->out && (t->copy & dp_sig_guard_bits(p->out)) != dp_sig_guard_bits(p->out);
	r->shared = p->in && p->out && dp_sig_same_guard(p->in, p->out);
	r->in_escapes = p->in && p->in->sig_type == DP_SIG_T10DIF &&
			(p->in->t10dif.flags & (DP_T10DIF_FLAG_APP_ESCAPE | DP_T10DIF_FLAG_APP_REF_ESCAPE));
	r->cmask64 = byte_mask64(r->cmask);
	r->copy64 = p->in && p->out ? byte_mask64(t->copy) & byte_mask64(dp_sig_field_bits(p->out)) : 0;
	if (p->out)
		r->oacc = dp_sig_guard_begin(p->out);
}

int transform_steps(struct transform_run *r, const uint8_t *in, size_t in_len, struct dp_error *err)
{
	const struct transform_plan *p = r->p;
	size_t step = p->in ? (size_t)p->bin + p->fin : p->bout;
	uint32_t dus = r->t->cfg.crypto.data_unit_size;

	if (p->crypt_out && p->in && !p->out && dus == p->bin)
		return steps_check_crypt(r, in, in_len, err);
	if (p->crypt_in && !p->in && p->out && dus == p->bout)
		return steps_crypt_generate(r, in, in_len, err);
	if (p->crypt_in)
		return steps_crypt_in(r, in, in_len, step, err);
	return steps_direct(r, in, in_len, step, err);
}
