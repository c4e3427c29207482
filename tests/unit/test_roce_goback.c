/* SPDX-License-Identifier: MIT */
/*
 * RoCE v2 requester: an ACK that overtakes a go-back (issue 26).  A worker
 * that does not get its CPU for the RC timeout (67 ms) lets the timer run
 * out while the first copies' ACK is still on its way: the timeout goes back
 * to the oldest PSN and sends a window of 4 again, then that ACK comes and
 * acknowledges past what was sent again.  Sending must go on from the first
 * PSN not acknowledged: before, tx_psn stayed inside a message already
 * answered, the next message was never sent, and with nothing in flight no
 * timer ran to notice (bench_roce beside a busy loop: "no completion").
 *
 * A NIC on one worker whose turns the test plays has an RC QP in RTS,
 * connected to QP 5 at 127.0.0.2 (path MTU 1024, timeout 14, retry_cnt 7),
 * sending its first PSN 0.  The test plays the peer: it runs the timer out
 * by hand and sends the ACKs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "tests/fuzz/nic_fixture.h"
#include "dataplane/roce/icrc.h"
#include "dataplane/roce/roce_int.h"

#define PEER_QPN 5
#define RC_QPN   2
#define MTU      1024

static const uint8_t peer_gid[16] = { [10] = 0xff, [11] = 0xff, 127, 0, 0, 2 };
static const uint8_t self_gid[16] = { [10] = 0xff, [11] = 0xff, 127, 0, 0, 1 };

static struct dp_cq *cq;
static struct dp_qp *qp;

static int setup(void **state)
{
	static const struct dp_roce_config any_port;
	struct dp_qp_config cfg = {
		.qpn = RC_QPN, .pd = PD, .type = DP_QPT_RC, .max_send_wr = 4, .max_recv_wr = 4,
		.max_send_sge = 1, .max_recv_sge = 1,
	};
	struct dp_qp_attr attr = {
		.access_flags = ACCESS, .dest_qpn = PEER_QPN, .max_dest_rd_atomic = 2,
		.path = { .remote = true, .mtu = MTU, .timeout = 14, .retry_cnt = 7 },
	};

	nic_fixture_setup();
	assert_int_equal(dp_roce_open(&nic, &worker, &any_port), 0);
	cq = dp_cq_new(1, 64, 1);
	assert_non_null(cq);
	assert_int_equal(dp_qp_new(&nic, &cfg, cq, cq, &qp), 0);
	memcpy(attr.path.sgid, self_gid, 16);
	memcpy(attr.path.dgid, peer_gid, 16);
	nic_fixture_to_rts(qp, &attr);
	return 0;
}

static int teardown(void **state)
{
	dp_qp_release(qp);
	dp_qp_free(qp);
	dp_cq_put(cq);
	dp_worker_stop(&worker);
	dp_nic_workers_stopped(&nic);
	dp_roce_close(&nic);
	dp_nic_release(&nic);
	free(mem);
	return 0;
}

/* A signaled WRITE or READ of len bytes of the MR with the peer, then a turn: its packets leave. */
static void post(uint64_t wr_id, uint8_t opcode, uint32_t len)
{
	uint32_t index;
	struct dp_sq_req *r = dp_queue_reserve(&qp->sq, &index);

	assert_non_null(r);
	memset(r, 0, qp->sq.entry_size);
	r->wr_id = wr_id;
	r->opcode = opcode;
	r->send_flags = DP_SEND_SIGNALED;
	r->rdma.remote_addr = 0x7f0000;
	r->rdma.rkey = 0x4242;
	r->num_sge = 1;
	r->sg_list[0] = (struct dp_sge){ .addr = MR_IOVA, .length = len, .lkey = MR_KEY };
	dp_queue_publish(&qp->sq, 1);
	turns(1);
}

static void post_write(uint64_t wr_id, uint32_t len)
{
	post(wr_id, DP_WR_RDMA_WRITE, len);
}

/* A packet of the peer's, p's headers with len bytes of value as its payload, then a turn. */
static void peer_send(struct roce_pkt *p, uint8_t value, uint32_t len)
{
	static uint8_t pkt[DP_ROCE_PKT_MAX], payload[MTU];
	struct roce_ip_udp hdr = { .df = true, .sport = 49152, .dport = 0 };
	struct dp_udp_addr from, to;
	size_t n;

	p->bth.pkey = ROCE_PKEY_DEFAULT;
	p->bth.dest_qp = RC_QPN;
	memset(payload, value, len);
	assert_int_equal(roce_pkt_build(p, len ? payload : NULL, len, pkt, sizeof(pkt), &n), ROCE_OK);
	memcpy(hdr.sgid, peer_gid, 16);
	memcpy(hdr.dgid, self_gid, 16);
	assert_int_equal(roce_icrc_seal_payload(&hdr, pkt, n), ROCE_OK);
	roce_gid_addr(peer_gid, 49152, &from);
	roce_gid_addr(self_gid, 0, &to);
	dp_roce_input(&worker, &nic, pkt, n, &from, &to);
	turns(1);
}

