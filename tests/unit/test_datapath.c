/* SPDX-License-Identifier: MIT */
/*
 * The data path below the API, with workers that are never started: the test
 * plays each worker's turn itself (its commands, then its pollers), so what
 * runs where, and in which order, is seen step by step.  The work queue; the
 * CQ's size shared by the lanes of two workers, and its overflow told once; a
 * fatal error reported to the main thread before the completion that tells of
 * it; RESET dropping WRs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>


#include "daemon/soft/soft_device.h"
#include "daemon/verbs/cq.h"
#include "daemon/soft/datapath.h"
#include "daemon/verbs/mkey.h"
#include "daemon/verbs/mr.h"
#include "daemon/verbs/qp.h"
#include "daemon/verbs/recovery.h"
#include "daemon/soft/workers.h"

#define N_WORKERS 2

struct fixture {
	struct rdma_device *dev;
	struct worker_set ws;
	struct dp_worker workers[N_WORKERS];
	uint32_t pd;
	struct rdma_mr *mr;
};

static int setup(void **state)
{
	static const uint8_t gid[RDMA_GID_LEN] = { 0xfe, 0x80, [15] = 1 };
	struct fixture *f = calloc(1, sizeof(*f));
	struct rdma_error err;
	struct rdma_object *pd;

	assert_int_equal(soft_device_create(&f->dev, "soft0", 0), 0);
	for (unsigned i = 0; i < N_WORKERS; i++) {
		assert_int_equal(dp_worker_init(&f->workers[i], i, -1), 0);
		f->workers[i].owner = &f->ws;
	}
	f->ws.workers = f->workers;
	f->ws.n = N_WORKERS;
	assert_int_equal(rdma_device_start(f->dev, &f->ws), 0);
	pd = rdma_object_create(f->dev, RDMA_OBJ_PD, &err);
	assert_non_null(pd);
	f->pd = pd->handle;
	assert_int_equal(rdma_mr_create(f->dev, f->pd, 4096, RDMA_ACCESS_ALL, 1 << 20, &f->mr, &err), 0);
	assert_int_equal(rdma_gid_add(f->dev, 1, 0, gid, &err), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	/* As rdmad stops: the workers first (their commands left run), then the device. */
	for (unsigned i = 0; i < N_WORKERS; i++)
		dp_worker_stop(&f->workers[i]);
	rdma_device_workers_stopped(f->dev);
	rdma_device_free(f->dev);
	free(f);
	return 0;
}

/* One turn of worker i: its commands, then its pollers once. */
static unsigned turn(struct fixture *f, unsigned i)
{
	struct dp_worker *w = &f->workers[i];
	unsigned work = 0;

	dp_worker_run_commands(w);
	for (unsigned p = 0; p < w->n_pollers; p++)
		work += w->pollers[p].fn(w, w->pollers[p].arg);
	return work;
}

static struct rdma_cq *cq_new(struct fixture *f, uint32_t cqe)
{
	struct rdma_error err;
	struct rdma_cq *cq;

	assert_int_equal(rdma_cq_create(f->dev, cqe, false, &cq, &err), 0);
	assert_non_null(cq->ring);
	return cq;
}

static struct rdma_qp *qp_new(struct fixture *f, struct rdma_cq *cq)
{
	struct rdma_qp_init init = {
		.type = RDMA_QPT_RC, .pd = f->pd, .send_cq = cq->obj.handle, .recv_cq = cq->obj.handle,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct rdma_error err;
	struct rdma_qp *qp;

