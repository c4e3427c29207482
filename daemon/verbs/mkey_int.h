/* SPDX-License-Identifier: MIT */
/* Inside the MKEY rules: what mkey.c, mkey_configure.c and mkey_transfer.c share. */
#pragma once

#include "daemon/verbs/mkey.h"
#include "dataplane/mkey.h"

void mkey_layout_free(struct rdma_mkey_layout *l);
void mkey_transforms_free(struct dp_transform *main, struct dp_transform **workers, unsigned n);
/* A signature in either domain. */
bool mkey_cfg_has_sig(const struct dp_transform_cfg *cfg);
/* Drops what the configures set up; the PD reference stays. */
void mkey_clear(struct rdma_mkey *mkey);
/* ObjectInUse naming the QP when posted WRs go through the MKEY (it cannot change now). */
int mkey_check_idle(struct rdma_device *dev, struct rdma_mkey *mkey, struct rdma_error *err);
/* The MKEY can carry traffic (else the device would fail the operation). */
int mkey_check_usable(struct rdma_device *dev, const struct rdma_mkey *mkey, struct rdma_error *err);
/* The layout as the NIC walks it: entries by address (ctx->entries malloc'ed). */
int mkey_layout_context(const struct rdma_mkey *mkey, struct dp_mkey *ctx);
/* What the workers see of the MKEY from now on (after each configure). */
void mkey_publish(struct rdma_device *dev, struct rdma_mkey *mkey);
/* The key table entry of the MKEY as it is (its worker transforms move into it), NULL out of memory. */
struct dp_key *mkey_context(struct rdma_device *dev, struct rdma_mkey *mkey);

/* What a configure builds before it takes effect. */
struct mkey_prepared {
	struct rdma_mkey_layout layout;
	struct dp_transform_cfg cfg;
	struct rdma_mkey_crypto crypto;
	struct dp_transform *transform, **worker_transforms;
	unsigned n_worker_transforms;
	struct rdma_object *dek_obj;
	bool set_access;
	uint32_t access;
};
/* A configure's checks and what it builds, nothing changed (the control path's and a WR's). */
int mkey_configure_prepare(struct rdma_device *dev, const struct rdma_mkey *mkey,
			   const struct rdma_mkey_conf *conf, struct mkey_prepared *p, struct rdma_error *err);
void mkey_prepared_free(struct mkey_prepared *p);
/* The prepared configure takes effect in the model; p is emptied. */
void mkey_configure_apply(struct rdma_mkey *mkey, struct mkey_prepared *p);

/* A configure WR posted and not yet settled: what takes effect when the NIC reaches it. */
struct rdma_mkey_pending {
	struct mkey_prepared prepared;   /* worker transforms moved into entry */
	struct dp_key *entry;            /* the NIC's new context, in the WR's private slot */
	uint32_t qp;                     /* the QP it is posted on, and its context then */
	const void *qp_ctx;
	uint32_t sq_index;
};

/*
 * A refusal naming a member of the configure's config object: "config", then
 * "." path and "." member when given.
 */
int mkey_config_refusal(struct rdma_error *err, enum rdma_error_code code, const char *path,
			const char *member, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
