/* SPDX-License-Identifier: MIT */
/*
 * librdmad's verbs against a real rdmad: each call, and its refusals as
 * negative errno values with a message.
 */
#include "tests/client/harness.h"
#include "tests/client/loop.h"

#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>


static void assert_refused(int r, int err)
{
	assert_int_equal(r, -err);
	assert_true(rdmad_last_error()[0] != '\0');
}

static void test_open_refused_without_daemon(void **state)
{
	struct rdmad_context *ctx = rdmad_open("/nonexistent/io.rdmad", NULL);

	assert_null(ctx);
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(rdmad_last_error(), "/nonexistent/io.rdmad"));
	assert_null(rdmad_open(harness_socket(), "no-such-device-name-that-is-far-too-long-for-any-device-to-have-x"));
	assert_int_equal(errno, EINVAL);
}

static void test_open_uses_environment(void **state)
{
	struct rdmad_context *ctx;

	setenv("RDMACTL_SOCKET", harness_socket(), 1);
	ctx = rdmad_open(NULL, NULL);
	unsetenv("RDMACTL_SOCKET");
	assert_non_null(ctx);
	assert_int_equal(rdmad_close(ctx), 0);
}

static void test_query_device_port_gid(void **state)
{
	struct rdmad_context *ctx = harness_open();
	struct rdmad_device_attr dev;
	struct rdmad_port_attr port;
	uint8_t gid[16], want[16];

	assert_int_equal(rdmad_query_device(ctx, &dev), 0);
	assert_string_equal(dev.name, "soft0");
	assert_true(dev.max_qp > 0 && dev.max_qp_wr > 0 && dev.max_cqe > 0 && dev.max_mkey > 0);
	/* soft0's object counts, at least Linux rxe's (issue 32), as the library reports them. */
	assert_int_equal(dev.max_qp, 65536);
	assert_int_equal(dev.max_cq, 16384);
	assert_int_equal(dev.max_cqe, 32767);
	assert_int_equal(dev.max_mr, 262144);
	assert_int_equal(dev.max_mkey, 65536);
	assert_int_equal(dev.max_ah, 16384);
	assert_int_equal(dev.max_pd, 32764);
	assert_true(dev.phys_port_cnt >= 1);
	assert_int_equal(rdmad_query_port(ctx, 1, &port), 0);
	assert_int_equal(port.state, RDMAD_PORT_ACTIVE);
	assert_true(port.active_mtu >= 256 && port.gid_tbl_len > 0);
	assert_refused(rdmad_query_port(ctx, 9, &port), ENOENT);
	assert_int_equal(rdmad_query_gid(ctx, 1, 0, gid), 0);
	inet_pton(AF_INET6, "fe80::1", want);
	assert_memory_equal(gid, want, 16);
	assert_refused(rdmad_query_gid(ctx, 1, 5, gid), ENOENT);
	rdmad_close(ctx);
}

static void test_wrong_device_is_enodev(void **state)
{
	struct rdmad_context *ctx = rdmad_open(harness_socket(), "nosuch0");
	struct rdmad_device_attr dev;

	assert_non_null(ctx);
	assert_refused(rdmad_query_device(ctx, &dev), ENODEV);
	assert_null(rdmad_alloc_pd(ctx));
	assert_int_equal(errno, ENODEV);
	rdmad_close(ctx);
}

static void test_pd_and_mr(void **state)
{
	struct rdmad_context *ctx = harness_open();
	struct rdmad_pd *pd = rdmad_alloc_pd(ctx);
	uint8_t *buf, outside[64];
	struct rdmad_mr *mr;
	struct json_object *reply;
	char params[128];

	assert_non_null(pd);
	buf = rdmad_alloc_buf(ctx, 8192);
	assert_non_null(buf);
	assert_null(rdmad_alloc_buf(ctx, 0));
	assert_int_equal(errno, EINVAL);
	/* Only memory rdmad can share. */
	assert_null(rdmad_reg_mr(pd, outside, sizeof(outside), RDMAD_ACCESS_LOCAL_WRITE));
	assert_int_equal(errno, EINVAL);
	assert_null(rdmad_reg_mr(pd, buf + 4096, 8192, RDMAD_ACCESS_LOCAL_WRITE));
	assert_int_equal(errno, EINVAL);
	/* remote_write needs local_write: rdmad's refusal comes back as EINVAL. */
	assert_null(rdmad_reg_mr(pd, buf, 4096, RDMAD_ACCESS_REMOTE_WRITE));
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(rdmad_last_error(), "InvalidArgument"));

	mr = rdmad_reg_mr(pd, buf + 4096, 4096, RDMAD_ACCESS_LOCAL_WRITE | RDMAD_ACCESS_REMOTE_READ);
	assert_non_null(mr);
	assert_int_equal(mr->iova, (uintptr_t)(buf + 4096));
	assert_int_equal(mr->length, 4096);
	assert_int_equal(mr->rkey, mr->lkey);
	/* The buffer is the MR's memory: what the program writes, rdmad reads. */
	memcpy(buf + 4096, "shared", 6);
	snprintf(params, sizeof(params), "{\"handle\": %u, \"length\": 6}", mr->handle);
	reply = harness_call("io.rdmad.Mr.Read", params);
	assert_string_equal(json_object_get_string(json_object_object_get(reply, "data")), "c2hhcmVk");
	json_object_put(reply);

	assert_refused(rdmad_dealloc_pd(pd), EBUSY);
	assert_int_equal(rdmad_dereg_mr(mr), 0);
	assert_int_equal(rdmad_free_buf(ctx, buf), 0);
	assert_refused(rdmad_free_buf(ctx, buf), EINVAL);
	assert_int_equal(rdmad_dealloc_pd(pd), 0);
	rdmad_close(ctx);
}

