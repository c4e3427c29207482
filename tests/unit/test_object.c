/* SPDX-License-Identifier: MIT */
/* daemon/verbs/object.c: handles, keys, limits, and the references that block a destroy. */
#include <setjmp.h>
#include <stdarg.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "daemon/soft/soft_device.h"
#include "daemon/verbs/mr.h"

#define N 64

static struct rdma_object objs[N];

static void test_handles_start_at_one_and_move_on(void **state)
{
	struct object_table t;

	object_table_init(&t, 1000, false);
	assert_int_equal(object_table_add(&t, &objs[0]), 0);
	assert_int_equal(objs[0].handle, 1);   /* 0 means "none" on the wire */
	assert_int_equal(object_table_add(&t, &objs[1]), 0);
	assert_int_equal(objs[1].handle, 2);
	object_table_remove(&t, &objs[0]);
	/* The freed handle is not the next one handed out. */
	assert_int_equal(object_table_add(&t, &objs[2]), 0);
	assert_int_equal(objs[2].handle, 3);
	assert_null(object_table_find(&t, 1));
	assert_ptr_equal(object_table_find(&t, 2), &objs[1]);
	assert_ptr_equal(object_table_find(&t, 3), &objs[2]);
	object_table_release(&t);
}

static void test_freed_handle_comes_back_only_after_a_full_cycle(void **state)
{
	struct object_table t;
	uint32_t limit = 8;

	object_table_init(&t, limit, false);
	for (uint32_t i = 0; i < limit; i++)
		assert_int_equal(object_table_add(&t, &objs[i]), 0);
	/* Handles 1..8; free 3, then every later add but the last finds the table full. */
	object_table_remove(&t, &objs[2]);
	assert_int_equal(object_table_add(&t, &objs[20]), 0);
	assert_int_equal(objs[20].handle, 3);
	object_table_remove(&t, &objs[0]);
	object_table_remove(&t, &objs[5]);
	/* The cursor is at 3: 6 comes before 1. */
	assert_int_equal(object_table_add(&t, &objs[21]), 0);
	assert_int_equal(objs[21].handle, 6);
	assert_int_equal(object_table_add(&t, &objs[22]), 0);
	assert_int_equal(objs[22].handle, 1);
	object_table_release(&t);
}

static void test_cycle_visits_every_handle_before_reuse(void **state)
{
	struct object_table t;
	uint32_t seen[N] = { 0 };

	object_table_init(&t, 40, false);
	/* Create and destroy one object at a time: handles 1..40, then 1 again. */
	for (uint32_t i = 0; i < 41; i++) {
		assert_int_equal(object_table_add(&t, &objs[0]), 0);
		assert_true(objs[0].handle >= 1 && objs[0].handle <= 40);
		seen[objs[0].handle]++;
		if (i < 40)
			assert_int_equal(objs[0].handle, i + 1);
		object_table_remove(&t, &objs[0]);
	}
	assert_int_equal(objs[0].handle, 1);
	assert_int_equal(seen[1], 2);
	object_table_release(&t);
}

static void test_keyed_tags_change_on_reuse(void **state)
{
	struct object_table t;
	uint32_t first_key;

	object_table_init(&t, 2, true);
	assert_int_equal(object_table_add(&t, &objs[0]), 0);
	first_key = objs[0].handle;
	assert_int_equal(first_key >> 8, 1);          /* index 1 ... */
	assert_int_not_equal(first_key & 0xff, 0);    /* ... and a tag */
	assert_ptr_equal(object_table_find(&t, first_key), &objs[0]);
	object_table_remove(&t, &objs[0]);
	/* Slots 2 then 1 again: same index, another tag; the old key finds nothing. */
	assert_int_equal(object_table_add(&t, &objs[1]), 0);
	assert_int_equal(objs[1].handle >> 8, 2);
	assert_int_equal(object_table_add(&t, &objs[2]), 0);
	assert_int_equal(objs[2].handle >> 8, 1);
	assert_int_not_equal(objs[2].handle, first_key);
	assert_null(object_table_find(&t, first_key));
	assert_ptr_equal(object_table_find(&t, objs[2].handle), &objs[2]);
	/* A key of the right index but a wrong tag finds nothing either. */
	assert_null(object_table_find(&t, (1u << 8) | ((objs[2].handle + 1) & 0xff)));
	object_table_release(&t);
}

static void test_limit(void **state)
{
	struct object_table t;

	object_table_init(&t, 3, false);
	for (int i = 0; i < 3; i++)
		assert_int_equal(object_table_add(&t, &objs[i]), 0);
	assert_int_equal(object_table_add(&t, &objs[3]), -ENOSPC);
	assert_int_equal(t.count, 3);
	object_table_remove(&t, &objs[1]);
	assert_int_equal(object_table_add(&t, &objs[3]), 0);
	assert_int_equal(objs[3].handle, 2);
	assert_int_equal(object_table_add(&t, &objs[4]), -ENOSPC);
	object_table_release(&t);
}

