/* SPDX-License-Identifier: MIT */
/* rdmad.conf(5): "key = value" lines; '#' starts a comment. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define RDMAD_CONFIG_PATH "/etc/rdmad/rdmad.conf"
#define CONFIG_PATH_MAX 1024
#define CONFIG_NAME_MAX 32
#define CONFIG_IMPORT_KEKS_MAX 16

struct rdmad_config {
	int log_level;
	unsigned max_connections;
	unsigned max_connections_per_uid;
	uint64_t max_mr_size;     /* bytes of one daemon-allocated MR */
	int recovery;             /* enum rdma_recovery_policy of QPs created without one */
	/* Crypto officer's provisioning: the device's login credential and import KEKs. */
	char crypto_credential[CONFIG_PATH_MAX];
	struct config_import_kek {
		char name[CONFIG_NAME_MAX];
		char path[CONFIG_PATH_MAX];
	} import_keks[CONFIG_IMPORT_KEKS_MAX];
	unsigned n_import_keks;
};

/* The import KEK called name, or NULL. */
const struct config_import_kek *config_find_import_kek(const struct rdmad_config *config,
							const char *name);

#define RDMAD_MAX_MR_SIZE_DEFAULT (1ull << 30)
#define RDMAD_MAX_MR_SIZE_MAX     (1ull << 40)

void config_defaults(struct rdmad_config *config);
/*
 * Reads path over the defaults.  A missing file is no error.  On a bad line
 * returns -EINVAL with "FILE:LINE: what" in err, and config is left untouched.
 */
int config_load(const char *path, struct rdmad_config *config, char *err, size_t err_size);