static void test_cq(void **state)
{
	struct rdmad_context *ctx = harness_open();
	struct rdmad_cq *cq;
	struct rdmad_wc wc[4];

	assert_null(rdmad_create_cq(ctx, 0));
	assert_int_equal(errno, EINVAL);
	cq = rdmad_create_cq(ctx, 10);
	assert_non_null(cq);
	assert_int_equal(cq->cqe, 15);
	assert_int_equal(rdmad_poll_cq(cq, 4, wc), 0);
	assert_refused(rdmad_poll_cq(cq, -1, wc), EINVAL);
	assert_int_equal(rdmad_destroy_cq(cq), 0);
	rdmad_close(ctx);
}

static void test_qp_create_modify_query(void **state)
{
	struct loop l = { 0 };
	struct rdmad_qp_init_attr bad = { 0 };
	struct rdmad_qp_attr attr, rtr = { .qp_state = RDMAD_QPS_RTR };
	struct rdmad_qp_init_attr init;
	struct rdmad_qp *qp;

	l.ctx = harness_open();
	l.pd = rdmad_alloc_pd(l.ctx);
	l.cq = rdmad_create_cq(l.ctx, 8);
	assert_null(rdmad_create_qp(l.pd, &bad));
	assert_int_equal(errno, EINVAL);
	qp = loop_new_qp(&l, RDMAD_QPT_RC);
	assert_true(qp->qp_num > 1);
	assert_int_equal(qp->state, RDMAD_QPS_RESET);
	/* RESET -> RTR is no legal transition. */
	assert_refused(rdmad_modify_qp(qp, &rtr, RDMAD_QP_STATE), EINVAL);
	assert_non_null(strstr(rdmad_last_error(), "InvalidState"));
	assert_refused(rdmad_modify_qp(qp, &rtr, 0), EINVAL);
	assert_int_equal(rdmad_query_qp(qp, &attr, &init), 0);
	assert_int_equal(attr.qp_state, RDMAD_QPS_RESET);
	assert_int_equal(init.cap.max_send_wr, 8);
	assert_int_equal(init.cap.max_send_sge, 2);
	assert_int_equal(init.cap.max_inline_data, 64);
	assert_int_equal(init.qp_type, RDMAD_QPT_RC);
	assert_refused(rdmad_destroy_cq(l.cq), EBUSY);
	assert_int_equal(rdmad_destroy_qp(qp), 0);
	assert_int_equal(rdmad_destroy_cq(l.cq), 0);
	assert_int_equal(rdmad_dealloc_pd(l.pd), 0);
	rdmad_close(l.ctx);
}

