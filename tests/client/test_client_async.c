/* SPDX-License-Identifier: MIT */
/*
 * Asynchronous events (rdmad_get_async_event): each type rdmad delivers
 * (SQ drained, QP fatal, CQ error, GID change) arrives naming the program's
 * own object, never another program's, the
 * fd polls readable while one waits, and events a full ring could not take
 * are counted.
 */
#include "tests/client/harness.h"
#include "tests/client/loop.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

/* The ring's size when the library opens it (io.rdmad.Daemon.OpenAsyncEvents' default). */
#define RING_CAPACITY 256

static bool readable(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, timeout_ms) == 1 && (p.revents & POLLIN);
}

static void set_nonblocking(int fd)
{
	assert_int_equal(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK), 0);
}

/* The next event, which must come within 2 s. */
static struct rdmad_async_event next_event(struct rdmad_context *ctx)
{
	struct rdmad_async_event ev;

	assert_true(readable(rdmad_async_fd(ctx), 2000));
	assert_int_equal(rdmad_get_async_event(ctx, &ev), 0);
	rdmad_ack_async_event(&ev);
	return ev;
}

/* Nothing waits (the fd must be non-blocking). */
static void assert_no_event(struct rdmad_context *ctx)
{
	struct rdmad_async_event ev;

	assert_int_equal(rdmad_get_async_event(ctx, &ev), -EAGAIN);
}

static void gid_add(unsigned index, const char *gid)
{
	char params[128];

	snprintf(params, sizeof(params), "{\"port\": 1, \"index\": %u, \"gid\": \"%s\"}", index, gid);
	json_object_put(harness_call("io.rdmad.Gid.Add", params));
}

static void gid_del(unsigned index)
{
	char params[64];

	snprintf(params, sizeof(params), "{\"port\": 1, \"index\": %u}", index);
	json_object_put(harness_call("io.rdmad.Gid.Del", params));
}

static void test_sq_drained_names_the_qp(void **state)
{
	struct loop l = { 0 };
	struct rdmad_qp_attr sqd = { .qp_state = RDMAD_QPS_SQD }, rts = { .qp_state = RDMAD_QPS_RTS };
	struct rdmad_async_event ev;
	int fd;

	loop_open(&l);
	fd = rdmad_async_fd(l.ctx);
	assert_true(fd >= 0);
	assert_int_equal(rdmad_async_fd(l.ctx), fd);
	set_nonblocking(fd);
	assert_no_event(l.ctx);
	assert_false(readable(fd, 0));
	assert_int_equal(rdmad_modify_qp(l.b, &sqd, RDMAD_QP_STATE), 0);
	ev = next_event(l.ctx);
	assert_int_equal(ev.event_type, RDMAD_EVENT_SQ_DRAINED);
	assert_ptr_equal(ev.element.qp, l.b);
	assert_int_equal(ev.lost, 0);
	/* Back to RTS is the program's own doing: no event. */
	assert_int_equal(rdmad_modify_qp(l.b, &rts, RDMAD_QP_STATE), 0);
	assert_no_event(l.ctx);
	rdmad_close(l.ctx);
}

static void test_qp_fatal_names_both_qps_not_a_modify(void **state)
{
	struct loop l = { 0 };
	struct rdmad_qp_attr err = { .qp_state = RDMAD_QPS_ERR };
	struct rdmad_sge s;
	struct rdmad_send_wr wr = { .wr_id = 5, .opcode = RDMAD_WR_RDMA_WRITE, .sg_list = &s, .num_sge = 1,
				    .send_flags = RDMAD_SEND_SIGNALED };
	struct rdmad_qp *qp = NULL;
	struct rdmad_async_event ev;
	bool a = false, b = false;

	loop_open(&l);
	set_nonblocking(rdmad_async_fd(l.ctx));
	/* A MODIFY_QP to ERR is no fatal error. */
	qp = loop_new_qp(&l, RDMAD_QPT_RC);
	loop_to_rts(qp, l.a->qp_num);
	assert_int_equal(rdmad_modify_qp(qp, &err, RDMAD_QP_STATE), 0);
	assert_no_event(l.ctx);
	/* A WRITE with an rkey that names nothing: both sides go to ERR, each with its event. */
	s = loop_sge(&l, 0, 8);
	wr.wr.rdma.remote_addr = (uintptr_t)(l.buf + 8192);
	wr.wr.rdma.rkey = l.mr->rkey ^ 0x55;
	assert_int_equal(rdmad_post_send(l.a, &wr, NULL), 0);
	assert_int_not_equal(loop_next_wc(l.cq).status, RDMAD_WC_SUCCESS);
	for (int i = 0; i < 2; i++) {
		ev = next_event(l.ctx);
		assert_int_equal(ev.event_type, RDMAD_EVENT_QP_FATAL);
		assert_true(ev.element.qp == l.a || ev.element.qp == l.b);
		a |= ev.element.qp == l.a;
		b |= ev.element.qp == l.b;
	}
	assert_true(a && b);
	assert_no_event(l.ctx);
	rdmad_close(l.ctx);
}