	assert_int_equal(rdma_qp_create(f->dev, &init, &qp, &err), 0);
	assert_non_null(soft_qp(qp));
	return qp;
}

static void modify(struct fixture *f, struct rdma_qp *qp, enum rdma_qp_state state, uint32_t mask,
		   const struct rdma_qp_attr *values)
{
	struct rdma_qp_attr attr = values ? *values : (struct rdma_qp_attr){ 0 };
	struct rdma_error err;

	attr.state = state;
	assert_int_equal(rdma_qp_modify(f->dev, qp, &attr, mask | RDMA_QP_STATE, &err), 0);
}

static const struct rdma_qp_attr connected = {
	.access_flags = RDMA_ACCESS_ALL, .path_mtu = 1024, .max_dest_rd_atomic = 1,
	.min_rnr_timer = 1, .timeout = 14, .retry_cnt = 7, .rnr_retry = 7, .max_rd_atomic = 1,
	.av = { .dgid = { 0xfe, 0x80, [15] = 1 } },
};

/* INIT -> RTR -> RTS towards the QP numbered dest. */
static void connect_rest(struct fixture *f, struct rdma_qp *qp, uint32_t dest)
{
	struct rdma_qp_attr a = connected;

	a.dest_qp_num = dest;
	modify(f, qp, RDMA_QPS_RTR, RDMA_QP_AV | RDMA_QP_PATH_MTU | RDMA_QP_DEST_QPN | RDMA_QP_RQ_PSN |
	       RDMA_QP_MAX_DEST_RD_ATOMIC | RDMA_QP_MIN_RNR_TIMER, &a);
	modify(f, qp, RDMA_QPS_RTS, RDMA_QP_TIMEOUT | RDMA_QP_RETRY_CNT | RDMA_QP_RNR_RETRY |
	       RDMA_QP_SQ_PSN | RDMA_QP_MAX_QP_RD_ATOMIC, &a);
}

/* RESET -> INIT -> RTR -> RTS towards the QP numbered dest. */
static void connect_to(struct fixture *f, struct rdma_qp *qp, uint32_t dest)
{
	modify(f, qp, RDMA_QPS_INIT, RDMA_QP_ACCESS_FLAGS, &connected);
	connect_rest(f, qp, dest);
}

static void post_write(struct fixture *f, struct rdma_qp *qp, uint64_t wr_id, uint32_t rkey)
{
	struct rdma_dp_sge sge = { .key = f->mr->obj.handle, .offset = 0, .length = 8 };
	struct rdma_dp_send_wr wr = {
		.wr_id = wr_id, .opcode = DP_WR_RDMA_WRITE, .send_flags = DP_SEND_SIGNALED,
		.remote_key = rkey, .remote_offset = 64, .sges = &sge, .n_sges = 1,
	};
	struct rdma_error err;

	assert_int_equal(rdma_dp_post_sends(f->dev, qp, &wr, 1, &(uint32_t){ 0 }, &err), 0);
}

/* An MKEY over 512 bytes of data + 8 of T10-DIF in memory at offset of the MR; the PI as given. */
static struct rdma_mkey *t10_mkey(struct fixture *f, uint64_t offset, const uint8_t pi[8])
{
	struct rdma_mkey_entry e = { .mr = f->mr->obj.handle, .offset = offset, .length = 520 };
	struct rdma_mkey_conf c;
	struct rdma_error err;
	struct rdma_mkey *m;

