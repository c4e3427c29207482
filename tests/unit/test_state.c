/* Persistence below the API: state_write_file replaces a file whole (no temporary left, mode
 * 0600, a failure leaves the old file), and object tables take objects back at their handles
 * with later handles continuing after them. */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "daemon/verbs/object.h"
#include "daemon/core/state.h"

static char dir[] = "/tmp/test_state.XXXXXX";

static char *slurp(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static unsigned entries(const char *d)
{
	DIR *dd = opendir(d);
	struct dirent *e;
	unsigned n = 0;

	assert_non_null(dd);
	while ((e = readdir(dd)))
		n += e->d_name[0] != '.';
	closedir(dd);
	return n;
}

static void test_write_replaces_whole(void **state)
{
	char path[sizeof(dir) + 32];
	struct stat st;

	snprintf(path, sizeof(path), "%s/deks.json", dir);
	assert_int_equal(state_write_file(dir, "deks", "{\"a\":1}", 7), 0);
	assert_string_equal(slurp(path), "{\"a\":1}");
	assert_int_equal(state_write_file(dir, "deks", "{}", 2), 0);
	assert_string_equal(slurp(path), "{}");
	/* Only the file itself: the temporary is renamed, never left. */
	assert_int_equal(entries(dir), 1);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
}

static void test_write_failure_leaves_nothing(void **state)
{
	char missing[sizeof(dir) + 16];

	snprintf(missing, sizeof(missing), "%s/none", dir);
	assert_int_equal(state_write_file(missing, "deks", "{}", 2), -ENOENT);
	assert_int_equal(entries(dir), 1);
}

static void test_add_at_keeps_handles(void **state)
{
	struct object_table t;
	struct rdma_object a = { 0 }, b = { 0 }, c = { 0 }, d = { 0 };

	object_table_init(&t, 100, false);
	assert_int_equal(object_table_add_at(&t, &a, 5), 0);
	assert_int_equal(a.handle, 5);
	assert_ptr_equal(object_table_find(&t, 5), &a);
	assert_int_equal(object_table_add_at(&t, &b, 5), -EEXIST);
	assert_int_equal(object_table_add_at(&t, &b, 0), -ERANGE);
	assert_int_equal(object_table_add_at(&t, &b, 101), -ERANGE);
	/* New handles come after the one put back, not in the gap below it. */
	assert_int_equal(object_table_add(&t, &c), 0);
	assert_int_equal(c.handle, 6);
	/* A handle beyond the table's first growth. */
	assert_int_equal(object_table_add_at(&t, &b, 90), 0);
	assert_int_equal(object_table_add(&t, &d), 0);
	assert_int_equal(d.handle, 91);
	object_table_release(&t);

	object_table_init(&t, 4096, true);
	d.handle = 0;
	assert_int_equal(object_table_add_at(&t, &d, 3 << 8 | 0x42), 0);
	/* A keyed table keeps the whole key: index and tag. */
	assert_ptr_equal(object_table_find(&t, 3 << 8 | 0x42), &d);
	assert_null(object_table_find(&t, 3 << 8 | 0x41));
	object_table_release(&t);
}

static int setup(void **state)
{
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char path[sizeof(dir) + 32];

	snprintf(path, sizeof(path), "%s/deks.json", dir);
	unlink(path);
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_replaces_whole),
		cmocka_unit_test(test_write_failure_leaves_nothing),
		cmocka_unit_test(test_add_at_keeps_handles),
	};

	return cmocka_run_group_tests_name("state", tests, setup, teardown);
}