static void test_cq_overflow_names_the_cq_then_the_qp(void **state)
{
	struct loop l = { 0 }, small;
	struct rdmad_context *other = harness_open();
	struct rdmad_sge s;
	struct rdmad_send_wr wr = { .opcode = RDMAD_WR_RDMA_WRITE, .sg_list = &s, .num_sge = 1,
				    .send_flags = RDMAD_SEND_SIGNALED };
	struct rdmad_async_event ev;
	struct rdmad_qp *x, *y;
	struct rdmad_wc wc;
	uint64_t polled = 0;

	loop_open(&l);
	set_nonblocking(rdmad_async_fd(l.ctx));
	set_nonblocking(rdmad_async_fd(other));
	/* x completes into a CQ of 2 entries; y, its peer, into the loop's. */
	small = l;
	small.cq = rdmad_create_cq(l.ctx, 2);
	assert_non_null(small.cq);
	x = loop_new_qp(&small, RDMAD_QPT_RC);
	y = loop_new_qp(&l, RDMAD_QPT_RC);
	loop_to_rts(x, y->qp_num);
	loop_to_rts(y, x->qp_num);
	/* Eight signaled WRITEs, none polled: more than the CQ holds. */
	s = loop_sge(&l, 0, 8);
	wr.wr.rdma.remote_addr = (uintptr_t)(l.buf + 8192);
	wr.wr.rdma.rkey = l.mr->rkey;
	for (wr.wr_id = 1; wr.wr_id <= 8; wr.wr_id++)
		assert_int_equal(rdmad_post_send(x, &wr, NULL), 0);
	/* The CQ's error first (it is the cause), then the QP that completed into it. */
	ev = next_event(l.ctx);
	assert_int_equal(ev.event_type, RDMAD_EVENT_CQ_ERR);
	assert_ptr_equal(ev.element.cq, small.cq);
	ev = next_event(l.ctx);
	assert_int_equal(ev.event_type, RDMAD_EVENT_QP_FATAL);
	assert_ptr_equal(ev.element.qp, x);
	/* Once: the completions lost after the first, flushes included, raise nothing more. */
	assert_false(readable(rdmad_async_fd(l.ctx), 200));
	assert_no_event(l.ctx);
	/* The completions that fitted are there, in order, all successful; the rest are lost. */
	while (rdmad_poll_cq(small.cq, 1, &wc) == 1) {
		assert_int_equal(wc.wr_id, ++polled);
		assert_int_equal(wc.status, RDMAD_WC_SUCCESS);
	}
	assert_true(polled >= 2 && polled < 8);
	/* Another program hears nothing of it. */
	assert_false(readable(rdmad_async_fd(other), 0));
	assert_no_event(other);
	rdmad_close(other);
	rdmad_close(l.ctx);
}

static void test_gid_change_reaches_every_application(void **state)
{
	struct rdmad_context *one = harness_open(), *two = harness_open();
	struct rdmad_async_event ev;

	set_nonblocking(rdmad_async_fd(one));
	set_nonblocking(rdmad_async_fd(two));
	gid_add(5, "fe80::5");
	gid_del(5);
	for (int i = 0; i < 2; i++) {
		struct rdmad_context *ctx = i ? two : one;

		for (int k = 0; k < 2; k++) {
			ev = next_event(ctx);
			assert_int_equal(ev.event_type, RDMAD_EVENT_GID_CHANGE);
			assert_int_equal(ev.element.port_num, 1);
			assert_int_equal(ev.gid_index, 5);
		}
		assert_no_event(ctx);
	}
	rdmad_close(one);
	rdmad_close(two);
}

static void test_another_applications_qp_is_never_heard(void **state)
{
	struct loop mine = { 0 }, theirs = { 0 };
	struct rdmad_qp_attr sqd = { .qp_state = RDMAD_QPS_SQD };
	struct rdmad_async_event ev;

	loop_open(&mine);
	loop_open(&theirs);
	set_nonblocking(rdmad_async_fd(mine.ctx));
	set_nonblocking(rdmad_async_fd(theirs.ctx));
	/* Their QP drains: they hear it, this program does not, even with a QP of the same number range. */
	assert_int_equal(rdmad_modify_qp(theirs.a, &sqd, RDMAD_QP_STATE), 0);
	ev = next_event(theirs.ctx);
	assert_int_equal(ev.event_type, RDMAD_EVENT_SQ_DRAINED);
	assert_ptr_equal(ev.element.qp, theirs.a);
	assert_false(readable(rdmad_async_fd(mine.ctx), 100));
	assert_no_event(mine.ctx);
	/* And the other way round. */
	assert_int_equal(rdmad_modify_qp(mine.b, &sqd, RDMAD_QP_STATE), 0);
	ev = next_event(mine.ctx);
	assert_ptr_equal(ev.element.qp, mine.b);
	assert_no_event(theirs.ctx);
	rdmad_close(mine.ctx);
	rdmad_close(theirs.ctx);
}

