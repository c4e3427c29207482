/* SPDX-License-Identifier: MIT */
/*
 * The RoCE v2 transport on hostile datagrams: the input is what a peer's
 * socket sends to our endpoint (its first byte says whether to seal the
 * ICRC for it, so that the packets reach the QPs rather than the ICRC
 * check, and how many worker turns follow).  A NIC on one unstarted worker
 * has an RC, a UC and a UD QP (numbers 2, 3, 4) in RTS, connected to the
 * peer, path MTU 256, receive WRs posted into a region with remote access,
 * a CQ drained after each input; a QP an input sent to ERR comes back
 * through RESET.  Whatever arrives may only touch the region it names
 * within its bounds (ASan watches), and never stall or crash the worker.
 */
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/nic_fixture.h"
#include "dataplane/roce/icrc.h"
#include "dataplane/roce/roce_int.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#define PEER_QPN  5

static struct dp_cq *cq;
static struct dp_qp *qps[3];
static struct dp_udp_addr peer, self;
static const uint8_t peer_gid[16] = { [10] = 0xff, [11] = 0xff, 127, 0, 0, 2 };
static const uint8_t self_gid[16] = { [10] = 0xff, [11] = 0xff, 127, 0, 0, 1 };

static void bring_up(struct dp_qp *q)
{
	struct dp_qp_attr attr = {
		.access_flags = ACCESS, .dest_qpn = PEER_QPN, .rnr_retry = 1, .min_rnr_timer = 1,
		.max_dest_rd_atomic = 2, .qkey = 0x1111,
		.path = { .remote = q->type != DP_QPT_UD, .mtu = 256, .timeout = 1, .retry_cnt = 1 },
	};

	memcpy(attr.path.sgid, self_gid, 16);
	memcpy(attr.path.dgid, peer_gid, 16);
	nic_fixture_to_rts(q, &attr);
}

/* Receive WRs up to 4, each of 4 KiB of the region. */
static void post_recvs(struct dp_qp *q)
{
	while (dp_queue_count(&q->rq) < 4) {
		uint32_t index;
		struct dp_rq_req *r = dp_queue_reserve(&q->rq, &index);

		if (!r)
			return;
		memset(r, 0, q->rq.entry_size);
		r->wr_id = index;
		r->num_sge = 1;
		r->sg_list[0] = (struct dp_sge){ .addr = MR_IOVA + (index % 16) * 4096, .length = 4096,
						 .lkey = MR_KEY };
		dp_queue_publish(&q->rq, 1);
	}
}

/* A WRITE of 600 bytes and a READ of 700 (PSNs 3 and 3 more), for responses to answer. */
static void post_sends(struct dp_qp *q)
{
	static const uint8_t opcodes[2] = { DP_WR_RDMA_WRITE, DP_WR_RDMA_READ };

	if (dp_queue_count(&q->sq))
		return;
	for (unsigned i = 0; i < 2; i++) {
		uint32_t index;
		struct dp_sq_req *r = dp_queue_reserve(&q->sq, &index);

		if (!r)
			return;
		memset(r, 0, q->sq.entry_size);
		r->wr_id = index;
		r->opcode = opcodes[i];
		r->send_flags = DP_SEND_SIGNALED;
		r->rdma.remote_addr = 0x7f0000;
		r->rdma.rkey = 0x4242;
		r->num_sge = 1;
		r->sg_list[0] = (struct dp_sge){ .addr = MR_IOVA + 0x8000 + i * 1024, .length = 600 + i * 100,
						 .lkey = MR_KEY };
		dp_queue_publish(&q->sq, 1);
	}
}

static void setup(void)
{
	static const struct dp_roce_config none;
	const enum dp_qp_type types[3] = { DP_QPT_RC, DP_QPT_UC, DP_QPT_UD };

	nic_fixture_setup();
	if (dp_roce_open(&nic, &worker, &none))
		abort();
	cq = dp_cq_new(1, 4096, 1);
	for (unsigned i = 0; i < 3; i++) {
		struct dp_qp_config cfg = {
			.qpn = 2 + i, .pd = PD, .type = types[i], .max_send_wr = 8, .max_recv_wr = 8,
			.max_send_sge = 1, .max_recv_sge = 1,
		};

		if (!cq || dp_qp_new(&nic, &cfg, cq, cq, &qps[i]))
			abort();
		bring_up(qps[i]);
	}
	roce_gid_addr(peer_gid, 49152, &peer);
	/* The endpoint was asked for port 0 (any free one): the port its ICRC check assumes. */
	roce_gid_addr(self_gid, 0, &self);
}

/* A QP the input sent to ERR (or that flushed) goes back to RTS through RESET, as a driver would. */
static void revive(struct dp_qp *q)
{
	if (q->state == DP_QPS_RTS)
		return;
	dp_qp_release(q);
	dp_qp_drop_posted(q);
	bring_up(q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t pkt[DP_ROCE_PKT_MAX];
	struct dp_cqe e[64];
	struct roce_ip_udp hdr = { .df = true, .sport = 49152, .dport = 0 };

	if (!cq)
		setup();
	if (size < 1 || size - 1 > sizeof(pkt))
		return 0;
	memcpy(pkt, data + 1, size - 1);
	memcpy(hdr.sgid, peer_gid, 16);
	memcpy(hdr.dgid, self_gid, 16);
	if (data[0] & 1)
		(void)roce_icrc_seal_payload(&hdr, pkt, size - 1);
	for (unsigned i = 0; i < 3; i++)
		post_recvs(qps[i]);
	post_sends(qps[0]);
	turns(1);
	dp_roce_input(&worker, &nic, pkt, size - 1, &peer, &self);
	turns(1 + (data[0] >> 1 & 7));
	while (dp_cq_poll(cq, e, 64))
		;
	for (unsigned i = 0; i < 3; i++)
		revive(qps[i]);
	return 0;
}