static void test_find_rejects_handle_zero_and_out_of_range(void **state)
{
	struct object_table t;

	object_table_init(&t, 10, false);
	assert_int_equal(object_table_add(&t, &objs[0]), 0);
	assert_null(object_table_find(&t, 0));
	assert_null(object_table_find(&t, 5));
	assert_null(object_table_find(&t, UINT32_MAX));
	object_table_release(&t);
}

static void test_iteration_sees_each_object_once(void **state)
{
	struct object_table t;
	struct rdma_object *o;
	unsigned n = 0;

	object_table_init(&t, 100, false);
	for (int i = 0; i < 10; i++)
		assert_int_equal(object_table_add(&t, &objs[i]), 0);
	object_table_remove(&t, &objs[4]);
	for (uint32_t pos = 0; (o = object_table_next(&t, &pos)); n++)
		assert_ptr_not_equal(o, &objs[4]);
	assert_int_equal(n, 9);
	object_table_release(&t);
}

/* Through a device: a PD with an MR is refused destruction naming the MR. */
static void test_find_user_and_destroy_refusal(void **state)
{
	struct rdma_device *dev;
	struct rdma_object *pd, *other;
	struct rdma_error err;
	struct rdma_mr *mr;
	uint32_t pd_handle;

	assert_int_equal(soft_device_create(&dev, "soft0", 0), 0);
	pd = rdma_object_create(dev, RDMA_OBJ_PD, &err);
	other = rdma_object_create(dev, RDMA_OBJ_PD, &err);
	assert_non_null(pd);
	assert_non_null(other);
	assert_int_equal(rdma_mr_create(dev, pd->handle, 4096, 0, 1u << 20, &mr, &err), 0);
	assert_ptr_equal(rdma_object_find_user(dev->tables, pd), &mr->obj);
	assert_null(rdma_object_find_user(dev->tables, other));
	assert_int_equal(rdma_object_count_users(dev, pd, RDMA_OBJ_MR), 1);
	assert_int_equal(rdma_object_count_users(dev, pd, RDMA_OBJ_QP), 0);

	assert_int_equal(rdma_object_destroy(dev, RDMA_OBJ_PD, pd->handle, &err), -EBUSY);
	assert_int_equal(err.code, RDMA_ERR_OBJECT_IN_USE);
	assert_int_equal(err.kind, RDMA_OBJ_PD);
	assert_int_equal(err.user_kind, RDMA_OBJ_MR);
	assert_int_equal(err.user_handle, mr->obj.handle);
	assert_ptr_equal(rdma_object_lookup(dev, RDMA_OBJ_PD, pd->handle, &err), pd);

	assert_int_equal(rdma_object_destroy(dev, RDMA_OBJ_MR, mr->obj.handle, &err), 0);
	assert_int_equal(pd->users, 0);
	assert_null(rdma_object_find_user(dev->tables, pd));
	pd_handle = pd->handle;
	assert_int_equal(rdma_object_destroy(dev, RDMA_OBJ_PD, pd_handle, &err), 0);
	assert_int_equal(rdma_object_destroy(dev, RDMA_OBJ_PD, pd_handle, &err), -ENOENT);
	assert_int_equal(err.code, RDMA_ERR_NO_SUCH_OBJECT);
	rdma_device_free(dev);
}

static void test_device_limits_apply(void **state)
{
	struct rdma_device *dev;
	struct rdma_object *o;
	struct rdma_error err;

	assert_int_equal(soft_device_create(&dev, "soft0", 0), 0);
	/* max_ah is 16384 on the soft device (issue 32: thousands of UD peers), with room for no more. */
	assert_int_equal(rdma_device_limit(dev, RDMA_OBJ_AH), 16384);
	for (int i = 0; i < 16384; i++)
		assert_non_null(rdma_object_create(dev, RDMA_OBJ_AH, &err));
	o = rdma_object_create(dev, RDMA_OBJ_AH, &err);
	assert_null(o);
	assert_int_equal(err.code, RDMA_ERR_LIMIT_REACHED);
	assert_int_equal(err.kind, RDMA_OBJ_AH);
	assert_int_equal(err.limit, 16384);
	rdma_device_free(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handles_start_at_one_and_move_on),
		cmocka_unit_test(test_freed_handle_comes_back_only_after_a_full_cycle),
		cmocka_unit_test(test_cycle_visits_every_handle_before_reuse),
		cmocka_unit_test(test_keyed_tags_change_on_reuse),
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_find_rejects_handle_zero_and_out_of_range),
		cmocka_unit_test(test_iteration_sees_each_object_once),
		cmocka_unit_test(test_find_user_and_destroy_refusal),
		cmocka_unit_test(test_device_limits_apply),
	};

	return cmocka_run_group_tests_name("device object tables", tests, NULL, NULL);
}
