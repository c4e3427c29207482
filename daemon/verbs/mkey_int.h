/* SPDX-License-Identifier: MIT */
/* Inside the MKEY rules: what mkey.c, mkey_configure.c and mkey_transfer.c share. */
#pragma once

#include "daemon/verbs/mkey.h"
#include "dataplane/mkey.h"

void mkey_layout_free(struct rdma_mkey_layout *l);
void mkey_transforms_free(struct dp_transform *main, struct dp_transform **workers, unsigned n);
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
/*
 * A refusal naming a member of the configure's config object: "config", then
 * "." path and "." member when given.
 */
int mkey_config_refusal(struct rdma_error *err, enum rdma_error_code code, const char *path,
			const char *member, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