/* An answer of the peer's: an ACK or NAK (syndrome), or a READ response with len bytes. */
static void from_peer_aeth(uint8_t operation, uint32_t psn, uint32_t len, uint8_t syndrome)
{
	struct roce_pkt p = {
		.bth = { .opcode = ROCE_OPCODE(ROCE_TR_RC, operation), .psn = psn },
		.aeth = { .syndrome = syndrome },
	};

	peer_send(&p, (uint8_t)psn, len);
}

static void from_peer(uint8_t operation, uint32_t psn, uint32_t len)
{
	from_peer_aeth(operation, psn, len, ROCE_AETH_ACK_UNLIMITED);
}

/* The peer's ACK of every PSN up to psn. */
static void ack(uint32_t psn)
{
	from_peer(ROCE_ACKNOWLEDGE, psn, 0);
}

/* The peer's PSN-sequence NAK: psn is missing. */
static void nak_seq(uint32_t psn)
{
	from_peer_aeth(ROCE_ACKNOWLEDGE, psn, 0, ROCE_AETH_SYNDROME(ROCE_AETH_NAK, ROCE_NAK_PSN_SEQ));
}

static uint64_t sent(void)
{
	return atomic_load(&qp->counters.roce.tx_packets);
}

static uint64_t retransmits(void)
{
	return atomic_load(&qp->counters.roce.retransmits);
}

/* The successful completion of wr_id. */
static void completed(uint64_t wr_id)
{
	struct dp_cqe cqe;

	assert_int_equal(dp_cq_poll(cq, &cqe, 1), 1);
	assert_int_equal(cqe.wr_id, wr_id);
	assert_int_equal(cqe.status, DP_WC_SUCCESS);
}

/* A WRITE of 8 packets (PSNs 0-7) sent, then the timer runs out: PSNs 0-3 go again (window 4). */
static void eight_then_timeout(void)
{
	post_write(1, 8 * MTU);
	assert_int_equal(sent(), 8);
	roce_comp_timeout(&worker, qp);
	assert_int_equal(roce_qp(qp)->window, DP_ROCE_WINDOW_MIN);
	assert_int_equal(sent(), 12);
	assert_int_equal(retransmits(), 4);
	assert_int_equal(roce_qp(qp)->tx_psn, 4);
}

static void test_ack_of_everything_overtakes_the_goback(void **state)
{
	eight_then_timeout();
	/* The first copies' ACK, late: the WRITE is done, nothing is in flight. */
	ack(7);
	completed(1);
	assert_false(dp_timer_armed(&roce_qp(qp)->rto));

	/* The next WRITE (PSN 8) leaves at once, and its timer runs. */
	post_write(2, 64);
	assert_int_equal(sent(), 13);
	assert_int_equal(retransmits(), 4);
	assert_int_equal(roce_qp(qp)->tx_psn, 9);
	assert_true(dp_timer_armed(&roce_qp(qp)->rto));
	ack(8);
	completed(2);
	assert_false(dp_timer_armed(&roce_qp(qp)->rto));
}

static void test_ack_of_part_overtakes_the_goback(void **state)
{
	eight_then_timeout();
	/* PSNs 0-5 acknowledged: the go-back goes on from 6, never sending 4 and 5 again. */
	ack(5);
	assert_int_equal(roce_qp(qp)->una, 6);
	assert_int_equal(roce_qp(qp)->tx_psn, 8);
	assert_int_equal(sent(), 14);
	assert_int_equal(retransmits(), 6);
	assert_true(dp_timer_armed(&roce_qp(qp)->rto));
	ack(7);
	completed(1);
	assert_false(dp_timer_armed(&roce_qp(qp)->rto));
}

/*
 * A READ of 4 responses whose second was lost: the last one shows the gap,
 * and the READ is asked for again from the second at once (as rxe's
 * completer does), not when the timer runs out; the late responses of the
 * first stream ask nothing more.
 */
static void test_read_gap_asks_again_at_once(void **state)
{
	post(1, DP_WR_RDMA_READ, 4 * MTU);
	assert_int_equal(sent(), 1);
	from_peer(ROCE_READ_RESPONSE_FIRST, 0, MTU);
	from_peer(ROCE_READ_RESPONSE_MIDDLE, 2, MTU);
	assert_int_equal(sent(), 1);
	from_peer(ROCE_READ_RESPONSE_LAST, 3, MTU);
	assert_int_equal(sent(), 2);
	assert_int_equal(retransmits(), 1);
	assert_int_equal(roce_qp(qp)->tx_psn, 4);
	/* The second stream: 1, then 2 and 3 again; the READ completes with every byte. */
	from_peer(ROCE_READ_RESPONSE_MIDDLE, 1, MTU);
	from_peer(ROCE_READ_RESPONSE_MIDDLE, 2, MTU);
	from_peer(ROCE_READ_RESPONSE_LAST, 3, MTU);
	completed(1);
	assert_int_equal(sent(), 2);
	for (int k = 0; k < 4; k++)
		assert_int_equal(mem[k * MTU], k);
}

