/* SPDX-License-Identifier: MIT */
#include "daemon/verbs/crypto_login.h"
#include "daemon/verbs/keyfile.h"
#include "daemon/verbs/keywrap.h"
#include "daemon/verbs/secret.h"
#include "lib/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rdma_crypto_login {
	char kek_name[RDMA_KEK_NAME_MAX];
	char kek_path[RDMA_CRYPTO_PATH_MAX];   /* as configured at login, to notice a change */
	uint8_t *kek;                     /* secure memory, CRYPTO_KEK_MAX bytes */
	size_t kek_len;
};

const char *rdma_crypto_login_state_name(enum rdma_crypto_login_state state)
{
	switch (state) {
	case RDMA_CRYPTO_LOGIN_VALID:    return "valid";
	case RDMA_CRYPTO_LOGIN_NO_LOGIN: return "no_login";
	case RDMA_CRYPTO_LOGIN_INVALID:  return "invalid";
	}
	return "?";
}

/* "a, b, c" of the configured KEK names, for messages. */
static void kek_names(const struct rdma_crypto_config *config, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < config->n_import_keks && used < size; i++)
		used += snprintf(buf + used, size - used, "%s%s", i ? ", " : "",
				 config->import_keks[i].name);
}

int crypto_import_kek_read(const struct rdma_crypto_config *config, const char *name, const char *field,
			   uint8_t *kek, size_t *len, struct rdma_error *err)
{
	const struct rdma_import_kek *k = rdma_crypto_config_kek(config, name);
	struct rdma_error file_err;
	char names[256];

	if (!k) {
		kek_names(config, names, sizeof(names));
		return rdma_error_invalid(err, field, "no import KEK '%s' is configured (rdmad.conf has: "
					  "%s)", name, names[0] ? names : "none");
	}
	/* The KEK file is the crypto officer's, not the caller's: its faults are the daemon's state. */
	if (keyfile_read(k->path, field, kek, CRYPTO_KEK_MAX, len, &file_err) < 0)
		return rdma_error_state(err, field, "import KEK '%s': %s", name, file_err.reason);
	if (*len != 16 && *len != 32) {
		explicit_bzero(kek, CRYPTO_KEK_MAX);
		return rdma_error_state(err, field, "import KEK '%s': %s holds %zu bytes; an import KEK "
					"is 16 or 32 bytes", name, k->path, *len);
	}
	return 0;
}

/* The KEK a login without --kek means: the only one configured. */
static int default_kek(const struct rdma_crypto_config *config, const char **name, struct rdma_error *err)
{
	char names[256];

	if (config->n_import_keks == 0)
		return rdma_error_unsupported(err, "kek", "no import KEK is configured (import_kek.NAME "
					      "in rdmad.conf)");
	if (config->n_import_keks > 1) {
		kek_names(config, names, sizeof(names));
		return rdma_error_invalid(err, "kek", "%u import KEKs are configured (%s); name one",
					  config->n_import_keks, names);
	}
	*name = config->import_keks[0].name;
	return 0;
}

/* Does the credential file unwrap under kek to the device's credential? */
static int check_credential(const struct rdma_crypto_config *config, const char *credential_file,
			    const char *kek_name, const uint8_t *kek, size_t kek_len,
			    struct rdma_error *err)
{
	const size_t wrapped_len = CRYPTO_CREDENTIAL_LEN + KEYWRAP_OVERHEAD;
	uint8_t *wrapped = secret_alloc(wrapped_len + CRYPTO_CREDENTIAL_LEN * 2);
	uint8_t *given = wrapped + wrapped_len, *stored = given + CRYPTO_CREDENTIAL_LEN;
	struct rdma_error file_err;
	size_t len;
	int r;

	if (!wrapped)
		return rdma_error_unsupported(err, "credential_file", "out of secure memory");
	r = keyfile_read(config->credential, "crypto_credential", stored,
			 CRYPTO_CREDENTIAL_LEN, &len, &file_err);
	if (r < 0)
		r = rdma_error_state(err, "login", "the device's credential: %s", file_err.reason);
	else if (len != CRYPTO_CREDENTIAL_LEN)
		r = rdma_error_state(err, "login", "the device's credential %s holds %zu bytes, not %d",
				     config->credential, len, CRYPTO_CREDENTIAL_LEN);
	if (r == 0)
		r = keyfile_read(credential_file, "credential_file", wrapped, wrapped_len, &len, err);
	if (r == 0 && len != wrapped_len)
		r = rdma_error_invalid(err, "credential_file", "%s holds %zu bytes; a wrapped credential "
				       "is %zu bytes", credential_file, len, wrapped_len);
	/* One answer for a wrong KEK and a wrong credential: no oracle for either. */
	if (r == 0 && (keywrap_unwrap(kek, kek_len, wrapped, wrapped_len, given) < 0 ||
		       !secret_equal(given, stored, CRYPTO_CREDENTIAL_LEN)))
		r = rdma_error_invalid(err, "credential_file", "%s is not the device's credential "
				       "wrapped under import KEK '%s'", credential_file, kek_name);
	secret_free(wrapped, wrapped_len + CRYPTO_CREDENTIAL_LEN * 2);
	return r;
}

