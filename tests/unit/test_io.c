/* SPDX-License-Identifier: MIT */
/* lib/io.c: whole reads with their size bound, and whole writes, through a pipe and a file. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "lib/io.h"

/* A memfd holding n bytes i % 251, read from its start. */
static int file_of(size_t n)
{
	int fd = memfd_create("test-io", MFD_CLOEXEC);
	uint8_t *data = malloc(n ? n : 1);

	assert_true(fd >= 0 && data);
	for (size_t i = 0; i < n; i++)
		data[i] = (uint8_t)(i % 251);
	assert_int_equal(write_all(fd, data, n), 0);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	free(data);
	return fd;
}

static void test_read_all_bound(void **state)
{
	uint8_t buf[64];
	size_t len;
	int fd;

	fd = file_of(64);                /* exactly the bound: accepted */
	assert_int_equal(read_all(fd, buf, sizeof(buf), &len), 0);
	assert_int_equal(len, 64);
	assert_int_equal(buf[63], 63);
	close(fd);
	fd = file_of(65);                /* one byte more: refused */
	assert_int_equal(read_all(fd, buf, sizeof(buf), &len), -EFBIG);
	close(fd);
	fd = file_of(0);
	assert_int_equal(read_all(fd, buf, sizeof(buf), &len), 0);
	assert_int_equal(len, 0);
	close(fd);
	assert_int_equal(read_all(-1, buf, sizeof(buf), &len), -EBADF);
}

static void test_read_all_alloc_grows_and_bounds(void **state)
{
	size_t n = 65536 * 3 + 5, len;
	uint8_t *data;
	int fd;

	fd = file_of(n);                 /* past the first buffer sizes */
	assert_int_equal(read_all_alloc(fd, n, &data, &len), 0);
	assert_int_equal(len, n);
	assert_int_equal(data[n - 1], (n - 1) % 251);
	assert_int_equal(data[n], '\0');
	free(data);
	close(fd);
	fd = file_of(n);
	assert_int_equal(read_all_alloc(fd, n - 1, &data, &len), -EFBIG);
	assert_true(len > n - 1);
	close(fd);
}

/* A pipe holds less than the write, so write_all must go on after short writes. */
static void test_write_all_through_a_pipe(void **state)
{
	size_t n = 1 << 20, len;
	uint8_t *in = malloc(n), *out;
	int p[2], status;
	pid_t pid;

	assert_non_null(in);
	memset(in, 0xa5, n);
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		_exit(write_all(p[1], in, n) == 0 ? 0 : 1);
	}
	close(p[1]);
	assert_int_equal(read_all_alloc(p[0], n, &out, &len), 0);
	assert_int_equal(len, n);
	assert_memory_equal(out, in, n);
	close(p[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	free(out);
	free(in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_all_bound),
		cmocka_unit_test(test_read_all_alloc_grows_and_bounds),
		cmocka_unit_test(test_write_all_through_a_pipe),
	};

	return cmocka_run_group_tests_name("io", tests, NULL, NULL);
}
