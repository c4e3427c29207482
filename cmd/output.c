/* SPDX-License-Identifier: MIT */
#include "cmd/output.h"
#include "lib/varlink/varlink.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define TEXT_WIDTH_DEFAULT 100
#define TEXT_INDENT "    "

/* ---- text ---- */

struct line {
	size_t col;
	size_t width;   /* wrap past this column; SIZE_MAX: never */
};

/*
 * Lines wrap to the terminal's width for a person; into a pipe or a file
 * they never do, so grep and awk see a record on one line (as systemctl).
 */
static size_t text_width(void)
{
	struct winsize ws;

	if (!isatty(STDOUT_FILENO))
		return SIZE_MAX;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return TEXT_WIDTH_DEFAULT;
}

#define LINE_INIT(column) { .col = (column), .width = text_width() }

static void emit(struct line *l, const char *s)
{
	size_t n = strlen(s);

	if (l->col > strlen(TEXT_INDENT) && l->width != SIZE_MAX && l->col + n + 1 > l->width) {
		printf("\n" TEXT_INDENT);
		l->col = strlen(TEXT_INDENT);
	} else if (l->col > 0 && l->col != strlen(TEXT_INDENT)) {
		putchar(' ');
		l->col++;
	}
	fputs(s, stdout);
	l->col += n;
}

static void newline_indent(struct line *l)
{
	printf("\n" TEXT_INDENT);
	l->col = strlen(TEXT_INDENT);
}

static bool is_scalar(struct json_object *v)
{
	return !v || (!json_object_is_type(v, json_type_object) && !json_object_is_type(v, json_type_array));
}

static const char *scalar_string(struct json_object *v)
{
	if (!v)
		return "null";
	return json_object_get_string(v);
}

static bool all_scalars(struct json_object *arr)
{
	for (size_t i = 0; i < json_object_array_length(arr); i++)
		if (!is_scalar(json_object_array_get_idx(arr, i)))
			return false;
	return true;
}

/* Fits on the record's line: a scalar or a list of scalars. */
static bool is_inline(struct json_object *v)
{
	return is_scalar(v) || (json_object_is_type(v, json_type_array) && all_scalars(v));
}

/* "KEY SEP VALUE" as one word of the line, as long as it is: nothing is ever cut. */
static void emit_joined(struct line *l, const char *key, const char *sep, const char *value)
{
	char *word;

	if (asprintf(&word, "%s%s%s", key, sep, value) < 0) {
		emit(l, "(out of memory)");
		return;
	}
	emit(l, word);
	free(word);
}

static void emit_pair(struct line *l, const char *key, const char *value)
{
	emit_joined(l, key, " ", value);
}

/* A list of scalars as "a,b,c" ("-" when empty); NULL when out of memory. */
static char *join_scalars(struct json_object *arr)
{
	size_t n = json_object_array_length(arr), len = 0;
	char *text = NULL;
	FILE *f;

	if (n == 0)
		return strdup("-");
	f = open_memstream(&text, &len);
	if (!f)
		return NULL;
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? "," : "", scalar_string(json_object_array_get_idx(arr, i)));
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

static void emit_fields(struct line *l, struct json_object *obj, const char *skip);

static void emit_field(struct line *l, const char *key, struct json_object *v)
{
	if (is_scalar(v)) {
		emit_pair(l, key, scalar_string(v));
	} else if (json_object_is_type(v, json_type_array) && all_scalars(v)) {
		char *list = join_scalars(v);

		/* Out of memory is said, never passed off as a shorter list. */
		emit_pair(l, key, list ? list : "(out of memory)");
		free(list);
	} else if (json_object_is_type(v, json_type_array)) {
		/* Each element on its own line: "port 1 state ACTIVE ...". */
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			newline_indent(l);
			emit_fields(l, json_object_array_get_idx(v, i), NULL);
		}
	} else {
		newline_indent(l);
		emit_joined(l, key, ":", "");
		emit_fields(l, v, NULL);
	}
}

static void emit_fields(struct line *l, struct json_object *obj, const char *skip)
{
	/* Inline fields first, so a record's own line is not split by its nested parts. */
	for (int nested = 0; nested < 2; nested++) {
		json_object_object_foreach(obj, key, val) {
			if (skip && strcmp(key, skip) == 0)
				continue;
			if (is_inline(val) != !nested)
				continue;
			emit_field(l, key, val);
		}
	}
}

static void text_begin_list(struct ctl *ctl)
{
}

