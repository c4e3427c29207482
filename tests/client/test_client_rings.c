/* SPDX-License-Identifier: MIT */
/*
 * The shared-memory rings between librdmad and rdmad: completion channels,
 * what rdmad refuses around rings, and what it does with entries a hostile
 * program writes straight into them (this test reaches the library's
 * mapping through client/internal.h, as a program that maps the memfd itself would).
 */
#include "client/internal.h"
#include "dataplane/wqe.h"
#include "lib/varlink/varlink.h"
#include "tests/client/harness.h"
#include "tests/client/loop.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

/* A signaled WR of s; a WRITE goes to the loop's second page. */
static void post_send(struct loop *l, struct rdmad_qp *qp, uint8_t opcode, struct rdmad_sge *s,
		      unsigned flags)
{
	struct rdmad_send_wr wr = { .wr_id = 7, .opcode = opcode, .sg_list = s, .num_sge = 1,
				    .send_flags = (uint8_t)(RDMAD_SEND_SIGNALED | flags) };

	wr.wr.rdma.remote_addr = (uintptr_t)l->buf + 4096;
	wr.wr.rdma.rkey = l->mr->rkey;

	assert_int_equal(rdmad_post_send(qp, &wr, NULL), 0);
}

static void post_recv(struct loop *l, struct rdmad_qp *qp)
{
	struct rdmad_sge s = loop_sge(l, 8192, 64);
	struct rdmad_recv_wr wr = { .wr_id = 9, .sg_list = &s, .num_sge = 1 };

	assert_int_equal(rdmad_post_recv(qp, &wr, NULL), 0);
}

/* Whether the channel's descriptor becomes readable within ms. */
static bool channel_ready(struct rdmad_comp_channel *ch, int ms)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

static void test_completion_channel(void **state)
{
	struct loop l = { 0 };
	struct rdmad_sge s;
	struct rdmad_cq *cq = NULL;
	struct rdmad_wc wc;

	l.ctx = harness_open();
	l.channel = rdmad_create_comp_channel(l.ctx);
	assert_non_null(l.channel);
	loop_open(&l);
	/* Not armed: a completion is no event. */
	s = loop_sge(&l, 0, 16);
	post_send(&l, l.a, RDMAD_WR_RDMA_WRITE, &s, 0);
	wc = loop_next_wc(l.cq);
	assert_int_equal(wc.status, RDMAD_WC_SUCCESS);
	assert_false(channel_ready(l.channel, 50));
	/* Armed for solicited completions only: an unsolicited SEND's receive is no event... */
	assert_int_equal(rdmad_req_notify_cq(l.cq, 1), 0);
	post_recv(&l, l.b);
	post_send(&l, l.a, RDMAD_WR_SEND, &s, 0);
	assert_int_equal(loop_next_wc(l.cq).status, RDMAD_WC_SUCCESS);
	assert_int_equal(loop_next_wc(l.cq).status, RDMAD_WC_SUCCESS);
	assert_false(channel_ready(l.channel, 50));
	/* ...a solicited one's is, once. */
	post_recv(&l, l.b);
	post_send(&l, l.a, RDMAD_WR_SEND, &s, RDMAD_SEND_SOLICITED);
	assert_true(channel_ready(l.channel, 2000));
	assert_int_equal(rdmad_get_cq_event(l.channel, &cq), 0);
	assert_ptr_equal(cq, l.cq);
	rdmad_ack_cq_events(cq, 1);
	assert_int_equal(loop_next_wc(l.cq).status, RDMAD_WC_SUCCESS);
	assert_int_equal(loop_next_wc(l.cq).status, RDMAD_WC_SUCCESS);
	/* Armed for the next: any completion raises it. */
	assert_int_equal(rdmad_req_notify_cq(l.cq, 0), 0);
	post_send(&l, l.a, RDMAD_WR_RDMA_WRITE, &s, 0);
	assert_true(channel_ready(l.channel, 2000));
	assert_int_equal(rdmad_get_cq_event(l.channel, &cq), 0);
	assert_int_equal(loop_next_wc(l.cq).opcode, RDMAD_WC_RDMA_WRITE);
	/* One-shot: not again until armed again. */
	post_send(&l, l.a, RDMAD_WR_RDMA_WRITE, &s, 0);
	assert_int_equal(loop_next_wc(l.cq).opcode, RDMAD_WC_RDMA_WRITE);
	assert_false(channel_ready(l.channel, 50));
	rdmad_close(l.ctx);
	rdmad_destroy_comp_channel(l.channel);
}

