/* SPDX-License-Identifier: MIT */
/* Indirect MKEYs: creation, configure rules (reference §1.2, §3.1-3.2), transfers, mkey check. */
#include "daemon/verbs/mkey.h"
#include "dataplane/keytab.h"
#include "dataplane/mkey.h"
#include "daemon/verbs/dek.h"
#include "daemon/verbs/mr.h"
#include "daemon/verbs/pool.h"
#include "lib/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void publish(struct rdma_device *dev, struct rdma_mkey *mkey);
static int usable(struct rdma_device *dev, const struct rdma_mkey *mkey, struct rdma_error *err);

static void layout_free(struct rdma_mkey_layout *l)
{
	free(l->entries);
	memset(l, 0, sizeof(*l));
}

static void transforms_free(struct dp_transform *main, struct dp_transform **workers, unsigned n)
{
	dp_transform_destroy(main);
	for (unsigned i = 0; i < n; i++)
		dp_transform_destroy(workers[i]);
	free(workers);
}

static void drop_transforms(struct rdma_mkey *mkey)
{
	/* The workers' copies normally went to the NIC's context (publish); these were not handed over. */
	transforms_free(mkey->transform, mkey->worker_transforms, mkey->n_worker_transforms);
	mkey->transform = NULL;
	mkey->worker_transforms = NULL;
	mkey->n_worker_transforms = 0;
}

/* Drops what the configures set up; the PD reference stays. */
static void mkey_clear(struct rdma_mkey *mkey)
{
	drop_transforms(mkey);
	layout_free(&mkey->layout);
	rdma_object_unuse_all(&mkey->obj);
	rdma_object_use(&mkey->obj, mkey->pd);   /* the first reference made: room is there */
}

static void mkey_release(struct rdma_device *dev, struct rdma_object *obj)
{
	struct rdma_mkey *mkey = rdma_mkey(obj);

	/* First: no worker counts into the MKEY once it is freed. */
	rdma_device_key_clear(dev, obj->handle);
	drop_transforms(mkey);
	layout_free(&mkey->layout);
}

static struct rdma_object *mkey_busy_user(struct rdma_device *dev, const struct rdma_object *obj)
{
	return rdma_device_key_user(dev, obj->handle);
}

const struct rdma_object_type rdma_mkey_type = {
	.size = sizeof(struct rdma_mkey),
	.release = mkey_release,
	.busy_user = mkey_busy_user,
};

/* Posted WRs go through the MKEY: a worker will read it, so it cannot change now. */
static int idle(struct rdma_device *dev, struct rdma_mkey *mkey, struct rdma_error *err)
{
	struct rdma_object *user = rdma_device_key_user(dev, mkey->obj.handle);

	return user ? rdma_error_in_use(err, &mkey->obj, user) : 0;
}

bool rdma_mkey_idle(struct rdma_device *dev, struct rdma_mkey *mkey)
{
	return !rdma_device_key_user(dev, mkey->obj.handle);
}

const char *rdma_mkey_access_name(uint32_t bit)
{
	switch (bit) {
	case RDMA_MKEY_ACCESS_LOCAL_WRITE:   return "local_write";
	case RDMA_MKEY_ACCESS_REMOTE_WRITE:  return "remote_write";
	case RDMA_MKEY_ACCESS_REMOTE_READ:   return "remote_read";
	case RDMA_MKEY_ACCESS_REMOTE_ATOMIC: return "remote_atomic";
	}
	return NULL;
}

const char *rdma_mkey_flag_name(uint32_t bit)
{
	switch (bit) {
	case RDMA_MKEY_BLOCK_SIGNATURE: return "block_signature";
	case RDMA_MKEY_CRYPTO:          return "crypto";
	}
	return NULL;
}

uint16_t rdma_mkey_round_entries(const struct rdma_device *dev, uint32_t max_entries)
{
	uint32_t rounded = (max_entries + 3) & ~3u;

	return max_entries && rounded <= dev->caps.max_mkey_entries ? (uint16_t)rounded : 0;
}

int rdma_mkey_create(struct rdma_device *dev, uint32_t pd, uint32_t flags, uint32_t max_entries,
		     struct rdma_mkey **out, struct rdma_error *err)
{
	struct rdma_object *pd_obj, *obj;
	struct rdma_mkey *mkey;
	uint16_t entries;

