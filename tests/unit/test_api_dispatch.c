/* SPDX-License-Identifier: MIT */
/* daemon/api/dispatch.c: parameters by table, every field type, and the paths refusals name. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "daemon/api/dispatch.h"

static const char *color_word(unsigned value)
{
	static const char *const words[] = { "red", "green", "blue" };

	return value < 3 ? words[value] : NULL;
}

static const char *mode_word(unsigned bit)
{
	switch (bit) {
	case 1: return "read";
	case 4: return "write";
	}
	return NULL;
}

struct point {
	uint32_t x;
	uint64_t y;
};

struct params {
	uint32_t count, handle, modes;
	uint64_t offset;
	bool force, has_count;
	unsigned color;
	const char *name;
	struct json_object *raw;
	struct point origin;
	struct point *points;
	uint32_t n_points;
};

static const struct api_field point_fields[] = {
	{ .name = "x", .type = API_FIELD_U32, .offset = offsetof(struct point, x), .max = 100 },
	{ .name = "y", .type = API_FIELD_U64, .offset = offsetof(struct point, y) },
	{ NULL },
};

static const struct api_field fields[] = {
	{ .name = "count", .type = API_FIELD_U32, .offset = offsetof(struct params, count),
	  .min = 1, .max = 10, .given = API_GIVEN(struct params, has_count) },
	{ .name = "handle", .type = API_FIELD_HANDLE, .offset = offsetof(struct params, handle) },
	{ .name = "modes", .type = API_FIELD_FLAGS, .offset = offsetof(struct params, modes),
	  .word = mode_word, .max = 5 },
	{ .name = "offset", .type = API_FIELD_U64, .offset = offsetof(struct params, offset),
	  .invalid_parameter = true },
	{ .name = "force", .type = API_FIELD_BOOL, .offset = offsetof(struct params, force) },
	{ .name = "color", .type = API_FIELD_ENUM, .offset = offsetof(struct params, color),
	  .word = color_word, .max = 2 },
	{ .name = "name", .type = API_FIELD_STRING, .offset = offsetof(struct params, name) },
	{ .name = "raw", .type = API_FIELD_JSON, .offset = offsetof(struct params, raw) },
	{ .name = "origin", .type = API_FIELD_OBJECT, .offset = offsetof(struct params, origin),
	  .fields = point_fields },
	{ .name = "points", .type = API_FIELD_LIST, .offset = offsetof(struct params, points),
	  .count = offsetof(struct params, n_points), .size = sizeof(struct point),
	  .fields = point_fields, .max = 3 },
	{ NULL },
};

static const struct api_field required_fields[] = {
	{ .name = "handle", .type = API_FIELD_HANDLE, .offset = offsetof(struct params, handle),
	  .required = true },
	{ NULL },
};

/* Strings and JSON are borrowed from the parameters: kept until the next parse. */
static struct json_object *held;

/* Parses text by table into p (count defaults to 7); the refusal, if any, in why. */
static int parse(const char *text, const struct api_field *table, struct params *p,
		 struct api_refusal *why)
{
	json_object_put(held);
	held = json_tokener_parse(text);
	assert_non_null(held);
	memset(p, 0, sizeof(*p));
	p->count = 7;
	return api_fields_parse(held, table, p, why);
}

static void assert_argument(const struct api_refusal *why, const char *field, const char *reason)
{
	assert_false(why->invalid_parameter);
	assert_int_equal(why->err.code, RDMA_ERR_INVALID_ARGUMENT);
	assert_string_equal(why->err.field, field);
	if (reason)
		assert_string_equal(why->err.reason, reason);
}

static void assert_parameter(const struct api_refusal *why, const char *field)
{
	assert_true(why->invalid_parameter);
	assert_string_equal(why->err.field, field);
}