	memset(f->mr->addr + offset, 0xa5, 512);
	memcpy(f->mr->addr + offset + 512, pi, 8);
	assert_int_equal(rdma_mkey_create(f->dev, f->pd, RDMA_MKEY_BLOCK_SIGNATURE, 4, &m, &err), 0);
	rdma_mkey_conf_init(&c);
	c.set_layout = true;
	c.layout = (struct rdma_mkey_layout){ .type = RDMA_LAYOUT_LIST, .n = 1, .entries = &e };
	c.set_access = true;
	c.access = RDMA_MKEY_ACCESS_ALL;
	c.set_sig = true;
	c.cfg.mem.sig_type = DP_SIG_T10DIF;
	c.cfg.mem.block_size = 512;
	c.cfg.mem.t10dif.bg = 0xffff;
	c.cfg.mem.t10dif.app_tag = 0x5678;
	c.cfg.mem.t10dif.ref_tag = 0xf0debc9a;
	assert_int_equal(rdma_mkey_configure(f->dev, m, &c, &err), 0);
	return m;
}

static const uint8_t good_pi[8] = { 0xec, 0x7d, 0x56, 0x78, 0xf0, 0xde, 0xbc, 0x9a };
static const uint8_t bad_pi[8] = { 0x00, 0x00, 0x56, 0x78, 0xf0, 0xde, 0xbc, 0x9a };

/* The seed's transaction: WRITE of 512 wire bytes from the MKEY, then a fenced signaled SEND. */
static void post_transaction(struct fixture *f, struct rdma_qp *qp, uint64_t wr_id, struct rdma_mkey *m)
{
	struct rdma_dp_sge data = { .key = m->obj.handle, .length = 512 };
	struct rdma_dp_sge resp = { .key = f->mr->obj.handle, .offset = 3584, .length = 8 };
	struct rdma_dp_send_wr wrs[2] = {
		{ .wr_id = wr_id, .opcode = DP_WR_RDMA_WRITE, .remote_key = f->mr->rkey,
		  .remote_offset = 2048, .sges = &data, .n_sges = 1 },
		{ .wr_id = wr_id, .opcode = DP_WR_SEND, .send_flags = DP_SEND_SIGNALED | DP_SEND_FENCE,
		  .sges = &resp, .n_sges = 1 },
	};
	struct rdma_error err;
	uint32_t bad;

	assert_int_equal(rdma_dp_post_sends(f->dev, qp, wrs, 2, &bad, &err), 0);
}

static struct rdma_qp *pipelining_qp(struct fixture *f, struct rdma_cq *cq, enum rdma_recovery_policy p)
{
	struct rdma_qp_init init = {
		.type = RDMA_QPT_RC, .pd = f->pd, .send_cq = cq->obj.handle, .recv_cq = cq->obj.handle,
		.cap = { .max_send_wr = 8, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
		.sig_pipelining = true, .has_recovery = true, .recovery = p,
	};
	struct rdma_error err;
	struct rdma_qp *qp;