static void text_record(struct ctl *ctl, struct json_object *rec, const char *label,
			const char *name_key)
{
	struct line l = LINE_INIT(0);
	struct json_object *name = NULL;

	if (name_key && json_object_object_get_ex(rec, name_key, &name)) {
		int n = printf("%s%s%s:", label ? label : "", label ? " " : "", scalar_string(name));

		l.col = n > 0 ? (size_t)n : 0;
	}
	emit_fields(&l, rec, name_key);
	putchar('\n');
}

static void text_details(struct ctl *ctl, struct json_object *obj)
{
	size_t width = 0;

	json_object_object_foreach(obj, k, v) {
		(void)v;
		if (strlen(k) > width)
			width = strlen(k);
	}
	json_object_object_foreach(obj, key, val) {
		if (is_scalar(val)) {
			printf("%*s: %s\n", (int)width, key, scalar_string(val));
		} else if (is_inline(val)) {
			printf("%*s:", (int)width, key);
			for (size_t i = 0; i < json_object_array_length(val); i++)
				printf(" %s", scalar_string(json_object_array_get_idx(val, i)));
			putchar('\n');
		} else {
			struct line l = LINE_INIT(width + 2);

			printf("%*s:", (int)width, key);
			emit_field(&l, "", val);
			putchar('\n');
		}
	}
}

static void text_end(struct ctl *ctl)
{
	fflush(stdout);
}

static void text_error(struct ctl *ctl, const char *error, struct json_object *params)
{
}

const struct output output_text = {
	.begin_list = text_begin_list,
	.record = text_record,
	.details = text_details,
	.end = text_end,
	.error = text_error,
};

/* Calls method with params (consumed); the reply's value of key in *v, the reply in *reply. */
static int call_for(struct ctl *ctl, const struct cmd_args *args, const char *method,
		    struct json_object *params, const char *key, struct json_object **reply,
		    struct json_object **v)
{
	int r = ctl_call(ctl, args->path, method, params, reply);

	json_object_put(params);
	if (r < 0)
		return r;
	*v = json_object_object_get(*reply, key);
	return 0;
}

int output_call_records(struct ctl *ctl, const struct cmd_args *args, const char *method,
			struct json_object *params, const char *key, const char *label)
{
	struct json_object *reply, *v;
	int r = call_for(ctl, args, method, params, key, &reply, &v);

	if (r < 0)
		return r;
	ctl->out->begin_list(ctl);
	if (json_object_is_type(v, json_type_array))
		for (size_t i = 0; i < json_object_array_length(v); i++)
			ctl->out->record(ctl, json_object_array_get_idx(v, i), label, "handle");
	else if (v)
		ctl->out->record(ctl, v, label, "handle");
	ctl->out->end(ctl);
	json_object_put(reply);
	return 0;
}

int output_call_value(struct ctl *ctl, const struct cmd_args *args, const char *method,
		      struct json_object *params, const char *key)
{
	struct json_object *reply, *v;
	int r = call_for(ctl, args, method, params, key, &reply, &v);

	if (r < 0)
		return r;
	if (ctl->json)
		output_print_json(ctl, v);
	else
		printf("%s\n", json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN |
								 JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(reply);
	return 0;
}

/* ---- JSON ---- */

void output_print_json(struct ctl *ctl, struct json_object *obj)
{
	int flags = JSON_C_TO_STRING_NOSLASHESCAPE |
		    (ctl->pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED : JSON_C_TO_STRING_PLAIN);

	puts(json_object_to_json_string_ext(obj, flags));
	fflush(stdout);
}

static void json_begin_list(struct ctl *ctl)
{
	json_object_put(ctl->doc);
	ctl->doc = json_object_new_array();
}

static void json_record(struct ctl *ctl, struct json_object *rec, const char *label,
			const char *name_key)
{
	if (!ctl->doc)
		json_begin_list(ctl);
	json_object_array_add(ctl->doc, json_object_get(rec));
}

static void json_details(struct ctl *ctl, struct json_object *obj)
{
	json_object_put(ctl->doc);
	ctl->doc = json_object_get(obj);
}

static void json_end(struct ctl *ctl)
{
	if (ctl->doc)
		output_print_json(ctl, ctl->doc);
	json_object_put(ctl->doc);
	ctl->doc = NULL;
}

static void json_error(struct ctl *ctl, const char *error, struct json_object *params)
{
	struct json_object *obj = json_object_new_object();

	json_object_object_add(obj, "error", json_object_new_string(error));
	json_object_object_add(obj, "parameters", json_object_get(params));
	output_print_json(ctl, obj);
	json_object_put(obj);
}

const struct output output_json = {
	.begin_list = json_begin_list,
	.record = json_record,
	.details = json_details,
	.end = json_end,
	.error = json_error,
};
