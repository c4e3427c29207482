/* SPDX-License-Identifier: MIT */
/* The varlink IDL parser and value checker of lib/varlink/idl.c. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "lib/varlink/idl.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- parser ---- */

static const char grammar_idl[] =
	"# A comment before the interface\n"
	"interface org.example.grammar # a comment after the name\n"
	"\n"
	"# all the element types\n"
	"type Basic (\n"
	"  b: bool,   # comment after a field\n"
	"  i: int,\n"
	"  f: float,\n"
	"  s: string,\n"
	"  o: object,\n"
	"  a: any\n"
	")\n"
	"\n"
	"type Color (red, green, blue)\n"
	"\n"
	"type Shapes (\n"
	"  nb: ?bool,\n"
	"  list: []string,\n"
	"  nlist: ?[]int,\n"
	"  listn: []?int,\n"
	"  map: [string]float,\n"
	"  nmap: ?[string]Basic,\n"
	"  set: [string](),\n"
	"  nested: (inner: (deep: ?(one, two)), tag: Color),\n"
	"  crazy: ?[]?[string](foo, bar, baz),\n"
	"  empty: ()\n"
	")\n"
	"\n"
	"method Ping() -> ()\n"
	"method Get(name: string, opt: ?int) -> (shapes: Shapes, color: Color)\n"
	"method Multi(\n"
	"  a: int,\n"
	"  # comment between fields\n"
	"  b: []Basic\n"
	") -> (\n"
	"  ok: bool\n"
	")\n"
	"error Failed (reason: string, code: ?int)\n"
	"error Plain ()\n"
	"# a comment at the very end, without a newline";

static struct idl_interface *parse_ok(const char *text)
{
	struct idl_interface *iface = NULL;
	char *msg = NULL;
	int r = idl_parse(text, &iface, &msg);

	if (r < 0)
		fail_msg("idl_parse: %s", msg ? msg : "(no message)");
	assert_null(msg);
	assert_non_null(iface);
	return iface;
}

/* Parses text that must fail; returns the message (to be freed). */
static char *parse_err(const char *text)
{
	struct idl_interface *iface = NULL;
	char *msg = NULL;

	assert_int_equal(idl_parse(text, &iface, &msg), -EINVAL);
	assert_null(iface);
	assert_non_null(msg);
	return msg;
}

static void assert_err(const char *text, const char *line, const char *what)
{
	char *msg = parse_err(text);

	if (strncmp(msg, line, strlen(line)) != 0 || !strstr(msg, what))
		fail_msg("'%s' wanted '%s…%s'", msg, line, what);
	free(msg);
}

static const struct idl_type *field(const struct idl_type *t, const char *name)
{
	assert_int_equal(t->kind, IDL_STRUCT);
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->names[i], name) == 0)
			return t->types[i];
	fail_msg("no field %s", name);
	return NULL;
}

