/* SPDX-License-Identifier: MIT */
#include "cmd/output.h"
#include "cmd/output_views.h"
#include "lib/varlink/varlink.h"

#include <errno.h>
#include <inttypes.h>
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
	unsigned depth; /* of the section being printed: indented this many steps */
	const struct output_view *view;
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

#define LINE_INIT(column, v) { .col = (column), .width = text_width(), .view = (v) }

static size_t indent_of(const struct line *l)
{
	return (l->depth ? l->depth : 1) * strlen(TEXT_INDENT);
}

static void newline_indent(struct line *l)
{
	putchar('\n');
	for (unsigned i = 0; i < (l->depth ? l->depth : 1); i++)
		fputs(TEXT_INDENT, stdout);
	l->col = indent_of(l);
}

static void emit(struct line *l, const char *s)
{
	size_t n = strlen(s);

	if (l->col > indent_of(l) && l->width != SIZE_MAX && l->col + n + 1 > l->width) {
		newline_indent(l);
	} else if (l->col > 0 && l->col != indent_of(l)) {
		putchar(' ');
		l->col++;
	}
	fputs(s, stdout);
	l->col += n;
}

static bool is_scalar(struct json_object *v)
{
	return !v || (!json_object_is_type(v, json_type_object) && !json_object_is_type(v, json_type_array));
}

