/* SPDX-License-Identifier: MIT */
/*
 * The QP model below the API: what a BATS test cannot reach on soft0 (a
 * device without sqd2rts, a drain in progress) and the rules of MODIFY_QP
 * that hold whatever the caller (nothing changes on an error; RESET forgets).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "daemon/soft/soft_device.h"
#include "daemon/verbs/cq.h"
#include "daemon/verbs/mr.h"
#include "daemon/verbs/qp.h"

struct fixture {
	struct rdma_device *dev;
	struct rdma_qp_init init;
};

static int setup(void **state)
{
	static const uint8_t gid[RDMA_GID_LEN] = { 0xfe, 0x80, [15] = 1 };
	struct fixture *f = calloc(1, sizeof(*f));
	struct rdma_error err;
	struct rdma_object *pd;
	struct rdma_cq *cq;

	assert_int_equal(soft_device_create(&f->dev, "soft0", 0), 0);
	pd = rdma_object_create(f->dev, RDMA_OBJ_PD, &err);
	assert_non_null(pd);
	assert_int_equal(rdma_cq_create(f->dev, 8, false, &cq, &err), 0);
	assert_int_equal(rdma_gid_add(f->dev, 1, 0, gid, &err), 0);
	f->init = (struct rdma_qp_init) {
		.type = RDMA_QPT_RC, .pd = pd->handle, .send_cq = cq->obj.handle,
		.recv_cq = cq->obj.handle, .cap = { .max_send_wr = 1, .max_recv_wr = 1 },
	};
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	rdma_device_free(f->dev);
	free(f);
	return 0;
}

static struct rdma_qp *create(struct fixture *f)
{
	struct rdma_error err;
	struct rdma_qp *qp;

	assert_int_equal(rdma_qp_create(f->dev, &f->init, &qp, &err), 0);
	return qp;
}

static int modify(struct fixture *f, struct rdma_qp *qp, enum rdma_qp_state state,
		  struct rdma_qp_attr attr, uint32_t mask, struct rdma_error *err)
{
	attr.state = state;
	return rdma_qp_modify(f->dev, qp, &attr, mask | RDMA_QP_STATE, err);
}

/* RESET -> INIT -> RTR -> RTS of an RC QP with the required attributes. */
static void to_rts(struct fixture *f, struct rdma_qp *qp)
{
	struct rdma_qp_attr a = {
		.access_flags = RDMA_ACCESS_REMOTE_READ, .path_mtu = 1024, .dest_qp_num = 9,
		.rq_psn = 1, .max_dest_rd_atomic = 1, .min_rnr_timer = 1, .timeout = 1,
		.retry_cnt = 1, .rnr_retry = 1, .sq_psn = 1, .max_rd_atomic = 1,
		.av = { .dgid = { 0xfe, 0x80, [15] = 2 }, .hop_limit = 64 },
	};
	struct rdma_error err;

	assert_int_equal(modify(f, qp, RDMA_QPS_INIT, a, RDMA_QP_ACCESS_FLAGS, &err), 0);
	assert_int_equal(modify(f, qp, RDMA_QPS_RTR, a, RDMA_QP_AV | RDMA_QP_PATH_MTU |
				RDMA_QP_DEST_QPN | RDMA_QP_RQ_PSN | RDMA_QP_MAX_DEST_RD_ATOMIC |
				RDMA_QP_MIN_RNR_TIMER, &err), 0);
	assert_int_equal(modify(f, qp, RDMA_QPS_RTS, a, RDMA_QP_TIMEOUT | RDMA_QP_RETRY_CNT |
				RDMA_QP_RNR_RETRY | RDMA_QP_SQ_PSN | RDMA_QP_MAX_QP_RD_ATOMIC, &err),
			 0);
	assert_int_equal(qp->state, RDMA_QPS_RTS);
}

static void test_first_qpn_is_2(void **state)
{
	struct fixture *f = *state;
	struct rdma_error err;

	assert_int_equal(create(f)->obj.handle, RDMA_QPN_FIRST);
	assert_int_equal(RDMA_QPN_FIRST, 2);
	assert_null(rdma_object_lookup(f->dev, RDMA_OBJ_QP, 1, &err));
	assert_int_equal(err.code, RDMA_ERR_NO_SUCH_OBJECT);
}

static void test_qpns_fill_the_table_without_0_and_1(void **state)
{
	struct fixture *f = *state;
	uint32_t max = f->dev->attr.max_qp;
	struct rdma_error err;
	struct rdma_qp *qp;

	/* max_qp QPs fit, numbered 2 .. max_qp + 1; one more is LimitReached. */
	for (uint32_t i = 0; i < max; i++) {
		qp = create(f);
		assert_true(qp->obj.handle >= 2 && qp->obj.handle <= max + 1);
	}
	assert_int_equal(rdma_qp_create(f->dev, &f->init, &qp, &err), -ENOSPC);
	assert_int_equal(err.code, RDMA_ERR_LIMIT_REACHED);
	assert_int_equal(err.limit, max);
	/* A freed number comes back only once the others are taken: here at once. */
	assert_int_equal(rdma_object_destroy(f->dev, RDMA_OBJ_QP, 5, &err), 0);
	assert_int_equal(create(f)->obj.handle, 5);
}