static void test_parse_grammar(void **state)
{
	struct idl_interface *iface = parse_ok(grammar_idl);
	const struct idl_member *m;
	const struct idl_type *t, *u;

	assert_string_equal(iface->name, "org.example.grammar");
	assert_int_equal(iface->n, 8);

	m = idl_find(iface, IDL_MEMBER_TYPE, "Basic");
	assert_non_null(m);
	assert_int_equal(m->in->n, 6);
	assert_int_equal(field(m->in, "b")->kind, IDL_BOOL);
	assert_int_equal(field(m->in, "i")->kind, IDL_INT);
	assert_int_equal(field(m->in, "f")->kind, IDL_FLOAT);
	assert_int_equal(field(m->in, "s")->kind, IDL_STRING);
	assert_int_equal(field(m->in, "o")->kind, IDL_OBJECT);
	assert_int_equal(field(m->in, "a")->kind, IDL_ANY);
	assert_false(field(m->in, "b")->nullable);

	m = idl_find(iface, IDL_MEMBER_TYPE, "Color");
	assert_non_null(m);
	assert_int_equal(m->in->kind, IDL_ENUM);
	assert_int_equal(m->in->n, 3);
	assert_string_equal(m->in->names[2], "blue");

	m = idl_find(iface, IDL_MEMBER_TYPE, "Shapes");
	assert_non_null(m);
	t = field(m->in, "nb");
	assert_true(t->nullable);
	assert_int_equal(t->kind, IDL_BOOL);
	t = field(m->in, "list");
	assert_int_equal(t->kind, IDL_ARRAY);
	assert_false(t->nullable);
	assert_int_equal(t->elem->kind, IDL_STRING);
	t = field(m->in, "nlist");
	assert_true(t->nullable);
	assert_false(t->elem->nullable);
	t = field(m->in, "listn");
	assert_false(t->nullable);
	assert_true(t->elem->nullable);
	assert_int_equal(field(m->in, "map")->kind, IDL_MAP);
	assert_int_equal(field(m->in, "map")->elem->kind, IDL_FLOAT);
	t = field(m->in, "nmap");
	assert_true(t->nullable);
	assert_int_equal(t->elem->kind, IDL_REF);
	assert_string_equal(t->elem->ref, "Basic");
	t = field(m->in, "set");
	assert_int_equal(t->kind, IDL_MAP);
	assert_int_equal(t->elem->kind, IDL_STRUCT);
	assert_int_equal(t->elem->n, 0);
	t = field(m->in, "nested");
	u = field(field(t, "inner"), "deep");
	assert_true(u->nullable);
	assert_int_equal(u->kind, IDL_ENUM);
	assert_string_equal(u->names[1], "two");
	assert_int_equal(field(t, "tag")->kind, IDL_REF);
	t = field(m->in, "crazy");
	assert_true(t->nullable);
	assert_int_equal(t->kind, IDL_ARRAY);
	assert_true(t->elem->nullable);
	assert_int_equal(t->elem->kind, IDL_MAP);
	assert_int_equal(t->elem->elem->kind, IDL_ENUM);
	assert_int_equal(field(m->in, "empty")->n, 0);

	m = idl_find(iface, IDL_MEMBER_METHOD, "Ping");
	assert_non_null(m);
	assert_int_equal(m->in->kind, IDL_STRUCT);
	assert_int_equal(m->in->n, 0);
	assert_int_equal(m->out->kind, IDL_STRUCT);
	m = idl_find(iface, IDL_MEMBER_METHOD, "Get");
	assert_non_null(m);
	assert_true(field(m->in, "opt")->nullable);
	assert_int_equal(field(m->out, "color")->kind, IDL_REF);
	m = idl_find(iface, IDL_MEMBER_METHOD, "Multi");
	assert_int_equal(m->in->n, 2);
	assert_int_equal(field(m->in, "b")->elem->kind, IDL_REF);
	m = idl_find(iface, IDL_MEMBER_ERROR, "Failed");
	assert_non_null(m);
	assert_null(m->out);
	assert_int_equal(m->in->n, 2);
	assert_non_null(idl_find(iface, IDL_MEMBER_ERROR, "Plain"));

	/* Members are found by kind too. */
	assert_null(idl_find(iface, IDL_MEMBER_METHOD, "Basic"));
	assert_null(idl_find(iface, IDL_MEMBER_TYPE, "Ping"));
	assert_null(idl_find(iface, IDL_MEMBER_METHOD, "ping"));
	idl_interface_free(iface);
}

