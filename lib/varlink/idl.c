/* SPDX-License-Identifier: MIT */
/*
 * Varlink IDL parser and value checker.  The grammar is the one of UAPI.20 /
 * varlink.org: "interface" NAME, then "type", "method" and "error" members;
 * '#' comments run to the end of the line.
 */
#include "lib/varlink/idl.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct scanner {
	const char *p;
	int line;
	char *error;
};

static void scan_fail(struct scanner *s, const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL;

	if (s->error)
		return;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (asprintf(&s->error, "line %d: %s", s->line, msg ? msg : "syntax error") < 0)
		s->error = NULL;
	free(msg);
	if (!s->error)
		s->error = strdup("out of memory");
}

static void skip_space(struct scanner *s)
{
	for (;;) {
		if (*s->p == '\n') {
			s->line++;
			s->p++;
		} else if (isspace((unsigned char)*s->p)) {
			s->p++;
		} else if (*s->p == '#') {
			while (*s->p && *s->p != '\n')
				s->p++;
		} else {
			return;
		}
	}
}

static bool accept(struct scanner *s, const char *tok)
{
	size_t n = strlen(tok);

	skip_space(s);
	if (strncmp(s->p, tok, n) != 0)
		return false;
	s->p += n;
	return true;
}

static bool expect(struct scanner *s, const char *tok)
{
	if (accept(s, tok))
		return true;
	scan_fail(s, "expected '%s'", tok);
	return false;
}

static bool is_word_char(char c, bool dotted)
{
	return isalnum((unsigned char)c) || c == '_' || (dotted && (c == '.' || c == '-'));
}

/* A word: field, type, member or (dotted) interface name.  NULL at end of input. */
static char *scan_word(struct scanner *s, bool dotted)
{
	const char *start;

	skip_space(s);
	start = s->p;
	if (!isalpha((unsigned char)*s->p)) {
		scan_fail(s, "expected a name");
		return NULL;
	}
	while (is_word_char(*s->p, dotted))
		s->p++;
	return strndup(start, (size_t)(s->p - start));
}

/* The keyword must end at a word boundary: "method" but not "methods". */
static bool accept_keyword(struct scanner *s, const char *kw)
{
	const char *save = s->p;
	int line = s->line;

	if (!accept(s, kw))
		return false;
	if (is_word_char(*s->p, false)) {
		s->p = save;
		s->line = line;
		return false;
	}
	return true;
}

static void type_free(struct idl_type *t)
{
	if (!t)
		return;
	type_free(t->elem);
	free(t->ref);
	for (size_t i = 0; i < t->n; i++) {
		free(t->names[i]);
		if (t->types)
			type_free(t->types[i]);
	}
	free(t->names);
	free(t->types);
	free(t);
}

static struct idl_type *type_new(enum idl_kind kind)
{
	struct idl_type *t = calloc(1, sizeof(*t));

	if (t)
		t->kind = kind;
	return t;
}

static struct idl_type *parse_type(struct scanner *s);

/* "(" already consumed.  Decides struct or enum from the first entry. */
static struct idl_type *parse_struct_or_enum(struct scanner *s)
{
	struct idl_type *t = type_new(IDL_STRUCT);
	bool decided = false;