char *output_scalar_text(const char *kind, const char *key, struct json_object *v)
{
	const struct output_view *view = output_view(kind);
	char *text;

	if (!v)
		return strdup("-");
	if (json_object_is_type(v, json_type_int) &&
	    (output_key_is_hex(key) || (strcmp(key, "handle") == 0 && view && view->hex_handle))) {
		if (asprintf(&text, "0x%" PRIx64, json_object_get_uint64(v)) < 0)
			return NULL;
		return text;
	}
	return strdup(json_object_get_string(v));
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

/* One value of the record the line prints, as output_scalar_text() has it. */
static char *scalar_text(const struct line *l, const char *key, struct json_object *v)
{
	return output_scalar_text(l->view ? l->view->label : NULL, key, v);
}

/* A value of key that fits on a line: a scalar, or a list of them as "a,b,c" ("-" when empty). */
static char *inline_text(const struct line *l, const char *key, struct json_object *v)
{
	size_t n, len = 0;
	char *text = NULL;
	FILE *f;

	if (is_scalar(v))
		return scalar_text(l, key, v);
	n = json_object_array_length(v);
	if (n == 0)
		return strdup("-");
	f = open_memstream(&text, &len);
	if (!f)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		char *one = scalar_text(l, key, json_object_array_get_idx(v, i));

		fprintf(f, "%s%s", i ? "," : "", one ? one : "(out of memory)");
		free(one);
	}
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

static void emit_fields(struct line *l, struct json_object *obj, const char *skip);

/* A nested section: on a line of its own, one step in, labelled "KEY:". */
static void emit_section(struct line *l, const char *key, struct json_object *obj)
{
	l->depth++;
	newline_indent(l);
	emit_joined(l, key, ":", "");
	emit_fields(l, obj, NULL);
	l->depth--;
}

static void emit_field(struct line *l, const char *key, struct json_object *v)
{
	if (is_inline(v)) {
		char *text = inline_text(l, key, v);

		/* Out of memory is said, never passed off as a shorter value. */
		emit_joined(l, key, " ", text ? text : "(out of memory)");
		free(text);
	} else if (json_object_is_type(v, json_type_array)) {
		/* Each element a record of its own, labelled: "ports: port 1 state ACTIVE ...". */
		for (size_t i = 0; i < json_object_array_length(v); i++)
			emit_section(l, key, json_object_array_get_idx(v, i));
	} else {
		emit_section(l, key, v);
	}
}

static void emit_fields(struct line *l, struct json_object *obj, const char *skip)
{
	/* Inline fields first, so a record's own line is not split by its nested parts. */
	for (int nested = 0; nested < 2; nested++) {
		json_object_object_foreach(obj, key, val) {
			if ((skip && strcmp(key, skip) == 0) || (!l->depth && output_view_omits(l->view, key)))
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

/* "[LABEL ]NAME:" with the name as the view has it (a key in hex). */
static void emit_name(struct line *l, const char *label, const char *name_key, struct json_object *name)
{
	char *text = scalar_text(l, name_key, name);
	int n = printf("%s%s%s:", label ? label : "", label ? " " : "", text ? text : "?");

	free(text);
	l->col = n > 0 ? (size_t)n : 0;
}

/*
 * "LABEL NAME:", or "LABEL:" for a record that has no name (a completion,
 * the login): every record says what it is before its fields.
 */
static void emit_head(struct line *l, struct json_object *rec, const char *label,
		      const char **name_key)
{
	struct json_object *name = NULL;

	if (l->view && l->view->name_key && *name_key)
		*name_key = l->view->name_key;
	if (*name_key && json_object_object_get_ex(rec, *name_key, &name)) {
		emit_name(l, label, *name_key, name);
	} else if (label) {
		int n = printf("%s:", label);

		l->col = n > 0 ? (size_t)n : 0;
	}
}

static void text_record(struct ctl *ctl, struct json_object *rec, const char *label,
			const char *name_key)
{
	struct line l = LINE_INIT(0, output_view(label));

	emit_head(&l, rec, label, &name_key);
	emit_fields(&l, rec, name_key);
	putchar('\n');
}

static void text_brief(struct ctl *ctl, struct json_object *rec, const char *label,
		       const char *name_key)
{
	struct line l = LINE_INIT(0, output_view(label));
	struct json_object *v;

	if (!l.view || !l.view->brief || ctl->details) {
		text_record(ctl, rec, label, name_key);
		return;
	}
	emit_head(&l, rec, label, &name_key);
	for (const char *const *k = l.view->brief; *k; k++)
		if (json_object_object_get_ex(rec, *k, &v))
			emit_field(&l, *k, v);
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
		struct line l = LINE_INIT(width + 2, NULL);

		if (is_inline(val)) {
			char *text = inline_text(&l, key, val);

			printf("%*s: %s\n", (int)width, key, text ? text : "(out of memory)");
			free(text);
		} else {
			printf("%*s:", (int)width, key);
			if (json_object_is_type(val, json_type_object))
				emit_fields(&l, val, NULL);
			else
				emit_field(&l, key, val);
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
	.brief = text_brief,
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

typedef void record_fn(struct ctl *ctl, struct json_object *rec, const char *label,
		       const char *name_key);

/* Calls method and prints reply[key], one record or an array of them, each with print. */
static int call_print(struct ctl *ctl, const struct cmd_args *args, const char *method,
		      struct json_object *params, const char *key, const char *label, bool brief)
{
	struct json_object *reply, *v;
	int r = call_for(ctl, args, method, params, key, &reply, &v);
	record_fn *print = brief ? ctl->out->brief : ctl->out->record;

	if (r < 0)
		return r;
	ctl->out->begin_list(ctl);
	if (json_object_is_type(v, json_type_array))
		for (size_t i = 0; i < json_object_array_length(v); i++)
			print(ctl, json_object_array_get_idx(v, i), label, "handle");
	else if (v)
		print(ctl, v, label, "handle");
	ctl->out->end(ctl);
	json_object_put(reply);
	return 0;
}

int output_call_records(struct ctl *ctl, const struct cmd_args *args, const char *method,
			struct json_object *params, const char *key, const char *label)
{
	return call_print(ctl, args, method, params, key, label, false);
}

int output_call_list(struct ctl *ctl, const struct cmd_args *args, const char *method,
		     struct json_object *params, const char *key, const char *label)
{
	return call_print(ctl, args, method, params, key, label, true);
}

int output_call_value(struct ctl *ctl, const struct cmd_args *args, const char *method,
		      struct json_object *params, const char *key)
{
	struct json_object *reply, *v;
	int r = call_for(ctl, args, method, params, key, &reply, &v);

	if (r < 0)
		return r;
	if (ctl->json && is_scalar(v)) {
		/* A bare number says nothing of what it is: JSON names it, {"mkey": N}. */
		struct json_object *named = json_object_new_object();

		json_object_object_add(named, key, json_object_get(v));
		output_print_json(ctl, named);
		json_object_put(named);
	} else if (ctl->json) {
		output_print_json(ctl, v);
	} else if (is_scalar(v)) {
		char *text = output_scalar_text(NULL, key, v);

		printf("%s\n", text ? text : "(out of memory)");
		free(text);
	} else {
		printf("%s\n", json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN |
								 JSON_C_TO_STRING_NOSLASHESCAPE));
	}
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
	/* JSON lists hold every key: scripts read them; only text abbreviates. */
	.brief = json_record,
	.details = json_details,
	.end = json_end,
	.error = json_error,
};

/* ---- quiet (-q) ---- */

static void quiet_list(struct ctl *ctl)
{
}

static void quiet_record(struct ctl *ctl, struct json_object *rec, const char *label,
			 const char *name_key)
{
}

static void quiet_details(struct ctl *ctl, struct json_object *obj)
{
}

static void quiet_error(struct ctl *ctl, const char *error, struct json_object *params)
{
}

const struct output output_quiet = {
	.begin_list = quiet_list,
	.record = quiet_record,
	.brief = quiet_record,
	.details = quiet_details,
	.end = quiet_list,
	.error = quiet_error,
};