static void test_parse_small_valid(void **state)
{
	static const char *const valid[] = {
		"interface a.b",
		"interface org.example.x\nmethod M() -> ()",
		"interface io.systemd.Resolve\nmethod M()->()",
		"interface org.example.with-dash.v2\ntype T (a: int)\n",
		"interface org.example.x\n\n\n   method   M  (  a :  int  )  ->  (  )  \n",
		"interface org.example.x\ntype Node (value: int, next: ?Node)\n",
		"interface org.example.x\ntype A (b: ?B)\ntype B (a: ?A)\n",
		"interface org.example.x\nmethod M(field_name2: int, x_y: string) -> ()\n",
		"interface org.example.x\nmethod Methods() -> ()\ntype Types (a: int)\nerror Errors ()\n",
		"\t# leading comment\n  interface org.example.x # c\n",
	};

	for (size_t i = 0; i < sizeof(valid) / sizeof(valid[0]); i++)
		idl_interface_free(parse_ok(valid[i]));
}

static void test_parse_errors_with_lines(void **state)
{
	assert_err("", "line 1:", "interface");
	assert_err("# only a comment\n", "line 2:", "interface");
	assert_err("interfaces org.example.x\n", "line 1:", "interface");
	assert_err("interface\n", "line 2:", "name");
	assert_err("interface nodots\n", "line 1:", "interface name");
	assert_err("interface org.example.\n", "line 1:", "interface name");
	assert_err("interface .org.example\n", "line 1:", "name");
	assert_err("interface org..example\n", "line 1:", "interface name");
	assert_err("interface org.example.x\nmethod\n", "line 3:", "name");
	assert_err("interface org.example.x\n\nmethod M()\n", "line 4:", "'->'");
	assert_err("interface org.example.x\nmethod M() -> (\n", "line 3:", "name");
	assert_err("interface org.example.x\nmethod M(a: int -> ()\n", "line 2:", "','");
	assert_err("interface org.example.x\nmethod M(a int) -> ()\n", "line 2:", "','");
	assert_err("interface org.example.x\nmethod M(a: integer) -> ()\n", "line 2:", "unknown type 'integer'");
	assert_err("interface org.example.x\n\n\nmethod M(a:) -> ()\n", "line 4:", "name");
	assert_err("interface org.example.x\nmethod m() -> ()\n", "line 2:", "capital");
	assert_err("interface org.example.x\nfunction M() -> ()\n", "line 2:", "'type', 'method' or 'error'");
	assert_err("interface org.example.x\nmethod M() -> ()\nmethod M() -> ()\n", "line 3:", "'M' is defined twice");
	assert_err("interface org.example.x\ntype T (a: int, a: string)\n", "line 2:", "duplicate field 'a'");
	assert_err("interface org.example.x\ntype E (one, two, one)\n", "line 2:", "duplicate field 'one'");
	assert_err("interface org.example.x\ntype T (a, b: int)\n", "line 2:", "','");
	assert_err("interface org.example.x\ntype T (a: int, b)\n", "line 2:", "':'");
	assert_err("interface org.example.x\nmethod M(a, b) -> ()\n", "line 2:", "struct");
	assert_err("interface org.example.x\nerror E (a, b)\n", "line 2:", "struct");
	assert_err("interface org.example.x\ntype T (a: [int]string)\n", "line 2:", "");
	assert_err("interface org.example.x\ntype T (a: ??int)\n", "line 2:", "name");
	assert_err("interface org.example.x\ntype T (a: int,)\n", "line 2:", "name");
	assert_err("interface org.example.x\n# c\n# c\ntype T (a: int) junk\n", "line 4:", "");
	assert_err("interface org.example.x\ntype T (\n  a: int\n  b: int\n)\n", "line 4:", "','");
}

static void test_parse_unknown_type_refs(void **state)
{
	assert_err("interface org.example.x\nmethod M(a: Missing) -> ()\n", "line", "unknown type 'Missing'");
	assert_err("interface org.example.x\ntype T (a: []?[string]Gone)\n", "line", "unknown type 'Gone'");
	assert_err("interface org.example.x\nmethod M() -> (r: (deep: Nowhere))\n", "line", "unknown type 'Nowhere'");
	assert_err("interface org.example.x\nerror E (why: Reason)\n", "line", "unknown type 'Reason'");
	/* A method or error name is not a type. */
	assert_err("interface org.example.x\nmethod M() -> ()\ntype T (m: M)\n", "line", "unknown type 'M'");
}