static void test_event_of_a_destroyed_qp_is_passed_over(void **state)
{
	struct loop l = { 0 };
	struct rdmad_qp_attr sqd = { .qp_state = RDMAD_QPS_SQD };
	struct rdmad_async_event ev;

	loop_open(&l);
	set_nonblocking(rdmad_async_fd(l.ctx));
	assert_int_equal(rdmad_modify_qp(l.a, &sqd, RDMAD_QP_STATE), 0);
	assert_true(readable(rdmad_async_fd(l.ctx), 2000));
	assert_int_equal(rdmad_destroy_qp(l.a), 0);
	assert_int_equal(rdmad_modify_qp(l.b, &sqd, RDMAD_QP_STATE), 0);
	ev = next_event(l.ctx);
	assert_ptr_equal(ev.element.qp, l.b);
	assert_no_event(l.ctx);
	rdmad_close(l.ctx);
}

static void test_overflow_is_counted_and_the_fd_stays_readable(void **state)
{
	struct rdmad_context *ctx = harness_open();
	struct rdmad_async_event ev;
	const int changes = RING_CAPACITY + 40;
	int fd = rdmad_async_fd(ctx);

	set_nonblocking(fd);
	/* Two events a round (the entry filled, then emptied): 40 past what the ring holds. */
	for (int i = 0; i < changes / 2; i++) {
		gid_add(6, "fe80::6");
		gid_del(6);
	}
	/* Every entry the ring held comes, and the fd says so until the last is read. */
	for (int i = 0; i < RING_CAPACITY; i++) {
		assert_true(readable(fd, 0));
		assert_int_equal(rdmad_get_async_event(ctx, &ev), 0);
		assert_int_equal(ev.event_type, RDMAD_EVENT_GID_CHANGE);
		assert_int_equal(ev.lost, 0);
	}
	assert_no_event(ctx);
	/* The next one says how many were dropped before it. */
	gid_add(6, "fe80::6");
	ev = next_event(ctx);
	assert_int_equal(ev.lost, changes - RING_CAPACITY);
	gid_del(6);
	ev = next_event(ctx);
	assert_int_equal(ev.lost, 0);
	rdmad_close(ctx);
}

static void test_blocking_read_waits_for_the_event(void **state)
{
	struct loop l = { 0 };
	struct rdmad_qp_attr sqd = { .qp_state = RDMAD_QPS_SQD };
	struct rdmad_async_event ev;

	loop_open(&l);
	assert_true(rdmad_async_fd(l.ctx) >= 0);
	/* Drained before the read: the blocking read finds it waiting, or waits for it. */
	assert_int_equal(rdmad_modify_qp(l.a, &sqd, RDMAD_QP_STATE), 0);
	assert_int_equal(rdmad_get_async_event(l.ctx, &ev), 0);
	assert_int_equal(ev.event_type, RDMAD_EVENT_SQ_DRAINED);
	assert_ptr_equal(ev.element.qp, l.a);
	rdmad_close(l.ctx);
}

static void test_open_needs_an_attached_connection(void **state)
{
	char *error;

	/* A connection that never attached (harness_call's) is refused by name. */
	error = harness_call_error("io.rdmad.Daemon.OpenAsyncEvents", "{}");
	assert_string_equal(error, "io.rdmad.Daemon.NotAttached");
	free(error);
	error = harness_call_error("io.rdmad.Daemon.OpenAsyncEvents", "{\"capacity\": 0}");
	assert_string_equal(error, "io.rdmad.Daemon.InvalidArgument");
	free(error);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sq_drained_names_the_qp),
		cmocka_unit_test(test_qp_fatal_names_both_qps_not_a_modify),
		cmocka_unit_test(test_cq_overflow_names_the_cq_then_the_qp),
		cmocka_unit_test(test_gid_change_reaches_every_application),
		cmocka_unit_test(test_another_applications_qp_is_never_heard),
		cmocka_unit_test(test_event_of_a_destroyed_qp_is_passed_over),
		cmocka_unit_test(test_overflow_is_counted_and_the_fd_stays_readable),
		cmocka_unit_test(test_blocking_read_waits_for_the_event),
		cmocka_unit_test(test_open_needs_an_attached_connection),
	};

	return cmocka_run_group_tests_name("librdmad async events", tests, harness_start, harness_stop);
}