static void test_send_recv_write_read(void **state)
{
	struct loop l = { 0 };
	struct rdmad_sge s, r;
	struct rdmad_recv_wr rwr = { .wr_id = 7, .sg_list = &r, .num_sge = 1 };
	struct rdmad_send_wr swr = { .wr_id = 8, .opcode = RDMAD_WR_SEND_WITH_IMM, .imm_data = 0xabcd,
				     .send_flags = RDMAD_SEND_SIGNALED, .sg_list = &s, .num_sge = 1 };
	struct rdmad_qp_attr attr;
	struct rdmad_wc wc;

	loop_open(&l);
	assert_int_equal(rdmad_query_qp(l.a, &attr, NULL), 0);
	assert_int_equal(attr.dest_qp_num, l.b->qp_num);
	assert_int_equal(attr.path_mtu, 1024);

	/* SEND with immediate from A lands in B's receive buffer. */
	memcpy(l.buf, "hello, rdmad", 12);
	s = loop_sge(&l, 0, 12);
	r = loop_sge(&l, 4096, 64);
	assert_int_equal(rdmad_post_recv(l.b, &rwr, NULL), 0);
	assert_int_equal(rdmad_post_send(l.a, &swr, NULL), 0);
	for (int i = 0; i < 2; i++) {
		wc = loop_next_wc(l.cq);
		assert_int_equal(wc.status, RDMAD_WC_SUCCESS);
		if (wc.qp_num == l.b->qp_num) {
			assert_int_equal(wc.wr_id, 7);
			assert_int_equal(wc.opcode, RDMAD_WC_RECV);
			assert_int_equal(wc.byte_len, 12);
			assert_int_equal(wc.imm_data, 0xabcd);
			assert_true(wc.wc_flags & RDMAD_WC_WITH_IMM);
		} else {
			assert_int_equal(wc.wr_id, 8);
			assert_int_equal(wc.opcode, RDMAD_WC_SEND);
		}
	}
	assert_memory_equal(l.buf + 4096, "hello, rdmad", 12);

	/* RDMA WRITE to an address of the MR (its iova is the buffer's address). */
	memcpy(l.buf + 100, "written", 7);
	s = loop_sge(&l, 100, 7);
	swr = (struct rdmad_send_wr){ .wr_id = 9, .opcode = RDMAD_WR_RDMA_WRITE,
				      .send_flags = RDMAD_SEND_SIGNALED, .sg_list = &s, .num_sge = 1,
				      .wr.rdma = { .remote_addr = (uintptr_t)(l.buf + 8192),
						   .rkey = l.mr->rkey } };
	assert_int_equal(rdmad_post_send(l.a, &swr, NULL), 0);
	wc = loop_next_wc(l.cq);
	assert_int_equal(wc.status, RDMAD_WC_SUCCESS);
	assert_int_equal(wc.opcode, RDMAD_WC_RDMA_WRITE);
	assert_memory_equal(l.buf + 8192, "written", 7);

	/* RDMA READ back, and an inline SEND. */
	s = loop_sge(&l, 12288, 7);
	swr.wr_id = 10;
	swr.opcode = RDMAD_WR_RDMA_READ;
	assert_int_equal(rdmad_post_send(l.a, &swr, NULL), 0);
	wc = loop_next_wc(l.cq);
	assert_int_equal(wc.status, RDMAD_WC_SUCCESS);
	assert_int_equal(wc.opcode, RDMAD_WC_RDMA_READ);
	assert_memory_equal(l.buf + 12288, "written", 7);

	memcpy(l.buf + 200, "inline!", 7);
	s = loop_sge(&l, 200, 7);
	rwr.wr_id = 11;
	r = loop_sge(&l, 4096 + 512, 64);
	swr = (struct rdmad_send_wr){ .wr_id = 12, .opcode = RDMAD_WR_SEND, .sg_list = &s, .num_sge = 1,
				      .send_flags = RDMAD_SEND_SIGNALED | RDMAD_SEND_INLINE };
	assert_int_equal(rdmad_post_recv(l.b, &rwr, NULL), 0);
	assert_int_equal(rdmad_post_send(l.a, &swr, NULL), 0);
	assert_int_equal(loop_next_wc(l.cq).status, RDMAD_WC_SUCCESS);
	assert_int_equal(loop_next_wc(l.cq).status, RDMAD_WC_SUCCESS);
	assert_memory_equal(l.buf + 4096 + 512, "inline!", 7);
	rdmad_close(l.ctx);
}

static void test_post_refusals(void **state)
{
	struct loop l = { 0 };
	struct rdmad_sge s;
	struct rdmad_send_wr second = { .wr_id = 2, .opcode = RDMAD_WR_SEND, .sg_list = &s, .num_sge = 1 };
	struct rdmad_send_wr first = { .next = &second, .wr_id = 1, .opcode = RDMAD_WR_SEND,
				       .sg_list = &s, .num_sge = 1 };
	struct rdmad_send_wr *bad = NULL;
	struct rdmad_recv_wr rwr = { .wr_id = 3, .sg_list = &s, .num_sge = 1 };
	struct rdmad_recv_wr *bad_recv = NULL;

	struct rdmad_mr *more[100];
	char outside[64];

	loop_open(&l);
	/* An SGE past its MR's end is refused here, naming it. */
	s = loop_sge(&l, 4 * 4096 - 8, 16);
	assert_refused(rdmad_post_send(l.a, &first, &bad), EINVAL);
	assert_ptr_equal(bad, &first);
	assert_non_null(strstr(rdmad_last_error(), "sg_list[0]"));
	/* An MR is found by key among many (the library's table grows), the first still once they go. */
	for (int i = 0; i < 100; i++)
		assert_non_null(more[i] = rdmad_reg_mr(l.pd, l.buf, 4096, RDMAD_ACCESS_LOCAL_WRITE));
	s = (struct rdmad_sge){ .addr = (uintptr_t)l.buf + 4000, .length = 200, .lkey = more[70]->lkey };
	assert_refused(rdmad_post_send(l.a, &first, &bad), EINVAL);
	snprintf(outside, sizeof(outside), "are outside MR 0x%x", more[70]->lkey);
	assert_non_null(strstr(rdmad_last_error(), outside));
	for (int i = 99; i >= 0; i--)
		assert_int_equal(rdmad_dereg_mr(more[i]), 0);
	s = loop_sge(&l, 4 * 4096 - 8, 16);
	assert_refused(rdmad_post_send(l.a, &first, &bad), EINVAL);
	assert_refused(rdmad_post_recv(l.b, &rwr, &bad_recv), EINVAL);
	assert_ptr_equal(bad_recv, &rwr);
	/* A chain stops at the WR refused: here the second, an unknown opcode. */
	s = loop_sge(&l, 0, 8);
	second.opcode = 99;
	assert_refused(rdmad_post_send(l.a, &first, &bad), EINVAL);
	assert_ptr_equal(bad, &second);
	/* More SGEs than the QP takes: rdmad refuses. */
	first.next = NULL;
	first.num_sge = 3;
	struct rdmad_sge three[3] = { loop_sge(&l, 0, 1), loop_sge(&l, 1, 1), loop_sge(&l, 2, 1) };
	first.sg_list = three;
	assert_refused(rdmad_post_send(l.a, &first, &bad), EINVAL);
	rdmad_close(l.ctx);
}