static void test_parse_without_errmsg(void **state)
{
	struct idl_interface *iface = NULL;

	assert_int_equal(idl_parse("interface broken", &iface, NULL), -EINVAL);
	assert_null(iface);
}

/* ---- validator ---- */

static const char check_idl[] =
	"interface org.example.check\n"
	"type Inner (b: int, n: ?string)\n"
	"type Node (v: int, next: ?Node)\n"
	"method All(\n"
	"  b: bool, i: int, f: float, s: string, o: object, a: any,\n"
	"  e: (one, two),\n"
	"  list: []int,\n"
	"  map: [string]string,\n"
	"  set: [string](),\n"
	"  a2: (b: (c: int)),\n"
	"  ref: Inner,\n"
	"  nb: ?bool,\n"
	"  nlist: ?[]?Inner,\n"
	"  node: ?Node\n"
	") -> ()\n"
	"method Empty() -> ()\n";

static struct idl_interface *check_iface;

static int setup_check(void **state)
{
	char *msg = NULL;

	if (idl_parse(check_idl, &check_iface, &msg) < 0) {
		fprintf(stderr, "check_idl: %s\n", msg);
		free(msg);
		return -1;
	}
	return 0;
}

static int teardown_check(void **state)
{
	idl_interface_free(check_iface);
	check_iface = NULL;
	return 0;
}

static const char all_ok[] =
	"{\"b\":true,\"i\":-5,\"f\":2.5,\"s\":\"x\",\"o\":{\"k\":[1]},\"a\":[null,1],"
	"\"e\":\"two\",\"list\":[1,2,3],\"map\":{\"k\":\"v\"},\"set\":{\"x\":{},\"y\":{}},"
	"\"a2\":{\"b\":{\"c\":1}},\"ref\":{\"b\":1}}";

/*
 * Validates all_ok with key set to replacement (JSON text; NULL removes the
 * key) and returns the path reported, or NULL when the value passed.
 */
static char path_buf[256];

static const char *check_with(const char *key, const char *replacement)
{
	const struct idl_member *m = idl_find(check_iface, IDL_MEMBER_METHOD, "All");
	struct json_object *v = json_tokener_parse(all_ok);
	int r;

	assert_non_null(m);
	assert_non_null(v);
	if (key) {
		json_object_object_del(v, key);
		if (replacement) {
			struct json_object *x = json_tokener_parse(replacement);

			if (!x && strcmp(replacement, "null") != 0)
				fail_msg("bad test JSON %s", replacement);
			json_object_object_add(v, key, x);
		}
	}
	r = idl_validate(m->in, v, path_buf, sizeof(path_buf));
	json_object_put(v);
	return r == 0 ? NULL : path_buf;
}

static void assert_rejected(const char *key, const char *replacement, const char *path)
{
	const char *got = check_with(key, replacement);

	if (!got)
		fail_msg("%s=%s was accepted", key, replacement ? replacement : "(absent)");
	if (strcmp(got, path) != 0)
		fail_msg("%s=%s: path '%s', wanted '%s'", key, replacement ? replacement : "(absent)",
			 got, path);
}

static void assert_accepted(const char *key, const char *replacement)
{
	const char *got = check_with(key, replacement);

	if (got)
		fail_msg("%s=%s rejected at '%s'", key ? key : "(all)", replacement ? replacement : "(absent)", got);
}

static void test_validate_baseline(void **state)
{
	assert_accepted(NULL, NULL);
}

