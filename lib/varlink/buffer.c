/* SPDX-License-Identifier: MIT */
#include "lib/varlink/buffer.h"
#include "lib/varlink/varlink.h"

#include <errno.h>
#include <json-c/printbuf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Memory for a buffer of cap bytes: large ones are mapped (see buffer.h). */
static char *buffer_alloc(size_t cap)
{
	void *p;

	if (cap <= VARLINK_BUFFER_KEEP)
		return malloc(cap);
	p = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static void buffer_free(char *p, size_t cap)
{
	if (!p)
		return;
	if (cap > VARLINK_BUFFER_KEEP) {
		munmap(p, cap);
		return;
	}
	explicit_bzero(p, cap);
	free(p);
}

void varlink_buffer_release(struct varlink_buffer *b)
{
	buffer_free(b->data, b->cap);
	memset(b, 0, sizeof(*b));
}

size_t varlink_buffer_pending(const struct varlink_buffer *b)
{
	return b->len - b->start;
}

/* Moves the pending bytes to a new allocation of cap bytes; the old one is wiped and freed. */
static int buffer_move(struct varlink_buffer *b, size_t cap)
{
	size_t pending = varlink_buffer_pending(b);
	char *p = buffer_alloc(cap);

	if (!p)
		return -ENOMEM;
	if (pending > 0)
		memcpy(p, b->data + b->start, pending);
	buffer_free(b->data, b->cap);
	b->data = p;
	b->cap = cap;
	b->start = 0;
	b->len = pending;
	return 0;
}

/* Moves the pending bytes to the front, wiping the tail they leave. */
static void buffer_compact(struct varlink_buffer *b)
{
	size_t pending = varlink_buffer_pending(b);

	memmove(b->data, b->data + b->start, pending);
	explicit_bzero(b->data + pending, b->len - pending);
	b->start = 0;
	b->len = pending;
}

size_t varlink_buffer_capacity_for(const struct varlink_buffer *b, size_t n)
{
	size_t need = varlink_buffer_pending(b) + n;
	size_t cap;

	if (need < n)
		return SIZE_MAX;
	/* Room at the end, or room once the pending bytes move to the front. */
	if (b->cap - b->len >= n || need <= b->cap)
		return b->cap;
	cap = b->cap ? b->cap : VARLINK_BUFFER_MIN;
	while (cap < need) {
		if (cap > SIZE_MAX / 2)
			return SIZE_MAX;
		cap *= 2;
	}
	return cap;
}

int varlink_buffer_reserve(struct varlink_buffer *b, size_t n)
{
	size_t cap;

	if (b->cap - b->len >= n)
		return 0;
	cap = varlink_buffer_capacity_for(b, n);
	if (cap == SIZE_MAX)
		return -ENOMEM;
	if (cap == b->cap) {
		buffer_compact(b);
		return 0;
	}
	return buffer_move(b, cap);
}

int varlink_buffer_shrink(struct varlink_buffer *b, size_t keep)
{
	int r;

	if (b->cap <= keep || varlink_buffer_pending(b) > keep / 2)
		return 0;
	r = buffer_move(b, keep);
	return r < 0 ? r : 1;
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

void varlink_buffer_consume_wipe(struct varlink_buffer *b, size_t n)
{
	explicit_bzero(b->data + b->start, n);
	varlink_buffer_consume(b, n);
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

/*
 * json-c gathers the bytes of each string in the tokener's printbuf (tok->pb
 * in json-c 0.16), which it grows with realloc() and frees without wiping.
 * Made as large as the whole message first, it never grows while parsing it,
 * as no string is longer than its message: the printbuf is then the one copy
 * to wipe, see tokener_free().  buf and size are public (json-c's own
 * printbuf_memappend_fast() macro uses them); printbuf_memset() would also
 * clear the bytes, a cost every call would pay for nothing.
 */
static struct json_tokener *tokener_new(size_t len)
{
	struct json_tokener *tok = json_tokener_new();
	struct printbuf *pb = tok ? tok->pb : NULL;

	if (!tok)
		return NULL;
	if ((size_t)pb->size < len + 1) {
		char *buf = realloc(pb->buf, len + 1);

		if (!buf) {
			json_tokener_free(tok);
			return NULL;
		}
		pb->buf = buf;
		pb->size = (int)len + 1;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	return tok;
}

static void tokener_free(struct json_tokener *tok)
{
	explicit_bzero(tok->pb->buf, (size_t)tok->pb->size);
	json_tokener_free(tok);
}

struct json_object *varlink_parse_message(const char *msg, size_t len)
{
	struct json_tokener *tok;
	struct json_object *obj;

	if (len >= INT_MAX || !json_text_ok(msg, len))
		return NULL;
	tok = tokener_new(len);
	if (!tok)
		return NULL;
	obj = json_tokener_parse_ex(tok, msg, (int)len);
	/* The tokener stops after the first value: "{}{}" must not pass; whitespace may. */
	if (obj && (json_tokener_get_error(tok) != json_tokener_success ||
		    !only_space(msg + json_tokener_get_parse_end(tok),
				len - json_tokener_get_parse_end(tok)) ||
		    !json_object_is_type(obj, json_type_object))) {
		json_object_put(obj);
		obj = NULL;
	}
	tokener_free(tok);
	return obj;
}

void varlink_json_wipe_strings(struct json_object *obj)
{
	switch (json_object_get_type(obj)) {
	case json_type_string:
		explicit_bzero((char *)json_object_get_string(obj),
			       (size_t)json_object_get_string_len(obj));
		break;
	case json_type_object: {
		json_object_object_foreach(obj, key, val) {
			(void)key;
			varlink_json_wipe_strings(val);
		}
		break;
	}
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(obj); i++)
			varlink_json_wipe_strings(json_object_array_get_idx(obj, i));
		break;
	default:
		break;
	}
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

struct json_object *varlink_params_keep(struct json_object *params)
{
	struct json_object *copy = NULL;

	if (params && json_object_deep_copy(params, &copy, NULL) < 0)
		return NULL;
	return copy;
}

void varlink_params_drop(struct json_object *kept)
{
	if (kept)
		varlink_json_wipe_strings(kept);
	json_object_put(kept);
}
