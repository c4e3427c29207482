/* SPDX-License-Identifier: MIT */
/* Transfers through an MKEY on the main thread (mkey tx / rx) and mkey check. */
#include "daemon/verbs/mkey.h"
#include "daemon/verbs/mkey_int.h"
#include "dataplane/mkey.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Copies the first length bytes of the layout's memory out (gather) or in (scatter). */
static int layout_copy_bytes(const struct rdma_mkey *mkey, uint8_t *buf, uint64_t length, bool in)
{
	struct dp_mkey ctx = { 0 };
	struct dp_mkey_span span = { .mkey = &ctx, .mem_length = length };

	if (mkey_layout_context(mkey, &ctx) < 0)
		return -ENOMEM;
	if (in)
		dp_mkey_scatter(&span, buf);
	else
		dp_mkey_gather(&span, buf);
	free(ctx.entries);
	return 0;
}

static int too_big(struct rdma_error *err, const char *field, size_t n)
{
	return rdma_error_unsupported(err, field, "%zu bytes; one transfer carries at most %u",
				      n, RDMA_MKEY_TRANSFER_MAX);
}

/* Keeps the first error after a configure, as the PSV does until SET_PSV (§3.5). */
void rdma_mkey_record_sig_error(struct rdma_mkey *mkey, enum dp_dir dir, const struct dp_sig_err *e)
{
	if (!mkey->sig_armed)
		return;
	mkey->sig_armed = false;
	mkey->err_pending = true;
	mkey->err = *e;
	mkey->err_dir = dir;
}

/* Counts the transfer and its error; a worker counts the same way, and reports the error. */
static void count_transfer(struct rdma_mkey *mkey, const struct dp_sig_err *xfer)
{
	atomic_fetch_add_explicit(&mkey->counters.transfers, 1, memory_order_relaxed);
	if (xfer->type != DP_SIG_ERR_NONE)
		atomic_fetch_add_explicit(&mkey->counters.sig_errors[xfer->type], 1, memory_order_relaxed);
}

static void record(struct rdma_mkey *mkey, enum dp_dir dir, const struct dp_sig_err *xfer)
{
	count_transfer(mkey, xfer);
	if (xfer->type != DP_SIG_ERR_NONE)
		rdma_mkey_record_sig_error(mkey, dir, xfer);
}

/* Runs the transform, or copies when the MKEY has neither signature nor crypto. */
static int run(struct rdma_mkey *mkey, enum dp_dir dir, const uint8_t *in, size_t in_len,
	       uint8_t *out, size_t out_len, struct dp_sig_err *xfer, struct rdma_error *err)
{
	struct dp_error de;
	size_t n;

	memset(xfer, 0, sizeof(*xfer));
	if (!mkey->transform) {
		memcpy(out, in, in_len);
	} else if (dp_transform_run(mkey->transform, dir, in, in_len, out, out_len, &n, xfer, &de) < 0) {
		return rdma_error_invalid(err, dir == DP_TX ? "layout" : "data", "%s", de.message);
	}
	record(mkey, dir, xfer);
	return 0;
}

/* Output bytes for in_len input bytes. */
static int out_length(struct rdma_mkey *mkey, enum dp_dir dir, size_t in_len, const char *field,
		      size_t *out_len, struct rdma_error *err)
{
	struct dp_error de;

	*out_len = in_len;
	if (mkey->transform && dp_transform_out_len(mkey->transform, dir, in_len, out_len, &de) < 0)
		return rdma_error_invalid(err, field, "%zu bytes: %s", in_len, de.message);
	return 0;
}

/*
 * What a transfer through the MKEY is checked for before any byte moves: the
 * MKEY carries traffic and is idle, the in_len input bytes make one transfer,
 * and the *out_len output bytes fit where they go (the wire: one transfer;
 * memory: the layout).  The input is the layout on TX, the data on RX, and the
 * errors name it.
 */
