/* SPDX-License-Identifier: MIT */
/* rdmactl's command table: matching, abbreviations, argument parsing, completion. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cmd/rdmactl.h"
#include "cmd/output.h"

/* The words a completion produced, space-separated. */
static char got[1024];

static void collect(void *data, const char *word)
{
	size_t n = strlen(got);

	snprintf(got + n, sizeof(got) - n, "%s%s", n ? " " : "", word);
}

static const char *complete(int n, const char **words)
{
	struct ctl ctl = { .socket_path = "/nonexistent/socket", .out = &output_text };

	got[0] = '\0';
	cmd_complete(&ctl, n, (char **)words, collect, NULL);
	return got;
}

static int dispatch(int n, const char **words)
{
	struct ctl ctl = { .socket_path = "/nonexistent/socket", .out = &output_text };
	int r;

	r = cmd_dispatch(&ctl, n, (char **)words);
	ctl_disconnect(&ctl);
	return r;
}

static void test_complete_objects(void **state)
{
	const char *w1[] = { "" };
	const char *w2[] = { "da" };
	const char *w3[] = { "-j", "-s", "/x", "st" };

	/* Every object the table has, then "help". */
	assert_non_null(strstr(complete(1, w1), "status dev "));
	assert_non_null(strstr(complete(1, w1), " daemon"));
	assert_non_null(strstr(complete(1, w1), " help"));
	assert_string_equal(complete(1, w2), "daemon");
	assert_string_equal(complete(4, w3), "status");
}

static void test_complete_commands_and_values(void **state)
{
	const char *w1[] = { "dev", "" };
	const char *w2[] = { "daem", "log", "" };
	const char *w3[] = { "daemon", "log-level", "e" };
	const char *w4[] = { "daemon", "log-level", "err", "" };
	const char *w5[] = { "nope", "" };

	assert_string_equal(complete(2, w1), "show list help");
	assert_string_equal(complete(3, w2), "emerg alert crit err warning notice info debug reset");
	assert_string_equal(complete(3, w3), "emerg err");
	/* LEVEL is given: nothing more to complete. */
	assert_string_equal(complete(4, w4), "");
	assert_string_equal(complete(2, w5), "");
}

static void test_usage_errors(void **state)
{
	const char *ambiguous[] = { "d" };
	const char *unknown[] = { "dev", "frob" };
	const char *extra[] = { "dev", "show", "a", "b" };
	const char *bad_value[] = { "daemon", "log-level", "loud" };
	const char *missing[] = { "daemon", "log-level" };
	const char *bad_option[] = { "dev", "show", "--nope" };

	assert_int_equal(dispatch(1, ambiguous), EXIT_USAGE);
	assert_int_equal(dispatch(2, unknown), EXIT_USAGE);
	assert_int_equal(dispatch(4, extra), EXIT_USAGE);
	assert_int_equal(dispatch(3, bad_value), EXIT_USAGE);
	assert_int_equal(dispatch(2, missing), EXIT_USAGE);
	assert_int_equal(dispatch(3, bad_option), EXIT_USAGE);
}

static void test_help_is_not_an_error(void **state)
{
	const char *top[] = { "help" };
	const char *obj[] = { "dev", "help" };
	const char *leaf[] = { "dev", "show", "--help" };

	assert_int_equal(dispatch(1, top), EXIT_OK);
	assert_int_equal(dispatch(2, obj), EXIT_OK);
	assert_int_equal(dispatch(3, leaf), EXIT_OK);
}

static void test_valid_words_reach_the_daemon(void **state)
{
	/* Parsing succeeds, so the failure is the missing daemon: exit 1, not 2. */
	const char *abbreviated[] = { "dev", "sh", "soft0" };
	const char *level[] = { "daemon", "log-level", "debug" };

	assert_int_equal(dispatch(3, abbreviated), EXIT_FAIL);
	assert_int_equal(dispatch(3, level), EXIT_FAIL);
}

/* Every table entry can be completed and has help text: one table, no orphans. */
static void check_table(const struct cmd *table)
{
	for (const struct cmd *c = table; c->name; c++) {
		assert_non_null(c->summary);
		assert_true(c->sub || c->run);
		if (c->sub)
			check_table(c->sub);
		for (const struct cmd_arg *a = c->args; a && a->name; a++) {
			assert_non_null(a->help);
			if (a->kind != ARG_POSITIONAL)
				assert_true(strncmp(a->name, "--", 2) == 0);
		}
	}
}

/* Commands return 0 or a negative errno; one mapping makes the exit code. */
static void test_exit_codes(void **state)
{
	assert_int_equal(cmd_exit_code(0), EXIT_OK);
	assert_int_equal(cmd_exit_code(-EINVAL), EXIT_USAGE);
	assert_int_equal(cmd_exit_code(-EIO), EXIT_FAIL);
	assert_int_equal(cmd_exit_code(-EBADE), EXIT_FAIL);
	assert_int_equal(cmd_exit_code(-ECONNREFUSED), EXIT_FAIL);
}

static void test_table_is_complete(void **state)
{
	check_table(cmd_root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_complete_objects),
		cmocka_unit_test(test_complete_commands_and_values),
		cmocka_unit_test(test_usage_errors),
		cmocka_unit_test(test_help_is_not_an_error),
		cmocka_unit_test(test_valid_words_reach_the_daemon),
		cmocka_unit_test(test_exit_codes),
		cmocka_unit_test(test_table_is_complete),
	};

	return cmocka_run_group_tests_name("rdmactl command table", tests, NULL, NULL);
}