static void test_every_type(void **state)
{
	struct api_refusal why;
	struct params p;

	assert_int_equal(parse("{\"count\":3,\"handle\":4294967295,\"modes\":[\"read\",\"write\"],"
			       "\"offset\":9223372036854775807,\"force\":true,\"color\":\"blue\","
			       "\"name\":\"n\",\"raw\":{\"a\":1},\"origin\":{\"x\":100,\"y\":5},"
			       "\"points\":[{\"x\":1},{\"y\":2}]}", fields, &p, &why), 0);
	assert_int_equal(p.count, 3);
	assert_true(p.has_count);
	assert_int_equal(p.handle, UINT32_MAX);
	assert_int_equal(p.modes, 5);
	assert_true(p.offset == INT64_MAX);
	assert_true(p.force);
	assert_int_equal(p.color, 2);
	assert_string_equal(p.name, "n");
	assert_int_equal(json_object_get_int(json_object_object_get(p.raw, "a")), 1);
	assert_int_equal(p.origin.x, 100);
	assert_int_equal(p.origin.y, 5);
	assert_int_equal(p.n_points, 2);
	assert_int_equal(p.points[0].x, 1);
	assert_int_equal(p.points[1].y, 2);
	api_dispatch_free(fields, &p);
	assert_null(p.points);
	assert_int_equal(p.n_points, 0);
}

static void test_absent_and_null_keep_defaults(void **state)
{
	struct api_refusal why;
	struct params p;

	assert_int_equal(parse("{\"count\":null}", fields, &p, &why), 0);
	assert_int_equal(p.count, 7);
	assert_false(p.has_count);
	assert_null(p.points);
	assert_int_equal(parse("{\"points\":[]}", fields, &p, &why), 0);
	assert_null(p.points);
	assert_int_equal(p.n_points, 0);
}

static void test_ranges(void **state)
{
	struct api_refusal why;
	struct params p;

	assert_int_equal(parse("{\"count\":0}", fields, &p, &why), -EINVAL);
	assert_argument(&why, "count", "0; a number from 1 to 10");
	assert_int_equal(parse("{\"count\":11}", fields, &p, &why), -EINVAL);
	assert_argument(&why, "count", "11; a number from 1 to 10");
	assert_int_equal(parse("{\"origin\":{\"x\":-1}}", fields, &p, &why), -EINVAL);
	assert_argument(&why, "origin.x", "-1; a number from 0 to 100");
	assert_int_equal(parse("{\"origin\":{\"y\":-1}}", fields, &p, &why), -EINVAL);
	assert_argument(&why, "origin.y", "-1; a number from 0 to 9223372036854775807");
	/* A bad handle, and a field marked so, are the protocol's InvalidParameter. */
	assert_int_equal(parse("{\"handle\":4294967296}", fields, &p, &why), -EINVAL);
	assert_parameter(&why, "handle");
	assert_int_equal(parse("{\"offset\":-1}", fields, &p, &why), -EINVAL);
	assert_parameter(&why, "offset");
}

static void test_words(void **state)
{
	struct api_refusal why;
	struct params p;

	assert_int_equal(parse("{\"color\":\"pink\"}", fields, &p, &why), -EINVAL);
	assert_argument(&why, "color", "'pink' is not one of red, green, blue");
	assert_int_equal(parse("{\"modes\":[\"read\",\"exec\"]}", fields, &p, &why), -EINVAL);
	assert_argument(&why, "modes", "'exec' is not one of read, write");
}

static void test_lists_name_the_entry(void **state)
{
	struct api_refusal why;
	struct params p;

	assert_int_equal(parse("{\"points\":[{\"x\":1},{\"x\":2},{\"x\":101}]}", fields, &p, &why),
			 -EINVAL);
	assert_argument(&why, "points[2].x", NULL);
	/* What was allocated before the refusal is freed by api_dispatch_free. */
	api_dispatch_free(fields, &p);
	assert_null(p.points);
	assert_int_equal(parse("{\"points\":[{},{},{},{}]}", fields, &p, &why), -EINVAL);
	assert_argument(&why, "points", "4 entries; 0 to 3");
}

static void test_required(void **state)
{
	struct api_refusal why;
	struct params p;

	assert_int_equal(parse("{}", required_fields, &p, &why), -EINVAL);
	assert_parameter(&why, "handle");
	assert_int_equal(parse("{\"handle\":null}", required_fields, &p, &why), -EINVAL);
	assert_parameter(&why, "handle");
	assert_int_equal(parse("{\"handle\":8}", required_fields, &p, &why), 0);
	assert_int_equal(p.handle, 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_type),
		cmocka_unit_test(test_absent_and_null_keep_defaults),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_lists_name_the_entry),
		cmocka_unit_test(test_required),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
