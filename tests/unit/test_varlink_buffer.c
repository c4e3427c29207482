/* SPDX-License-Identifier: MIT */
/* NUL framing and message parsing of lib/varlink/buffer.c. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "lib/varlink/buffer.h"
#include "lib/varlink/varlink.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void append_str(struct varlink_buffer *b, const char *s, size_t n)
{
	assert_int_equal(varlink_buffer_append(b, s, n), 0);
}

/* Takes the next message as a string, or NULL when none is complete. */
static char *next(struct varlink_buffer *b)
{
	const char *m;
	size_t len;
	char *copy;

	m = varlink_buffer_next_message(b, &len);
	if (!m)
		return NULL;
	copy = strndup(m, len);
	assert_non_null(copy);
	varlink_buffer_consume(b, len + 1);
	return copy;
}

static void assert_next(struct varlink_buffer *b, const char *want)
{
	char *got = next(b);

	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void test_split_across_reads(void **state)
{
	struct varlink_buffer b = { 0 };
	const char msg[] = "{\"method\":\"org.example.A.B\",\"parameters\":{\"x\":1}}";

	/* One byte at a time: nothing until the NUL arrives. */
	for (size_t i = 0; i < sizeof(msg) - 1; i++) {
		append_str(&b, msg + i, 1);
		assert_null(next(&b));
	}
	append_str(&b, "", 1);
	assert_next(&b, msg);
	assert_null(next(&b));
	assert_int_equal(varlink_buffer_pending(&b), 0);
	varlink_buffer_release(&b);
}

static void test_several_in_one_chunk(void **state)
{
	struct varlink_buffer b = { 0 };
	static const char chunk[] = "{\"a\":1}\0{}\0{\"b\":[1,2]}\0{\"c\"";

	append_str(&b, chunk, sizeof(chunk) - 1);
	assert_next(&b, "{\"a\":1}");
	assert_next(&b, "{}");
	assert_next(&b, "{\"b\":[1,2]}");
	assert_null(next(&b));
	assert_int_equal(varlink_buffer_pending(&b), 4);
	append_str(&b, ":true}\0", 7);
	assert_next(&b, "{\"c\":true}");
	assert_int_equal(varlink_buffer_pending(&b), 0);
	varlink_buffer_release(&b);
}

/* Partly consumed data survives the buffer growing and moving it to the front. */
static void test_growth_keeps_unconsumed(void **state)
{
	struct varlink_buffer b = { 0 };
	char *big = malloc(100000);
	char *got;

	assert_non_null(big);
	memset(big, 'x', 99999);
	big[99999] = '\0';
	append_str(&b, "{}\0{\"k\":\"", 9);
	assert_next(&b, "{}");
	append_str(&b, big, 99999);
	assert_null(next(&b));
	append_str(&b, "\"}\0", 3);
	got = next(&b);
	assert_non_null(got);
	assert_int_equal(strlen(got), 6 + 99999 + 2);
	assert_memory_equal(got, "{\"k\":\"xxx", 9);
	free(got);
	assert_int_equal(varlink_buffer_pending(&b), 0);
	varlink_buffer_release(&b);
	free(big);
}

static struct json_object *parse_ok(const char *text)
{
	struct json_object *o = varlink_parse_message(text, strlen(text));

	assert_non_null(o);
	return o;
}

static bool parses(const char *text)
{
	struct json_object *o = varlink_parse_message(text, strlen(text));

	json_object_put(o);
	return o != NULL;
}

static void test_parse_objects(void **state)
{
	struct json_object *o;

	assert_true(parses("{}"));
	assert_true(parses("{\"method\":\"a.b.C\",\"parameters\":{\"x\":[1,2.5,-3e2,true,null]}}"));
	/* Whitespace before and after the object is fine. */
	assert_true(parses(" \t\r\n{ \"a\" : 1 }\n \t"));
	assert_true(parses("{\"s\":\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"}"));
	assert_true(parses("{\"s\":\"\\u00e9\\n\\\"\\\\\\/\"}"));
	assert_true(parses("{\"big\":1e308,\"neg\":-0.5,\"exp\":1E+2}"));

	o = varlink_parse_message("{\"a\":{\"b\":\"x/y\"}}", 17);
	assert_non_null(o);
	assert_string_equal(json_object_get_string(json_object_object_get(
		json_object_object_get(o, "a"), "b")), "x/y");
	json_object_put(o);
}

static void test_parse_rejects_two_values(void **state)
{
	assert_false(parses("{}{}"));
	assert_false(parses("{} {}"));
	assert_false(parses("{}x"));
	assert_false(parses("{} 1"));
	assert_false(parses("{\"a\":1}}"));
}

static void test_parse_rejects_non_objects(void **state)
{
	assert_false(parses(""));
	assert_false(parses("   "));
	assert_false(parses("[]"));
	assert_false(parses("[{}]"));
	assert_false(parses("1"));
	assert_false(parses("\"{}\""));
	assert_false(parses("null"));
	assert_false(parses("true"));
}

static void test_parse_rejects_bad_json(void **state)
{
	assert_false(parses("{"));
	assert_false(parses("{\"a\":}"));
	assert_false(parses("{\"a\":1,}"));
	assert_false(parses("{a:1}"));
	assert_false(parses("{'a':1}"));
	assert_false(parses("{\"a\":'x'}"));
	assert_false(parses("{\"a\":01}"));
	assert_false(parses("{\"a\":.5}"));
	assert_false(parses("{\"a\":1.}"));
	assert_false(parses("{\"a\":TRUE}"));
	assert_false(parses("{\"a\":NaN}"));
	assert_false(parses("{\"a\":Infinity}"));
	assert_false(parses("{\"a\":-Infinity}"));
	assert_false(parses("{\"a\":nan}"));
	assert_false(parses("{\"a\":\"tab\there\"}"));
	assert_false(parses("{\"a\":\"line\nbreak\"}"));
	assert_false(parses("{\"a\":1} /* comment */"));
	assert_false(parses("{\"a\":\"\\x41\"}"));
}

static void test_parse_rejects_invalid_utf8(void **state)
{
	assert_false(parses("{\"a\":\"\xff\"}"));            /* never valid */
	assert_false(parses("{\"a\":\"\x80\"}"));            /* lone continuation */
	assert_false(parses("{\"a\":\"\xc3\"}"));            /* truncated */
	assert_false(parses("{\"a\":\"\xe2\x82\"}"));        /* truncated */
	assert_false(parses("{\"a\":\"\xc0\xaf\"}"));        /* overlong '/' */
	assert_false(parses("{\"a\":\"\xe0\x80\xaf\"}"));    /* overlong */
	assert_false(parses("{\"a\":\"\xed\xa0\x80\"}"));    /* surrogate U+D800 */
	assert_false(parses("{\"a\":\"\xf4\x90\x80\x80\"}")); /* U+110000 */
	assert_false(parses("{\"\xfe\":1}"));                /* in a key */
	assert_false(parses("{\"a\":1}\xc3"));               /* after the object */
	/* The edges of the valid ranges. */
	assert_true(parses("{\"a\":\"\xc2\x80 \xed\x9f\xbf \xee\x80\x80 \xf4\x8f\xbf\xbf\"}"));
}

/* json-c would cut such a key at the NUL: "name\u0000x" would read as "name". */
static void test_parse_rejects_nul_in_keys(void **state)
{
	assert_false(parses("{\"name\\u0000tail\":1}"));
	assert_false(parses("{\"\\u0000\" : 1}"));
	assert_false(parses("{\"a\":{\"b\":[{\"c\\u0000\"\n:1}]}}"));
	/* A NUL in a value is the interface check's to refuse, naming the field. */
	assert_true(parses("{\"name\":\"nul\\u0000tail\"}"));
	assert_true(parses("{\"a\":[\"\\u0000\",\":\"]}"));
	/* An escaped backslash before "u0000" is no NUL. */
	assert_true(parses("{\"a\\\\u0000\":1}"));
	assert_false(parses("{\"\\u00001\":\"\\u0001\"}"));
	assert_true(parses("{\"\\u0001\":1}"));
}

static void test_append_message(void **state)
{
	struct varlink_buffer b = { 0 };
	struct json_object *o = json_object_new_object();
	size_t len;
	const char *m;

	json_object_object_add(o, "path", json_object_new_string("/run/x"));
	json_object_object_add(o, "n", json_object_new_int(3));
	assert_int_equal(varlink_buffer_append_message(&b, o), 0);
	assert_int_equal(varlink_buffer_append_message(&b, o), 0);
	json_object_put(o);

	/* No whitespace, no "\/", each followed by exactly one NUL. */
	m = varlink_buffer_next_message(&b, &len);
	assert_non_null(m);
	assert_int_equal(len, strlen("{\"path\":\"/run/x\",\"n\":3}"));
	assert_memory_equal(m, "{\"path\":\"/run/x\",\"n\":3}\0{", len + 2);
	varlink_buffer_consume(&b, len + 1);
	assert_next(&b, "{\"path\":\"/run/x\",\"n\":3}");
	assert_int_equal(varlink_buffer_pending(&b), 0);
	varlink_buffer_release(&b);
}

static bool all_zero(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* A consumed message leaves zeros behind; the next one is untouched. */
static void test_consume_wipe(void **state)
{
	struct varlink_buffer b = { 0 };
	static const char two[] = "{\"key\":\"c2VjcmV0\"}\0{\"a\":1}";
	const char *m;
	size_t len;

	append_str(&b, two, sizeof(two));
	m = varlink_buffer_next_message(&b, &len);
	assert_non_null(m);
	varlink_buffer_consume_wipe(&b, len + 1);
	assert_true(all_zero(b.data, len + 1));
	assert_next(&b, "{\"a\":1}");
	varlink_buffer_release(&b);
}

/* Moving the pending bytes to the front wipes where they and the consumed ones were. */
static void test_compaction_wipes_what_it_leaves(void **state)
{
	struct varlink_buffer b = { 0 };
	char *x = malloc(3001), *y = malloc(1000);
	size_t cap;

	assert_non_null(x);
	assert_non_null(y);
	memset(x, 'x', 3000);
	x[3000] = '\0';
	memset(y, 'y', 1000);
	append_str(&b, x, 3001);
	append_str(&b, y, 1000);
	cap = b.cap;
	varlink_buffer_consume(&b, 3001);
	assert_int_equal(varlink_buffer_capacity_for(&b, cap - 1000), cap);
	assert_int_equal(varlink_buffer_reserve(&b, cap - 1000), 0);
	assert_int_equal(b.cap, cap);
	assert_memory_equal(b.data, y, 1000);
	assert_true(all_zero(b.data + 1000, 3001));
	varlink_buffer_release(&b);
	free(x);
	free(y);
}

static void test_capacity_for(void **state)
{
	struct varlink_buffer b = { 0 };
	char *bytes = calloc(1, 5000);

	assert_non_null(bytes);
	assert_int_equal(varlink_buffer_capacity_for(&b, 10), VARLINK_BUFFER_MIN);
	append_str(&b, bytes, 5000);
	assert_int_equal(b.cap, 8192);
	assert_int_equal(varlink_buffer_capacity_for(&b, 3000), 8192);
	assert_int_equal(varlink_buffer_capacity_for(&b, 4000), 16384);
	assert_int_equal(varlink_buffer_capacity_for(&b, SIZE_MAX - 10), SIZE_MAX);
	assert_int_equal(varlink_buffer_reserve(&b, SIZE_MAX - 10), -ENOMEM);
	varlink_buffer_release(&b);
	free(bytes);
}

/* After a large message the buffer goes back to VARLINK_BUFFER_KEEP, keeping what is pending. */
static void test_shrink(void **state)
{
	struct varlink_buffer b = { 0 };
	size_t big = 200 * 1024;
	char *msg = malloc(big);

	assert_non_null(msg);
	memset(msg, ' ', big);
	memcpy(msg, "{}", 2);
	msg[big - 1] = '\0';
	append_str(&b, msg, big);
	append_str(&b, "{\"b\"", 4);
	assert_true(b.cap > VARLINK_BUFFER_KEEP);
	/* Not while the large message is pending. */
	assert_int_equal(varlink_buffer_shrink(&b, VARLINK_BUFFER_KEEP), 0);
	assert_next(&b, msg);
	assert_int_equal(varlink_buffer_shrink(&b, VARLINK_BUFFER_KEEP), 1);
	assert_int_equal(b.cap, VARLINK_BUFFER_KEEP);
	assert_int_equal(varlink_buffer_shrink(&b, VARLINK_BUFFER_KEEP), 0);
	append_str(&b, ":2}", 4);
	assert_next(&b, "{\"b\":2}");
	varlink_buffer_release(&b);
	free(msg);
}

static void test_wipe_strings(void **state)
{
	struct json_object *o = parse_ok(
		"{\"method\":\"a.b.C\",\"parameters\":{\"key\":\"c2VjcmV0\",\"n\":5,"
		"\"list\":[\"abc\",{\"d\":\"efgh\"}]}}");
	struct json_object *p = json_object_object_get(o, "parameters");
	struct json_object *key = json_object_object_get(p, "key");
	struct json_object *list = json_object_object_get(p, "list");
	struct json_object *d = json_object_object_get(json_object_array_get_idx(list, 1), "d");

	varlink_json_wipe_strings(o);
	assert_int_equal(json_object_get_string_len(key), 8);
	assert_true(all_zero(json_object_get_string(key), 8));
	assert_true(all_zero(json_object_get_string(json_object_array_get_idx(list, 0)), 3));
	assert_true(all_zero(json_object_get_string(d), 4));
	assert_int_equal(json_object_get_int(json_object_object_get(p, "n")), 5);
	json_object_put(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_across_reads),
		cmocka_unit_test(test_several_in_one_chunk),
		cmocka_unit_test(test_growth_keeps_unconsumed),
		cmocka_unit_test(test_parse_objects),
		cmocka_unit_test(test_parse_rejects_two_values),
		cmocka_unit_test(test_parse_rejects_non_objects),
		cmocka_unit_test(test_parse_rejects_bad_json),
		cmocka_unit_test(test_parse_rejects_invalid_utf8),
		cmocka_unit_test(test_parse_rejects_nul_in_keys),
		cmocka_unit_test(test_append_message),
		cmocka_unit_test(test_consume_wipe),
		cmocka_unit_test(test_compaction_wipes_what_it_leaves),
		cmocka_unit_test(test_capacity_for),
		cmocka_unit_test(test_shrink),
		cmocka_unit_test(test_wipe_strings),
	};

	return cmocka_run_group_tests_name("varlink_buffer", tests, NULL, NULL);
}
