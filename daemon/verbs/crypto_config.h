/* SPDX-License-Identifier: MIT */
/*
 * The crypto officer's provisioning as the device model sees it: the device's
 * login credential file and the import KEK files by name (rdmad.conf(5)
 * crypto_credential and import_kek.NAME).  daemon/core fills it from the
 * configuration file and hands it to crypto login and DEK imports, so the model
 * knows nothing of the file.
 */
#pragma once

#define RDMA_CRYPTO_PATH_MAX   1024
#define RDMA_KEK_NAME_MAX      32
#define RDMA_IMPORT_KEKS_MAX   16

struct rdma_import_kek {
	char name[RDMA_KEK_NAME_MAX];
	char path[RDMA_CRYPTO_PATH_MAX];
};

struct rdma_crypto_config {
	char credential[RDMA_CRYPTO_PATH_MAX];   /* the device's credential file; "" for none */
	struct rdma_import_kek import_keks[RDMA_IMPORT_KEKS_MAX];
	unsigned n_import_keks;
};

/* The import KEK called name, or NULL. */
const struct rdma_import_kek *rdma_crypto_config_kek(const struct rdma_crypto_config *config,
						     const char *name);
