/* SPDX-License-Identifier: MIT */
/*
 * The NIC's QP contexts: made by the driver, their queues and what it keeps
 * beside posted WRs; a worker runs them (qp_attach.c).
 */
#include "dataplane/engine/engine.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>

static void wake_for_rnr(struct dp_worker *w, void *arg)
{
	/* Nothing to do: the worker is awake, and the QP's poller sends again. */
	(void)w;
	(void)arg;
}

/*
 * The queues of geometry sq and rq (entry sizes set, entries counts of
 * WRs) one after the other in a memory shared with the application, and
 * the SQ's doorbell.
 */
static int rings_init(struct dp_qp *q, uint32_t sq_wr, uint32_t sq_size, uint32_t rq_wr, uint32_t rq_size)
{
	uint32_t sq_entries = dp_ring_entries(sq_wr), rq_entries = dp_ring_entries(rq_wr);
	uint64_t rq_at = dp_ring_align(dp_queue_bytes(sq_entries, sq_size));
	int r = dp_ring_mem_new(&q->ring, "rdmad-qp", rq_at + dp_queue_bytes(rq_entries, rq_size));

	if (r < 0)
		return r;
	if (dp_queue_format(&q->sq, q->ring.addr, rq_at, sq_entries, sq_size) < 0 ||
	    dp_queue_format(&q->rq, (uint8_t *)q->ring.addr + rq_at, q->ring.bytes - rq_at, rq_entries,
			    rq_size) < 0)
		return -EINVAL;
	q->sq.doorbell = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	return q->sq.doorbell < 0 ? -errno : 0;
}

static int queues_init(struct dp_qp *q, const struct dp_qp_config *cfg)
{
	uint32_t sq_wr = cfg->max_send_wr ? cfg->max_send_wr : 1, rq_wr = cfg->max_recv_wr ? cfg->max_recv_wr : 1;
	uint32_t sq_size = sizeof(struct dp_sq_req) + cfg->max_send_sge * sizeof(struct dp_sge);
	uint32_t rq_size = sizeof(struct dp_rq_req) + cfg->max_recv_sge * sizeof(struct dp_sge);
	int r;

	if (cfg->rings)
		return rings_init(q, sq_wr, sq_size, rq_wr, rq_size);
	r = dp_queue_init(&q->sq, sq_wr, sq_size, 0);
	return r < 0 ? r : dp_queue_init(&q->rq, rq_wr, rq_size, 0);
}

void dp_qp_ring_geometry(const struct dp_qp *q, struct dp_ring_geometry *sq, struct dp_ring_geometry *rq)
{
	*sq = (struct dp_ring_geometry){ .entries = dp_queue_capacity(&q->sq), .entry_size = q->sq.entry_size,
					 .offset = (uint64_t)((uint8_t *)q->sq.hdr - (uint8_t *)q->ring.addr) };
	*rq = (struct dp_ring_geometry){ .entries = dp_queue_capacity(&q->rq), .entry_size = q->rq.entry_size,
					 .offset = (uint64_t)((uint8_t *)q->rq.hdr - (uint8_t *)q->ring.addr) };
}

int dp_qp_new(struct dp_nic *nic, const struct dp_qp_config *cfg, struct dp_cq *send_cq,
	      struct dp_cq *recv_cq, struct dp_qp **out)
{
	struct dp_qp *q = calloc(1, sizeof(*q));

	if (!q)
		return -ENOMEM;
	q->nic = nic;
	q->qpn = cfg->qpn;
	q->pd = cfg->pd;
	q->type = cfg->type;
	q->max_send_wr = cfg->max_send_wr;
	q->max_recv_wr = cfg->max_recv_wr;
	q->max_send_sge = cfg->max_send_sge;
	q->max_recv_sge = cfg->max_recv_sge;
	q->max_inline = cfg->max_inline;
	q->sq_sig_all = cfg->sq_sig_all;
	q->sig_pipelining = cfg->sig_pipelining;
	q->sq.doorbell = q->rq.doorbell = -1;
	q->ring.fd = -1;
	dp_timer_init(&q->rnr_timer, wake_for_rnr, q);
	q->send_cq = dp_cq_get(send_cq);
	q->recv_cq = dp_cq_get(recv_cq);
	if (!q->send_cq || !q->recv_cq || queues_init(q, cfg) < 0 ||
	    !(q->sq_canceled = calloc(dp_queue_capacity(&q->sq), sizeof(*q->sq_canceled)))) {
		dp_qp_free(q);
		return -ENOMEM;
	}
	*out = q;
	return 0;
}

int dp_qp_reserve(struct dp_qp *q)
{
	uint32_t n = dp_queue_capacity(&q->sq);

	if (!q->sq_slots && !(q->sq_slots = calloc(n, sizeof(*q->sq_slots))))
		return -ENOMEM;
	if (!q->wqes && !(q->wqes = calloc(n, sizeof(*q->wqes))))
		return -ENOMEM;
	return 0;
}

