/* SPDX-License-Identifier: MIT */
/*
 * One transfer through an MKEY's transform: its direction checked, planned and sized, run
 * through the block engine (or the cipher alone), and its first signature error reported and
 * kept as the mkey-check record; and a transfer sized in wire bytes as the hardware counts it.
 */
#include <string.h>

#include "dataplane/offload/transform-internal.h"
#include "dataplane/offload/xts.h"

/* One run; last_field: the output's last complete block gets its field (transform_stream_len()). */
static int run_transform(struct dp_transform *t, enum dp_dir dir, const void *in, size_t in_len,
			 void *out, size_t out_cap, bool last_field, size_t *out_len,
			 struct dp_sig_err *xfer_err, struct dp_error *err)
{
	struct transform_plan p;
	struct transform_run r;
	size_t olen;
	int rc;

	if (xfer_err)
		memset(xfer_err, 0, sizeof(*xfer_err));
	if (out_len)
		*out_len = 0;
	if (dir != DP_TX && dir != DP_RX)
		return dp_error_set(err, EINVAL, "direction", "direction must be tx or rx");
	transform_plan_make(t, dir, &p);
	rc = transform_plan_lengths(t, &p, in_len, last_field, &olen, err);
	if (rc)
		return rc;
	if (olen > out_cap)
		return dp_error_set(err, ENOSPC, "output", "output needs %zu bytes, buffer holds %zu", olen, out_cap);
	if (!p.in && !p.out) {
		/* crypto only (rows A and F) */
		rc = dp_xts_crypt(t->xts, p.encrypt, t->cfg.crypto.initial_tweak, 0,
				  t->cfg.crypto.data_unit_size, out, in, in_len, err);
		if (rc)
			return rc;
		if (out_len)
			*out_len = olen;
		return 0;
	}

	transform_run_init(&r, t, &p, out, olen, last_field);
	rc = transform_steps(&r, in, in_len, err);
	if (rc)
		return rc;
	if (r.e.type != DP_SIG_ERR_NONE) {
		if (xfer_err)
			*xfer_err = r.e;
		if (t->rec.type == DP_SIG_ERR_NONE)
			t->rec = r.e;
	}
	if (out_len)
		*out_len = r.opos;
	return 0;
}

int dp_transform_run(struct dp_transform *t, enum dp_dir dir, const void *in, size_t in_len,
		     void *out, size_t out_cap, size_t *out_len, struct dp_sig_err *xfer_err,
		     struct dp_error *err)
{
	return run_transform(t, dir, in, in_len, out, out_cap, true, out_len, xfer_err, err);
}

int dp_transform_transfer(struct dp_transform *t, enum dp_dir dir, const void *in, size_t in_len,
			  void *out, size_t out_len, struct dp_sig_err *xfer_err, struct dp_error *err)
{
	size_t wire = dir == DP_TX ? out_len : in_len, mem, n;
	int rc;

	if (xfer_err)
		memset(xfer_err, 0, sizeof(*xfer_err));
	if (dir != DP_TX && dir != DP_RX)
		return dp_error_set(err, EINVAL, "direction", "direction must be tx or rx");
	/* the wire length decides, memory follows (wire -> memory is the one-valued way) */
	rc = dp_transform_out_len(t, DP_RX, wire, &mem, err);
	if (rc)
		return rc;
	if (mem != (dir == DP_TX ? in_len : out_len))
		return dp_error_set(err, EINVAL, dir == DP_TX ? "input" : "output",
				    "%zu wire bytes are %zu memory bytes, not %zu", wire, mem,
				    dir == DP_TX ? in_len : out_len);
	if (dir == DP_TX) {
		struct transform_plan p;
		size_t data = in_len;

		/* the last complete block's wire field is in iff the wire length has room for it (the
		 * length with it may well break the XTS job size: not asked here) */
		transform_plan_make(t, DP_TX, &p);
		if (p.in)
			(void)transform_stream_data(p.bin, p.fin, in_len, true, &data);   /* maps: it is mem */
		rc = run_transform(t, dir, in, in_len, out, out_len,
				   !p.out || transform_stream_len(p.bout, p.fout, data, true) == out_len, &n, xfer_err, err);
	} else {
		rc = run_transform(t, dir, in, in_len, out, out_len, true, &n, xfer_err, err);
	}
	if (rc == 0 && n != out_len)
		return dp_error_set(err, EINVAL, "output", "the transfer gives %zu bytes, not %zu", n, out_len);
	return rc;
}