	if (!flags || (flags & ~RDMA_MKEY_FLAGS_ALL))
		return rdma_error_invalid(err, "flags", "at least one of block_signature, crypto");
	if ((flags & RDMA_MKEY_BLOCK_SIGNATURE) && !dev->caps.block_prot)
		return rdma_error_unsupported(err, "flags", "%s has no signature offload", dev->name);
	if ((flags & RDMA_MKEY_CRYPTO) &&
	    !(dev->caps.crypto_engines & (RDMA_CRYPTO_AES_XTS_SINGLE_BLOCK | RDMA_CRYPTO_AES_XTS_MULTI_BLOCK)))
		return rdma_error_unsupported(err, "flags", "%s has no AES-XTS engine", dev->name);
	entries = rdma_mkey_round_entries(dev, max_entries);
	if (!entries)
		return rdma_error_invalid(err, "max_entries", "1 to %u (rounded up to a multiple of 4)",
					  dev->caps.max_mkey_entries);
	pd_obj = rdma_object_lookup(dev, RDMA_OBJ_PD, pd, err);
	if (!pd_obj)
		return -ENOENT;
	obj = rdma_object_create(dev, RDMA_OBJ_MKEY, err);
	if (!obj)
		return -ENOSPC;
	mkey = rdma_mkey(obj);
	if (rdma_object_use(obj, pd_obj) < 0) {
		rdma_object_free(dev, obj);
		return rdma_error_system(err, -ENOMEM);
	}
	mkey->pd = pd_obj;
	mkey->flags = flags;
	mkey->max_entries = entries;
	dp_transform_cfg_init(&mkey->cfg);
	*out = mkey;
	return 0;
}

struct rdma_mkey *rdma_mkey_lookup(struct rdma_device *dev, uint32_t key, struct rdma_error *err)
{
	struct rdma_object *obj = rdma_object_lookup(dev, RDMA_OBJ_MKEY, key, err);

	return obj ? rdma_mkey(obj) : NULL;
}

int rdma_mkey_destroy(struct rdma_device *dev, uint32_t key, struct rdma_error *err)
{
	struct rdma_mkey *mkey = rdma_mkey_lookup(dev, key, err);

	if (!mkey)
		return -ENOENT;
	if (mkey->pool)
		return rdma_error_state(err, "handle", "the MKEY belongs to pool %s and goes with it",
					rdma_pool_name(mkey->pool));
	return rdma_object_destroy(dev, RDMA_OBJ_MKEY, key, err);
}

void rdma_mkey_conf_init(struct rdma_mkey_conf *conf)
{
	memset(conf, 0, sizeof(*conf));
	dp_transform_cfg_init(&conf->cfg);
}

/* ---- layout ---- */

/* Bytes one entry spans in its MR. */
static uint64_t entry_span(const struct rdma_mkey_layout *l, const struct rdma_mkey_entry *e)
{
	if (l->type == RDMA_LAYOUT_LIST)
		return e->length;
	return (uint64_t)(l->repeat_count - 1) * (e->length + e->skip) + e->length;
}