static int transfer_check(struct rdma_device *dev, struct rdma_mkey *mkey, enum dp_dir dir,
			  uint64_t in_len, size_t *out_len, struct rdma_error *err)
{
	const char *input = dir == DP_TX ? "layout" : "data";
	uint64_t len = rdma_mkey_length(mkey);
	int r;

	r = mkey_check_usable(dev, mkey, err);
	if (r == 0)
		r = mkey_check_idle(dev, mkey, err);
	if (r < 0)
		return r;
	if (in_len > RDMA_MKEY_TRANSFER_MAX)
		return too_big(err, input, in_len);
	r = out_length(mkey, dir, in_len, input, out_len, err);
	if (r < 0)
		return r;
	if (dir == DP_TX && *out_len > RDMA_MKEY_TRANSFER_MAX)
		return too_big(err, input, *out_len);
	if (dir == DP_RX && *out_len > len)
		return rdma_error_invalid(err, input, "%zu wire bytes give %zu memory bytes; the layout "
					  "holds %llu", (size_t)in_len, *out_len, (unsigned long long)len);
	return 0;
}

int rdma_mkey_tx_length(struct rdma_device *dev, struct rdma_mkey *mkey, size_t *out_len,
			struct rdma_error *err)
{
	return transfer_check(dev, mkey, DP_TX, rdma_mkey_length(mkey), out_len, err);
}

int rdma_mkey_tx(struct rdma_device *dev, struct rdma_mkey *mkey, uint8_t **out, size_t *out_len,
		 struct dp_sig_err *xfer_err, struct rdma_error *err)
{
	uint64_t len = rdma_mkey_length(mkey);
	uint8_t *in, *o;
	int r;

	r = rdma_mkey_tx_length(dev, mkey, out_len, err);
	if (r < 0)
		return r;
	in = malloc(len ? len : 1);
	o = malloc(*out_len ? *out_len : 1);
	if (!in || !o || layout_copy_bytes(mkey, in, len, false) < 0) {
		free(in);
		free(o);
		return rdma_error_system(err, -ENOMEM);
	}
	r = run(mkey, DP_TX, in, len, o, *out_len, xfer_err, err);
	free(in);
	if (r < 0) {
		free(o);
		return r;
	}
	*out = o;
	return 0;
}

int rdma_mkey_rx(struct rdma_device *dev, struct rdma_mkey *mkey, const uint8_t *in, size_t in_len,
		 size_t *out_len, struct dp_sig_err *xfer_err, struct rdma_error *err)
{
	uint8_t *o;
	int r;

	r = transfer_check(dev, mkey, DP_RX, in_len, out_len, err);
	if (r < 0)
		return r;
	o = malloc(*out_len ? *out_len : 1);
	if (!o)
		return rdma_error_system(err, -ENOMEM);
	r = run(mkey, DP_RX, in, in_len, o, *out_len, xfer_err, err);
	if (r == 0 && layout_copy_bytes(mkey, o, *out_len, true) < 0)
		r = rdma_error_system(err, -ENOMEM);
	free(o);
	return r;
}

int rdma_mkey_check(struct rdma_mkey *mkey, struct dp_sig_err *rec, struct rdma_error *err)
{
	const struct dp_sig_domain *input;

	if (!(mkey->flags & RDMA_MKEY_BLOCK_SIGNATURE))
		return rdma_error_invalid(err, "handle", "the MKEY was created without block_signature");
	memset(rec, 0, sizeof(*rec));
	if (!mkey->err_pending)
		return 0;
	/* As libmlx5: an error of a domain that no longer has a signature is not decoded (kept). */
	input = mkey->err_dir == DP_TX ? &mkey->cfg.mem : &mkey->cfg.wire;
	if (!dp_sig_present(input))
		return mkey_config_refusal(err, RDMA_ERR_INVALID_STATE, NULL, NULL,
				      "the recorded error is from the %s domain, which has no signature any more",
				      mkey->err_dir == DP_TX ? "memory" : "wire");
	*rec = mkey->err;
	mkey->err_pending = false;
	return 0;
}
