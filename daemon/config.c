/* SPDX-License-Identifier: MIT */
#include "daemon/config.h"
#include "lib/log.h"
#include "lib/varlink/varlink.h"

#include <ctype.h>
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
	};
}

static int parse_unsigned(const char *s, unsigned min, unsigned max, unsigned *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v < min || v > max)
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
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
	} else {
		snprintf(msg, size, "unknown setting '%s' (known: log_level, max_connections, "
			 "max_connections_per_uid)", key);
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