static uint64_t counter(_Atomic uint64_t *c)
{
	return atomic_load(c);
}

/*
 * A PSN-sequence NAK: the lost packet alone goes again (the responder may
 * have kept the rest: kept.c).  An ACK of just that packet says this
 * responder kept nothing after the gap, as the standard's letter has it:
 * the requester then goes back N from the next.
 */
static void test_lost_packet_alone_then_back_n(void **state)
{
	post_write(1, 8 * MTU);
	assert_int_equal(sent(), 8);
	nak_seq(2);
	assert_int_equal(sent(), 9);
	assert_int_equal(retransmits(), 1);
	assert_int_equal(roce_qp(qp)->tx_psn, 8);
	ack(2);
	assert_int_equal(sent(), 14);
	assert_int_equal(retransmits(), 6);
	assert_int_equal(counter(&qp->counters.roce.go_backs), 1);
	ack(7);
	completed(1);
}

/* The same, with a responder that kept what followed: its ACK covers all, nothing more goes. */
static void test_lost_packet_alone_rest_kept(void **state)
{
	post_write(1, 8 * MTU);
	nak_seq(2);
	nak_seq(2);                     /* repeated while kept (an AckReq came): sent again */
	assert_int_equal(sent(), 10);
	ack(7);
	completed(1);
	assert_int_equal(counter(&qp->counters.roce.go_backs), 0);
	assert_int_equal(sent(), 10);
	assert_int_equal(retransmits(), 2);
	assert_int_equal(roce_qp(qp)->window, DP_ROCE_WINDOW);
}

/* Packet k of a 4-packet WRITE of the peer's to MR_IOVA + 0x8000, at PSN k, its bytes k + 1. */
static void peer_write_packet(uint32_t k)
{
	static const uint8_t ops[4] = { ROCE_WRITE_FIRST, ROCE_WRITE_MIDDLE, ROCE_WRITE_MIDDLE, ROCE_WRITE_LAST };
	struct roce_pkt p = {
		.bth = { .opcode = ROCE_OPCODE(ROCE_TR_RC, ops[k]), .psn = k, .ack_req = k == 3 },
		.reth = { .va = MR_IOVA + 0x8000, .rkey = MR_KEY, .dma_len = 4 * MTU },
	};

	peer_send(&p, (uint8_t)(k + 1), MTU);
}

/*
 * The responder: packets after a gap get one NAK and are kept; when the gap
 * fills they run in order, the message lands whole, and the peer's copies
 * sent again are duplicates.
 */
static void test_responder_keeps_what_follows_a_gap(void **state)
{
	const uint8_t *dst = mem + 0x8000;

	peer_write_packet(0);
	peer_write_packet(2);
	assert_int_equal(counter(&qp->counters.roce.naks_sent), 1);
	/* The last asks for an ACK: the gap is NAKed again (packets are kept). */
	peer_write_packet(3);
	assert_int_equal(counter(&qp->counters.roce.naks_sent), 2);
	assert_int_equal(counter(&qp->counters.roce.kept), 2);
	assert_int_equal(counter(&qp->counters.roce.out_of_sequence), 2);
	assert_int_equal(roce_qp(qp)->epsn, 1);
	assert_int_equal(dst[4 * MTU - 1], 0);
	peer_write_packet(1);
	assert_int_equal(roce_qp(qp)->epsn, 4);
	for (uint32_t k = 0; k < 4; k++)
		assert_int_equal(dst[k * MTU], k + 1);
	assert_int_equal(counter(&qp->counters.roce.naks_sent), 2);
	/* A requester that goes back N: what it sends again was kept and is a duplicate. */
	peer_write_packet(2);
	peer_write_packet(3);
	assert_int_equal(counter(&qp->counters.roce.duplicates), 2);
	assert_int_equal(roce_qp(qp)->epsn, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ack_of_everything_overtakes_the_goback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ack_of_part_overtakes_the_goback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_gap_asks_again_at_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lost_packet_alone_then_back_n, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lost_packet_alone_rest_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_responder_keeps_what_follows_a_gap, setup, teardown),
	};

	return cmocka_run_group_tests_name("RoCE v2: an ACK that overtakes a go-back", tests, NULL, NULL);
}
