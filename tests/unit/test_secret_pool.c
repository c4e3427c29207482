/* SPDX-License-Identifier: MIT */
/*
 * daemon/verbs/secret_pool.c: blocks of every size class and past them,
 * zeroed when taken, wiped when given back, owned by the pool and only
 * those; the pages marked MADV_DONTDUMP ("dd" in /proc/self/smaps).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "daemon/verbs/secret_pool.h"

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* The VmFlags of the mapping holding p include "dd" (VM_DONTDUMP). */
static bool not_dumped(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	uintptr_t a = (uintptr_t)p, lo, hi;
	bool in = false, dd = false;
	char line[512];

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
			in = a >= lo && a < hi;
		else if (in && !strncmp(line, "VmFlags:", 8)) {
			dd = strstr(line, " dd") != NULL;
			break;
		}
	}
	fclose(f);
	return dd;
}

static void test_sizes_zeroed_owned_not_dumped(void **state)
{
	static const size_t sizes[] = { 1, 16, 17, 100, 1000, 4000, 65520, 65521, 300000 };
	uint8_t *p[sizeof(sizes) / sizeof(sizes[0])];
	bool locked;

	assert_int_equal(secret_pool_init(&locked), 0);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		p[i] = secret_pool_alloc(sizes[i]);
		assert_non_null(p[i]);
		assert_true(((uintptr_t)p[i] & 15) == 0);
		assert_true(all_zero(p[i], sizes[i]));
		assert_true(secret_pool_owns(p[i]) && secret_pool_owns(p[i] + sizes[i] - 1));
		assert_true(not_dumped(p[i]));
		memset(p[i], 0xa5, sizes[i]);
	}
	/* No two blocks overlap: each still holds only its own bytes. */
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (size_t j = 0; j < sizes[i]; j++)
			assert_int_equal(p[i][j], 0xa5);
		secret_pool_free(p[i]);
	}
	secret_pool_free(NULL);
}

static void test_heap_is_not_owned(void **state)
{
	void *h = calloc(1, 64);
	int stack = 0;

	assert_false(secret_pool_owns(h));
	assert_false(secret_pool_owns(&stack));
	assert_false(secret_pool_owns(NULL));
	free(h);
}

/* A block given back is wiped: taken again (the free list's first), it reads zero. */
static void test_free_wipes(void **state)
{
	uint8_t *a = secret_pool_alloc(200), *b;

	memset(a, 0x5a, 200);
	secret_pool_free(a);
	b = secret_pool_alloc(200);
	assert_ptr_equal(a, b);
	assert_true(all_zero(b, 200));
	secret_pool_free(b);
}

static void test_realloc_keeps_bytes(void **state)
{
	uint8_t *p = secret_pool_realloc(NULL, 10), *q;

	for (int i = 0; i < 10; i++)
		p[i] = (uint8_t)i;
	q = secret_pool_realloc(p, 5000);
	assert_non_null(q);
	assert_true(secret_pool_owns(q));
	for (int i = 0; i < 10; i++)
		assert_int_equal(q[i], i);
	assert_true(all_zero(q + 10, 5000 - 10));
	secret_pool_free(q);
}

/* More than a chunk's worth: the pool grows, and every new page is marked too. */
static void test_grows(void **state)
{
	enum { N = 200 };
	uint8_t *p[N];

	for (int i = 0; i < N; i++) {
		p[i] = secret_pool_alloc(4000);
		assert_non_null(p[i]);
		assert_true(not_dumped(p[i]));
	}
	for (int i = 0; i < N; i++)
		secret_pool_free(p[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes_zeroed_owned_not_dumped),
		cmocka_unit_test(test_heap_is_not_owned),
		cmocka_unit_test(test_free_wipes),
		cmocka_unit_test(test_realloc_keeps_bytes),
		cmocka_unit_test(test_grows),
	};

	return cmocka_run_group_tests_name("secret_pool", tests, NULL, NULL);
}