	if (!t) {
		scan_fail(s, "out of memory");
		return NULL;
	}
	if (accept(s, ")"))
		return t;
	for (;;) {
		char *name = scan_word(s, false);
		char **names;
		struct idl_type **types;

		if (!name)
			goto fail;
		skip_space(s);
		if (!decided) {
			t->kind = *s->p == ':' ? IDL_STRUCT : IDL_ENUM;
			decided = true;
		}
		names = realloc(t->names, (t->n + 1) * sizeof(*names));
		if (!names) {
			free(name);
			goto oom;
		}
		t->names = names;
		if (t->kind == IDL_STRUCT) {
			types = realloc(t->types, (t->n + 1) * sizeof(*types));
			if (!types) {
				free(name);
				goto oom;
			}
			t->types = types;
			t->types[t->n] = NULL;
			t->names[t->n++] = name;
			if (!expect(s, ":"))
				goto fail;
			t->types[t->n - 1] = parse_type(s);
			if (!t->types[t->n - 1])
				goto fail;
		} else {
			t->names[t->n++] = name;
		}
		for (size_t i = 0; i + 1 < t->n; i++)
			if (strcmp(t->names[i], t->names[t->n - 1]) == 0) {
				scan_fail(s, "duplicate field '%s'", t->names[i]);
				goto fail;
			}
		if (accept(s, ")"))
			return t;
		if (!expect(s, ","))
			goto fail;
	}
oom:
	scan_fail(s, "out of memory");
fail:
	type_free(t);
	return NULL;
}

static struct idl_type *parse_type(struct scanner *s)
{
	static const struct { const char *word; enum idl_kind kind; } builtin[] = {
		{ "bool", IDL_BOOL }, { "int", IDL_INT }, { "float", IDL_FLOAT },
		{ "string", IDL_STRING }, { "object", IDL_OBJECT }, { "any", IDL_ANY },
	};
	bool nullable = accept(s, "?");
	struct idl_type *t = NULL;

	if (accept(s, "[]")) {
		t = type_new(IDL_ARRAY);
		if (t && !(t->elem = parse_type(s)))
			goto fail;
	} else if (accept(s, "[string]")) {
		t = type_new(IDL_MAP);
		if (t && !(t->elem = parse_type(s)))
			goto fail;
	} else if (accept(s, "(")) {
		t = parse_struct_or_enum(s);
		if (!t)
			return NULL;
	} else {
		char *word = scan_word(s, false);

		if (!word)
			return NULL;
		for (size_t i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++)
			if (strcmp(word, builtin[i].word) == 0)
				t = type_new(builtin[i].kind);
		if (!t && isupper((unsigned char)word[0])) {
			t = type_new(IDL_REF);
			if (t) {
				t->ref = word;
				word = NULL;
			}
		} else if (!t) {
			scan_fail(s, "unknown type '%s'", word);
			free(word);
			return NULL;
		}
		free(word);
	}
	if (!t) {
		scan_fail(s, "out of memory");
		return NULL;
	}
	t->nullable = nullable;
	return t;
fail:
	type_free(t);
	return NULL;
}

void idl_interface_free(struct idl_interface *iface)
{
	if (!iface)
		return;
	for (size_t i = 0; i < iface->n; i++) {
		free(iface->members[i].name);
		type_free(iface->members[i].in);
		type_free(iface->members[i].out);
	}
	free(iface->members);
	free(iface->name);
	free(iface);
}

const struct idl_member *idl_find(const struct idl_interface *iface, enum idl_member_kind kind,
				  const char *name)
{
	for (size_t i = 0; i < iface->n; i++)
		if (iface->members[i].kind == kind && strcmp(iface->members[i].name, name) == 0)
			return &iface->members[i];
	return NULL;
}

static bool valid_interface_name(const char *name)
{
	const char *dot = strchr(name, '.');

	if (!dot || dot == name || name[strlen(name) - 1] == '.' || strstr(name, ".."))
		return false;
	return true;
}

/*
 * A struct member type must resolve; refs inside it are resolved too, once,
 * so that checking a value never looks a type up by name.
 */
static bool refs_resolve(const struct idl_interface *iface, struct idl_type *t, const char **bad)
{
	if (!t)
		return true;
	if (t->kind == IDL_REF) {
		const struct idl_member *m = idl_find(iface, IDL_MEMBER_TYPE, t->ref);

		if (!m) {
			*bad = t->ref;
			return false;
		}
		t->target = m->in;
	}
	if (!refs_resolve(iface, t->elem, bad))
		return false;
	for (size_t i = 0; t->types && i < t->n; i++)
		if (!refs_resolve(iface, t->types[i], bad))
			return false;
	return true;
}

