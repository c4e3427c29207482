/* SPDX-License-Identifier: MIT */
/*
 * Indirect MKEYs: creation and destruction, names, length, what a configure
 * leaves in one, and a configure WR settling (which every look at an MKEY
 * does first, so it lies under the configure rules of mkey_configure.c).
 */
#include "daemon/verbs/mkey.h"
#include "daemon/verbs/mkey_int.h"
#include "dataplane/keytab.h"
#include "dataplane/mkey.h"
#include "daemon/verbs/mr.h"
#include "daemon/verbs/qp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void mkey_layout_free(struct rdma_mkey_layout *l)
{
	free(l->entries);
	memset(l, 0, sizeof(*l));
}

void mkey_transforms_free(struct dp_transform *main, struct dp_transform **workers, unsigned n)
{
	dp_transform_destroy(main);
	for (unsigned i = 0; i < n; i++)
		dp_transform_destroy(workers[i]);
	free(workers);
}

static void drop_transforms(struct rdma_mkey *mkey)
{
	/* The workers' copies normally went to the NIC's context (publish); these were not handed over. */
	mkey_transforms_free(mkey->transform, mkey->worker_transforms, mkey->n_worker_transforms);
	mkey->transform = NULL;
	mkey->worker_transforms = NULL;
	mkey->n_worker_transforms = 0;
}

/* Drops what the configures set up; the PD reference stays. */
void mkey_clear(struct rdma_mkey *mkey)
{
	drop_transforms(mkey);
	mkey_layout_free(&mkey->layout);
	mkey->dek_obj = NULL;
	rdma_object_unuse_all(&mkey->obj);
	rdma_object_use(&mkey->obj, mkey->pd);   /* the first reference made: room is there */
}

static void mkey_release(struct rdma_device *dev, struct rdma_object *obj)
{
	struct rdma_mkey *mkey = rdma_mkey(obj);

	/* A configure WR the NIC executed takes effect (its entry is the table's); else it is dropped. */
	rdma_mkey_settle(dev, mkey);
	rdma_mkey_configure_wr_cancel(dev, mkey);
	/* First: no worker counts into the MKEY once it is freed. */
	rdma_device_key_clear(dev, obj->handle);
	drop_transforms(mkey);
	mkey_layout_free(&mkey->layout);
	free(mkey->worker_counters);
}

void rdma_mkey_invalidated(struct rdma_device *dev, struct rdma_mkey *mkey)
{
	if (mkey->configured)
		rdma_mkey_invalidate(dev, mkey);
}

/* One thread's counts added to the totals. */
static void add_counts(const struct dp_mkey_counters *c, uint64_t *transfers,
		       uint64_t sig_errors[DP_SIG_ERR_APPTAG + 1])
{
	*transfers += atomic_load_explicit(&c->transfers, memory_order_relaxed);
	for (unsigned t = 0; t <= DP_SIG_ERR_APPTAG; t++)
		sig_errors[t] += atomic_load_explicit(&c->sig_errors[t], memory_order_relaxed);
}

void rdma_mkey_counts(const struct rdma_mkey *mkey, uint64_t *transfers,
		      uint64_t sig_errors[DP_SIG_ERR_APPTAG + 1])
{
	*transfers = 0;
	memset(sig_errors, 0, (DP_SIG_ERR_APPTAG + 1) * sizeof(*sig_errors));
	add_counts(&mkey->counters, transfers, sig_errors);
	for (unsigned i = 0; i < mkey->n_worker_counters; i++)
		add_counts(&mkey->worker_counters[i], transfers, sig_errors);
}

static struct rdma_object *mkey_busy_user(struct rdma_device *dev, const struct rdma_object *obj)
{
	struct rdma_mkey *mkey = rdma_mkey((struct rdma_object *)obj);

	rdma_mkey_settle(dev, mkey);
	/* A configure WR posted: its QP uses the MKEY until it settles. */
	if (mkey->pending)
		return object_table_find(&dev->tables[RDMA_OBJ_QP], mkey->pending->qp);
	return rdma_device_key_user(dev, obj->handle);
}

const struct rdma_object_type rdma_mkey_type = {
	.size = sizeof(struct rdma_mkey),
	.release = mkey_release,
	.busy_user = mkey_busy_user,
};

/* Posted WRs go through the MKEY: a worker will read it, so it cannot change now. */
int mkey_check_idle(struct rdma_device *dev, struct rdma_mkey *mkey, struct rdma_error *err)
{
	struct rdma_object *user = mkey_busy_user(dev, &mkey->obj);

	return user ? rdma_error_in_use(err, &mkey->obj, user) : 0;
}

struct rdma_object *rdma_mkey_user(struct rdma_device *dev, struct rdma_mkey *mkey)
{
	return mkey_busy_user(dev, &mkey->obj);
}

bool rdma_mkey_idle(struct rdma_device *dev, struct rdma_mkey *mkey)
{
	return !mkey_busy_user(dev, &mkey->obj);
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
	case RDMA_MKEY_REMOTE_INVALIDATE: return "remote_invalidate";
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

	/*
	 * Every MKEY here is indirect (rdma-core's INDIRECT flag is implied), so no flag is
	 * create_flags INDIRECT alone: a plain MKEY, a layout and access with no offload.
	 */
	if (flags & ~RDMA_MKEY_FLAGS_ALL)
		return rdma_error_invalid(err, "flags", "none, or block_signature and/or crypto, "
					  "and remote_invalidate");
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
	mkey->n_worker_counters = rdma_device_cpus(dev, NULL, 0);
	if (mkey->n_worker_counters &&
	    !(mkey->worker_counters = aligned_alloc(64, mkey->n_worker_counters * sizeof(*mkey->worker_counters)))) {
		rdma_object_free(dev, obj);
		return rdma_error_system(err, -ENOMEM);
	}
	if (mkey->worker_counters)
		memset(mkey->worker_counters, 0, mkey->n_worker_counters * sizeof(*mkey->worker_counters));
	mkey->max_entries = entries;
	dp_transform_cfg_init(&mkey->cfg);
	*out = mkey;
	return 0;
}