/* The varlink error name of a call on a plain connection (NULL: it succeeded). */
static char *call_error(const char *method, const char *params, struct json_object **reply)
{
	struct varlink_client *vc;
	struct json_object *p = json_tokener_parse(params), *got = NULL;
	char *error = NULL;

	assert_int_equal(varlink_client_connect(&vc, harness_socket()), 0);
	assert_int_equal(varlink_client_call(vc, method, p, &got, &error), 0);
	json_object_put(p);
	if (reply && !error)
		*reply = json_object_get(got);
	json_object_put(got);
	varlink_client_free(vc);
	return error;
}

static void test_rdmad_refuses_around_rings(void **state)
{
	struct loop l = { 0 };
	char params[160], *error;

	loop_open(&l);
	/* A ring QP is posted to by its application alone, a ring CQ polled and armed by it alone. */
	snprintf(params, sizeof(params), "{\"handle\": %u, \"opcode\": \"send\", \"wr_id\": 1}", l.a->qp_num);
	error = call_error("io.rdmad.Qp.PostSend", params, NULL);
	assert_string_equal(error, "io.rdmad.Qp.InvalidState");
	free(error);
	snprintf(params, sizeof(params), "{\"handle\": %u, \"wr_id\": 1}", l.b->qp_num);
	error = call_error("io.rdmad.Qp.PostRecv", params, NULL);
	assert_string_equal(error, "io.rdmad.Qp.InvalidState");
	free(error);
	snprintf(params, sizeof(params), "{\"handle\": %u}", l.cq->handle);
	error = call_error("io.rdmad.Cq.Poll", params, NULL);
	assert_string_equal(error, "io.rdmad.Cq.InvalidState");
	free(error);
	snprintf(params, sizeof(params), "{\"handle\": %u, \"notify\": \"next\"}", l.cq->handle);
	error = call_error("io.rdmad.Cq.Notify", params, NULL);
	assert_string_equal(error, "io.rdmad.Cq.InvalidState");
	free(error);
	/* A UD QP's sends name AHs rdmad resolves: no rings for it, and nothing created. */
	size_t before = harness_count("Qp", "qps");

	snprintf(params, sizeof(params), "{\"pd\": %u, \"send_cq\": %u, \"recv_cq\": %u, \"type\": \"ud\", "
		 "\"rings\": true}", l.pd->handle, l.cq->handle, l.cq->handle);
	error = call_error("io.rdmad.Qp.Create", params, NULL);
	assert_string_equal(error, "io.rdmad.Qp.NotSupported");
	free(error);
	assert_int_equal(harness_count("Qp", "qps"), before);
	/* A UD QP of the library posts through rdmad. */
	assert_non_null(loop_new_qp(&l, RDMAD_QPT_UD));
	rdmad_close(l.ctx);
}

/* The memfd of a ring CQ cannot be resized under rdmad's mapping. */
static void test_ring_memory_is_sealed(void **state)
{
	struct varlink_client *vc;
	struct json_object *p = json_tokener_parse("{\"cqe\": 4, \"rings\": true}"), *reply = NULL;
	char *error = NULL;
	int fd, seals;

	assert_int_equal(varlink_client_connect(&vc, harness_socket()), 0);
	assert_int_equal(varlink_client_call(vc, "io.rdmad.Cq.Create", p, &reply, &error), 0);
	assert_null(error);
	assert_int_equal(varlink_client_n_fds(vc), 2);
	fd = varlink_client_take_fd(vc, 0);
	seals = fcntl(fd, F_GET_SEALS);
	assert_true(seals & F_SEAL_SHRINK);
	assert_true(seals & F_SEAL_GROW);
	assert_true(seals & F_SEAL_SEAL);
	assert_int_equal(ftruncate(fd, 0), -1);
	assert_int_equal(errno, EPERM);
	close(fd);
	json_object_put(p);
	json_object_put(reply);
	varlink_client_free(vc);
}