static int parse_member(struct scanner *s, struct idl_member *m)
{
	if (accept_keyword(s, "type"))
		m->kind = IDL_MEMBER_TYPE;
	else if (accept_keyword(s, "method"))
		m->kind = IDL_MEMBER_METHOD;
	else if (accept_keyword(s, "error"))
		m->kind = IDL_MEMBER_ERROR;
	else {
		scan_fail(s, "expected 'type', 'method' or 'error'");
		return -EINVAL;
	}
	m->name = scan_word(s, false);
	if (!m->name)
		return -EINVAL;
	if (!isupper((unsigned char)m->name[0])) {
		scan_fail(s, "member name '%s' must start with a capital letter", m->name);
		return -EINVAL;
	}
	if (!expect(s, "("))
		return -EINVAL;
	m->in = parse_struct_or_enum(s);
	if (!m->in)
		return -EINVAL;
	if (m->kind != IDL_MEMBER_TYPE && m->in->kind != IDL_STRUCT && m->in->n > 0) {
		scan_fail(s, "%s takes a struct", m->name);
		return -EINVAL;
	}
	if (m->kind == IDL_MEMBER_METHOD) {
		if (!expect(s, "->") || !expect(s, "("))
			return -EINVAL;
		m->out = parse_struct_or_enum(s);
		if (!m->out)
			return -EINVAL;
	}
	/* An empty "()" parses as a struct; an enum of method input is not allowed. */
	if (m->kind != IDL_MEMBER_TYPE)
		m->in->kind = IDL_STRUCT;
	if (m->out)
		m->out->kind = IDL_STRUCT;
	return 0;
}

int idl_parse(const char *text, struct idl_interface **out, char **errmsg)
{
	struct scanner s = { .p = text, .line = 1 };
	struct idl_interface *iface = calloc(1, sizeof(*iface));
	const char *bad = NULL;

	if (!iface)
		return -ENOMEM;
	if (!accept_keyword(&s, "interface")) {
		scan_fail(&s, "expected 'interface'");
		goto fail;
	}
	iface->name = scan_word(&s, true);
	if (!iface->name)
		goto fail;
	if (!valid_interface_name(iface->name)) {
		scan_fail(&s, "invalid interface name '%s'", iface->name);
		goto fail;
	}
	for (;;) {
		struct idl_member *members;

		skip_space(&s);
		if (!*s.p)
			break;
		members = realloc(iface->members, (iface->n + 1) * sizeof(*members));
		if (!members) {
			scan_fail(&s, "out of memory");
			goto fail;
		}
		iface->members = members;
		memset(&members[iface->n], 0, sizeof(*members));
		iface->n++;
		if (parse_member(&s, &members[iface->n - 1]) < 0)
			goto fail;
		for (size_t i = 0; i + 1 < iface->n; i++)
			if (strcmp(members[i].name, members[iface->n - 1].name) == 0) {
				scan_fail(&s, "'%s' is defined twice", members[i].name);
				goto fail;
			}
	}
	for (size_t i = 0; i < iface->n; i++)
		if (!refs_resolve(iface, iface->members[i].in, &bad) ||
		    !refs_resolve(iface, iface->members[i].out, &bad)) {
			scan_fail(&s, "unknown type '%s'", bad);
			goto fail;
		}
	*out = iface;
	return 0;
fail:
	if (errmsg)
		*errmsg = s.error;
	else
		free(s.error);
	idl_interface_free(iface);
	return -EINVAL;
}

/* ---- checking values ---- */

#define DEPTH_MAX 64

/*
 * Where the check is: one segment per level, a member name or an array index.
 * Every reply is checked, and nearly every check passes, so the dotted path is
 * written out only when one fails; the segments of a failed check stay on the
 * stack for that (a check pops its segment only when it passes).
 */
