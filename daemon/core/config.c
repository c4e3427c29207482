/* SPDX-License-Identifier: MIT */
#include "daemon/core/config.h"
#include "daemon/verbs/recovery.h"
#include "lib/log.h"
#include "lib/varlink/varlink.h"

#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void config_defaults(struct rdmad_config *config)
{
	*config = (struct rdmad_config) {
		.log_level = LOG_INFO,
		.max_connections = VARLINK_CONNECTIONS_MAX,
		.max_connections_per_uid = VARLINK_PER_UID_MAX,
		.max_mr_size = RDMAD_MAX_MR_SIZE_DEFAULT,
		.busy_poll_usec = RDMAD_BUSY_POLL_USEC_DEFAULT,
	};
}

static int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_unsigned(const char *s, unsigned min, unsigned max, unsigned *out)
{
	uint64_t v;
	int r = parse_u64(s, min, max, &v);

	if (r == 0)
		*out = (unsigned)v;
	return r;
}

static char *strip(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

/* Paths of key material: absolute, as the daemon's working directory is no one's business. */
static int set_path(char *dst, const char *key, const char *value, char *msg, size_t size)
{
	if (value[0] != '/' || strlen(value) >= RDMA_CRYPTO_PATH_MAX) {
		snprintf(msg, size, "%s: '%s' is not an absolute path of less than %d bytes", key, value,
			 RDMA_CRYPTO_PATH_MAX);
		return -EINVAL;
	}
	strcpy(dst, value);
	return 0;
}

static bool valid_name(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n >= RDMA_KEK_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '_' && name[i] != '-')
			return false;
	return true;
}

/* import_kek.NAME = PATH: an import KEK the crypto login can name (rdmad.conf(5)). */
static int add_import_kek(struct rdma_crypto_config *c, const char *name, const char *value,
			  char *msg, size_t size)
{
	struct rdma_import_kek *kek;
	char key[16 + RDMA_KEK_NAME_MAX];

	if (!valid_name(name)) {
		snprintf(msg, size, "import_kek.%s: the name must be 1-%d letters, digits, '_' or '-'",
			 name, RDMA_KEK_NAME_MAX - 1);
		return -EINVAL;
	}
	if (rdma_crypto_config_kek(c, name)) {
		snprintf(msg, size, "import_kek.%s: set twice", name);
		return -EINVAL;
	}
	if (c->n_import_keks >= RDMA_IMPORT_KEKS_MAX) {
		snprintf(msg, size, "import_kek.%s: no more than %d import KEKs", name,
			 RDMA_IMPORT_KEKS_MAX);
		return -EINVAL;
	}
	kek = &c->import_keks[c->n_import_keks];
	snprintf(key, sizeof(key), "import_kek.%s", name);
	if (set_path(kek->path, key, value, msg, size) < 0)
		return -EINVAL;
	strcpy(kek->name, name);
	c->n_import_keks++;
	return 0;
}

/* One "key = value" line; a message naming the key and its allowed values on error. */
static int apply(struct rdmad_config *c, const char *key, const char *value, char *msg, size_t size)
{
	if (strcmp(key, "log_level") == 0) {
		int level = log_level_from_string(value);

		if (level < 0) {
			snprintf(msg, size, "log_level: '%s' is not one of emerg, alert, crit, err, "
				 "warning, notice, info, debug", value);
			return -EINVAL;
		}
		c->log_level = level;
	} else if (strcmp(key, "max_connections") == 0) {
		if (parse_unsigned(value, 1, 65536, &c->max_connections) < 0) {
			snprintf(msg, size, "max_connections: '%s' is not a number in 1-65536", value);
			return -EINVAL;
		}
	} else if (strcmp(key, "max_connections_per_uid") == 0) {
		if (parse_unsigned(value, 1, 65536, &c->max_connections_per_uid) < 0) {
			snprintf(msg, size, "max_connections_per_uid: '%s' is not a number in 1-65536", value);
			return -EINVAL;
		}
	} else if (strcmp(key, "max_mr_size") == 0) {
		if (parse_u64(value, 1, RDMAD_MAX_MR_SIZE_MAX, &c->max_mr_size) < 0) {
			snprintf(msg, size, "max_mr_size: '%s' is not a number of bytes in 1-%llu", value,
				 RDMAD_MAX_MR_SIZE_MAX);
			return -EINVAL;
		}
	} else if (strcmp(key, "recovery") == 0) {
		c->recovery = rdma_recovery_policy_from_name(value);
		if (c->recovery < 0) {
			snprintf(msg, size, "recovery: '%s' is not one of manual, auto", value);
			return -EINVAL;
		}
	} else if (strcmp(key, "crypto_credential") == 0) {
		return set_path(c->crypto.credential, key, value, msg, size);
	} else if (strncmp(key, "import_kek.", strlen("import_kek.")) == 0) {
		return add_import_kek(&c->crypto, key + strlen("import_kek."), value, msg, size);
	} else {
		snprintf(msg, size, "unknown setting '%s' (known: log_level, max_connections, "
			 "max_connections_per_uid, max_mr_size, recovery, crypto_credential, import_kek.NAME)",
			 key);
		return -EINVAL;
	}
	return 0;
}

int config_load(const char *path, struct rdmad_config *config, char *err, size_t err_size)
{
	struct rdmad_config c = *config;
	char *line = NULL;
	size_t cap = 0;
	unsigned lineno = 0;
	FILE *f;
	int r = 0;

	f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT)
			return 0;
		r = -errno;
		snprintf(err, err_size, "%s: %s", path, strerror(errno));
		return r;
	}
	while (getline(&line, &cap, f) >= 0) {
		char msg[256], *key, *value, *eq, *hash;

		lineno++;
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		key = strip(line);
		if (!*key)
			continue;
		eq = strchr(key, '=');
		if (!eq) {
			snprintf(err, err_size, "%s:%u: expected 'key = value'", path, lineno);
			r = -EINVAL;
			break;
		}
		*eq = '\0';
		value = strip(eq + 1);
		key = strip(key);
		if (apply(&c, key, value, msg, sizeof(msg)) < 0) {
			snprintf(err, err_size, "%s:%u: %s", path, lineno, msg);
			r = -EINVAL;
			break;
		}
	}
	free(line);
	fclose(f);
	if (r == 0)
		*config = c;
	return r;
}