void dp_qp_free(struct dp_qp *q)
{
	if (q->sq.hdr)
		dp_queue_release(&q->sq);
	if (q->rq.hdr)
		dp_queue_release(&q->rq);
	dp_ring_mem_free(&q->ring);
	free(q->sq_slots);
	free(q->sq_canceled);
	free(q->wqes);
	if (q->transport)
		q->transport->qp_free(q->conn);
	dp_cq_put(q->send_cq);
	dp_cq_put(q->recv_cq);
	free(q);
}

void dp_qp_drop_posted(struct dp_qp *q)
{
	for (uint32_t i = dp_queue_cons(&q->sq), end = i + dp_queue_count(&q->sq); i != end; i++)
		atomic_store_explicit(&q->sq_canceled[i & q->sq.mask], false, memory_order_relaxed);
	dp_queue_consume(&q->sq, dp_queue_count(&q->sq));
	dp_queue_consume(&q->rq, dp_queue_count(&q->rq));
	atomic_store_explicit(&q->req_next, dp_queue_cons(&q->sq), memory_order_relaxed);
}

void dp_qp_each_posted_send(struct dp_qp *q,
			    bool (*fn)(struct dp_qp *q, uint32_t index, const struct dp_sq_req *req, void *data),
			    void *data)
{
	for (uint32_t i = dp_queue_cons(&q->sq), end = i + dp_queue_count(&q->sq); i != end; i++)
		if (!fn(q, i, dp_queue_slot(&q->sq, i), data))
			return;
}

struct cancel {
	struct dp_qp *q;
	uint64_t wr_id;
	uint32_t count;
	bool nop_found;
};

static bool find_nop(struct dp_qp *q, uint32_t index, const struct dp_sq_req *req, void *data)
{
	struct cancel *c = data;

	c->nop_found = req->wr_id == c->wr_id && dp_qp_canceled(q, index);
	return !c->nop_found;
}

static bool make_nop(struct dp_qp *q, uint32_t index, const struct dp_sq_req *req, void *data)
{
	struct cancel *c = data;

	if (req->wr_id != c->wr_id)
		return true;
	/* It keeps its slot, wr_id, opcode and signaling; it no longer names memory. */
	atomic_store_explicit(&q->sq_canceled[index & q->sq.mask], true, memory_order_relaxed);
	c->count++;
	return true;
}

int dp_qp_cancel(struct dp_qp *q, uint64_t wr_id, uint32_t *count)
{
	struct cancel c = { .q = q, .wr_id = wr_id };

	/*
	 * libmlx5 fails on a matching WR that is a NOP already, after canceling
	 * the ones before it; here nothing changes then.
	 */
	dp_qp_each_posted_send(q, find_nop, &c);
	if (c.nop_found)
		return -EALREADY;
	dp_qp_each_posted_send(q, make_nop, &c);
	*count = c.count;
	return 0;
}

/*
 * The SGEs of an entry the walk below reads: none when the entry claims more
 * than its slot holds (the NIC refuses such a WR without touching memory,
 * wqe_read.c).  The caller reads num_sge once: whoever writes the entry may
 * change it meanwhile.
 */
static uint32_t sges_to_walk(uint32_t num_sge, uint32_t max)
{
	return num_sge <= max && num_sge <= DP_SEGS_MAX ? num_sge : 0;
}

bool dp_qp_each_posted_key(struct dp_qp *q, bool (*fn)(uint32_t key, uint64_t iova, uint64_t length,
						       void *data), void *data)
{
	for (uint32_t i = dp_queue_cons(&q->sq), end = i + dp_queue_count(&q->sq); i != end; i++) {
		const struct dp_sq_req *req = dp_queue_slot(&q->sq, i);
		uint32_t n = sges_to_walk(req->num_sge, q->max_send_sge);
		uint64_t length = 0;

		if (dp_qp_canceled(q, i))
			continue;
		for (uint32_t s = 0; !(req->send_flags & DP_SEND_INLINE) && s < n; s++) {
			length += req->sg_list[s].length;
			if (fn(req->sg_list[s].lkey, req->sg_list[s].addr, req->sg_list[s].length, data))
				return true;
		}
		if (dp_wr_has_remote(req->opcode) &&
		    q->type != DP_QPT_UD && fn(req->rdma.rkey, req->rdma.remote_addr, length, data))
			return true;
	}
	for (uint32_t i = dp_queue_cons(&q->rq), end = i + dp_queue_count(&q->rq); i != end; i++) {
		const struct dp_rq_req *req = dp_queue_slot(&q->rq, i);
		uint32_t n = sges_to_walk(req->num_sge, q->max_recv_sge);

		for (uint32_t s = 0; s < n; s++)
			if (fn(req->sg_list[s].lkey, req->sg_list[s].addr, req->sg_list[s].length, data))
				return true;
	}
	return false;
}