struct segment {
	const char *name;	/* NULL: an array index */
	size_t index;
};

/* Where a value goes: a call's parameters are held to int64, as varlink's int is. */
struct check_ctx {
	bool call;
	size_t depth;
	struct segment at[DEPTH_MAX + 2];
};

static void enter(struct check_ctx *ctx, const char *name, size_t index)
{
	ctx->at[ctx->depth++] = (struct segment){ name, index };
}

static void leave(struct check_ctx *ctx)
{
	ctx->depth--;
}

static void write_path(const struct check_ctx *ctx, char *path, size_t size)
{
	size_t len = 0;

	if (!size)
		return;
	path[0] = '\0';
	for (size_t i = 0; i < ctx->depth && len < size; i++) {
		const struct segment *seg = &ctx->at[i];
		int n = seg->name ? snprintf(path + len, size - len, "%s%s", i ? "." : "", seg->name)
				  : snprintf(path + len, size - len, "[%zu]", seg->index);

		if (n < 0)
			break;
		len += (size_t)n;
	}
}

/*
 * json-c reads an integer past int64 as uint64 and one past uint64 as
 * UINT64_MAX, silently: in a call, anything past INT64_MAX is refused rather
 * than taken as some other number.  Replies may carry unsigned 64-bit values
 * (CRC-64 fields).
 */
static bool int_ok(const struct check_ctx *ctx, struct json_object *v)
{
	return !ctx->call || json_object_get_int64(v) < INT64_MAX ||
	       json_object_get_uint64(v) <= (uint64_t)INT64_MAX;
}

/*
 * A JSON string may hold "\u0000"; json-c keeps it, but every C consumer
 * stops at the NUL, so "nul\u0000tail" would name "nul".  A string is a
 * string: one with a NUL byte is the wrong type.
 */
static bool string_ok(struct json_object *v)
{
	return json_object_is_type(v, json_type_string) &&
	       !memchr(json_object_get_string(v), '\0', (size_t)json_object_get_string_len(v));
}

/*
 * The strings anywhere inside a value the description leaves open (object,
 * any): their members are not typed, but they are still read as C strings.
 */
static int check_untyped(struct check_ctx *ctx, struct json_object *v, int depth)
{
	if (depth > DEPTH_MAX)
		return -EINVAL;
	switch (json_object_get_type(v)) {
	case json_type_string:
		return string_ok(v) ? 0 : -EINVAL;
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			enter(ctx, NULL, i);
			if (check_untyped(ctx, json_object_array_get_idx(v, i), depth + 1))
				return -EINVAL;
			leave(ctx);
		}
		return 0;
	case json_type_object: {
		json_object_object_foreach(v, key, val) {
			enter(ctx, key, 0);
			if (check_untyped(ctx, val, depth + 1))
				return -EINVAL;
			leave(ctx);
		}
		return 0;
	}
	default:
		return 0;
	}
}

static int check(struct check_ctx *ctx, const struct idl_type *t, struct json_object *v,
		 int depth);

/* A struct has no member its type does not name; counted, the usual case costs no string compare. */
static int check_struct_keys(struct check_ctx *ctx, const struct idl_type *t, struct json_object *v)
{
	size_t known = 0;

	for (size_t i = 0; i < t->n; i++)
		known += json_object_object_get_ex(v, t->names[i], NULL);
	if (known == (size_t)json_object_object_length(v))
		return 0;
	json_object_object_foreach(v, key, val) {
		bool named = false;

		(void)val;
		for (size_t i = 0; i < t->n && !named; i++)
			named = strcmp(t->names[i], key) == 0;
		if (!named) {
			enter(ctx, key, 0);
			return -EINVAL;
		}
	}
	return 0;
}