	assert_int_equal(rdma_qp_create(f->dev, &init, &qp, &err), 0);
	return qp;
}

static void test_work_queue(void **state)
{
	struct dp_queue q;
	uint32_t index;
	uint64_t *slot, v;

	(void)state;
	assert_int_equal(dp_queue_init(&q, 3, sizeof(uint64_t), 0), 0);
	assert_int_equal(q.mask, 3);
	assert_int_equal(dp_queue_ready(&q, dp_queue_cons(&q)), 0);
	for (uint64_t i = 0; i < 4; i++) {
		slot = dp_queue_reserve(&q, &index);
		assert_non_null(slot);
		assert_int_equal(index, i);
		*slot = 100 + i;
		dp_queue_publish(&q, 1);
	}
	assert_null(dp_queue_reserve(&q, &index));
	assert_int_equal(dp_queue_count(&q), 4);
	/* The head stays until it is consumed (a WQE waiting through RNR). */
	dp_queue_copy(&q, dp_queue_cons(&q), &v);
	assert_int_equal(v, 100);
	dp_queue_copy(&q, dp_queue_cons(&q), &v);
	assert_int_equal(v, 100);
	dp_queue_consume(&q, 1);
	dp_queue_copy(&q, dp_queue_cons(&q), &v);
	assert_int_equal(v, 101);
	assert_int_equal(dp_queue_cons(&q), 1);
	/* A slot given back is reused: index 4 lands in slot 0. */
	slot = dp_queue_reserve(&q, &index);
	assert_non_null(slot);
	assert_int_equal(index, 4);
	assert_ptr_equal(slot, dp_queue_slot(&q, 0));
	dp_queue_release(&q);
}

static void test_connected_qps_share_a_worker(void **state)
{
	struct fixture *f = *state;
	struct rdma_cq *cq = cq_new(f, 8);
	struct rdma_qp *a = qp_new(f, cq), *b = qp_new(f, cq), *c = qp_new(f, cq);

	/* Nothing runs before RTR: no worker yet. */
	modify(f, a, RDMA_QPS_INIT, RDMA_QP_ACCESS_FLAGS, &(struct rdma_qp_attr){ 0 });
	assert_null(soft_qp(a)->worker);
	modify(f, a, RDMA_QPS_RESET, 0, NULL);
	connect_to(f, a, b->obj.handle);
	connect_to(f, b, a->obj.handle);
	assert_non_null(soft_qp(a)->worker);
	assert_ptr_equal(soft_qp(a)->worker, soft_qp(b)->worker);
	/* A QP connected to nobody it knows takes the next worker. */
	connect_to(f, c, 999);
	assert_ptr_not_equal(soft_qp(c)->worker, soft_qp(a)->worker);
}

static void test_cq_size_is_shared_by_the_lanes(void **state)
{
	struct fixture *f = *state;
	struct rdma_cq *cq = cq_new(f, 1);   /* 1 entry */
	struct rdma_cq *other = cq_new(f, 8);
	struct rdma_qp *a = qp_new(f, cq), *b = qp_new(f, other), *c = qp_new(f, cq), *d = qp_new(f, other);
	struct dp_event ev;
	struct dp_cqe e[4];
	uint32_t rkey = f->mr->rkey;

	connect_to(f, a, b->obj.handle);
	connect_to(f, b, a->obj.handle);
	connect_to(f, c, d->obj.handle);
	connect_to(f, d, c->obj.handle);
	assert_ptr_not_equal(soft_qp(a)->worker, soft_qp(c)->worker);
	post_write(f, a, 1, rkey);
	post_write(f, c, 2, rkey);
	turn(f, soft_qp(a)->worker->index);
	turn(f, soft_qp(c)->worker->index);
	/* The first completion filled the CQ; the second, on the other lane, overflowed. */
	assert_int_equal(atomic_load(&soft_qp(a)->counters.cq_overflows), 0);
	assert_int_equal(atomic_load(&soft_qp(c)->counters.cq_overflows), 1);
	assert_int_equal(dp_cq_poll(soft_cq(cq->ring), e, 4), 1);
	assert_int_equal(e[0].wr_id, 1);
	assert_int_equal(e[0].status, DP_WC_SUCCESS);
	assert_int_equal(e[0].opcode, DP_WC_RDMA_WRITE);
	assert_int_equal(e[0].byte_len, 8);
	/* The overflow put the CQ in error: told once, before the QP's own error. */
	assert_true(dp_queue_pop(&soft_qp(c)->worker->events, &ev));
	assert_int_equal(ev.type, DP_EVENT_CQ_ERROR);
	assert_int_equal(ev.object, cq->obj.handle);
	assert_ptr_equal(ev.ptr, soft_cq(cq->ring));
	assert_true(dp_queue_pop(&soft_qp(c)->worker->events, &ev));
	assert_int_equal(ev.type, DP_EVENT_QP_ERROR);
	assert_int_equal(ev.object, c->obj.handle);
	/* Polled, it has room, but stays in error: a's next completion is lost, a goes to ERR. */
	post_write(f, a, 3, rkey);
	turn(f, soft_qp(a)->worker->index);
	assert_int_equal(dp_cq_poll(soft_cq(cq->ring), e, 4), 0);
	assert_int_equal(atomic_load(&soft_qp(a)->counters.cq_overflows), 1);
	assert_true(dp_queue_pop(&soft_qp(a)->worker->events, &ev));
	assert_int_equal(ev.type, DP_EVENT_QP_ERROR);
	assert_int_equal(ev.object, a->obj.handle);
	assert_false(dp_queue_pop(&soft_qp(a)->worker->events, &ev));
}

static void count_cq_errors(struct rdma_device *dev, const struct rdma_event *ev, void *userdata)
{
	unsigned *n = userdata;

	(void)dev;
	if (ev->type == RDMA_EVENT_CQ_ERROR && ev->kind == RDMA_OBJ_CQ)
		*n += 1;
}

static void test_cq_error_reaches_the_model_once(void **state)
{
	struct fixture *f = *state;
	struct rdma_cq *cq = cq_new(f, 1), *other = cq_new(f, 8);
	struct rdma_qp *a = qp_new(f, cq), *b = qp_new(f, other);
	unsigned cq_errors = 0;

	assert_int_equal(rdma_device_add_event_sink(f->dev, count_cq_errors, &cq_errors), 0);
	connect_to(f, a, b->obj.handle);
	connect_to(f, b, a->obj.handle);
	for (uint64_t id = 1; id <= 3; id++)
		post_write(f, a, id, f->mr->rkey);
	turn(f, soft_qp(a)->worker->index);
	/* a's flushes lose their completions too: still one overflow told. */
	turn(f, soft_qp(a)->worker->index);
	worker_set_dispatch(&f->ws);
	assert_true(cq->error);
	assert_false(other->error);
	assert_int_equal(cq_errors, 1);
	assert_int_equal(a->state, RDMA_QPS_ERR);
	rdma_device_remove_event_sink(f->dev, count_cq_errors, &cq_errors);
}

/*
 * An armed CQ's event that finds the worker's event queue full is not lost:
 * the turn's end tells the driver to look at every armed CQ once there is room.
 */
static void test_cq_event_survives_a_full_event_queue(void **state)
{
	struct fixture *f = *state;
	struct rdma_cq *cq = cq_new(f, 8);
	struct rdma_qp *a = qp_new(f, cq), *b = qp_new(f, cq);
	struct rdma_error err;
	struct dp_worker *w;
	unsigned filled = 0;

	connect_to(f, a, b->obj.handle);
	connect_to(f, b, a->obj.handle);
	assert_int_equal(rdma_cq_req_notify(f->dev, cq, RDMA_CQ_NOTIFY_NEXT, &err), 0);
	w = soft_qp(a)->worker;
	/* Events the driver handles harmlessly (signature reports: none waiting). */
	while (dp_worker_emit(w, &(struct dp_event){ .type = DP_EVENT_REPORTS,
						       .cookie = (uint64_t)(uintptr_t)soft_qp(a)->nic }))
		filled++;
	assert_int_equal(filled, DP_WORKER_RING_SIZE);
	post_write(f, a, 1, f->mr->rkey);
	while (turn(f, w->index) || turn(f, soft_qp(b)->worker->index))
		;
	/* The completion is there, its event was not: the queue was full. */
	worker_set_dispatch(&f->ws);
	assert_int_equal(cq->events, 0);
	assert_int_equal(cq->armed, RDMA_CQ_NOTIFY_NEXT);
	/* The next turn's end has room again. */
	dp_worker_end_turn_hooks(w);
	worker_set_dispatch(&f->ws);
	assert_int_equal(cq->events, 1);
	assert_int_equal(cq->armed, 0);
}

static void test_error_reported_before_its_completion(void **state)
{
	struct fixture *f = *state;
	struct rdma_cq *cq = cq_new(f, 8);
	struct rdma_qp *a = qp_new(f, cq), *b = qp_new(f, cq);
	struct dp_event ev;
	struct dp_cqe e[4];

	connect_to(f, a, b->obj.handle);
	connect_to(f, b, a->obj.handle);
	post_write(f, a, 7, 0xdead00);   /* no such rkey */
	post_write(f, a, 8, f->mr->rkey);
	turn(f, soft_qp(a)->worker->index);
	/* Both QPs went to ERR (remote access error, class C): two events, in order. */
	assert_true(dp_queue_pop(&soft_qp(a)->worker->events, &ev));
	assert_int_equal(ev.type, DP_EVENT_QP_ERROR);
	assert_int_equal(ev.object, b->obj.handle);
	assert_true(dp_queue_pop(&soft_qp(a)->worker->events, &ev));
	assert_int_equal(ev.object, a->obj.handle);
	assert_false(dp_queue_pop(&soft_qp(a)->worker->events, &ev));
	/* The model learns of it only when the main thread handles the event. */
	assert_int_equal(a->state, RDMA_QPS_RTS);
	post_write(f, a, 9, f->mr->rkey);   /* posted in ERR (as the worker sees it) */
	turn(f, soft_qp(a)->worker->index);
	assert_int_equal(dp_cq_poll(soft_cq(cq->ring), e, 4), 3);
	assert_int_equal(e[0].wr_id, 7);
	assert_int_equal(e[0].status, DP_WC_REM_ACCESS_ERR);
	assert_int_equal(e[1].wr_id, 8);
	assert_int_equal(e[1].status, DP_WC_WR_FLUSH_ERR);
	assert_int_equal(e[2].wr_id, 9);
	assert_int_equal(e[2].status, DP_WC_WR_FLUSH_ERR);
}

static void test_events_take_the_model_to_err(void **state)
{
	struct fixture *f = *state;
	struct rdma_cq *cq = cq_new(f, 8);
	struct rdma_qp *a = qp_new(f, cq), *b = qp_new(f, cq);

	connect_to(f, a, b->obj.handle);
	connect_to(f, b, a->obj.handle);
	post_write(f, a, 1, 0xdead00);
	turn(f, soft_qp(a)->worker->index);
	worker_set_dispatch(&f->ws);
	assert_int_equal(a->state, RDMA_QPS_ERR);
	assert_int_equal(b->state, RDMA_QPS_ERR);
}

static void test_reset_drops_without_completions(void **state)
{
	struct fixture *f = *state;
	struct rdma_cq *cq = cq_new(f, 8);
	struct rdma_qp *a = qp_new(f, cq), *b = qp_new(f, cq);
	struct rdma_dp_sge sge = { .key = f->mr->obj.handle, .length = 8 };
	struct rdma_error err;
	struct dp_cqe e[4];
	unsigned index;

	connect_to(f, a, b->obj.handle);
	connect_to(f, b, a->obj.handle);
	assert_int_equal(rdma_dp_post_recv(f->dev, b, 1, &sge, 1, &err), 0);
	assert_int_equal(rdma_dp_post_recv(f->dev, b, 2, &sge, 1, &err), 0);
	index = soft_qp(b)->worker->index;
	modify(f, b, RDMA_QPS_RESET, 0, NULL);
	/* The worker let it go: the next connection may put it on another one. */
	assert_null(soft_qp(b)->worker);
	while (turn(f, index))
		;
	assert_int_equal(dp_cq_poll(soft_cq(cq->ring), e, 4), 0);
	assert_int_equal(dp_queue_count(&soft_qp(b)->rq), 0);
	/* Receives posted in INIT after the RESET stay, and are the worker's again from RTR on. */
	modify(f, b, RDMA_QPS_INIT, RDMA_QP_ACCESS_FLAGS, &(struct rdma_qp_attr){ 0 });
	assert_int_equal(rdma_dp_post_recv(f->dev, b, 3, &sge, 1, &err), 0);
	modify(f, b, RDMA_QPS_RESET, 0, NULL);
	assert_int_equal(dp_queue_count(&soft_qp(b)->rq), 0);
	modify(f, b, RDMA_QPS_INIT, RDMA_QP_ACCESS_FLAGS, &(struct rdma_qp_attr){ 0 });
	assert_int_equal(rdma_dp_post_recv(f->dev, b, 4, &sge, 1, &err), 0);
	connect_rest(f, b, a->obj.handle);
	assert_int_equal(dp_queue_count(&soft_qp(b)->rq), 1);
	assert_ptr_equal(soft_qp(b)->worker, soft_qp(a)->worker);
}

static void test_mkey_transfer_and_its_error_report(void **state)
{
	struct fixture *f = *state;
	struct rdma_cq *cq = cq_new(f, 8);
	struct rdma_qp *a = qp_new(f, cq), *b = qp_new(f, cq);
	struct rdma_mkey *good = t10_mkey(f, 0, good_pi), *bad = t10_mkey(f, 1024, bad_pi);
	struct rdma_dp_sge sge = { .key = good->obj.handle, .length = 512 };
	struct rdma_dp_send_wr wr = {
		.wr_id = 1, .opcode = DP_WR_RDMA_WRITE, .send_flags = DP_SEND_SIGNALED,
		.remote_key = f->mr->rkey, .remote_offset = 2048, .sges = &sge, .n_sges = 1,
	};
	struct rdma_object *user;
	struct dp_sig_err rec;
	struct rdma_error err;
	struct dp_cqe e[4];

	connect_to(f, a, b->obj.handle);
	connect_to(f, b, a->obj.handle);
	memset(f->mr->addr + 2048, 0, 520);
	assert_int_equal(rdma_dp_post_sends(f->dev, a, &wr, 1, &(uint32_t){ 0 }, &err), 0);
	/* Posted, not executed: the MKEY is in use by the QP. */
	user = rdma_datapath_key_user(f->dev, good->obj.handle);
	assert_ptr_equal(user, &a->obj);
	turn(f, soft_qp(a)->worker->index);
	assert_null(rdma_datapath_key_user(f->dev, good->obj.handle));
	/* The wire carried the 512 data bytes: the PI was checked and stripped. */
	assert_int_equal(f->mr->addr[2048 + 511], 0xa5);
	assert_int_equal(f->mr->addr[2048 + 512], 0);
	assert_int_equal(dp_cq_poll(soft_cq(cq->ring), e, 4), 1);
	assert_int_equal(e[0].status, DP_WC_SUCCESS);
	assert_int_equal(e[0].byte_len, 512);
	/* A bad guard: the transfer succeeds; the MKEY learns of it when the main thread syncs. */
	sge.key = bad->obj.handle;
	wr.wr_id = 2;
	assert_int_equal(rdma_dp_post_sends(f->dev, a, &wr, 1, &(uint32_t){ 0 }, &err), 0);
	turn(f, soft_qp(a)->worker->index);
	assert_int_equal(dp_cq_poll(soft_cq(cq->ring), e, 4), 1);
	assert_int_equal(e[0].status, DP_WC_SUCCESS);
	assert_false(bad->err_pending);
	rdma_datapath_sync(f->dev);
	assert_int_equal(rdma_mkey_check(bad, &rec, &err), 0);
	assert_int_equal(rec.type, DP_SIG_ERR_GUARD);
	assert_int_equal(rec.expected, 0);
	assert_int_equal(rec.actual, 0xec7d);
	assert_int_equal(atomic_load(&soft_qp(a)->counters.sig_errors[DP_SIG_ERR_GUARD]), 1);
	/* Without sig_pipelining the QP goes on. */
	assert_int_equal(a->state, RDMA_QPS_RTS);
}

static void test_sig_stop_stands_until_the_main_thread_knows(void **state)
{
	struct fixture *f = *state;
	struct rdma_cq *cq = cq_new(f, 8);
	struct rdma_qp *s = pipelining_qp(f, cq, RDMA_RECOVERY_MANUAL), *c = qp_new(f, cq);
	struct rdma_mkey *bad = t10_mkey(f, 0, bad_pi);
	struct rdma_qp_attr attr = { 0 };
	struct rdma_error err;
	struct dp_cqe e[4];
	uint32_t count;

	connect_to(f, s, c->obj.handle);
	connect_to(f, c, s->obj.handle);
	post_transaction(f, s, 1, bad);
	turn(f, soft_qp(s)->worker->index);
	/* Stopped right after the WRITE: the fenced SEND is still posted; nothing completed. */
	assert_int_equal(soft_qp(s)->state, RDMA_QPS_SQD);
	assert_int_equal(dp_queue_count(&soft_qp(s)->sq), 1);
	assert_int_equal(dp_cq_poll(soft_cq(cq->ring), e, 4), 0);
	/* An RTS -> RTS modify sent before the main thread heard of the stop does not resume it. */
	assert_int_equal(s->state, RDMA_QPS_RTS);
	attr.state = RDMA_QPS_RTS;
	assert_int_equal(rdma_qp_modify(f->dev, s, &attr, RDMA_QP_STATE, &err), 0);
	turn(f, soft_qp(s)->worker->index);
	assert_int_equal(soft_qp(s)->state, RDMA_QPS_SQD);
	/* Told: the model is in SQD, cancel finds the SEND, RTS resumes with a NOP. */
	worker_set_dispatch(&f->ws);
	assert_int_equal(s->state, RDMA_QPS_SQD);
	assert_int_equal(s->recovery.log->n_suspects, 1);
	assert_int_equal(rdma_qp_cancel(f->dev, s, 1, &count, &err), 0);
	assert_int_equal(count, 1);
	assert_true(rdma_qp_cancel(f->dev, s, 1, &count, &err) < 0);
	assert_int_equal(err.code, RDMA_ERR_INVALID_STATE);
	assert_string_equal(err.field, "wr_id");
	attr.state = RDMA_QPS_RTS;
	assert_int_equal(rdma_qp_modify(f->dev, s, &attr, RDMA_QP_STATE, &err), 0);
	turn(f, soft_qp(s)->worker->index);
	assert_int_equal(dp_cq_poll(soft_cq(cq->ring), e, 4), 1);
	assert_int_equal(e[0].wr_id, 1);
	assert_int_equal(e[0].status, DP_WC_SUCCESS);
	assert_int_equal(e[0].opcode, DP_WC_SEND);
	assert_int_equal(e[0].byte_len, 0);
	assert_int_equal(atomic_load(&soft_qp(s)->counters.nops), 1);
}

static void test_auto_recovery(void **state)
{
	struct fixture *f = *state;
	struct rdma_cq *cq = cq_new(f, 8);
	struct rdma_qp *s = pipelining_qp(f, cq, RDMA_RECOVERY_AUTO), *c = qp_new(f, cq);
	struct rdma_mkey *good = t10_mkey(f, 0, good_pi), *bad = t10_mkey(f, 1024, bad_pi);
	const struct rdma_recovery_record *rec;
	struct rdma_dp_sge sge = { .key = f->mr->obj.handle, .offset = 3072, .length = 64 };
	struct rdma_error err;
	struct dp_cqe e[8];

	connect_to(f, s, c->obj.handle);
	connect_to(f, c, s->obj.handle);
	assert_int_equal(rdma_dp_post_recv(f->dev, c, 100, &sge, 1, &err), 0);
	post_transaction(f, s, 1, bad);
	post_transaction(f, s, 2, good);
	turn(f, soft_qp(s)->worker->index);
	assert_int_equal(soft_qp(s)->state, RDMA_QPS_SQD);
	/* The main thread hears of the stop: check, cancel, RTS at once. */
	worker_set_dispatch(&f->ws);
	assert_int_equal(s->state, RDMA_QPS_RTS);
	rec = rdma_qp_recovery_record(s, 0);
	assert_non_null(rec);
	assert_true(rec->automatic);
	assert_int_equal(rec->checked, 2);      /* the bad one, and the good one still posted */
	assert_int_equal(rec->canceled, 1);
	assert_int_equal(rec->n_failed, 1);
	assert_int_equal(rec->failed[0].mkey, bad->obj.handle);
	assert_int_equal(rec->failed[0].wr_id, 1);
	assert_true(rec->since_error_ns >= rec->took_ns);
	assert_null(rdma_qp_recovery_record(s, 1));
	while (turn(f, soft_qp(s)->worker->index))
		;
	/*
	 * The NOP, then transaction 2's WRITE (unsignaled) and SEND: the client's
	 * receive completes while the SEND executes, before the SEND's own completion.
	 */
	assert_int_equal(dp_cq_poll(soft_cq(cq->ring), e, 8), 3);
	assert_int_equal(e[0].wr_id, 1);
	assert_int_equal(e[0].byte_len, 0);
	assert_int_equal(e[1].wr_id, 100);
	assert_int_equal(e[1].opcode, DP_WC_RECV);
	assert_int_equal(e[2].wr_id, 2);
	assert_int_equal(e[2].byte_len, 8);
	assert_int_equal(s->sqd_stats.recoveries, 1);
	assert_int_equal(f->dev->sqd_stats.wrs_canceled, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_work_queue),
		cmocka_unit_test_setup_teardown(test_connected_qps_share_a_worker, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cq_size_is_shared_by_the_lanes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cq_event_survives_a_full_event_queue, setup, teardown),
		cmocka_unit_test_setup_teardown(test_error_reported_before_its_completion, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cq_error_reaches_the_model_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_events_take_the_model_to_err, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reset_drops_without_completions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mkey_transfer_and_its_error_report, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sig_stop_stands_until_the_main_thread_knows, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_auto_recovery, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
