/* SPDX-License-Identifier: MIT */
#include "daemon/verbs/crypto_config.h"

#include <string.h>

const struct rdma_import_kek *rdma_crypto_config_kek(const struct rdma_crypto_config *config,
						     const char *name)
{
	for (unsigned i = 0; i < config->n_import_keks; i++)
		if (strcmp(config->import_keks[i].name, name) == 0)
			return &config->import_keks[i];
	return NULL;
}