struct rdma_mkey *rdma_mkey_lookup(struct rdma_device *dev, uint32_t key, struct rdma_error *err)
{
	struct rdma_object *obj = rdma_object_lookup(dev, RDMA_OBJ_MKEY, key, err);

	/* A configure WR the event has not told of yet: the model shows what the NIC did. */
	if (obj)
		rdma_mkey_settle(dev, rdma_mkey(obj));
	return obj ? rdma_mkey(obj) : NULL;
}

int rdma_mkey_destroy(struct rdma_device *dev, uint32_t key, struct rdma_error *err)
{
	struct rdma_mkey *mkey = rdma_mkey_lookup(dev, key, err);

	if (!mkey)
		return -ENOENT;
	if (mkey->pool)
		return rdma_error_state(err, "handle", "the MKEY belongs to pool %s and goes with it",
					mkey->pool_name);
	return rdma_object_destroy(dev, RDMA_OBJ_MKEY, key, err);
}

void rdma_mkey_conf_init(struct rdma_mkey_conf *conf)
{
	memset(conf, 0, sizeof(*conf));
	dp_transform_cfg_init(&conf->cfg);
}

uint64_t rdma_mkey_length(const struct rdma_mkey *mkey)
{
	const struct rdma_mkey_layout *l = &mkey->layout;
	uint64_t sum = 0;

	for (unsigned i = 0; i < l->n; i++)
		sum += l->entries[i].length;
	return l->type == RDMA_LAYOUT_INTERLEAVED ? sum * l->repeat_count : sum;
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

/* ---- what a configure leaves in the MKEY, and a configure WR settling ---- */

bool mkey_cfg_has_sig(const struct dp_transform_cfg *cfg)
{
	return dp_sig_present(&cfg->mem) || dp_sig_present(&cfg->wire);
}

void mkey_prepared_free(struct mkey_prepared *p)
{
	mkey_transforms_free(p->transform, p->worker_transforms, p->n_worker_transforms);
	mkey_layout_free(&p->layout);
	memset(p, 0, sizeof(*p));
}

/* What the MKEY holds: its PD, the MRs of its layout, its DEK (none of them may go under it). */
static void hold_refs(struct rdma_mkey *mkey)
{
	rdma_object_unuse_all(&mkey->obj);
	rdma_object_use(&mkey->obj, mkey->pd);   /* the first reference made: room is there */
	for (unsigned i = 0; i < mkey->layout.n; i++)
		rdma_object_use(&mkey->obj, &mkey->layout.entries[i].mr_obj->obj);
	rdma_object_use(&mkey->obj, mkey->dek_obj);
}

/* The prepared configure takes effect in the model (p is emptied); cannot fail. */
void mkey_configure_apply(struct rdma_mkey *mkey, struct mkey_prepared *p)
{
	mkey_clear(mkey);
	mkey->layout = p->layout;
	mkey->dek_obj = p->dek_obj;
	hold_refs(mkey);
	mkey->transform = p->transform;
	mkey->worker_transforms = p->worker_transforms;
	mkey->n_worker_transforms = p->n_worker_transforms;
	mkey->cfg = p->cfg;
	mkey->crypto = p->crypto;
	mkey->sig_set = mkey_cfg_has_sig(&p->cfg);
	mkey->crypto_set = p->cfg.crypto.enabled;
	if (p->set_access)
		mkey->access = p->access;
	mkey->configured = true;
	/* Re-arms signature-error detection (SET_PSV on the next configure, §3.5). */
	mkey->sig_armed = true;
	mkey->configures++;
	memset(p, 0, sizeof(*p));
}

/* The pending configure is over: taken effect (applied) or never will (dropped). */
static void pending_end(struct rdma_device *dev, struct rdma_mkey *mkey, bool applied)
{
	struct rdma_mkey_pending *pw = mkey->pending;

	mkey->pending = NULL;
	if (applied) {
		mkey_configure_apply(mkey, &pw->prepared);
		rdma_device_key_retire(dev, pw->entry);
	} else {
		mkey_prepared_free(&pw->prepared);
		dp_mkey_free(pw->entry->mkey);
		free(pw->entry);
		hold_refs(mkey);
	}
	free(pw);
}

void rdma_mkey_configure_wr_cancel(struct rdma_device *dev, struct rdma_mkey *mkey)
{
	if (mkey->pending)
		pending_end(dev, mkey, false);
}

void rdma_mkey_settle(struct rdma_device *dev, struct rdma_mkey *mkey)
{
	struct rdma_mkey_pending *pw = mkey->pending;
	struct rdma_object *obj;
	struct rdma_qp *qp;
	int r;

	if (!pw)
		return;
	obj = object_table_find(&dev->tables[RDMA_OBJ_QP], pw->qp);
	qp = obj && rdma_qp(obj)->ctx == pw->qp_ctx ? rdma_qp(obj) : NULL;
	r = rdma_device_key_settle(dev, pw->entry, qp, pw->sq_index);
	if (r != 0)
		pending_end(dev, mkey, r > 0);
}

/* ---- the NIC's walk of the layout (transfers and the context) ---- */

/* The layout as the NIC walks it: entries by address (*entries malloc'ed). */
int mkey_layout_context(const struct rdma_mkey *mkey, struct dp_mkey *ctx)
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