static void test_validate_scalars(void **state)
{
	assert_accepted("b", "false");
	assert_rejected("b", "1", "b");
	assert_rejected("b", "\"true\"", "b");

	assert_accepted("i", "0");
	assert_accepted("i", "9223372036854775807");
	assert_accepted("i", "-9223372036854775808");
	assert_rejected("i", "\"1\"", "i");
	assert_rejected("i", "1.5", "i");
	assert_rejected("i", "true", "i");
	assert_rejected("i", "[1]", "i");

	assert_accepted("f", "1");
	assert_accepted("f", "-1e-300");
	assert_rejected("f", "\"1.0\"", "f");
	assert_rejected("f", "false", "f");

	assert_accepted("s", "\"\"");
	assert_rejected("s", "1", "s");
	assert_rejected("s", "{}", "s");
	assert_rejected("s", "[\"x\"]", "s");

	assert_accepted("o", "{}");
	assert_rejected("o", "[]", "o");
	assert_rejected("o", "\"{}\"", "o");

	assert_accepted("a", "1");
	assert_accepted("a", "\"x\"");
	assert_accepted("a", "{}");
	assert_accepted("a", "null");
	assert_accepted("a", NULL);
}

static void test_validate_float_not_finite(void **state)
{
	const struct idl_member *m = idl_find(check_iface, IDL_MEMBER_METHOD, "All");
	const double bad[] = { NAN, INFINITY, -INFINITY };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct json_object *v = json_tokener_parse(all_ok);

		json_object_object_add(v, "f", json_object_new_double(bad[i]));
		assert_int_equal(idl_validate(m->in, v, path_buf, sizeof(path_buf)), -EINVAL);
		assert_string_equal(path_buf, "f");
		json_object_put(v);
	}
	/* 1e999 is valid JSON but not a finite double. */
	assert_rejected("f", "1e999", "f");
}

static void test_validate_enum(void **state)
{
	assert_accepted("e", "\"one\"");
	assert_rejected("e", "\"three\"", "e");
	assert_rejected("e", "\"One\"", "e");
	assert_rejected("e", "1", "e");
	assert_rejected("e", "null", "e");
}

static void test_validate_arrays_and_maps(void **state)
{
	assert_accepted("list", "[]");
	assert_rejected("list", "[1,2,\"3\"]", "list[2]");
	assert_rejected("list", "[0,null]", "list[1]");
	assert_rejected("list", "{\"0\":1}", "list");
	assert_rejected("list", "1", "list");

	assert_accepted("map", "{}");
	assert_rejected("map", "{\"a\":\"x\",\"bad\":2}", "map.bad");
	assert_rejected("map", "[\"x\"]", "map");

	/* [string]() is a set: every value is an empty object. */
	assert_accepted("set", "{}");
	assert_rejected("set", "{\"x\":true}", "set.x");
	assert_rejected("set", "{\"x\":{\"y\":1}}", "set.x.y");
	assert_rejected("set", "[\"x\"]", "set");

	assert_accepted("nlist", "[null,{\"b\":1},null]");
	assert_accepted("nlist", "[]");
	assert_rejected("nlist", "[null,{\"b\":1},{\"b\":\"2\"}]", "nlist[2].b");
	assert_rejected("nlist", "[{\"b\":1,\"zz\":0}]", "nlist[0].zz");
}

static void test_validate_nested_paths(void **state)
{
	assert_rejected("a2", "{\"b\":{\"c\":\"x\"}}", "a2.b.c");
	assert_rejected("a2", "{\"b\":{}}", "a2.b.c");
	assert_rejected("a2", "{\"b\":{\"c\":1,\"d\":2}}", "a2.b.d");
	assert_rejected("a2", "{\"b\":null}", "a2.b");
	assert_rejected("a2", "{}", "a2.b");
	assert_rejected("ref", "{\"b\":\"1\"}", "ref.b");
	assert_rejected("ref", "{\"b\":1,\"n\":2}", "ref.n");
	assert_accepted("ref", "{\"b\":1,\"n\":\"x\"}");
	assert_accepted("node", "{\"v\":1,\"next\":{\"v\":2,\"next\":{\"v\":3}}}");
	assert_rejected("node", "{\"v\":1,\"next\":{\"v\":2,\"next\":{\"v\":\"3\"}}}", "node.next.next.v");
}

