/* SPDX-License-Identifier: MIT */
#include "daemon/core/config.h"
#include "daemon/verbs/recovery.h"
#include "lib/log.h"
#include "lib/varlink/varlink.h"

#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void config_defaults(struct rdmad_config *config)
{
	*config = (struct rdmad_config) {
		.log_level = LOG_INFO,
		.limits = VARLINK_LIMITS_DEFAULT,
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

/* A setting that is a number in [min, max], times scale, into the field at offset. */
struct number_setting {
	const char *key;
	const char *what;     /* "a number", "a number of bytes", ... */
	uint64_t min, max;
	uint64_t scale;       /* seconds in the file are microseconds in the field */
	size_t offset;
	enum { FIELD_UNSIGNED, FIELD_SIZE, FIELD_U64 } type;
};

#define LIMIT(f) offsetof(struct rdmad_config, limits.f)
#define USEC    VARLINK_USEC_PER_SEC

static const struct number_setting number_settings[] = {
	{ "max_connections", "a number", 1, 65536, 1, LIMIT(max_connections), FIELD_UNSIGNED },
	{ "max_connections_per_uid", "a number", 1, 65536, 1, LIMIT(max_per_uid), FIELD_UNSIGNED },
	{ "connections_reserved_for_root", "a number", 0, 65535, 1, LIMIT(reserved_for_root),
	  FIELD_UNSIGNED },
	{ "connection_output_budget", "a number of bytes", 4096, 1ull << 30, 1, LIMIT(output_budget),
	  FIELD_SIZE },
	{ "connection_output_timeout", "a number of seconds", 0, 86400, USEC,
	  LIMIT(output_timeout_usec), FIELD_U64 },
	{ "connection_incomplete_timeout", "a number of seconds", 0, 86400, USEC,
	  LIMIT(incomplete_timeout_usec), FIELD_U64 },
	{ "connection_idle_timeout", "a number of seconds", 0, 86400, USEC,
	  LIMIT(idle_timeout_usec), FIELD_U64 },
	{ "connection_buffer_budget", "a number of bytes", 1ull << 20, 1ull << 40, 1,
	  LIMIT(buffer_budget), FIELD_SIZE },
	{ "max_mr_size", "a number of bytes", 1, RDMAD_MAX_MR_SIZE_MAX, 1,
	  offsetof(struct rdmad_config, max_mr_size), FIELD_U64 },
	{ "busy_poll_usec", "a number of microseconds", 0, RDMAD_BUSY_POLL_USEC_MAX, 1,
	  offsetof(struct rdmad_config, busy_poll_usec), FIELD_UNSIGNED },
};

static const struct number_setting *find_number_setting(const char *key)
{
	for (size_t i = 0; i < sizeof(number_settings) / sizeof(number_settings[0]); i++)
		if (strcmp(number_settings[i].key, key) == 0)
			return &number_settings[i];
	return NULL;
}

static int apply_number(struct rdmad_config *c, const struct number_setting *n, const char *value,
			char *msg, size_t size)
{
	char *field = (char *)c + n->offset;
	uint64_t v;

	if (parse_u64(value, n->min, n->max, &v) < 0) {
		snprintf(msg, size, "%s: '%s' is not %s in %llu-%llu", n->key, value, n->what,
			 (unsigned long long)n->min, (unsigned long long)n->max);
		return -EINVAL;
	}
	v *= n->scale;
	switch (n->type) {
	case FIELD_UNSIGNED:
		*(unsigned *)field = (unsigned)v;
		break;
	case FIELD_SIZE:
		*(size_t *)field = (size_t)v;
		break;
	case FIELD_U64:
		*(uint64_t *)field = v;
		break;
	}
	return 0;
}

/* "unknown setting 'KEY' (known: log_level, max_connections, ..., import_kek.NAME)" */
static void unknown_setting(const char *key, char *msg, size_t size)
{
	size_t used = (size_t)snprintf(msg, size, "unknown setting '%s' (known: log_level", key);

	for (size_t i = 0; i < sizeof(number_settings) / sizeof(number_settings[0]) && used < size; i++)
		used += (size_t)snprintf(msg + used, size - used, ", %s", number_settings[i].key);
	if (used < size)
		snprintf(msg + used, size - used, ", recovery, crypto_credential, import_kek.NAME)");
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
	const struct number_setting *number;

	if (strcmp(key, "log_level") == 0) {
		int level = log_level_from_string(value);

		if (level < 0) {
			snprintf(msg, size, "log_level: '%s' is not one of emerg, alert, crit, err, "
				 "warning, notice, info, debug", value);
			return -EINVAL;
		}
		c->log_level = level;
	} else if ((number = find_number_setting(key))) {
		return apply_number(c, number, value, msg, size);
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
		unknown_setting(key, msg, size);
		return -EINVAL;
	}
	return 0;
}

/* What no single line can say wrong. */
static int check(const char *path, const struct rdmad_config *c, char *err, size_t err_size)
{
	if (c->limits.reserved_for_root >= c->limits.max_connections) {
		snprintf(err, err_size, "%s: connections_reserved_for_root (%u) must be less than "
			 "max_connections (%u)", path, c->limits.reserved_for_root,
			 c->limits.max_connections);
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
		char msg[512], *key, *value, *eq, *hash;

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
		r = check(path, &c, err, err_size);
	if (r == 0)
		*config = c;
	return r;
}
