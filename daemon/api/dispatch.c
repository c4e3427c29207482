/* SPDX-License-Identifier: MIT */
#include "daemon/api/dispatch.h"
#include "daemon/api/api.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for a field's path; the error keeps what fits of it. */
#define PATH_MAX_LEN 128

/* Where a field's value goes. */
#define AT(out, offset, type) ((type *)((char *)(out) + (offset)))

/* A field's path from its parent's: a path too long for the error is cut there. */
static void __attribute__((format(printf, 2, 3))) path_format(char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, PATH_MAX_LEN, fmt, ap);
	va_end(ap);
}

static int refuse_parameter(struct api_refusal *why, const char *path)
{
	why->invalid_parameter = true;
	path_format(why->err.field, "%.*s", (int)sizeof(why->err.field) - 1, path);
	return -EINVAL;
}

static int refuse_range(struct api_refusal *why, const struct api_field *f, const char *path,
			struct json_object *v, uint64_t max)
{
	if (f->invalid_parameter)
		return refuse_parameter(why, path);
	why->invalid_parameter = false;
	return rdma_error_invalid(&why->err, path, "%s; a number from %" PRIu64 " to %" PRIu64,
				  json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN), f->min, max);
}

/*
 * The i-th value a word field may take (ENUM: i itself; FLAGS: bit i of max)
 * and its word, NULL when there is none; false past the last.
 */
static bool word_at(const struct api_field *f, unsigned i, unsigned *value, const char **word)
{
	*word = NULL;
	if (f->type == API_FIELD_ENUM) {
		if (i > f->max)
			return false;
		*value = i;
	} else {
		if (i >= 32)
			return false;
		*value = 1u << i;
		if (!(f->max & *value))
			return true;
	}
	*word = f->word(*value);
	return true;
}

/* "'x' is not one of a, b, c": the words of every value or bit the field allows. */
static int refuse_word(struct api_refusal *why, const struct api_field *f, const char *path,
		       const char *word)
{
	char allowed[192] = "";
	const char *w;
	unsigned value;
	size_t n = 0;

	for (unsigned i = 0; word_at(f, i, &value, &w); i++)
		if (w && n < sizeof(allowed))
			n += (size_t)snprintf(allowed + n, sizeof(allowed) - n, "%s%s", n ? ", " : "", w);
	why->invalid_parameter = false;
	return rdma_error_invalid(&why->err, path, "'%s' is not one of %s", word, allowed);
}

/* The value whose word is word, or -1. */
static int64_t word_value(const struct api_field *f, const char *word)
{
	const char *w;
	unsigned value;

	for (unsigned i = 0; word_at(f, i, &value, &w); i++)
		if (w && strcmp(w, word) == 0)
			return value;
	return -1;
}

static int parse_table(struct json_object *params, const struct api_field *table, void *out,
		       const char *prefix, struct api_refusal *why);

static int parse_number(struct json_object *v, const struct api_field *f, const char *path,
			void *out, struct api_refusal *why)
{
	uint64_t max = f->max ? f->max : f->type == API_FIELD_U64 ? INT64_MAX : UINT32_MAX;
	/* json-c keeps numbers above INT64_MAX unsigned; they read back as INT64_MAX. */
	int64_t n = json_object_get_int64(v);

	if (!json_object_is_type(v, json_type_int) || n < 0 || (uint64_t)n < f->min ||
	    (uint64_t)n > max)
		return refuse_range(why, f, path, v, max);
	if (f->type == API_FIELD_U64)
		*AT(out, f->offset, uint64_t) = (uint64_t)n;
	else
		*AT(out, f->offset, uint32_t) = (uint32_t)n;
	return 0;
}

static int parse_flags(struct json_object *v, const struct api_field *f, const char *path,
		       void *out, struct api_refusal *why)
{
	uint32_t mask = 0;

	for (size_t i = 0; i < json_object_array_length(v); i++) {
		const char *word = json_object_get_string(json_object_array_get_idx(v, i));
		int64_t bit = word_value(f, word);

		if (bit < 0)
			return refuse_word(why, f, path, word);
		mask |= (uint32_t)bit;
	}
	*AT(out, f->offset, uint32_t) = mask;
	return 0;
}

