/* SPDX-License-Identifier: MIT */
/*
 * Two programs on one rdmad, each a process of its own (fork): a victim
 * with two RC QPs connected to each other and an MR anyone with its rkey
 * could reach, and this process.
 *  - The hijack: this process connects a QP to the victim's QP number, takes
 *    it to RTS, and WRITEs and READs with the victim's rkey and address:
 *    both fail with rem_inv_req_err, the victim's QP counts them
 *    (refused_not_peer, in Qp.Show and Device.Show), and the victim finds
 *    its bytes unchanged.
 *  - A peer gone: this process's QP connected to the victim's, a WRITE with
 *    immediate waiting for a receive WR (RNR, for ever) when the victim is
 *    killed (SIGKILL): the WR completes with retry_exc_err, the next one too
 *    (within retry_cnt x timeout), and none of the victim's PDs or MRs stays.
 */
#include "tests/client/harness.h"
#include "tests/client/loop.h"

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#define PATTERN 0xa5

/* What the victim tells: its QPs' numbers (c: connected to this process's), its MR's rkey and address, its PD. */
struct victim_facts {
	uint32_t qpn_a, qpn_b, qpn_c, rkey, pd;
	uint64_t addr;
};

struct victim {
	pid_t pid;
	int to_victim;            /* a byte: check your bytes and exit */
	struct victim_facts facts;
};

/* The victim's side: exits 0 when its bytes are as it left them, 3 when not. */
static void victim_run(int facts_fd, int go_fd, uint32_t peer)
{
	struct loop l = { 0 };
	struct victim_facts f;
	struct rdmad_qp *c;
	char byte;

	loop_open(&l);
	memset(l.buf, PATTERN, LOOP_BYTES);
	c = loop_new_qp(&l, RDMAD_QPT_RC);
	/* RNR NAKs ask for 491 ms: a WR waiting there is still posted when the victim goes. */
	loop_to_rts_rnr(c, peer, 31);
	f = (struct victim_facts){ .qpn_a = l.a->qp_num, .qpn_b = l.b->qp_num, .qpn_c = c->qp_num,
				   .rkey = l.mr->rkey, .pd = l.pd->handle, .addr = (uintptr_t)l.buf };
	if (write(facts_fd, &f, sizeof(f)) != sizeof(f))
		_exit(2);
	if (read(go_fd, &byte, 1) != 1)
		_exit(2);
	for (size_t i = 0; i < LOOP_BYTES; i++)
		if (l.buf[i] != PATTERN)
			_exit(3);
	_exit(0);
}

/* A victim process whose QP c is connected to this process's QP peer. */
static void victim_start(struct victim *v, uint32_t peer)
{
	int facts[2], go[2];

	assert_int_equal(pipe(facts), 0);
	assert_int_equal(pipe(go), 0);
	v->pid = fork();
	assert_true(v->pid >= 0);
	if (v->pid == 0) {
		close(facts[0]);
		close(go[1]);
		victim_run(facts[1], go[0], peer);
	}
	close(facts[1]);
	close(go[0]);
	v->to_victim = go[1];
	assert_int_equal(read(facts[0], &v->facts, sizeof(v->facts)), sizeof(v->facts));
	close(facts[0]);
}