uint64_t rdma_mkey_length(const struct rdma_mkey *mkey)
{
	const struct rdma_mkey_layout *l = &mkey->layout;
	uint64_t sum = 0;

	for (unsigned i = 0; i < l->n; i++)
		sum += l->entries[i].length;
	return l->type == RDMA_LAYOUT_INTERLEAVED ? sum * l->repeat_count : sum;
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
 * A refusal naming a member of the configure's config object, the one place
 * that spells its field: "config", then "." path and "." member when given.
 * The dataplane's fields ("mem.t10dif.bg", "crypto.data_unit_size") are such
 * paths, and the DEK model's ("dek", "keytag") members of "crypto".
 */
static int config_refusal(struct rdma_error *err, enum rdma_error_code code, const char *path,
			  const char *member, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int config_refusal(struct rdma_error *err, enum rdma_error_code code, const char *path,
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

	return config_refusal(err, RDMA_ERR_INVALID_ARGUMENT, key ? "crypto" : de->field,
			      key ? "dek" : NULL, "%s", de->message);
}

static bool cfg_has_sig(const struct dp_transform_cfg *cfg)
{
	return dp_sig_present(&cfg->mem) || dp_sig_present(&cfg->wire);
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
			return config_refusal(err, RDMA_ERR_INVALID_ARGUMENT, sig_path(&conf->cfg), NULL,
					      "the MKEY was created without block_signature");
		if (!cfg_has_sig(&conf->cfg))
			return config_refusal(err, RDMA_ERR_INVALID_ARGUMENT, NULL, NULL,
					      "a signature needs mem or wire; reset_sig_attr removes it");
	}
	if (conf->set_crypto) {
		if (!(mkey->flags & RDMA_MKEY_CRYPTO))
			return config_refusal(err, RDMA_ERR_INVALID_ARGUMENT, "crypto", NULL,
					      "the MKEY was created without crypto");
		if (!conf->cfg.crypto.enabled)
			return config_refusal(err, RDMA_ERR_INVALID_ARGUMENT, "crypto", NULL,
					      "crypto attributes are required");
		if (!conf->crypto.dek)
			return config_refusal(err, RDMA_ERR_INVALID_ARGUMENT, "crypto", "dek",
					      "the DEK to use is required");
	}
	return 0;
}

/* The rules checked when the WR chain is finalized, on the merged result. */
static int finalize_check(struct rdma_device *dev, const struct dp_transform_cfg *cfg,
			  const struct rdma_mkey_layout *layout, uint64_t length, struct rdma_error *err)
{
	struct dp_error de;

	if (!cfg_has_sig(cfg) && !cfg->crypto.enabled)
		return 0;
	if (dp_transform_cfg_validate(cfg, &de) < 0)
		return dp_refusal(err, &de);
	if (length > UINT32_MAX)
		return rdma_error_invalid(err, layout->type == RDMA_LAYOUT_INTERLEAVED ? "interleaved" : "layout",
					  "an MKEY with signature or crypto covers at most %u bytes", UINT32_MAX);
	if (cfg->crypto.enabled && !(dev->caps.crypto_engines & RDMA_CRYPTO_AES_XTS_MULTI_BLOCK) &&
	    length > cfg->crypto.data_unit_size)
		return config_refusal(err, RDMA_ERR_INVALID_ARGUMENT, "crypto", "data_unit_size",
				      "%s encrypts one data unit per MKEY: the layout's %llu bytes "
				      "exceed it", dev->name, (unsigned long long)length);
	return 0;
}

/* ---- DEKs (daemon/verbs/dek.h) ---- */

/* A DEK error as a field error of the configure (the DEK model names "dek", "keytag"). */
static int dek_refusal(struct rdma_error *err, enum rdma_error_code code)
{
	char member[sizeof(err->field)], reason[sizeof(err->reason)];

	if (err->code != RDMA_ERR_INVALID_ARGUMENT && err->code != RDMA_ERR_INVALID_STATE)
		return -EINVAL;
	/* config_refusal overwrites err */
	memcpy(member, err->field, sizeof(member));
	memcpy(reason, err->reason, sizeof(reason));
	return config_refusal(err, code, "crypto", member, "%s", reason);
}

/*
 * The DEK of a crypto configure: it must exist, be usable (state READY) and
 * serve the MKEY's PD.  The keytag is the device's business at traffic time.
 */
static int dek_get(struct rdma_device *dev, const struct rdma_mkey *mkey, uint32_t handle,
		   struct rdma_dek **dek, const uint8_t **key, size_t *key_len, struct rdma_error *err)
{
	*dek = rdma_dek_lookup(dev, handle, err);
	if (!*dek)
		return -ENOENT;
	*key = rdma_dek_key(*dek, key_len, err);
	if (!*key)
		return dek_refusal(err, RDMA_ERR_INVALID_STATE);
	if (rdma_dek_check_pd(*dek, mkey->pd->handle, err) < 0)
		return dek_refusal(err, RDMA_ERR_INVALID_ARGUMENT);
	return 0;
}

/*
 * The new transform and one per dataplane worker (*workers, n of them), or
 * NULL when there is neither signature nor crypto.
 */
static int transform_build(struct rdma_device *dev, const struct rdma_mkey *mkey,
			   const struct dp_transform_cfg *cfg, const struct rdma_mkey_crypto *crypto,
			   struct rdma_object **dek_obj, struct dp_transform **out,
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
	if (!cfg_has_sig(cfg) && !cfg->crypto.enabled)
		return 0;
	if (cfg->crypto.enabled) {
		r = dek_get(dev, mkey, crypto->dek, &dek, &key, &key_len, err);
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
		transforms_free(*out, *workers, *n);
		*out = NULL;
		*workers = NULL;
		return r == -ENOMEM ? rdma_error_system(err, r) : dp_refusal(err, &de);
	}
	return 0;
}

int rdma_mkey_configure(struct rdma_device *dev, struct rdma_mkey *mkey,
			const struct rdma_mkey_conf *conf, struct rdma_error *err)
{
	struct rdma_mkey_layout layout = { 0 };
	struct dp_transform_cfg cfg;
	struct rdma_mkey_crypto crypto;
	struct dp_transform *transform, **worker_transforms;
	struct rdma_object *dek_obj;
	unsigned n_worker_transforms;
	int r;

	if (mkey->pool && !mkey->borrower)
		return rdma_error_state(err, "handle", "the MKEY is in pool %s: borrow it first",
					rdma_pool_name(mkey->pool));
	r = idle(dev, mkey, err);
	if (r < 0)
		return r;
	r = setters_check(dev, mkey, conf, err);
	if (r < 0)
		return r;
	if (conf->set_layout) {
		r = layout_copy(&layout, &conf->layout);
		if (r < 0)
			return rdma_error_system(err, -ENOMEM);
		r = layout_check(dev, mkey, &layout, err);
	} else {
		r = layout_copy(&layout, &mkey->layout);
		if (r < 0)
			rdma_error_system(err, -ENOMEM);
	}
	if (r < 0)
		goto fail;
	merge(mkey, conf, &cfg, &crypto);
	{
		struct rdma_mkey tmp = { .layout = layout };

		r = finalize_check(dev, &cfg, &layout, rdma_mkey_length(&tmp), err);
	}
	if (r < 0)
		goto fail;
	/* Rebuilt every time: the MKEY's reference keeps its DEK alive, and a new transform starts clean. */
	r = transform_build(dev, mkey, &cfg, &crypto, &dek_obj, &transform, &worker_transforms,
			    &n_worker_transforms, err);
	if (r < 0)
		goto fail;

	/* Nothing can fail from here: the configure takes effect. */
	mkey_clear(mkey);
	mkey->layout = layout;
	for (unsigned i = 0; i < layout.n; i++)
		rdma_object_use(&mkey->obj, &layout.entries[i].mr_obj->obj);
	rdma_object_use(&mkey->obj, dek_obj);
	mkey->transform = transform;
	mkey->worker_transforms = worker_transforms;
	mkey->n_worker_transforms = n_worker_transforms;
	mkey->cfg = cfg;
	mkey->crypto = crypto;
	mkey->sig_set = cfg_has_sig(&cfg);
	mkey->crypto_set = cfg.crypto.enabled;
	if (conf->set_access)
		mkey->access = conf->access;
	mkey->configured = true;
	/* Re-arms signature-error detection (SET_PSV on the next configure, §3.5). */
	mkey->sig_armed = true;
	mkey->configures++;
	publish(dev, mkey);
	return 0;
fail:
	layout_free(&layout);
	return r;
}

void rdma_mkey_invalidate(struct rdma_device *dev, struct rdma_mkey *mkey)
{
	rdma_device_key_clear(dev, mkey->obj.handle);
	mkey_clear(mkey);
	dp_transform_cfg_init(&mkey->cfg);
	memset(&mkey->crypto, 0, sizeof(mkey->crypto));
	mkey->sig_set = mkey->crypto_set = false;
	mkey->access = 0;
	mkey->configured = false;
	mkey->sig_armed = false;
	mkey->err_pending = false;
	memset(&mkey->err, 0, sizeof(mkey->err));
}

/* ---- transfers ---- */

/* The layout as the NIC walks it: entries by address (*entries malloc'ed). */
static int layout_context(const struct rdma_mkey *mkey, struct dp_mkey *ctx)
{
	const struct rdma_mkey_layout *l = &mkey->layout;

	ctx->rounds = l->type == RDMA_LAYOUT_INTERLEAVED ? l->repeat_count : 1;
	ctx->n_entries = l->n;
	ctx->length = rdma_mkey_length(mkey);
	ctx->entries = calloc(l->n ? l->n : 1, sizeof(*ctx->entries));
	if (!ctx->entries)
		return -ENOMEM;
	for (unsigned i = 0; i < l->n; i++)
		ctx->entries[i] = (struct dp_mkey_entry){
			.addr = l->entries[i].mr_obj->addr + l->entries[i].offset,
			.length = l->entries[i].length, .skip = l->entries[i].skip,
		};
	return 0;
}

/* Copies the first length bytes of the layout's memory out (gather) or in (scatter). */
static int layout_copy_bytes(const struct rdma_mkey *mkey, uint8_t *buf, uint64_t length, bool in)
{
	struct dp_mkey ctx = { 0 };
	struct dp_mkey_span span = { .mkey = &ctx, .mem_length = length };

	if (layout_context(mkey, &ctx) < 0)
		return -ENOMEM;
	if (in)
		dp_mkey_scatter(&span, buf);
	else
		dp_mkey_gather(&span, buf);
	free(ctx.entries);
	return 0;
}

/* The MKEY can carry traffic (else the device would fail the operation). */
static int usable(struct rdma_device *dev, const struct rdma_mkey *mkey, struct rdma_error *err)
{
	if (!mkey->configured)
		return rdma_error_state(err, "handle", "the MKEY is free: configure it first");
	if (mkey->layout.type == RDMA_LAYOUT_NONE)
		return rdma_error_state(err, "layout", "the MKEY has no layout");
	if ((mkey->flags & RDMA_MKEY_CRYPTO) && !mkey->crypto_set)
		return config_refusal(err, RDMA_ERR_INVALID_STATE, "crypto", NULL,
				      "an MKEY created with crypto needs crypto attributes before traffic");
	if (mkey->crypto_set) {
		/* The MKEY holds its DEK: the lookup cannot fail.  An absent keytag is 8 zero bytes. */
		struct rdma_dek *dek = rdma_dek_lookup(dev, mkey->crypto.dek, err);

		if (!dek || rdma_dek_check_keytag(dek, mkey->crypto.keytag, err) < 0)
			return dek ? dek_refusal(err, RDMA_ERR_INVALID_STATE) : -ENOENT;
	}
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
		atomic_fetch_add_explicit(&mkey->counters.sig_errors, 1, memory_order_relaxed);
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

	r = usable(dev, mkey, err);
	if (r == 0)
		r = idle(dev, mkey, err);
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
		return config_refusal(err, RDMA_ERR_INVALID_STATE, NULL, NULL,
				      "the recorded error is from the %s domain, which has no signature any more",
				      mkey->err_dir == DP_TX ? "memory" : "wire");
	*rec = mkey->err;
	mkey->err_pending = false;
	return 0;
}

/* ---- the NIC's context ---- */

/*
 * What the workers see of the MKEY from now on: its context, rebuilt at
 * each configure (the workers' transforms move into it), published in the
 * key table.  An MKEY that cannot carry traffic is published unusable, so a
 * WR through it completes with an error, as on the device.
 */
static void publish(struct rdma_device *dev, struct rdma_mkey *mkey)
{
	struct dp_key *k = calloc(1, sizeof(*k));
	struct dp_mkey *ctx = calloc(1, sizeof(*ctx));
	struct rdma_error err;

	if (!k || !ctx || layout_context(mkey, ctx) < 0) {
		log_error("MKEY 0x%x: out of memory; the workers will not use it", mkey->obj.handle);
		free(k);
		free(ctx);
		rdma_device_key_clear(dev, mkey->obj.handle);
		return;
	}
	ctx->pd = mkey->pd->handle;
	ctx->access = mkey->access;
	ctx->usable = usable(dev, mkey, &err) == 0;
	ctx->counters = &mkey->counters;
	ctx->transforms = mkey->worker_transforms;
	ctx->n_transforms = mkey->n_worker_transforms;
	mkey->worker_transforms = NULL;
	mkey->n_worker_transforms = 0;
	*k = (struct dp_key){ .key = mkey->obj.handle, .kind = DP_KEY_MKEY, .pd = ctx->pd,
			      .access = ctx->access, .rkey = true, .mkey = ctx };
	rdma_device_key_set(dev, k);
}
