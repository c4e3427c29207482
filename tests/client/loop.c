/* SPDX-License-Identifier: MIT */
#include "tests/client/loop.h"
#include "tests/client/harness.h"

#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <unistd.h>
#include <cmocka.h>

#define WAIT_POLLS 2000

struct rdmad_qp *loop_new_qp(struct loop *l, uint8_t type)
{
	struct rdmad_qp_init_attr init = { .send_cq = l->cq, .recv_cq = l->cq, .qp_type = type,
					   .cap = { .max_send_wr = 8, .max_recv_wr = 8,
						    .max_send_sge = 2, .max_inline_data = 64 } };
	struct rdmad_qp *qp = rdmad_create_qp(l->pd, &init);

	if (!qp)
		fail_msg("rdmad_create_qp: %s", rdmad_last_error());
	return qp;
}

void loop_to_rts(struct rdmad_qp *qp, uint32_t peer)
{
	loop_to_rts_rnr(qp, peer, 1);
}

void loop_to_rts_rnr(struct rdmad_qp *qp, uint32_t peer, uint8_t min_rnr_timer)
{
	struct rdmad_qp_attr init = { .qp_state = RDMAD_QPS_INIT,
				      .qp_access_flags = RDMAD_ACCESS_LOCAL_WRITE |
							 RDMAD_ACCESS_REMOTE_WRITE |
							 RDMAD_ACCESS_REMOTE_READ };
	struct rdmad_qp_attr rtr = { .qp_state = RDMAD_QPS_RTR, .path_mtu = 1024, .dest_qp_num = peer,
				     .max_dest_rd_atomic = 4, .min_rnr_timer = min_rnr_timer };
	struct rdmad_qp_attr rts = { .qp_state = RDMAD_QPS_RTS, .timeout = 14, .retry_cnt = 7,
				     .rnr_retry = 7, .max_rd_atomic = 4 };

	inet_pton(AF_INET6, "fe80::1", rtr.ah_attr.dgid);
	assert_int_equal(rdmad_modify_qp(qp, &init, RDMAD_QP_STATE | RDMAD_QP_ACCESS_FLAGS), 0);
	assert_int_equal(rdmad_modify_qp(qp, &rtr, RDMAD_QP_STATE | RDMAD_QP_AV | RDMAD_QP_PATH_MTU |
					 RDMAD_QP_DEST_QPN | RDMAD_QP_RQ_PSN |
					 RDMAD_QP_MAX_DEST_RD_ATOMIC | RDMAD_QP_MIN_RNR_TIMER), 0);
	assert_int_equal(rdmad_modify_qp(qp, &rts, RDMAD_QP_STATE | RDMAD_QP_TIMEOUT |
					 RDMAD_QP_RETRY_CNT | RDMAD_QP_RNR_RETRY | RDMAD_QP_SQ_PSN |
					 RDMAD_QP_MAX_QP_RD_ATOMIC), 0);
	assert_int_equal(qp->state, RDMAD_QPS_RTS);
}

void loop_open(struct loop *l)
{
	if (!l->ctx)
		l->ctx = harness_open();
	l->pd = rdmad_alloc_pd(l->ctx);
	l->cq = rdmad_create_cq_with_channel(l->ctx, 32, l->channel);
	assert_non_null(l->pd);
	assert_non_null(l->cq);
	l->buf = rdmad_alloc_buf(l->ctx, LOOP_BYTES);
	assert_non_null(l->buf);
	l->mr = rdmad_reg_mr(l->pd, l->buf, LOOP_BYTES, RDMAD_ACCESS_LOCAL_WRITE |
			     RDMAD_ACCESS_REMOTE_WRITE | RDMAD_ACCESS_REMOTE_READ);
	assert_non_null(l->mr);
	l->a = loop_new_qp(l, RDMAD_QPT_RC);
	l->b = loop_new_qp(l, RDMAD_QPT_RC);
	loop_to_rts(l->a, l->b->qp_num);
	loop_to_rts(l->b, l->a->qp_num);
}

struct rdmad_wc loop_next_wc(struct rdmad_cq *cq)
{
	struct rdmad_wc wc = { 0 };

	for (int i = 0; i < WAIT_POLLS; i++) {
		int n = rdmad_poll_cq(cq, 1, &wc);

		assert_true(n >= 0);
		if (n == 1)
			return wc;
		usleep(1000);
	}
	fail_msg("no completion");
	return wc;
}

struct rdmad_sge loop_sge(struct loop *l, size_t offset, uint32_t length)
{
	return (struct rdmad_sge){ .addr = (uintptr_t)(l->buf + offset), .length = length,
				   .lkey = l->mr->lkey };
}