/*
 * "\u0000" is valid JSON and json-c keeps it, but C reads the string up to
 * the NUL: refused wherever a string is, typed or inside an object or any.
 */
static void test_validate_strings_without_nul(void **state)
{
	assert_rejected("s", "\"nul\\u0000tail\"", "s");
	assert_rejected("s", "\"\\u0000\"", "s");
	assert_rejected("s", "\"tail\\u0000\"", "s");
	assert_accepted("s", "\"\\u0001 \\u00e9 \\ud83d\\ude00\"");
	assert_rejected("e", "\"one\\u0000two\"", "e");
	assert_rejected("map", "{\"k\":\"v\\u0000\"}", "map.k");
	assert_rejected("ref", "{\"b\":1,\"n\":\"x\\u0000\"}", "ref.n");
	assert_rejected("nlist", "[null,{\"b\":1,\"n\":\"\\u0000\"}]", "nlist[1].n");
	assert_rejected("o", "{\"k\":[\"x\",\"y\\u0000\"]}", "o.k[1]");
	assert_accepted("o", "{\"k\":[\"x\",1,null,{\"y\":\"z\"}]}");
	assert_rejected("a", "\"\\u0000\"", "a");
	assert_rejected("a", "{\"deep\":{\"er\":\"\\u0000\"}}", "a.deep.er");
}

static void test_validate_unknown_and_missing(void **state)
{
	assert_rejected("unknown", "1", "unknown");
	assert_rejected("unknown", "null", "unknown");
	assert_rejected("s", NULL, "s");
	assert_rejected("list", NULL, "list");
	assert_rejected("ref", NULL, "ref");
	assert_rejected("s", "null", "s");
}

static void test_validate_absent_vs_null(void **state)
{
	/* Nullable: absent and null are the same. */
	assert_accepted("nb", NULL);
	assert_accepted("nb", "null");
	assert_accepted("nb", "true");
	assert_rejected("nb", "0", "nb");
	assert_accepted("nlist", "null");
	assert_accepted("node", "null");
	assert_accepted("ref", "{\"b\":1,\"n\":null}");
	/* Non-nullable: neither absent nor null. */
	assert_rejected("b", NULL, "b");
	assert_rejected("b", "null", "b");
	assert_rejected("o", "null", "o");
	/* An empty array or object is not null. */
	assert_accepted("nlist", "[]");
}

static void test_validate_top_level(void **state)
{
	const struct idl_member *m = idl_find(check_iface, IDL_MEMBER_METHOD, "Empty");
	struct json_object *v;

	/* No parameters, null and {} are the same. */
	assert_int_equal(idl_validate(m->in, NULL, path_buf, sizeof(path_buf)), 0);
	v = json_object_new_object();
	assert_int_equal(idl_validate(m->in, v, path_buf, sizeof(path_buf)), 0);
	json_object_object_add(v, "x", json_object_new_int(1));
	assert_int_equal(idl_validate(m->in, v, path_buf, sizeof(path_buf)), -EINVAL);
	assert_string_equal(path_buf, "x");
	json_object_put(v);

	/* A method with required input fails on absent parameters, naming the first. */
	m = idl_find(check_iface, IDL_MEMBER_METHOD, "All");
	assert_int_equal(idl_validate(m->in, NULL, path_buf, sizeof(path_buf)), -EINVAL);
	assert_string_equal(path_buf, "b");

	/* Parameters that are not an object. */
	v = json_object_new_array();
	assert_int_equal(idl_validate(m->in, v, path_buf, sizeof(path_buf)), -EINVAL);
	json_object_put(v);
}