static int parse_list(struct json_object *v, const struct api_field *f, const char *path,
		      void *out, struct api_refusal *why)
{
	size_t n = json_object_array_length(v);
	uint64_t max = f->max ? f->max : UINT32_MAX;
	char *entries;

	if (n < f->min || n > max) {
		why->invalid_parameter = false;
		return rdma_error_invalid(&why->err, path, "%zu entries; %" PRIu64 " to %" PRIu64,
					  n, f->min, max);
	}
	entries = n ? calloc(n, f->size) : NULL;
	if (n && !entries) {
		why->invalid_parameter = false;
		return rdma_error_system(&why->err, -ENOMEM);
	}
	*AT(out, f->offset, void *) = entries;
	*AT(out, f->count, uint32_t) = (uint32_t)n;
	for (size_t i = 0; i < n; i++) {
		char entry_path[PATH_MAX_LEN];
		int r;

		path_format(entry_path, "%s[%zu]", path, i);
		r = parse_table(json_object_array_get_idx(v, i), f->fields, entries + i * f->size,
				entry_path, why);
		if (r < 0)
			return r;
	}
	return 0;
}

static int parse_field(struct json_object *v, const struct api_field *f, const char *path,
		       void *out, struct api_refusal *why)
{
	int64_t value;

	switch (f->type) {
	case API_FIELD_HANDLE: {
		struct api_field handle = *f;

		handle.invalid_parameter = true;
		return parse_number(v, &handle, path, out, why);
	}
	case API_FIELD_U32:
	case API_FIELD_U64:
		return parse_number(v, f, path, out, why);
	case API_FIELD_BOOL:
		*AT(out, f->offset, bool) = json_object_get_boolean(v);
		return 0;
	case API_FIELD_ENUM:
		value = word_value(f, json_object_get_string(v));
		if (value < 0)
			return refuse_word(why, f, path, json_object_get_string(v));
		*AT(out, f->offset, unsigned) = (unsigned)value;
		return 0;
	case API_FIELD_FLAGS:
		return parse_flags(v, f, path, out, why);
	case API_FIELD_STRING:
		*AT(out, f->offset, const char *) = json_object_get_string(v);
		return 0;
	case API_FIELD_JSON:
		*AT(out, f->offset, struct json_object *) = v;
		return 0;
	case API_FIELD_OBJECT:
		return parse_table(v, f->fields, AT(out, f->offset, char), path, why);
	case API_FIELD_LIST:
		return parse_list(v, f, path, out, why);
	}
	return -EINVAL;
}

static int parse_table(struct json_object *params, const struct api_field *table, void *out,
		       const char *prefix, struct api_refusal *why)
{
	for (const struct api_field *f = table; f->name; f++) {
		char path[PATH_MAX_LEN];
		struct json_object *v = NULL;
		bool present = json_object_object_get_ex(params, f->name, &v) && v;
		int r;

		/* Most of a table is absent from a call: its paths are not made. */
		if (!present && !f->required)
			continue;
		path_format(path, "%s%s%s", prefix, *prefix ? "." : "", f->name);
		if (!present)
			return refuse_parameter(why, path);
		if (f->given)
			*AT(out, f->given - 1, bool) = true;
		r = parse_field(v, f, path, out, why);
		if (r < 0)
			return r;
	}
	return 0;
}

int api_fields_parse(struct json_object *params, const struct api_field *table, void *out,
		     struct api_refusal *why)
{
	memset(why, 0, sizeof(*why));
	return parse_table(params, table, out, "", why);
}

void api_dispatch_free(const struct api_field *table, void *out)
{
	for (const struct api_field *f = table; f->name; f++) {
		if (f->type == API_FIELD_OBJECT) {
			api_dispatch_free(f->fields, AT(out, f->offset, char));
		} else if (f->type == API_FIELD_LIST) {
			char *entries = *AT(out, f->offset, char *);

			for (uint32_t i = 0; entries && i < *AT(out, f->count, uint32_t); i++)
				api_dispatch_free(f->fields, entries + i * f->size);
			free(entries);
			*AT(out, f->offset, char *) = NULL;
			*AT(out, f->count, uint32_t) = 0;
		}
	}
}

int api_dispatch(struct varlink_call *call, struct json_object *params,
		 const struct api_field *table, void *out)
{
	const char *method = varlink_call_method(call), *dot = strrchr(method, '.');
	struct api_refusal why;
	char iface[128];
	int r;

	r = api_fields_parse(params, table, out, &why);
	if (r == 0)
		return 0;
	api_dispatch_free(table, out);
	if (why.invalid_parameter)
		api_error_parameter(call, why.err.field);
	else {
		/* The refusal is the called interface's: io.rdmad.Qp.PostSend gives io.rdmad.Qp.InvalidArgument. */
		snprintf(iface, sizeof(iface), "%.*s", dot ? (int)(dot - method) : 0, method);
		api_reply_error(call, iface, &why.err);
	}
	return r;
}
