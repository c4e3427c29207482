/* SPDX-License-Identifier: MIT */
/* daemon/verbs/cq.c: the size a CQ gets, and REQ_NOTIFY_CQ arming (roce_virtio.md 4.3). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "daemon/soft/soft_device.h"
#include "daemon/verbs/cq.h"

#define SOL RDMA_CQ_NOTIFY_SOLICITED
#define NEXT RDMA_CQ_NOTIFY_NEXT

static void test_size_is_rounded_as_rxe_does(void **state)
{
	/* rxe_queue_init: slots = roundup_pow_of_two(cqe + 1), reported cqe = slots - 1. */
	assert_int_equal(rdma_cq_size(1), 1);
	assert_int_equal(rdma_cq_size(2), 3);
	assert_int_equal(rdma_cq_size(3), 3);
	assert_int_equal(rdma_cq_size(4), 7);
	assert_int_equal(rdma_cq_size(100), 127);
	assert_int_equal(rdma_cq_size(127), 127);
	assert_int_equal(rdma_cq_size(128), 255);
	assert_int_equal(rdma_cq_size(1024), 2047);
}

static void test_create_bounds(void **state)
{
	struct rdma_device *dev;
	struct rdma_error err;
	struct rdma_cq *cq;

	assert_int_equal(soft_device_create(&dev, "soft0", 0), 0);
	assert_int_equal(rdma_cq_create(dev, 0, false, &cq, &err), -EINVAL);
	assert_string_equal(err.field, "cqe");
	/* max_cqe 32767, rxe's (issue 32). */
	assert_int_equal(rdma_cq_create(dev, 32768, false, &cq, &err), -EINVAL);
	assert_string_equal(err.field, "cqe");
	assert_int_equal(dev->tables[RDMA_OBJ_CQ].count, 0);
	assert_int_equal(rdma_cq_create(dev, 32767, false, &cq, &err), 0);
	assert_int_equal(cq->cqe, 32767);
	assert_int_equal(cq->armed, 0);
	assert_string_equal(rdma_cq_armed_name(cq), "none");
	rdma_device_free(dev);
}

static void test_next_fires_on_any_completion_once(void **state)
{
	struct rdma_cq cq = { 0 };
	struct rdma_error err;

	assert_false(rdma_cq_completion_event(&cq, true));   /* not armed: polled, no event */
	assert_int_equal(rdma_cq_req_notify(NULL, &cq, NEXT, &err), 0);
	assert_string_equal(rdma_cq_armed_name(&cq), "next");
	assert_true(rdma_cq_completion_event(&cq, false));
	/* One-shot: disarmed until the next request. */
	assert_string_equal(rdma_cq_armed_name(&cq), "none");
	assert_false(rdma_cq_completion_event(&cq, false));
	assert_false(rdma_cq_completion_event(&cq, true));
	assert_int_equal(cq.events, 1);
	assert_int_equal(cq.notify_requests, 1);
}

static void test_solicited_waits_for_a_solicited_completion(void **state)
{
	struct rdma_cq cq = { 0 };
	struct rdma_error err;

	assert_int_equal(rdma_cq_req_notify(NULL, &cq, SOL, &err), 0);
	assert_string_equal(rdma_cq_armed_name(&cq), "solicited");
	assert_false(rdma_cq_completion_event(&cq, false));
	assert_false(rdma_cq_completion_event(&cq, false));
	assert_true(rdma_cq_completion_event(&cq, true));
	assert_string_equal(rdma_cq_armed_name(&cq), "none");
	assert_int_equal(cq.events, 1);
}

static void test_arming_again_adds_flags(void **state)
{
	struct rdma_cq cq = { 0 };
	struct rdma_error err;

	/* rxe ORs new flags into the armed set: solicited, then next, fires on anything. */
	assert_int_equal(rdma_cq_req_notify(NULL, &cq, SOL, &err), 0);
	assert_int_equal(rdma_cq_req_notify(NULL, &cq, NEXT, &err), 0);
	assert_string_equal(rdma_cq_armed_name(&cq), "next");
	assert_true(rdma_cq_completion_event(&cq, false));
	/* next, then solicited: next still holds. */
	assert_int_equal(rdma_cq_req_notify(NULL, &cq, NEXT, &err), 0);
	assert_int_equal(rdma_cq_req_notify(NULL, &cq, SOL, &err), 0);
	assert_true(rdma_cq_completion_event(&cq, false));
	assert_int_equal(cq.notify_requests, 4);
}

static void test_notify_flags_are_one_of_two(void **state)
{
	struct rdma_cq cq = { 0 };
	struct rdma_error err;

	assert_int_equal(rdma_cq_req_notify(NULL, &cq, 0, &err), -EINVAL);
	assert_string_equal(err.field, "flags");
	assert_int_equal(rdma_cq_req_notify(NULL, &cq, SOL | NEXT, &err), -EINVAL);
	assert_int_equal(rdma_cq_req_notify(NULL, &cq, 4, &err), -EINVAL);
	assert_int_equal(cq.armed, 0);
	assert_int_equal(cq.notify_requests, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_is_rounded_as_rxe_does),
		cmocka_unit_test(test_create_bounds),
		cmocka_unit_test(test_next_fires_on_any_completion_once),
		cmocka_unit_test(test_solicited_waits_for_a_solicited_completion),
		cmocka_unit_test(test_arming_again_adds_flags),
		cmocka_unit_test(test_notify_flags_are_one_of_two),
	};

	return cmocka_run_group_tests_name("completion queues", tests, NULL, NULL);
}