static void test_cancel_posted_send_wrs(void **state)
{
	struct loop l = { 0 };
	struct rdmad_qp_attr sqd = { .qp_state = RDMAD_QPS_SQD }, rts = { .qp_state = RDMAD_QPS_RTS };
	struct rdmad_sge s;
	struct rdmad_send_wr wr = { .wr_id = 77, .opcode = RDMAD_WR_RDMA_WRITE, .sg_list = &s,
				    .num_sge = 1, .send_flags = RDMAD_SEND_SIGNALED };
	struct rdmad_wc wc;

	loop_open(&l);
	/* Only in SQD. */
	assert_refused(rdmad_cancel_posted_send_wrs(l.a, 77), EINVAL);
	assert_int_equal(rdmad_modify_qp(l.a, &sqd, RDMAD_QP_STATE), 0);
	memcpy(l.buf, "never", 5);
	s = loop_sge(&l, 0, 5);
	wr.wr.rdma.remote_addr = (uintptr_t)(l.buf + 8192);
	wr.wr.rdma.rkey = l.mr->rkey;
	assert_int_equal(rdmad_post_send(l.a, &wr, NULL), 0);
	assert_int_equal(rdmad_cancel_posted_send_wrs(l.a, 77), 1);
	assert_int_equal(rdmad_cancel_posted_send_wrs(l.a, 78), 0);
	assert_int_equal(rdmad_modify_qp(l.a, &rts, RDMAD_QP_STATE), 0);
	/* The NOP keeps its place and completes; the bytes never went. */
	wc = loop_next_wc(l.cq);
	assert_int_equal(wc.wr_id, 77);
	assert_int_equal(wc.status, RDMAD_WC_SUCCESS);
	assert_memory_not_equal(l.buf + 8192, "never", 5);
	rdmad_close(l.ctx);
}

static void test_ah(void **state)
{
	struct rdmad_context *ctx = harness_open();
	struct rdmad_pd *pd = rdmad_alloc_pd(ctx);
	struct rdmad_ah_attr attr = { .sgid_index = 0 };
	struct rdmad_ah *ah;

	inet_pton(AF_INET6, "fe80::2", attr.dgid);
	ah = rdmad_create_ah(pd, &attr);
	assert_non_null(ah);
	assert_refused(rdmad_dealloc_pd(pd), EBUSY);
	attr.sgid_index = 7;
	assert_null(rdmad_create_ah(pd, &attr));
	assert_true(errno == EINVAL || errno == ENOENT);
	assert_int_equal(rdmad_destroy_ah(ah), 0);
	assert_int_equal(rdmad_dealloc_pd(pd), 0);
	rdmad_close(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_refused_without_daemon),
		cmocka_unit_test(test_open_uses_environment),
		cmocka_unit_test(test_query_device_port_gid),
		cmocka_unit_test(test_wrong_device_is_enodev),
		cmocka_unit_test(test_pd_and_mr),
		cmocka_unit_test(test_cq),
		cmocka_unit_test(test_qp_create_modify_query),
		cmocka_unit_test(test_send_recv_write_read),
		cmocka_unit_test(test_post_refusals),
		cmocka_unit_test(test_cancel_posted_send_wrs),
		cmocka_unit_test(test_ah),
	};

	return cmocka_run_group_tests_name("librdmad verbs", tests, harness_start, harness_stop);
}