int rdma_crypto_login(struct rdma_device *dev, const struct rdma_crypto_config *config,
		      const char *credential_file, const char *kek, struct rdma_error *err)
{
	struct rdma_crypto_login *login;
	int r;

	if (dev->crypto_login)
		return rdma_error_state(err, "login", "a crypto login is open already (import KEK "
					"'%s'); log out first", dev->crypto_login->kek_name);
	if (!config->credential[0])
		return rdma_error_unsupported(err, "login", "no crypto_credential is configured in "
					      "rdmad.conf: the device has no credential to log in with");
	if (!kek && (r = default_kek(config, &kek, err)) < 0)
		return r;
	login = calloc(1, sizeof(*login));
	if (!login || !(login->kek = secret_alloc(CRYPTO_KEK_MAX))) {
		free(login);
		return rdma_error_system(err, -ENOMEM);
	}
	r = crypto_import_kek_read(config, kek, "kek", login->kek, &login->kek_len, err);
	if (r == 0)
		r = check_credential(config, credential_file, kek, login->kek, login->kek_len, err);
	if (r < 0) {
		secret_free(login->kek, CRYPTO_KEK_MAX);
		free(login);
		log_warning("%s: crypto login with import KEK '%s' refused: %s", dev->name, kek,
			    err->reason);
		return r;
	}
	snprintf(login->kek_name, sizeof(login->kek_name), "%s", kek);
	snprintf(login->kek_path, sizeof(login->kek_path), "%s",
		 rdma_crypto_config_kek(config, kek)->path);
	dev->crypto_login = login;
	log_notice("%s: crypto login with import KEK '%s'", dev->name, kek);
	return 0;
}

void rdma_crypto_login_free(struct rdma_device *dev)
{
	struct rdma_crypto_login *login = dev->crypto_login;

	if (!login)
		return;
	secret_free(login->kek, CRYPTO_KEK_MAX);
	free(login);
	dev->crypto_login = NULL;
}

int rdma_crypto_logout(struct rdma_device *dev, struct rdma_error *err)
{
	if (!dev->crypto_login)
		return rdma_error_state(err, "login", "there is no crypto login to end");
	log_notice("%s: crypto logout (import KEK '%s')", dev->name, dev->crypto_login->kek_name);
	rdma_crypto_login_free(dev);
	return 0;
}

enum rdma_crypto_login_state rdma_crypto_login_state(const struct rdma_device *dev,
						     const struct rdma_crypto_config *config,
						     const char **kek)
{
	const struct rdma_crypto_login *login = dev->crypto_login;
	const struct rdma_import_kek *k;

	*kek = login ? login->kek_name : NULL;
	if (!login)
		return RDMA_CRYPTO_LOGIN_NO_LOGIN;
	/* A crypto officer who takes the KEK or the credential away ends what they allowed. */
	k = rdma_crypto_config_kek(config, login->kek_name);
	if (!k || strcmp(k->path, login->kek_path) != 0 || !config->credential[0])
		return RDMA_CRYPTO_LOGIN_INVALID;
	return RDMA_CRYPTO_LOGIN_VALID;
}

const uint8_t *rdma_crypto_login_kek(const struct rdma_device *dev,
				     const struct rdma_crypto_config *config, size_t *len,
				     const char **name, struct rdma_error *err)
{
	switch (rdma_crypto_login_state(dev, config, name)) {
	case RDMA_CRYPTO_LOGIN_NO_LOGIN:
		rdma_error_state(err, "login", "a wrapped import needs a crypto login "
				 "(rdmactl dek login)");
		return NULL;
	case RDMA_CRYPTO_LOGIN_INVALID:
		rdma_error_state(err, "login", "the crypto login is invalid: import KEK '%s' or the "
				 "credential is no longer configured; log out and in again", *name);
		return NULL;
	case RDMA_CRYPTO_LOGIN_VALID:
		break;
	}
	*len = dev->crypto_login->kek_len;
	return dev->crypto_login->kek;
}