/* What the library does after publishing, here whether the worker sleeps or not. */
static void ring_doorbell(struct client_qp *qp)
{
	uint64_t one = 1;

	assert_int_equal(write(qp->rings.eventfd, &one, sizeof(one)), sizeof(one));
}

/*
 * Entries a hostile program writes into its send queue: an unknown opcode,
 * more SGEs than the QP has, inline data longer than its maximum, an SGE
 * outside its MR.  Each is an error completion of that QP; rdmad and every
 * other program go on.
 */
static void hostile_entry(struct loop *l, void (*spoil)(struct dp_sq_req *e, struct loop *l),
			  uint8_t status)
{
	struct client_qp *qp = client_qp_of(l->a);
	struct dp_sq_req *e = dp_queue_slot(&qp->sq, dp_queue_prod(&qp->sq));
	struct rdmad_wc wc;

	memset(e, 0xa5, qp->sq.entry_size);
	e->wr_id = 0xbad;
	e->opcode = DP_WR_RDMA_WRITE;
	e->send_flags = DP_SEND_SIGNALED;
	e->num_sge = 1;
	e->sg_list[0] = (struct dp_sge){ .addr = (uintptr_t)l->buf, .length = 8, .lkey = l->mr->lkey };
	e->rdma.remote_addr = (uintptr_t)l->buf + 4096;
	e->rdma.rkey = l->mr->rkey;
	spoil(e, l);
	dp_queue_publish(&qp->sq, 1);
	ring_doorbell(qp);
	wc = loop_next_wc(l->cq);
	assert_int_equal(wc.wr_id, 0xbad);
	assert_int_equal(wc.status, status);
}

static void bad_opcode(struct dp_sq_req *e, struct loop *l)
{
	e->opcode = 200;
}

static void too_many_sges(struct dp_sq_req *e, struct loop *l)
{
	e->num_sge = 100000;
}

static void long_inline(struct dp_sq_req *e, struct loop *l)
{
	e->send_flags |= DP_SEND_INLINE;
	e->inline_len = 60000;
}

static void sge_outside(struct dp_sq_req *e, struct loop *l)
{
	e->sg_list[0].addr = (uintptr_t)l->buf + LOOP_BYTES - 4;
}

static void test_hostile_ring_entries(void **state)
{
	void (*const spoils[])(struct dp_sq_req *, struct loop *) = {
		bad_opcode, too_many_sges, long_inline, sge_outside,
	};
	const uint8_t statuses[] = {
		RDMAD_WC_LOC_QP_OP_ERR, RDMAD_WC_LOC_QP_OP_ERR, RDMAD_WC_LOC_LEN_ERR, RDMAD_WC_LOC_PROT_ERR,
	};
	struct loop other = { 0 };
	struct rdmad_sge s;

	loop_open(&other);
	for (size_t i = 0; i < sizeof(statuses); i++) {
		struct loop l = { 0 };

		loop_open(&l);
		hostile_entry(&l, spoils[i], statuses[i]);
		rdmad_close(l.ctx);
	}
	/* A producer index far ahead: the worker never takes more than the ring holds. */
	struct loop l = { 0 };
	struct client_qp *qp;

	loop_open(&l);
	qp = client_qp_of(l.a);
	atomic_store(&qp->sq.hdr->prod, dp_queue_prod(&qp->sq) + 0x70000000u);
	ring_doorbell(qp);
	usleep(100 * 1000);
	rdmad_close(l.ctx);
	/* The other program's QPs work on, and rdmad answers. */
	s = loop_sge(&other, 0, 32);
	post_send(&other, other.a, RDMAD_WR_RDMA_WRITE, &s, 0);
	assert_int_equal(loop_next_wc(other.cq).status, RDMAD_WC_SUCCESS);
	json_object_put(harness_call("io.rdmad.Daemon.GetStatus", NULL));
	rdmad_close(other.ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_completion_channel),
		cmocka_unit_test(test_rdmad_refuses_around_rings),
		cmocka_unit_test(test_ring_memory_is_sealed),
		cmocka_unit_test(test_hostile_ring_entries),
	};

	return cmocka_run_group_tests_name("librdmad rings", tests, harness_start, harness_stop);
}
