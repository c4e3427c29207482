/* SPDX-License-Identifier: MIT */
/*
 * RoCE v2: a connected QP takes requests only from the address of its
 * address vector (the BTH names the destination QP, never the source).  A
 * NIC on one worker whose turns the test plays has an RC and a UC QP in
 * RTS, connected to QP 5 at 127.0.0.2, and an MR with remote access.  A
 * WRITE sealed as the wire would carry it comes once from 127.0.0.3 (another
 * host that guessed the QP number, the rkey and the address): dropped
 * unanswered, counted in refused_not_peer, the memory unchanged; then the
 * same packet from the peer's address is written.
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
#define UC_QPN   3
#define PAYLOAD  64

static const uint8_t peer_gid[16] = { [10] = 0xff, [11] = 0xff, 127, 0, 0, 2 };
static const uint8_t stranger_gid[16] = { [10] = 0xff, [11] = 0xff, 127, 0, 0, 3 };
static const uint8_t self_gid[16] = { [10] = 0xff, [11] = 0xff, 127, 0, 0, 1 };

static struct dp_cq *cq;
static struct dp_qp *qps[2];

static void bring_up(struct dp_qp *q)
{
	struct dp_qp_attr attr = {
		.access_flags = ACCESS, .dest_qpn = PEER_QPN, .max_dest_rd_atomic = 2,
		.path = { .remote = true, .mtu = 1024, .timeout = 14, .retry_cnt = 7 },
	};

	memcpy(attr.path.sgid, self_gid, 16);
	memcpy(attr.path.dgid, peer_gid, 16);
	nic_fixture_to_rts(q, &attr);
}

static int setup(void **state)
{
	static const struct dp_roce_config any_port;
	const enum dp_qp_type types[2] = { DP_QPT_RC, DP_QPT_UC };

	nic_fixture_setup();
	assert_int_equal(dp_roce_open(&nic, &worker, &any_port), 0);
	cq = dp_cq_new(1, 64, 1);
	assert_non_null(cq);
	for (unsigned i = 0; i < 2; i++) {
		struct dp_qp_config cfg = {
			.qpn = i ? UC_QPN : RC_QPN, .pd = PD, .type = types[i], .max_send_wr = 4,
			.max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1,
		};

		assert_int_equal(dp_qp_new(&nic, &cfg, cq, cq, &qps[i]), 0);
		bring_up(qps[i]);
	}
	return 0;
}

static int teardown(void **state)
{
	for (unsigned i = 0; i < 2; i++) {
		dp_qp_release(qps[i]);
		dp_qp_free(qps[i]);
	}
	dp_cq_put(cq);
	dp_worker_stop(&worker);
	dp_nic_workers_stopped(&nic);
	dp_roce_close(&nic);
	dp_nic_release(&nic);
	free(mem);
	return 0;
}

/* A WRITE ONLY of PAYLOAD bytes of value to the MR, for qpn, PSN 0, sent from gid. */
static void write_from(const uint8_t gid[16], enum roce_transport tr, uint32_t qpn, uint8_t value)
{
	static uint8_t pkt[DP_ROCE_PKT_MAX];
	struct roce_pkt p = {
		.bth = { .opcode = ROCE_OPCODE(tr, ROCE_WRITE_ONLY), .pkey = ROCE_PKEY_DEFAULT,
			 .dest_qp = qpn, .ack_req = true, .psn = 0 },
		.reth = { .va = MR_IOVA, .rkey = MR_KEY, .dma_len = PAYLOAD },
	};
	struct roce_ip_udp hdr = { .df = true, .sport = 49152, .dport = 0 };
	struct dp_udp_addr from, to;
	uint8_t payload[PAYLOAD];
	size_t n;

	memset(payload, value, sizeof(payload));
	assert_int_equal(roce_pkt_build(&p, payload, sizeof(payload), pkt, sizeof(pkt), &n), ROCE_OK);
	memcpy(hdr.sgid, gid, 16);
	memcpy(hdr.dgid, self_gid, 16);
	assert_int_equal(roce_icrc_seal_payload(&hdr, pkt, n), ROCE_OK);
	roce_gid_addr(gid, 49152, &from);
	/* The endpoint was asked for port 0 (any free one): the port its ICRC check assumes. */
	roce_gid_addr(self_gid, 0, &to);
	dp_roce_input(&worker, &nic, pkt, n, &from, &to);
	turns(2);
}

static uint64_t count(_Atomic uint64_t *c)
{
	return atomic_load(c);
}

static void refused_then_taken(struct dp_qp *q, enum roce_transport tr)
{
	struct dp_counters device;

	write_from(stranger_gid, tr, q->qpn, 0xee);
	for (unsigned i = 0; i < PAYLOAD; i++)
		assert_int_equal(mem[i], 0);
	assert_int_equal(count(&q->counters.refused_not_peer), 1);
	assert_int_equal(count(&q->counters.roce.rx_packets), 0);
	/* Nothing answered: no NAK, no ACK to the address the packet named. */
	assert_int_equal(count(&q->counters.roce.tx_packets), 0);
	assert_int_equal(q->state, DP_QPS_RTS);
	dp_nic_counters(&nic, &device);
	assert_int_equal(count(&device.refused_not_peer), 1);
	assert_int_equal(count(&device.roce.rx_dropped), 0);

	/* The same packet from the peer's address: written (the check can tell them apart). */
	write_from(peer_gid, tr, q->qpn, 0x5c);
	for (unsigned i = 0; i < PAYLOAD; i++)
		assert_int_equal(mem[i], 0x5c);
	assert_int_equal(count(&q->counters.roce.rx_packets), 1);
	assert_int_equal(count(&q->counters.refused_not_peer), 1);
}

static void test_rc_write_from_another_address(void **state)
{
	refused_then_taken(qps[0], ROCE_TR_RC);
}

static void test_uc_write_from_another_address(void **state)
{
	refused_then_taken(qps[1], ROCE_TR_UC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rc_write_from_another_address, setup, teardown),
		cmocka_unit_test_setup_teardown(test_uc_write_from_another_address, setup, teardown),
	};

	return cmocka_run_group_tests_name("RoCE v2: requests only from the peer's address", tests, NULL, NULL);
}