static int check_struct(struct check_ctx *ctx, const struct idl_type *t, struct json_object *v,
			int depth)
{
	if (!json_object_is_type(v, json_type_object) || check_struct_keys(ctx, t, v) < 0)
		return -EINVAL;
	for (size_t i = 0; i < t->n; i++) {
		struct json_object *field = NULL;

		json_object_object_get_ex(v, t->names[i], &field);
		enter(ctx, t->names[i], 0);
		if (check(ctx, t->types[i], field, depth + 1))
			return -EINVAL;
		leave(ctx);
	}
	return 0;
}

static int check(struct check_ctx *ctx, const struct idl_type *t, struct json_object *v,
		 int depth)
{
	if (depth > DEPTH_MAX)
		return -EINVAL;
	if (!v || json_object_get_type(v) == json_type_null)
		return t->nullable || t->kind == IDL_ANY ? 0 : -EINVAL;

	switch (t->kind) {
	case IDL_BOOL:
		return json_object_is_type(v, json_type_boolean) ? 0 : -EINVAL;
	case IDL_INT:
		return json_object_is_type(v, json_type_int) && int_ok(ctx, v) ? 0 : -EINVAL;
	case IDL_FLOAT:
		if (json_object_is_type(v, json_type_int))
			return 0;
		/* json-c accepts NaN and Infinity even in strict mode; JSON does not. */
		return json_object_is_type(v, json_type_double) &&
		       isfinite(json_object_get_double(v)) ? 0 : -EINVAL;
	case IDL_STRING:
		return string_ok(v) ? 0 : -EINVAL;
	case IDL_OBJECT:
		if (!json_object_is_type(v, json_type_object))
			return -EINVAL;
		return check_untyped(ctx, v, depth + 1);
	case IDL_ANY:
		return check_untyped(ctx, v, depth + 1);
	case IDL_ENUM:
		/* strcmp() would take "one\u0000x" for "one". */
		if (!string_ok(v))
			return -EINVAL;
		for (size_t i = 0; i < t->n; i++)
			if (strcmp(t->names[i], json_object_get_string(v)) == 0)
				return 0;
		return -EINVAL;
	case IDL_REF:
		return check(ctx, t->target, v, depth + 1);
	case IDL_ARRAY: {
		size_t n;

		if (!json_object_is_type(v, json_type_array))
			return -EINVAL;
		n = json_object_array_length(v);
		for (size_t i = 0; i < n; i++) {
			enter(ctx, NULL, i);
			if (check(ctx, t->elem, json_object_array_get_idx(v, i), depth + 1))
				return -EINVAL;
			leave(ctx);
		}
		return 0;
	}
	case IDL_MAP: {
		if (!json_object_is_type(v, json_type_object))
			return -EINVAL;
		json_object_object_foreach(v, key, val) {
			enter(ctx, key, 0);
			if (check(ctx, t->elem, val, depth + 1))
				return -EINVAL;
			leave(ctx);
		}
		return 0;
	}
	case IDL_STRUCT:
		return check_struct(ctx, t, v, depth);
	}
	return -EINVAL;
}

static int validate(struct check_ctx *ctx, const struct idl_type *type,
		    struct json_object *value, char *path, size_t path_size)
{
	struct json_object *empty = NULL;
	int r;

	if (path_size)
		path[0] = '\0';
	/* Absent, null and {} parameters are the same thing. */
	if (type->kind == IDL_STRUCT && (!value || json_object_is_type(value, json_type_null)))
		value = empty = json_object_new_object();
	r = check(ctx, type, value, 0);
	if (r < 0)
		write_path(ctx, path, path_size);
	json_object_put(empty);
	return r;
}

int idl_validate(const struct idl_type *type, struct json_object *value, char *path,
		 size_t path_size)
{
	struct check_ctx ctx = { .call = false };

	return validate(&ctx, type, value, path, path_size);
}

int idl_validate_call(const struct idl_type *type, struct json_object *value, char *path,
		      size_t path_size)
{
	struct check_ctx ctx = { .call = true };

	return validate(&ctx, type, value, path, path_size);
}
