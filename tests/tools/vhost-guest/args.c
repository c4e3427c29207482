/* SPDX-License-Identifier: MIT */
/* args.c - reading one input line's words (see args.h). */
#include "args.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(struct args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct args *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->err, sizeof(a->err), fmt, ap);
	va_end(ap);
	return -1;
}

int args_split(struct args *a, char *line)
{
	char *save = NULL, *w;

	memset(a, 0, sizeof(*a));
	for (w = strtok_r(line, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save)) {
		if (a->n == ARGS_MAX)
			return fail(a, "too many words (at most %d)", ARGS_MAX);
		a->word[a->n++] = w;
	}
	return 0;
}

static bool is_pair(const char *w)
{
	return strchr(w, '=') != NULL;
}

const char *args_pos(struct args *a, unsigned i)
{
	unsigned k, seen = 0;

	for (k = 1; k < a->n; k++) {
		if (is_pair(a->word[k]))
			continue;
		if (++seen == i) {
			a->taken[k] = true;
			return a->word[k];
		}
	}
	return NULL;
}

/* The word index of key=..., from start on; -1 none. */
static int find(const struct args *a, const char *key, unsigned start)
{
	size_t len = strlen(key);
	unsigned k;

	for (k = start < 1 ? 1 : start; k < a->n; k++)
		if (!strncmp(a->word[k], key, len) && a->word[k][len] == '=')
			return (int)k;
	return -1;
}

bool args_has(const struct args *a, const char *key)
{
	return find(a, key, 1) >= 0;
}

/* The value of key, marked taken; NULL when absent (an error if required). */
static const char *value(struct args *a, const char *key, bool required, int *rc)
{
	int k = find(a, key, 1);

	*rc = 0;
	if (k < 0) {
		if (required)
			*rc = fail(a, "missing field %s=", key);
		return NULL;
	}
	if (find(a, key, (unsigned)k + 1) >= 0) {
		*rc = fail(a, "field %s given twice", key);
		return NULL;
	}
	a->taken[k] = true;
	return a->word[k] + strlen(key) + 1;
}

int parse_num(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-' || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end ? -1 : 0;
}

int args_num(struct args *a, const char *key, bool required, uint64_t max, uint64_t *v)
{
	uint64_t n;
	int rc;
	const char *s = value(a, key, required, &rc);

	if (!s)
		return rc;
	if (parse_num(s, &n) < 0 || n > max)
		return fail(a, "field %s: '%s' is not a number 0..%llu", key, s,
			    (unsigned long long)max);
	*v = n;
	return 0;
}

int args_u32(struct args *a, const char *key, bool required, uint32_t max, uint32_t *v)
{
	uint64_t n = *v;

	if (args_num(a, key, required, max, &n) < 0)
		return -1;
	*v = (uint32_t)n;
	return 0;
}

int args_u8(struct args *a, const char *key, bool required, uint8_t max, uint8_t *v)
{
	uint64_t n = *v;

	if (args_num(a, key, required, max, &n) < 0)
		return -1;
	*v = (uint8_t)n;
	return 0;
}

int args_str(struct args *a, const char *key, bool required, const char **v)
{
	int rc;
	const char *s = value(a, key, required, &rc);

	if (s)
		*v = s;
	return rc;
}

void names_list(const struct name_value *t, char *out, size_t len)
{
	size_t used = 0;

	out[0] = 0;
	for (; t->name && used < len; t++)
		used += (size_t)snprintf(out + used, len - used, "%s%s", used ? ", " : "", t->name);
}

static int lookup(const struct name_value *t, const char *name, size_t len, uint32_t *v)
{
	for (; t->name; t++) {
		if (strlen(t->name) == len && !strncmp(t->name, name, len)) {
			*v = t->value;
			return 0;
		}
	}
	return -1;
}

int args_enum(struct args *a, const char *key, bool required, const struct name_value *t,
	      uint32_t *v)
{
	char allowed[192];
	int rc;
	const char *s = value(a, key, required, &rc);

	if (!s)
		return rc;
	if (lookup(t, s, strlen(s), v) == 0)
		return 0;
	names_list(t, allowed, sizeof(allowed));
	return fail(a, "field %s: '%s' is not one of %s", key, s, allowed);
}

int args_flags(struct args *a, const char *key, bool required, const struct name_value *t,
	       uint32_t *v)
{
	char allowed[192];
	uint32_t bits = 0, bit;
	int rc;
	const char *s = value(a, key, required, &rc), *p;

	if (!s)
		return rc;
	if (!strcmp(s, "0")) {
		*v = 0;
		return 0;
	}
	for (p = s; *p; ) {
		size_t len = strcspn(p, ",");

		if (lookup(t, p, len, &bit) < 0) {
			names_list(t, allowed, sizeof(allowed));
			return fail(a, "field %s: '%.*s' is not one of %s (comma-separated) or 0",
				    key, (int)len, p, allowed);
		}
		bits |= bit;
		p += len;
		if (*p == ',')
			p++;
	}
	*v = bits;
	return 0;
}

long parse_hex(const char *s, uint8_t *out, size_t max)
{
	size_t len = strlen(s), i;

	if (len % 2 || len / 2 > max)
		return -1;
	for (i = 0; i < len; i++)
		if (!isxdigit((unsigned char)s[i]))
			return -1;
	for (i = 0; i < len / 2; i++) {
		char byte[3] = { s[2 * i], s[2 * i + 1], 0 };

		out[i] = (uint8_t)strtoul(byte, NULL, 16);
	}
	return (long)(len / 2);
}

int parse_gid(const char *s, uint8_t gid[16])
{
	uint8_t v4[4];

	if (inet_pton(AF_INET6, s, gid) == 1)
		return 0;
	if (inet_pton(AF_INET, s, v4) != 1)
		return -1;
	memset(gid, 0, 16);
	gid[10] = gid[11] = 0xff;
	memcpy(gid + 12, v4, 4);
	return 0;
}

int args_gid(struct args *a, const char *key, bool required, uint8_t gid[16])
{
	int rc;
	const char *s = value(a, key, required, &rc);

	if (!s)
		return rc;
	if (parse_gid(s, gid) < 0)
		return fail(a, "field %s: '%s' is not an IPv6 or IPv4 address", key, s);
	return 0;
}

int args_mac(struct args *a, const char *key, bool required, uint8_t mac[6])
{
	unsigned b[6], i;
	char tail;
	int rc;
	const char *s = value(a, key, required, &rc);

	if (!s)
		return rc;
	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5],
		   &tail) != 6)
		return fail(a, "field %s: '%s' is not a MAC address aa:bb:cc:dd:ee:ff", key, s);
	for (i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
	return 0;
}

const char *args_next(struct args *a, const char *key, unsigned *iter)
{
	int k = find(a, key, *iter);

	if (k < 0)
		return NULL;
	a->taken[k] = true;
	*iter = (unsigned)k + 1;
	return a->word[k] + strlen(key) + 1;
}

int args_done(struct args *a, unsigned positional)
{
	unsigned k, pos = 0;

	for (k = 1; k < a->n; k++) {
		if (a->taken[k])
			continue;
		if (is_pair(a->word[k]))
			return fail(a, "unknown field '%s' for %s", a->word[k], a->word[0]);
		if (++pos > positional)
			return fail(a, "unexpected word '%s' for %s", a->word[k], a->word[0]);
	}
	return 0;
}