/* json-c takes 2^63 as uint64 and anything past 2^64 - 1 as 2^64 - 1, silently. */
static void test_validate_call_ints_fit_int64(void **state)
{
	const struct idl_member *m = idl_find(check_iface, IDL_MEMBER_TYPE, "Inner");
	static const char *const refused[] = {
		"{\"b\":9223372036854775808}", "{\"b\":18446744073709551615}",
		"{\"b\":18446744073709551616}", "{\"b\":99999999999999999999999}",
	};

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		struct json_object *v = json_tokener_parse(refused[i]);

		assert_non_null(v);
		assert_int_equal(idl_validate_call(m->in, v, path_buf, sizeof(path_buf)), -EINVAL);
		assert_string_equal(path_buf, "b");
		/* A reply may carry an unsigned 64-bit value (a CRC-64). */
		assert_int_equal(idl_validate(m->in, v, path_buf, sizeof(path_buf)), 0);
		json_object_put(v);
	}
	{
		struct json_object *v = json_tokener_parse("{\"b\":9223372036854775807}");

		assert_int_equal(idl_validate_call(m->in, v, path_buf, sizeof(path_buf)), 0);
		json_object_put(v);
		v = json_tokener_parse("{\"b\":-9223372036854775808}");
		assert_int_equal(idl_validate_call(m->in, v, path_buf, sizeof(path_buf)), 0);
		json_object_put(v);
	}
}

static void test_validate_small_path_buffer(void **state)
{
	const struct idl_member *m = idl_find(check_iface, IDL_MEMBER_METHOD, "All");
	struct json_object *v = json_tokener_parse(all_ok);
	char small[4];

	json_object_object_add(v, "a2", json_tokener_parse("{\"b\":{\"c\":\"x\"}}"));
	assert_int_equal(idl_validate(m->in, v, small, sizeof(small)), -EINVAL);
	assert_int_equal(strlen(small), 3);
	assert_string_equal(small, "a2.");
	json_object_put(v);
}

static void test_validate_deep_nesting(void **state)
{
	const struct idl_member *m = idl_find(check_iface, IDL_MEMBER_METHOD, "All");
	struct json_object *v = json_tokener_parse(all_ok), *node = NULL;

	/* A chain of 200 nodes: refused (depth limit), and no crash. */
	for (int i = 0; i < 200; i++) {
		struct json_object *n = json_object_new_object();

		json_object_object_add(n, "v", json_object_new_int(i));
		if (node)
			json_object_object_add(n, "next", node);
		node = n;
	}
	json_object_object_add(v, "node", node);
	assert_int_equal(idl_validate(m->in, v, path_buf, sizeof(path_buf)), -EINVAL);
	json_object_put(v);
}

int main(void)
{
	const struct CMUnitTest parser[] = {
		cmocka_unit_test(test_parse_grammar),
		cmocka_unit_test(test_parse_small_valid),
		cmocka_unit_test(test_parse_errors_with_lines),
		cmocka_unit_test(test_parse_unknown_type_refs),
		cmocka_unit_test(test_parse_without_errmsg),
	};
	const struct CMUnitTest validator[] = {
		cmocka_unit_test(test_validate_baseline),
		cmocka_unit_test(test_validate_scalars),
		cmocka_unit_test(test_validate_float_not_finite),
		cmocka_unit_test(test_validate_enum),
		cmocka_unit_test(test_validate_arrays_and_maps),
		cmocka_unit_test(test_validate_nested_paths),
		cmocka_unit_test(test_validate_strings_without_nul),
		cmocka_unit_test(test_validate_unknown_and_missing),
		cmocka_unit_test(test_validate_absent_vs_null),
		cmocka_unit_test(test_validate_top_level),
		cmocka_unit_test(test_validate_call_ints_fit_int64),
		cmocka_unit_test(test_validate_small_path_buffer),
		cmocka_unit_test(test_validate_deep_nesting),
	};
	int failed = 0;

	failed += cmocka_run_group_tests_name("varlink_idl_parser", parser, NULL, NULL);
	failed += cmocka_run_group_tests_name("varlink_idl_validator", validator, setup_check,
					      teardown_check);
	return failed ? 1 : 0;
}