static void test_sig_pipelining_needs_sqd2rts(void **state)
{
	struct fixture *f = *state;
	struct rdma_error err;
	struct rdma_qp *qp;

	f->init.sig_pipelining = true;
	f->dev->caps.sqd2rts = false;
	assert_int_equal(rdma_qp_create(f->dev, &f->init, &qp, &err), -EOPNOTSUPP);
	assert_int_equal(err.code, RDMA_ERR_NOT_SUPPORTED);
	assert_string_equal(err.field, "sig_pipelining");
	assert_int_equal(f->dev->tables[RDMA_OBJ_QP].count, 0);
	f->dev->caps.sqd2rts = true;
	assert_true(create(f)->sig_pipelining);
}

static void test_draining_sqd_only_goes_to_err(void **state)
{
	struct fixture *f = *state;
	struct rdma_qp_attr none = { 0 };
	struct rdma_error err;
	struct rdma_qp *qp = create(f);

	to_rts(f, qp);
	assert_int_equal(modify(f, qp, RDMA_QPS_SQD, none, 0, &err), 0);
	/* What the owning worker reports while send WRs are still in flight. */
	qp->sq_draining = true;
	assert_int_equal(modify(f, qp, RDMA_QPS_RTS, none, 0, &err), -EPERM);
	assert_int_equal(err.code, RDMA_ERR_INVALID_STATE);
	assert_string_equal(err.field, "state");
	assert_int_equal(modify(f, qp, RDMA_QPS_SQD, none, 0, &err), -EPERM);
	assert_int_equal(modify(f, qp, RDMA_QPS_RESET, none, 0, &err), -EPERM);
	assert_int_equal(qp->state, RDMA_QPS_SQD);
	assert_int_equal(modify(f, qp, RDMA_QPS_ERR, none, 0, &err), 0);
	assert_int_equal(qp->state, RDMA_QPS_ERR);
}

static void test_an_error_changes_nothing(void **state)
{
	struct fixture *f = *state;
	struct rdma_qp_attr bad = { .min_rnr_timer = 32, .access_flags = RDMA_ACCESS_LOCAL_WRITE };
	struct rdma_error err;
	struct rdma_qp *qp = create(f);
	struct rdma_qp before;

	to_rts(f, qp);
	before = *qp;
	/* access_flags is fine, min_rnr_timer is not: neither is applied. */
	assert_int_equal(modify(f, qp, RDMA_QPS_RTS, bad, RDMA_QP_ACCESS_FLAGS | RDMA_QP_MIN_RNR_TIMER,
				&err), -EINVAL);
	assert_string_equal(err.field, "min_rnr_timer");
	assert_memory_equal(&before, qp, sizeof(before));
}

static void test_reset_forgets_and_lets_go_of_the_gid(void **state)
{
	struct fixture *f = *state;
	struct rdma_qp_attr none = { 0 };
	struct rdma_gid_entry *gid;
	struct rdma_error err;
	struct rdma_qp *qp = create(f);

	to_rts(f, qp);
	gid = rdma_gid_get(f->dev, 1, 0, "index", &err);
	assert_ptr_equal(qp->sgid, gid);
	assert_int_equal(rdma_gid_del(f->dev, 1, 0, &err), -EBUSY);
	assert_int_equal(err.user_handle, qp->obj.handle);
	assert_int_equal(modify(f, qp, RDMA_QPS_RESET, none, 0, &err), 0);
	assert_int_equal(qp->attr_mask, 0);
	assert_null(qp->sgid);
	assert_int_equal(rdma_gid_del(f->dev, 1, 0, &err), 0);
}

static void test_mtu_enum(void **state)
{
	/* enum virtio_ib_mtu: 256 -> 1 ... 4096 -> 5. */
	assert_int_equal(rdma_qp_mtu_enum(256), 1);
	assert_int_equal(rdma_qp_mtu_enum(512), 2);
	assert_int_equal(rdma_qp_mtu_enum(1024), 3);
	assert_int_equal(rdma_qp_mtu_enum(2048), 4);
	assert_int_equal(rdma_qp_mtu_enum(4096), 5);
	assert_int_equal(rdma_qp_mtu_enum(1500), 0);
	assert_int_equal(rdma_qp_mtu_enum(8192), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_first_qpn_is_2, setup, teardown),
		cmocka_unit_test_setup_teardown(test_qpns_fill_the_table_without_0_and_1, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sig_pipelining_needs_sqd2rts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_draining_sqd_only_goes_to_err, setup, teardown),
		cmocka_unit_test_setup_teardown(test_an_error_changes_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reset_forgets_and_lets_go_of_the_gid, setup, teardown),
		cmocka_unit_test(test_mtu_enum),
	};

	return cmocka_run_group_tests_name("QP model", tests, NULL, NULL);
}
