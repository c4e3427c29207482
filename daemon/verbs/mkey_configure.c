/* SPDX-License-Identifier: MIT */
/*
 * MKEY configure: the rules of the WR chain and its setters (reference §1.2,
 * §3.1-3.2), and the context the NIC reads, rebuilt at each configure.
 */
#include "daemon/verbs/mkey.h"
#include "daemon/verbs/mkey_int.h"
#include "dataplane/mkey.h"
#include "daemon/verbs/dek.h"
#include "daemon/verbs/mr.h"
#include "daemon/verbs/qp.h"
#include "dataplane/keytab.h"
#include "lib/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes one entry spans in its MR. */
static uint64_t entry_span(const struct rdma_mkey_layout *l, const struct rdma_mkey_entry *e)
{
	if (l->type == RDMA_LAYOUT_LIST)
		return e->length;
	return (uint64_t)(l->repeat_count - 1) * (e->length + e->skip) + e->length;
}

static int entry_error(struct rdma_error *err, const struct rdma_mkey_layout *l, unsigned i,
		       const char *member, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* InvalidArgument naming layout[i].member or interleaved.entries[i].member. */
static int entry_error(struct rdma_error *err, const struct rdma_mkey_layout *l, unsigned i,
		       const char *member, const char *fmt, ...)
{
	char field[64], reason[256];
	va_list ap;

	snprintf(field, sizeof(field), "%s[%u].%s",
		 l->type == RDMA_LAYOUT_LIST ? "layout" : "interleaved.entries", i, member);
	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	return rdma_error_invalid(err, field, "%s", reason);
}

/*
 * The layout setter's rules: entries that fit the MKEY (interleaved takes one
 * more, its strided header), MRs of the MKEY's PD with memory of their own,
 * ranges inside them.  Fills entries[].mr_obj.
 */
static int layout_check(struct rdma_device *dev, const struct rdma_mkey *mkey,
			struct rdma_mkey_layout *l, struct rdma_error *err)
{
	const char *name = l->type == RDMA_LAYOUT_LIST ? "layout" : "interleaved.entries";
	unsigned needed = l->type == RDMA_LAYOUT_INTERLEAVED ? l->n + 1u : l->n;
	if (l->n == 0)
		return rdma_error_invalid(err, name, "at least one entry");
	if (needed > mkey->max_entries)
		return rdma_error_invalid(err, name, "%u entries%s; the MKEY was created with max_entries %u",
					  l->n, l->type == RDMA_LAYOUT_INTERLEAVED ?
					  " (+1 for the interleaved header)" : "", mkey->max_entries);
	if (l->type == RDMA_LAYOUT_INTERLEAVED && l->repeat_count == 0)
		return rdma_error_invalid(err, "interleaved.repeat_count", "at least 1");
	for (unsigned i = 0; i < l->n; i++) {
		struct rdma_mkey_entry *e = &l->entries[i];
		struct rdma_object *obj = rdma_object_lookup(dev, RDMA_OBJ_MR, e->mr, err);
		const char *len_name = l->type == RDMA_LAYOUT_LIST ? "length" : "bytes_count";
		struct rdma_mr *mr;
		uint64_t span;

		if (!obj)
			return -ENOENT;
		mr = rdma_mr(obj);
		if (mr->pd != mkey->pd)
			return entry_error(err, l, i, "mr", "MR %u is on PD %u, the MKEY on PD %u",
					   e->mr, mr->pd->handle, mkey->pd->handle);
		if (mr->type == RDMA_MR_DMA)
			return entry_error(err, l, i, "mr", "MR %u is a DMA MR, with no memory of its own",
					   e->mr);
		if (e->length == 0 || e->length > UINT32_MAX)
			return entry_error(err, l, i, len_name, "1 to %u bytes", UINT32_MAX);
		span = entry_span(l, e);
		if (e->offset > mr->length || span > mr->length - e->offset)
			return entry_error(err, l, i, e->offset >= mr->length ? "offset" : len_name,
					   "offset %llu + %llu bytes go past the end of MR %u (%llu bytes)",
					   (unsigned long long)e->offset, (unsigned long long)span, e->mr,
					   (unsigned long long)mr->length);
		e->mr_obj = mr;
	}
	return 0;
}

static int layout_copy(struct rdma_mkey_layout *dst, const struct rdma_mkey_layout *src)
{
	*dst = *src;
	dst->entries = calloc(src->n ? src->n : 1, sizeof(*dst->entries));
	if (!dst->entries)
		return -ENOMEM;
	memcpy(dst->entries, src->entries, src->n * sizeof(*dst->entries));
	return 0;
}

/* ---- configure ---- */

/*
 * The one place that spells a configure's field.  The dataplane's fields
 * ("mem.t10dif.bg", "crypto.data_unit_size") are paths, and the DEK model's
 * ("dek", "keytag") members of "crypto".
 */
int mkey_config_refusal(struct rdma_error *err, enum rdma_error_code code, const char *path,
			const char *member, const char *fmt, ...)
{
	char field[sizeof(err->field)];
	va_list ap;
	int r;

	snprintf(field, sizeof(field), "config%s%.56s%s%.40s", path && *path ? "." : "",
		 path ? path : "", member ? "." : "", member ? member : "");
	va_start(ap, fmt);
	r = rdma_error_vfield(err, code, field, fmt, ap);
	va_end(ap);
	return r;
}

/* The domain a signature refusal names: the one that has a signature, else the config itself. */
static const char *sig_path(const struct dp_transform_cfg *cfg)
{
	if (dp_sig_present(&cfg->mem))
		return "mem";
	if (dp_sig_present(&cfg->wire))
		return "wire";
	return NULL;
}

/* A dataplane refusal; its "key" is the configure's DEK. */
static int dp_refusal(struct rdma_error *err, const struct dp_error *de)
{
	bool key = !strcmp(de->field, "key");

	return mkey_config_refusal(err, RDMA_ERR_INVALID_ARGUMENT, key ? "crypto" : de->field,
			      key ? "dek" : NULL, "%s", de->message);
}

/* The configuration in effect after conf: what conf sets over what mkey has. */
static void merge(const struct rdma_mkey *mkey, const struct rdma_mkey_conf *conf,
		  struct dp_transform_cfg *cfg, struct rdma_mkey_crypto *crypto)
{
	*cfg = mkey->cfg;
	*crypto = mkey->crypto;
	if (conf->reset_sig_attr) {
		struct dp_transform_cfg none;

		dp_transform_cfg_init(&none);
		none.crypto = cfg->crypto;
		*cfg = none;
	}
	if (conf->set_sig) {
		cfg->mem = conf->cfg.mem;
		cfg->wire = conf->cfg.wire;
		cfg->check_mask = conf->cfg.check_mask;
		cfg->copy_mask_set = conf->cfg.copy_mask_set;
		cfg->copy_mask = conf->cfg.copy_mask;
	}
	if (conf->set_crypto) {
		cfg->crypto = conf->cfg.crypto;
		*crypto = conf->crypto;
	}
}

/* The setters' own rules, before anything is merged. */
static int setters_check(struct rdma_device *dev, const struct rdma_mkey *mkey,
			 const struct rdma_mkey_conf *conf, struct rdma_error *err)
{
	if (conf->set_access && (conf->access & ~RDMA_MKEY_ACCESS_ALL))
		return rdma_error_invalid(err, "access",
					  "local_write, remote_write, remote_read, remote_atomic only");
	if (conf->set_sig) {
		if (!(mkey->flags & RDMA_MKEY_BLOCK_SIGNATURE))
			return mkey_config_refusal(err, RDMA_ERR_INVALID_ARGUMENT, sig_path(&conf->cfg), NULL,
					      "the MKEY was created without block_signature");
		if (!mkey_cfg_has_sig(&conf->cfg))
			return mkey_config_refusal(err, RDMA_ERR_INVALID_ARGUMENT, NULL, NULL,
					      "a signature needs mem or wire; reset_sig_attr removes it");
	}
	if (conf->set_crypto) {
		if (!(mkey->flags & RDMA_MKEY_CRYPTO))
			return mkey_config_refusal(err, RDMA_ERR_INVALID_ARGUMENT, "crypto", NULL,
					      "the MKEY was created without crypto");
		if (!conf->cfg.crypto.enabled)
			return mkey_config_refusal(err, RDMA_ERR_INVALID_ARGUMENT, "crypto", NULL,
					      "crypto attributes are required");
		if (!conf->crypto.dek && !conf->crypto.dek_name[0])
			return mkey_config_refusal(err, RDMA_ERR_INVALID_ARGUMENT, "crypto", "dek",
					      "the DEK to use is required");
	}
	return 0;
}

/* The rules checked when the WR chain is finalized, on the merged result. */
static int finalize_check(struct rdma_device *dev, const struct dp_transform_cfg *cfg,
			  const struct rdma_mkey_layout *layout, uint64_t length, struct rdma_error *err)
{
	struct dp_error de;

	if (!mkey_cfg_has_sig(cfg) && !cfg->crypto.enabled)
		return 0;
	if (dp_transform_cfg_validate(cfg, &de) < 0)
		return dp_refusal(err, &de);
	if (length > UINT32_MAX)
		return rdma_error_invalid(err, layout->type == RDMA_LAYOUT_INTERLEAVED ? "interleaved" : "layout",
					  "an MKEY with signature or crypto covers at most %u bytes", UINT32_MAX);
	if (cfg->crypto.enabled && !(dev->caps.crypto_engines & RDMA_CRYPTO_AES_XTS_MULTI_BLOCK) &&
	    length > cfg->crypto.data_unit_size)
		return mkey_config_refusal(err, RDMA_ERR_INVALID_ARGUMENT, "crypto", "data_unit_size",
				      "%s encrypts one data unit per MKEY: the layout's %llu bytes "
				      "exceed it", dev->name, (unsigned long long)length);
	return 0;
}

/* ---- DEKs (daemon/verbs/dek.h) ---- */

/*
 * A DEK error as a field error of the configure (the DEK model names "dek",
 * "keytag").  given: the DEK was not found, as caller gets it.
 */
static int dek_refusal(struct rdma_error *err, enum rdma_error_code code,
		       const struct rdma_lend_caller *caller, const char *given)
{
	char member[sizeof(err->field)], reason[sizeof(err->reason)];

	if (given)
		rdma_dek_refuse_unknown(given, caller, err);
	if (err->code != RDMA_ERR_INVALID_ARGUMENT && err->code != RDMA_ERR_INVALID_STATE)
		return -EINVAL;
	/* config_refusal overwrites err */
	memcpy(member, err->field, sizeof(member));
	memcpy(reason, err->reason, sizeof(reason));
	return mkey_config_refusal(err, code, "crypto", member, "%s", reason);
}

_Static_assert(RDMA_MKEY_DEK_NAME_MAX == RDMA_DEK_NAME_MAX, "a DEK name fits the configure's");

/*
 * The DEK the configure names, by handle, by name, or by both (the same one),
 * if it is lent to the caller.  A caller other than root gets the same answer
 * for a DEK it may not use as for one that is not there.
 */
static int dek_named(struct rdma_device *dev, const struct rdma_mkey_crypto *crypto,
		     const struct rdma_lend_caller *caller, struct rdma_dek **dek, struct rdma_error *err)
{
	bool trusted = !caller || caller->uid == 0;
	char given[RDMA_DEK_NAME_MAX];

	if (crypto->dek_name[0])
		snprintf(given, sizeof(given), "%s", crypto->dek_name);
	else
		snprintf(given, sizeof(given), "%u", crypto->dek);
	if (!crypto->dek_name[0]) {
		*dek = rdma_dek_lookup(dev, crypto->dek, err);
		if (!*dek && !trusted)
			return dek_refusal(err, RDMA_ERR_INVALID_ARGUMENT, caller, given);
		if (!*dek)
			return -ENOENT;
	} else {
		*dek = rdma_dek_find(dev, crypto->dek_name, err);
		if (!*dek)
			return dek_refusal(err, RDMA_ERR_INVALID_ARGUMENT, caller, given);
	}
	if (rdma_dek_check_caller(*dek, given, caller, err) < 0)
		return dek_refusal(err, RDMA_ERR_INVALID_ARGUMENT, NULL, NULL);
	if (crypto->dek && crypto->dek != (*dek)->obj.handle)
		return mkey_config_refusal(err, RDMA_ERR_INVALID_ARGUMENT, "crypto", "dek",
					   "DEK %u is not the one named '%s' (DEK %u)", crypto->dek,
					   crypto->dek_name, (*dek)->obj.handle);
	return 0;
}

/*
 * The DEK of a crypto configure: it must exist, be usable (state READY) and
 * serve the MKEY's PD.  The keytag is the device's business at traffic time.
 */
static int dek_get(struct rdma_device *dev, const struct rdma_mkey *mkey,
		   const struct rdma_mkey_crypto *crypto, const struct rdma_lend_caller *caller,
		   struct rdma_dek **dek, const uint8_t **key,
		   size_t *key_len, struct rdma_error *err)
{
	int r = dek_named(dev, crypto, caller, dek, err);

	if (r < 0)
		return r;
	*key = rdma_dek_key(*dek, key_len, err);
	if (!*key)
		return dek_refusal(err, RDMA_ERR_INVALID_STATE, NULL, NULL);
	if (rdma_dek_check_pd(*dek, mkey->pd->handle, err) < 0)
		return dek_refusal(err, RDMA_ERR_INVALID_ARGUMENT, NULL, NULL);
	return 0;
}

/*
 * The new transform and one per dataplane worker (*workers, n of them), or
 * NULL when there is neither signature nor crypto.
 */
static int transform_build(struct rdma_device *dev, const struct rdma_mkey *mkey,
			   const struct dp_transform_cfg *cfg, const struct rdma_mkey_crypto *crypto,
			   const struct rdma_lend_caller *caller, struct rdma_object **dek_obj, struct dp_transform **out,
			   struct dp_transform ***workers, unsigned *n, struct rdma_error *err)
{
	unsigned n_workers = rdma_device_cpus(dev, NULL, 0);
	const uint8_t *key = NULL;
	struct rdma_dek *dek;
	struct dp_error de;
	size_t key_len = 0;
	int r;

	*out = NULL;
	*workers = NULL;
	*n = 0;
	*dek_obj = NULL;
	if (!mkey_cfg_has_sig(cfg) && !cfg->crypto.enabled)
		return 0;
	if (cfg->crypto.enabled) {
		r = dek_get(dev, mkey, crypto, caller, &dek, &key, &key_len, err);
		if (r < 0)
			return r;
		*dek_obj = &dek->obj;
	}
	/* Each transform copies the key into its own secure memory. */
	r = dp_transform_create(cfg, key, key_len, out, &de);
	if (r < 0)
		return dp_refusal(err, &de);
	if (n_workers && !(*workers = calloc(n_workers, sizeof(**workers))))
		r = -ENOMEM;
	for (; r == 0 && *n < n_workers; ++*n)
		r = dp_transform_create(cfg, key, key_len, &(*workers)[*n], &de);
	if (r < 0) {
		mkey_transforms_free(*out, *workers, *n);
		*out = NULL;
		*workers = NULL;
		return r == -ENOMEM ? rdma_error_system(err, r) : dp_refusal(err, &de);
	}
	return 0;
}

/*
 * Everything a configure checks, and what it builds before it takes effect
 * (the control path at once, a configure WR when the NIC reaches it): all
 * or nothing, the MKEY unchanged.  Whether the MKEY is idle is the caller's.
 */
int mkey_configure_prepare(struct rdma_device *dev, const struct rdma_mkey *mkey,
			   const struct rdma_mkey_conf *conf, struct mkey_prepared *p, struct rdma_error *err)
{
	int r;

	memset(p, 0, sizeof(*p));
	if (mkey->pool && !mkey->borrower)
		return rdma_error_state(err, "handle", "the MKEY is in pool %s: borrow it first",
					mkey->pool_name);
	r = setters_check(dev, mkey, conf, err);
	if (r < 0)
		return r;
	if (conf->set_layout) {
		r = layout_copy(&p->layout, &conf->layout);
		if (r < 0)
			return rdma_error_system(err, -ENOMEM);
		r = layout_check(dev, mkey, &p->layout, err);
	} else {
		r = layout_copy(&p->layout, &mkey->layout);
		if (r < 0)
			rdma_error_system(err, -ENOMEM);
	}
	if (r < 0)
		goto fail;
	merge(mkey, conf, &p->cfg, &p->crypto);
	{
		struct rdma_mkey tmp = { .layout = p->layout };

		r = finalize_check(dev, &p->cfg, &p->layout, rdma_mkey_length(&tmp), err);
	}
	if (r < 0)
		goto fail;
	/* Rebuilt every time: the MKEY's reference keeps its DEK alive, and a new transform starts clean. */
	r = transform_build(dev, mkey, &p->cfg, &p->crypto, conf->caller, &p->dek_obj, &p->transform,
			    &p->worker_transforms, &p->n_worker_transforms, err);
	if (r < 0)
		goto fail;
	/* A DEK given by name is the MKEY's by handle from now on, as one given by handle. */
	if (p->dek_obj)
		p->crypto.dek = p->dek_obj->handle;
	p->set_access = conf->set_access;
	p->access = conf->access;
	return 0;
fail:
	mkey_layout_free(&p->layout);
	return r;
}

int rdma_mkey_configure(struct rdma_device *dev, struct rdma_mkey *mkey,
			const struct rdma_mkey_conf *conf, struct rdma_error *err)
{
	struct mkey_prepared p;
	int r;

	r = mkey_check_idle(dev, mkey, err);
	if (r == 0)
		r = mkey_configure_prepare(dev, mkey, conf, &p, err);
	if (r < 0)
		return r;
	mkey_configure_apply(mkey, &p);
	mkey_publish(dev, mkey);
	return 0;
}

/* ---- configure as a work request (decisions.md, "Configure as a work request") ---- */

int rdma_mkey_configure_wr_check(struct rdma_device *dev, struct rdma_mkey *mkey, const struct rdma_qp *qp,
				 const struct rdma_mkey_conf *conf, struct rdma_error *err)
{
	struct mkey_prepared p;
	int r;

	rdma_mkey_settle(dev, mkey);
	if (mkey->pd != qp->pd)
		return rdma_error_invalid(err, "mkey", "MKEY 0x%x is on PD %u, the QP on PD %u",
					  mkey->obj.handle, mkey->pd->handle, qp->pd->handle);
	if (mkey->pending)
		return rdma_error_state(err, "mkey", "MKEY 0x%x has a configure WR posted already "
					"(on QP %u): one at a time", mkey->obj.handle, mkey->pending->qp);
	r = mkey_check_idle(dev, mkey, err);
	if (r < 0)
		return r;
	r = mkey_configure_prepare(dev, mkey, conf, &p, err);
	if (r == 0)
		mkey_prepared_free(&p);
	return r;
}

int rdma_mkey_configure_wr(struct rdma_device *dev, struct rdma_mkey *mkey, const struct rdma_qp *qp,
			   uint32_t sq_index, const struct rdma_mkey_conf *conf, struct dp_key **entry,
			   struct rdma_error *err)
{
	struct rdma_mkey_pending *pw = calloc(1, sizeof(*pw));
	struct rdma_mkey view;
	int r;

	if (!pw)
		return rdma_error_system(err, -ENOMEM);
	r = mkey_configure_prepare(dev, mkey, conf, &pw->prepared, err);
	if (r < 0) {
		free(pw);
		return r;
	}
	/* The context is built from the MKEY as it will be: a copy with the configure applied. */
	view = *mkey;
	view.layout = pw->prepared.layout;
	view.cfg = pw->prepared.cfg;
	view.crypto = pw->prepared.crypto;
	view.crypto_set = pw->prepared.cfg.crypto.enabled;
	view.configured = true;
	if (pw->prepared.set_access)
		view.access = pw->prepared.access;
	view.worker_transforms = pw->prepared.worker_transforms;
	view.n_worker_transforms = pw->prepared.n_worker_transforms;
	pw->entry = mkey_context(dev, &view);
	if (!pw->entry) {
		mkey_prepared_free(&pw->prepared);
		free(pw);
		return rdma_error_system(err, -ENOMEM);
	}
	/* They went into the entry. */
	pw->prepared.worker_transforms = NULL;
	pw->prepared.n_worker_transforms = 0;
	pw->qp = qp->obj.handle;
	pw->qp_ctx = qp->ctx;
	pw->sq_index = sq_index;
	mkey->pending = pw;
	/* Until it settles, the MRs and the DEK it names stay (as the MKEY's). */
	for (unsigned i = 0; i < pw->prepared.layout.n; i++)
		rdma_object_use(&mkey->obj, &pw->prepared.layout.entries[i].mr_obj->obj);
	rdma_object_use(&mkey->obj, pw->prepared.dek_obj);
	*entry = pw->entry;
	return 0;
}

/* The MKEY can carry traffic (else the device would fail the operation). */
int mkey_check_usable(struct rdma_device *dev, const struct rdma_mkey *mkey, struct rdma_error *err)
{
	if (!mkey->configured)
		return rdma_error_state(err, "handle", "the MKEY is free: configure it first");
	if (mkey->layout.type == RDMA_LAYOUT_NONE)
		return rdma_error_state(err, "layout", "the MKEY has no layout");
	if ((mkey->flags & RDMA_MKEY_CRYPTO) && !mkey->crypto_set)
		return mkey_config_refusal(err, RDMA_ERR_INVALID_STATE, "crypto", NULL,
				      "an MKEY created with crypto needs crypto attributes before traffic");
	if (mkey->crypto_set) {
		/* The MKEY holds its DEK: the lookup cannot fail.  An absent keytag is 8 zero bytes. */
		struct rdma_dek *dek = rdma_dek_lookup(dev, mkey->crypto.dek, err);

		if (!dek || rdma_dek_check_keytag(dek, mkey->crypto.keytag, err) < 0)
			return dek ? dek_refusal(err, RDMA_ERR_INVALID_STATE, NULL, NULL) : -ENOENT;
	}
	return 0;
}

/* ---- the NIC's context ---- */

/*
 * What the workers see of the MKEY from now on: its context, rebuilt at
 * each configure (the workers' transforms move into it), published in the
 * key table.  An MKEY that cannot carry traffic is published unusable, so a
 * WR through it completes with an error, as on the device.
 */
struct dp_key *mkey_context(struct rdma_device *dev, struct rdma_mkey *mkey)
{
	struct dp_key *k = calloc(1, sizeof(*k));
	struct dp_mkey *ctx = dp_mkey_new(mkey->n_worker_counters);
	struct rdma_error err;

	if (!k || !ctx || mkey_layout_context(mkey, ctx) < 0) {
		free(k);
		dp_mkey_free(ctx);
		return NULL;
	}
	ctx->pd = mkey->pd->handle;
	ctx->access = mkey->access;
	ctx->usable = mkey_check_usable(dev, mkey, &err) == 0;
	ctx->counters = mkey->worker_counters;
	ctx->transforms = mkey->worker_transforms;
	ctx->n_transforms = mkey->n_worker_transforms;
	mkey->worker_transforms = NULL;
	mkey->n_worker_transforms = 0;
	*k = (struct dp_key){ .key = mkey->obj.handle, .kind = DP_KEY_MKEY, .pd = ctx->pd,
			      .access = ctx->access, .rkey = true, .mkey = ctx,
			      .remote_invalidate = mkey->flags & RDMA_MKEY_REMOTE_INVALIDATE };
	return k;
}

void mkey_publish(struct rdma_device *dev, struct rdma_mkey *mkey)
{
	struct dp_key *k = mkey_context(dev, mkey);

	if (!k) {
		log_error("MKEY 0x%x: out of memory; the workers will not use it", mkey->obj.handle);
		rdma_device_key_clear(dev, mkey->obj.handle);
		return;
	}
	rdma_device_key_set(dev, k);
}
