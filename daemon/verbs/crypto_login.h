/* SPDX-License-Identifier: MIT */
/*
 * Crypto login (mlx5dv_crypto_login / _query_state / _logout; reference
 * mlx5_sig_crypto.md §1.7, §4.3), which wrapped DEK imports need.
 *
 * The crypto officer provisions, in rdmad.conf(5), the device's credential
 * (crypto_credential = FILE, 40 bytes) and import KEKs (import_kek.NAME = FILE,
 * 16 or 32 bytes).  A login names an import KEK and gives the credential
 * wrapped under it (AES-KW, 48 bytes); it succeeds when that unwraps to the
 * device's credential.  One session per device; the session keeps the KEK for
 * wrapped imports until logout.  It turns INVALID when the configuration no
 * longer has its KEK or the credential (after a reload).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "daemon/verbs/crypto_config.h"
#include "daemon/verbs/device.h"

#define CRYPTO_CREDENTIAL_LEN 40
#define CRYPTO_KEK_MAX        32

enum rdma_crypto_login_state {
	RDMA_CRYPTO_LOGIN_VALID,
	RDMA_CRYPTO_LOGIN_NO_LOGIN,
	RDMA_CRYPTO_LOGIN_INVALID,
};

/* kek NULL: the only import KEK configured.  Errors name credential_file, kek or login. */
int rdma_crypto_login(struct rdma_device *dev, const struct rdma_crypto_config *config,
		      const char *credential_file, const char *kek, struct rdma_error *err);
/* InvalidState (field "login") when there is no session. */
int rdma_crypto_logout(struct rdma_device *dev, struct rdma_error *err);
/* The state, and the session's KEK name (NULL without one). */
enum rdma_crypto_login_state rdma_crypto_login_state(const struct rdma_device *dev,
						     const struct rdma_crypto_config *config,
						     const char **kek);
const char *rdma_crypto_login_state_name(enum rdma_crypto_login_state state);
/* Frees the session with the device. */
void rdma_crypto_login_free(struct rdma_device *dev);

/*
 * The KEK of a VALID session for a wrapped import: NULL with InvalidState
 * (field "login") otherwise.
 */
const uint8_t *rdma_crypto_login_kek(const struct rdma_device *dev,
				     const struct rdma_crypto_config *config, size_t *len,
				     const char **name, struct rdma_error *err);

/*
 * Reads the import KEK called name from its file (config), into kek (secure
 * memory of CRYPTO_KEK_MAX bytes).  Errors carry field: InvalidArgument when
 * no such KEK is configured, InvalidState when its file is unusable.
 */
int crypto_import_kek_read(const struct rdma_crypto_config *config, const char *name, const char *field,
			   uint8_t *kek, size_t *len, struct rdma_error *err);