/* The victim checks its bytes and exits: its status. */
static int victim_finish(struct victim *v)
{
	int status;

	assert_int_equal(write(v->to_victim, "x", 1), 1);
	close(v->to_victim);
	assert_int_equal(waitpid(v->pid, &status, 0), v->pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static uint64_t qp_refused(uint32_t qpn)
{
	char params[64];
	struct json_object *reply, *dp;
	uint64_t n;

	snprintf(params, sizeof(params), "{\"handle\": %u}", qpn);
	reply = harness_call("io.rdmad.Qp.Show", params);
	dp = json_object_object_get(json_object_object_get(reply, "qp"), "datapath");
	n = (uint64_t)json_object_get_int64(json_object_object_get(dp, "refused_not_peer"));
	json_object_put(reply);
	return n;
}

static uint64_t device_refused(void)
{
	struct json_object *reply = harness_call("io.rdmad.Device.Show", NULL);
	struct json_object *dev = json_object_array_get_idx(json_object_object_get(reply, "devices"), 0);
	uint64_t n = (uint64_t)json_object_get_int64(json_object_object_get(
		json_object_object_get(dev, "datapath"), "refused_not_peer"));

	json_object_put(reply);
	return n;
}

/* This program's QP, connected to qpn (of whichever program), in RTS. */
static struct rdmad_qp *connected_to(struct loop *l, uint32_t qpn)
{
	struct rdmad_qp *qp = loop_new_qp(l, RDMAD_QPT_RC);

	loop_to_rts(qp, qpn);
	return qp;
}

static void post_rdma(struct loop *l, struct rdmad_qp *qp, uint64_t wr_id, uint8_t opcode,
		      const struct victim_facts *v, size_t offset)
{
	struct rdmad_sge sge = loop_sge(l, offset, 64);
	struct rdmad_send_wr wr = {
		.wr_id = wr_id, .opcode = opcode, .send_flags = RDMAD_SEND_SIGNALED, .sg_list = &sge,
		.num_sge = 1, .wr.rdma = { .remote_addr = v->addr, .rkey = v->rkey },
	}, *bad;

	assert_int_equal(rdmad_post_send(qp, &wr, &bad), 0);
}

static void expect_wc(struct loop *l, uint64_t wr_id, enum rdmad_wc_status status)
{
	struct rdmad_wc wc = loop_next_wc(l->cq);

	assert_int_equal(wc.wr_id, wr_id);
	assert_int_equal(wc.status, status);
}

static void test_hijack_refused(void **state)
{
	uint64_t device_before = device_refused();
	size_t apps = harness_applications();
	struct loop l = { 0 };
	struct victim v;
	struct rdmad_qp *qp;

	loop_open(&l);
	victim_start(&v, l.a->qp_num);
	memset(l.buf, 0x11, LOOP_BYTES);
	/* WRITE of 64 bytes of 0x11 over the victim's bytes. */
	qp = connected_to(&l, v.facts.qpn_b);
	post_rdma(&l, qp, 1, RDMAD_WR_RDMA_WRITE, &v.facts, 0);
	expect_wc(&l, 1, RDMAD_WC_REM_INV_REQ_ERR);
	/* READ of the victim's bytes into this program's: nothing comes. */
	qp = connected_to(&l, v.facts.qpn_a);
	post_rdma(&l, qp, 2, RDMAD_WR_RDMA_READ, &v.facts, 1024);
	expect_wc(&l, 2, RDMAD_WC_REM_INV_REQ_ERR);
	for (size_t i = 0; i < 64; i++)
		assert_int_equal(l.buf[1024 + i], 0x11);
	assert_int_equal(qp_refused(v.facts.qpn_b), 1);
	assert_int_equal(qp_refused(v.facts.qpn_a), 1);
	assert_int_equal(device_refused(), device_before + 2);
	assert_int_equal(victim_finish(&v), 0);
	rdmad_close(l.ctx);
	harness_wait_applications(apps);
}

/* How many of kind's List records name pd (their "pd", or their own handle for PDs). */
static size_t naming_pd(const char *iface, const char *key, uint32_t pd)
{
	char method[64];
	struct json_object *reply, *list;
	size_t n = 0;

	snprintf(method, sizeof(method), "io.rdmad.%s.List", iface);
	reply = harness_call(method, NULL);
	list = json_object_object_get(reply, key);
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		struct json_object *o = json_object_array_get_idx(list, i);
		struct json_object *p = json_object_object_get(o, strcmp(iface, "Pd") ? "pd" : "handle");

		n += p && (uint32_t)json_object_get_int64(p) == pd;
	}
	json_object_put(reply);
	return n;
}

/*
 * This process's QP p and the victim's c are connected to each other.  A
 * WRITE with immediate waits at c, which has no receive WR (RNR NAK, retried
 * for ever), naming the victim's rkey, when the victim is killed: the WR
 * completes with retry_exc_err, and nothing of the victim stays.
 */
static void test_peer_killed(void **state)
{
	size_t apps = harness_applications();
	struct loop l = { 0 };
	struct victim v;
	struct rdmad_qp *p;
	int status;

	loop_open(&l);
	p = loop_new_qp(&l, RDMAD_QPT_RC);
	victim_start(&v, p->qp_num);
	loop_to_rts(p, v.facts.qpn_c);
	post_rdma(&l, p, 1, RDMAD_WR_RDMA_WRITE_WITH_IMM, &v.facts, 0);
	usleep(50000);
	assert_int_equal(rdmad_poll_cq(l.cq, 1, &(struct rdmad_wc){ 0 }), 0);
	assert_int_equal(naming_pd("Mr", "mrs", v.facts.pd), 1);
	assert_int_equal(naming_pd("Pd", "pds", v.facts.pd), 1);
	kill(v.pid, SIGKILL);
	assert_int_equal(waitpid(v.pid, &status, 0), v.pid);
	close(v.to_victim);
	harness_wait_applications(apps + 1);
	expect_wc(&l, 1, RDMAD_WC_RETRY_EXC_ERR);
	assert_int_equal(naming_pd("Mr", "mrs", v.facts.pd), 0);
	assert_int_equal(naming_pd("Pd", "pds", v.facts.pd), 0);
	assert_int_equal(naming_pd("Qp", "qps", v.facts.pd), 0);
	/* A QP connected to a number whose program went: its WR fails too. */
	p = loop_new_qp(&l, RDMAD_QPT_RC);
	loop_to_rts(p, v.facts.qpn_c);
	post_rdma(&l, p, 2, RDMAD_WR_RDMA_WRITE, &v.facts, 0);
	expect_wc(&l, 2, RDMAD_WC_RETRY_EXC_ERR);
	rdmad_close(l.ctx);
	harness_wait_applications(apps);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hijack_refused),
		cmocka_unit_test(test_peer_killed),
	};

	return cmocka_run_group_tests_name("librdmad: one program cannot reach another's memory", tests,
					   harness_start, harness_stop);
}
