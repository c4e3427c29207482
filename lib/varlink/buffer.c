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

struct json_object *varlink_parse_message(const char *msg, size_t len)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *obj;

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
