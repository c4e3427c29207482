/* SPDX-License-Identifier: MIT */
/*
 * A transfer's plan: which domain is the input and which the output, which stream is crypted
 * and which way, and the lengths that map (reference §2.1) and the offsets a transfer may start
 * at.
 */
#include <string.h>

#include "dataplane/offload/transform-internal.h"
#include "dataplane/offload/xts.h"

void transform_plan_make(const struct dp_transform *t, enum dp_dir dir, struct transform_plan *p)
{
	const struct dp_sig_domain *mem = &t->cfg.mem, *wire = &t->cfg.wire;
	const struct dp_crypto_cfg *c = &t->cfg.crypto;
	bool on_wire = c->order == DP_SIG_BEFORE_CRYPTO_ON_TX;

	memset(p, 0, sizeof(*p));
	p->in_mem = dir == DP_TX;
	p->in = dir == DP_TX ? mem : wire;
	p->out = dir == DP_TX ? wire : mem;
	if (!dp_sig_present(p->in))
		p->in = NULL;
	if (!dp_sig_present(p->out))
		p->out = NULL;
	p->bin = p->in ? p->in->block_size : 0;
	p->bout = p->out ? p->out->block_size : 0;
	p->fin = dp_sig_field_size(p->in);
	p->fout = dp_sig_field_size(p->out);
	if (c->enabled) {
		/* the crypted stream: wire-domain stream with "before", memory-domain with "after" */
		bool crypt_wire = on_wire;

		p->crypt_in = dir == DP_TX ? !crypt_wire : crypt_wire;
		p->crypt_out = !p->crypt_in;
		p->encrypt = (dir == DP_TX) == c->encrypt_on_tx;
	}
}

/*
 * Reference §2.1 "partial trailing block": a block's field is processed on a side iff the block's
 * data is complete and the field lies in that side's stream: always in memory, on the wire only
 * inside the transfer.  So a stream of a domain with b-byte blocks and f-byte fields may end
 * after any whole block, or cut short in a block's data (that block has no field); a wire
 * stream may also end right after a block's data.  A stream that ends inside a field, or a
 * memory stream that ends between a block's data and its field, maps to nothing: false.
 */
bool transform_stream_data(uint32_t b, unsigned f, size_t len, bool field_always, size_t *data)
{
	size_t step = (size_t)b + f, rem = len % step;

	*data = len / step * b + rem;
	return rem < b || (rem == b && !field_always);
}

/* Stream bytes of data bytes: every complete block brings its field, but for the last one
 * when !last_field (a wire field outside the transfer). */
size_t transform_stream_len(uint32_t b, unsigned f, size_t data, bool last_field)
{
	size_t len = data / b * ((size_t)b + f) + data % b;

	if (!last_field && data && data % b == 0)
		len -= f;
	return len;
}

int transform_plan_lengths(const struct dp_transform *t, const struct transform_plan *p,
			   size_t in_len, bool last_field, size_t *out_len, struct dp_error *err)
{
	size_t data, olen, job;

	if (p->in && !transform_stream_data(p->bin, p->fin, in_len, p->in_mem, &data)) {
		if (p->in_mem)
			return dp_error_set(err, EINVAL, "input",
					    "%zu bytes end between the data and the field of a %zu-byte block (%u data "
					    "+ %u field): a memory block whose data is complete comes with its field",
					    in_len, (size_t)p->bin + p->fin, p->bin, p->fin);
		return dp_error_set(err, EINVAL, "input",
				    "%zu bytes end inside the field of a %zu-byte block (%u data + %u field) of the "
				    "input domain", in_len, (size_t)p->bin + p->fin, p->bin, p->fin);
	}
	if (!p->in)
		data = in_len;
	olen = p->out ? transform_stream_len(p->bout, p->fout, data, last_field) : data;
	if (t->cfg.crypto.enabled) {
		uint32_t dus = t->cfg.crypto.data_unit_size;

		job = p->crypt_in ? in_len : olen;
		if (!dp_xts_job_size_ok(job, dus)) {
			if (job % dus && job % dus < 16 && job % 16 == 0)
				return dp_error_set(err, EINVAL, "input",
						    "the encrypted stream is %zu bytes: its last data unit would be %zu bytes, "
						    "AES-XTS needs at least 16", job, job % dus);
			return dp_error_set(err, EINVAL, "input",
					    "the encrypted stream is %zu bytes, not allowed with %u-byte data units "
					    "(needs a multiple of %u, or a multiple of 16 whose remainder is at most %u)",
					    job, dus, dus, dus - 16);
		}
	}
	*out_len = olen;
	return 0;
}

int dp_transform_out_len(const struct dp_transform *t, enum dp_dir dir, size_t in_len,
			 size_t *out_len, struct dp_error *err)
{
	struct transform_plan p;

	transform_plan_make(t, dir, &p);
	return transform_plan_lengths(t, &p, in_len, true, out_len, err);
}

int dp_transform_offset(const struct dp_transform *t, size_t wire_off, size_t *mem_off, struct dp_error *err)
{
	struct transform_plan p;
	int rc;

	transform_plan_make(t, DP_RX, &p);
	rc = transform_plan_lengths(t, &p, wire_off, true, mem_off, err);
	if (rc)
		return rc;
	/* a transfer restarts the block count (reference §9): it must start on a block */
	if ((p.in && wire_off % ((size_t)p.bin + p.fin)) || (p.out && *mem_off % ((size_t)p.bout + p.fout)))
		return dp_error_set(err, EINVAL, "offset", "%zu wire bytes are not whole blocks", wire_off);
	return 0;
}
