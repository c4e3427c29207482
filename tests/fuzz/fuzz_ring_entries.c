/* SPDX-License-Identifier: MIT */
/*
 * Ring entries an application wrote: the input is raw bytes for the send
 * and receive rings of two RC QPs connected to each other through the
 * loopback transport, in memory shared as librdmad shares it (QPs and CQ
 * made with rings).  Its first byte says how many send entries (bits 0-2)
 * and receive entries (bits 3-5) the rest fills, whether the producer
 * index then jumps ahead (bit 6) and how many worker turns follow (bit 7);
 * the entries are copied in whole, whatever they say.  Whatever an entry
 * names may only touch the region registered for it within its bounds
 * (ASan watches), and never stall or crash the worker; a QP it sent to ERR
 * comes back through RESET.
 */
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/nic_fixture.h"

#include <string.h>

static struct dp_cq *cq;
static struct dp_qp *qps[2];

static void bring_up(struct dp_qp *q, uint32_t peer)
{
	struct dp_qp_attr attr = { .access_flags = ACCESS, .dest_qpn = peer, .rnr_retry = 1,
				   .min_rnr_timer = 1, .max_dest_rd_atomic = 2 };

	nic_fixture_to_rts(q, &attr);
}

static void setup(void)
{
	nic_fixture_setup();
	cq = dp_cq_new_rings(1, 64, 1);
	for (unsigned i = 0; i < 2; i++) {
		struct dp_qp_config cfg = {
			.qpn = 2 + i, .pd = PD, .type = DP_QPT_RC, .max_send_wr = 4, .max_recv_wr = 4,
			.max_send_sge = 2, .max_recv_sge = 2, .max_inline = 64, .rings = true,
		};

		if (!cq || dp_qp_new(&nic, &cfg, cq, cq, &qps[i]))
			abort();
	}
	bring_up(qps[0], 3);
	bring_up(qps[1], 2);
}

/* Copies n entries of q's size from *data into q's ring, as a producer would. */
static void produce(struct dp_queue *q, const uint8_t **data, size_t *size, unsigned n)
{
	uint32_t prod = atomic_load(&q->hdr->prod);

	for (unsigned i = 0; i < n && *size; i++, prod++) {
		size_t take = *size < q->entry_size ? *size : q->entry_size;
		uint8_t *slot = dp_queue_slot(q, prod);

		memset(slot, 0, q->entry_size);
		memcpy(slot, *data, take);
		*data += take;
		*size -= take;
	}
	atomic_store(&q->hdr->prod, prod);
}

/* What the application would poll: every lane emptied (its consumer index moved). */
static void drain(void)
{
	for (unsigned i = 0; i < cq->n_lanes; i++)
		atomic_store(&cq->lanes[i].hdr->cons, atomic_load(&cq->lanes[i].hdr->prod));
}

static void revive(struct dp_qp *q, uint32_t peer)
{
	if (q->state == DP_QPS_RTS)
		return;
	dp_qp_release(q);
	dp_qp_drop_posted(q);
	bring_up(q, peer);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t control;

	if (!cq)
		setup();
	if (size < 1)
		return 0;
	control = data[0];
	data++;
	size--;
	produce(&qps[1]->rq, &data, &size, control >> 3 & 7);
	produce(&qps[0]->sq, &data, &size, control & 7);
	if (control & 0x40)
		atomic_fetch_add(&qps[0]->sq.hdr->prod, 0x10000000u);
	turns(2 + (control >> 7) * 6);
	drain();
	/* A producer index left far ahead is the application's to put right: here, as RESET would. */
	atomic_store(&qps[0]->sq.hdr->prod, dp_queue_cons(&qps[0]->sq));
	revive(qps[0], 3);
	revive(qps[1], 2);
	return 0;
}
