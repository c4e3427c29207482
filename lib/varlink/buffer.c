/* SPDX-License-Identifier: MIT */
#include "lib/varlink/buffer.h"
#include "lib/varlink/varlink.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void varlink_buffer_release(struct varlink_buffer *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

size_t varlink_buffer_pending(const struct varlink_buffer *b)
{
	return b->len - b->start;
}

int varlink_buffer_reserve(struct varlink_buffer *b, size_t n)
{
	size_t want;
	char *p;

	/* Move unconsumed bytes to the front before growing. */
	if (b->start > 0 && b->cap - b->len < n) {
		memmove(b->data, b->data + b->start, b->len - b->start);
		b->len -= b->start;
		b->start = 0;
	}
	if (b->cap - b->len >= n)
		return 0;
	want = b->cap ? b->cap : 4096;
	while (want - b->len < n) {
		if (want > SIZE_MAX / 2)
			return -ENOMEM;
		want *= 2;
	}
	p = realloc(b->data, want);
	if (!p)
		return -ENOMEM;
	b->data = p;
	b->cap = want;
	return 0;
}

int varlink_buffer_append(struct varlink_buffer *b, const void *data, size_t n)
{
	int r = varlink_buffer_reserve(b, n);

	if (r < 0)
		return r;
	memcpy(b->data + b->len, data, n);
	b->len += n;
	return 0;
}

const char *varlink_buffer_next_message(struct varlink_buffer *b, size_t *len)
{
	const char *begin = b->data + b->start;
	const char *nul;

	if (b->scanned >= b->len - b->start)
		return NULL;
	nul = memchr(begin + b->scanned, '\0', b->len - b->start - b->scanned);
	if (!nul) {
		b->scanned = b->len - b->start;
		return NULL;
	}
	*len = (size_t)(nul - begin);
	return begin;
}

void varlink_buffer_consume(struct varlink_buffer *b, size_t n)
{
	b->start += n;
	b->base += n;
	b->scanned = 0;
	if (b->start == b->len)
		b->start = b->len = 0;
}

static bool only_space(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\n' && p[i] != '\r')
			return false;
	return true;
}

/* Length of the UTF-8 sequence at p (RFC 3629: no overlong forms, no surrogates, ≤ U+10FFFF), or 0. */
static size_t utf8_sequence(const unsigned char *p, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		len = 3;
		if (p[0] == 0xe0)
			lo = 0xa0;
		else if (p[0] == 0xed)
			hi = 0x9f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		len = 4;
		if (p[0] == 0xf0)
			lo = 0x90;
		else if (p[0] == 0xf4)
			hi = 0x8f;
	} else
		return 0;
	if (n < len || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return len;
}

/* The string that just ended is an object key: a ':' comes next. */
static bool colon_follows(const unsigned char *p, size_t n)
{
	size_t i = 0;

	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
		i++;
	return i < n && p[i] == ':';
}

/*
 * What json-c lets through even with JSON_TOKENER_STRICT | VALIDATE_UTF8:
 * NaN and Infinity, "1.", raw control characters in strings, and overlong or
 * surrogate UTF-8.  None of it is JSON, and json-c would echo it back out.
 * And a key with "\u0000": json-c cuts keys at the NUL, so "name\u0000x"
 * would reach the method as "name" (string values keep their length, and
 * the interface check refuses a NUL in them).
 */
static bool json_text_ok(const char *msg, size_t len)
{
	const unsigned char *p = (const unsigned char *)msg;
	bool in_string = false, nul = false;

	for (size_t i = 0; i < len;) {
		unsigned char c = p[i];

		if (in_string) {
			size_t n;

			if (c < 0x20)
				return false;
			if (c == '\\') {
				nul |= len - i > 5 && memcmp(p + i + 1, "u0000", 5) == 0;
				i += 2; /* json-c checks the escape itself */
				continue;
			}
			if (c == '"') {
				in_string = false;
				if (nul && colon_follows(p + i + 1, len - i - 1))
					return false;
			}
			n = utf8_sequence(p + i, len - i);
			if (n == 0)
				return false;
			i += n;
			continue;
		}
		if (c == '"') {
			in_string = true;
			nul = false;
		} else if (c == '.' && (i + 1 >= len || p[i + 1] < '0' || p[i + 1] > '9'))
			return false;
		else if (!strchr("{}[]:,-+.0123456789eEtrufalsn \t\r\n", c) || c == '\0')
			return false;
		i++;
	}
	return true;
}

struct json_object *varlink_parse_message(const char *msg, size_t len)
{
	struct json_tokener *tok;
	struct json_object *obj;

	if (!json_text_ok(msg, len))
		return NULL;
	tok = json_tokener_new();
	if (!tok)
		return NULL;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	obj = json_tokener_parse_ex(tok, msg, (int)len);
	/* The tokener stops after the first value: "{}{}" must not pass; whitespace may. */
	if (obj && (json_tokener_get_error(tok) != json_tokener_success ||
		    !only_space(msg + json_tokener_get_parse_end(tok),
				len - json_tokener_get_parse_end(tok)) ||
		    !json_object_is_type(obj, json_type_object))) {
		json_object_put(obj);
		obj = NULL;
	}
	json_tokener_free(tok);
	return obj;
}

const char *varlink_json_string(struct json_object *obj, size_t *len)
{
	return json_object_to_json_string_length(obj, JSON_C_TO_STRING_PLAIN |
						 JSON_C_TO_STRING_NOSLASHESCAPE, len);
}

int varlink_buffer_append_message(struct varlink_buffer *b, struct json_object *obj)
{
	size_t len;
	const char *s = varlink_json_string(obj, &len);
	int r;

	if (!s)
		return -ENOMEM;
	r = varlink_buffer_reserve(b, len + 1);
	if (r < 0)
		return r;
	memcpy(b->data + b->len, s, len + 1); /* with its NUL */
	b->len += len + 1;
	return 0;
}
