/* SPDX-License-Identifier: MIT */
/*
 * A QP's RoCE connection: made by the driver with the path MODIFY_QP gave,
 * taken by the QP's worker, which sets its sequence numbers as the QP
 * enters RTR and RTS and forgets what was in flight when the QP stops.
 */
#include "dataplane/roce/roce_int.h"
#include "dataplane/roce/sport.h"

#include <stdlib.h>
#include <string.h>

static void on_timeout(struct dp_worker *w, void *arg)
{
	roce_comp_timeout(w, arg);
}

void *roce_qp_new(const struct dp_path *path, uint32_t max_dest_rd_atomic)
{
	struct dp_roce_qp *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->path = *path;
	/* One READ in progress at least: max_dest_rd_atomic 0 refuses READs anyway (resp.c). */
	c->n_reads = max_dest_rd_atomic ? max_dest_rd_atomic : 1;
	c->reads = calloc(c->n_reads, sizeof(*c->reads));
	if (!c->reads) {
		free(c);
		return NULL;
	}
	return c;
}

static void forget_reads(struct dp_roce_qp *c)
{
	for (uint32_t i = 0; i < c->n_reads; i++) {
		free(c->reads[i].bytes);
		c->reads[i] = (struct dp_roce_read){ 0 };
	}
	c->read_head = c->read_count = 0;
}

void roce_qp_free(void *conn)
{
	struct dp_roce_qp *c = conn;

	if (!c)
		return;
	forget_reads(c);
	free(c->reads);
	free(c->rx.bytes);
	roce_kept_forget(c);
	free(c);
}

/* 4.096 us << timeout (reference §3.4). */
static uint64_t timeout_ns(uint32_t timeout)
{
	return timeout ? 4096ull << (timeout < 31 ? timeout : 31) : 0;
}

void roce_qp_connect(struct dp_worker *w, struct dp_qp *q, const struct dp_path *path, bool rts)
{
	struct dp_roce_qp *c = roce_qp(q);
	struct dp_roce_route *rt = &c->route;
	uint16_t port = roce_ep(q->nic) ? roce_ep(q->nic)->port : ROCE_UDP_PORT;

	(void)w;
	c->path = *path;
	rt->hdr = (struct roce_ip_udp){
		.tclass = path->traffic_class, .hop_limit = path->hop_limit, .flow_label = path->flow_label,
		.df = true, .sport = roce_udp_sport(path->flow_label, q->qpn, q->dest_qpn), .dport = port,
	};
	memcpy(rt->hdr.sgid, path->sgid, 16);
	memcpy(rt->hdr.dgid, path->dgid, 16);
	memcpy(rt->dmac, path->dmac, sizeof(rt->dmac));
	roce_gid_addr(path->dgid, port, &rt->to);
	roce_gid_addr(path->sgid, 0, &rt->from);
	if (roce_ep(q->nic))
		roce_route_bind(roce_ep(q->nic), rt);
	c->rto_ns = timeout_ns(path->timeout);
	if (rts) {
		c->una = c->acked = c->tx_psn = c->tx_high = path->sq_psn;
		c->tx_index = atomic_load_explicit(&q->req_next, memory_order_relaxed);
		c->retry_left = path->retry_cnt;
		c->resending = false;
		roce_window_init(c);
		q->psn_next = path->sq_psn;
	} else {
		/* RTR comes before RTS, and the timer runs only in RTS: never armed here. */
		dp_timer_init(&c->rto, on_timeout, q);
		c->epsn = path->rq_psn;
		c->msn = 0;
		c->nak_sent = c->ack_due = false;
		c->rx.active = false;
		forget_reads(c);
		roce_kept_forget(c);
	}
}

void roce_qp_stop(struct dp_worker *w, struct dp_qp *q)
{
	struct dp_roce_qp *c = roce_qp(q);
	uint32_t end = atomic_load_explicit(&q->req_next, memory_order_relaxed);

	dp_worker_timer_cancel(w, &c->rto);
	/* In RESET the completer drops each answer: what was in flight is counted down and forgotten. */
	for (uint32_t i = dp_queue_cons(&q->sq); i != end; i++)
		if (roce_msg_at(q, i))
			roce_msg_answer(w, q, i, DP_WC_WR_FLUSH_ERR);
	c->rx.active = false;
	c->ack_due = false;
	forget_reads(c);
	roce_kept_forget(c);
}

unsigned roce_qp_poll(struct dp_worker *w, struct dp_qp *q)
{
	unsigned n = 0;

	switch (q->state) {
	case DP_QPS_RTR:
		n = roce_resp_reads(w, q);
		break;
	case DP_QPS_RTS:
	case DP_QPS_SQD:
		n = roce_resp_reads(w, q) + roce_req_pump(w, q);
		break;
	case DP_QPS_ERR:
		roce_comp_flush(w, q);
		break;
	default:
		break;
	}
	if (n)
		roce_tx_flush(w, roce_ep(q->nic));
	return n;
}
