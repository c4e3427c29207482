/* SPDX-License-Identifier: MIT */
/*
 * What a RoCE QP's connection is doing, read on its worker when a test or a
 * bench finds a transfer that no longer moves: one look tells a lost packet
 * nobody sends again (timer not armed), a window that does not open, a
 * responder waiting for a PSN the requester will not send, or a worker
 * asleep with work to do.  Nothing here runs on the data path.
 */
#include "dataplane/roce/roce_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int64_t until(uint64_t deadline_ns, uint64_t now)
{
	return deadline_ns >= now ? (int64_t)(deadline_ns - now) : -(int64_t)(now - deadline_ns);
}

static void snapshot_requester(const struct dp_roce_qp *c, uint64_t now, struct dp_roce_qp_snapshot *s)
{
	s->remote = c->path.remote;
	s->una = c->una;
	s->acked = c->acked;
	s->tx_psn = c->tx_psn;
	s->tx_high = c->tx_high;
	s->tx_index = c->tx_index;
	s->retry_left = c->retry_left;
	s->window = c->window;
	s->window_credit = c->window_credit;
	s->slow_start_to = c->slow_start_to;
	s->loss_sent = c->loss_sent;
	s->loss_seen = c->loss_seen;
	s->rto_ns = c->rto_ns;
	s->rto_armed = dp_timer_armed(&c->rto);
	s->rto_in_ns = s->rto_armed ? until(c->rto.deadline_ns, now) : 0;
}

static void snapshot_responder(const struct dp_roce_qp *c, struct dp_roce_qp_snapshot *s)
{
	s->epsn = c->epsn;
	s->msn = c->msn;
	s->nak_sent = c->nak_sent;
	s->nak_high = c->nak_high;
	s->ack_due = c->ack_due;
	s->ack_psn = c->ack_psn;
	s->ack_listed = c->ack_listed;
	s->read_count = c->read_count;
	s->rx_active = c->rx.active;
}

void dp_roce_qp_snapshot(struct dp_worker *w, struct dp_qp *q, struct dp_roce_qp_snapshot *s)
{
	const struct dp_timer *first = dp_timer_heap_first(&w->timers);
	uint64_t now = dp_worker_now_ns();

	memset(s, 0, sizeof(*s));
	s->qpn = q->qpn;
	s->state = q->state;
	s->sq_cons = dp_queue_cons(&q->sq);
	s->sq_prod = dp_queue_prod(&q->sq);
	s->req_next = atomic_load_explicit(&q->req_next, memory_order_relaxed);
	s->in_flight = atomic_load_explicit(&q->in_flight, memory_order_relaxed);
	s->psn_next = q->psn_next;
	s->rnr_active = q->rnr_active;
	s->rnr_index = q->rnr_index;
	s->rnr_in_ns = q->rnr_active ? until(q->rnr_until_ns, now) : 0;
	s->timers_armed = w->timers.n;
	s->next_timer_in_ns = first ? until(first->deadline_ns, now) : INT64_MAX;
	if (roce_qp(q)) {
		snapshot_requester(roce_qp(q), now, s);
		snapshot_responder(roce_qp(q), s);
	}
}

static double ms(int64_t ns)
{
	return (double)ns / 1e6;
}

int dp_roce_qp_snapshot_format(const struct dp_roce_qp_snapshot *s, char *buf, size_t len)
{
	char next[32] = "none", rto[48] = "not armed";

	if (s->next_timer_in_ns != INT64_MAX)
		snprintf(next, sizeof(next), "%.3f ms", ms(s->next_timer_in_ns));
	if (s->rto_armed)
		snprintf(rto, sizeof(rto), "armed, runs out in %.3f ms", ms(s->rto_in_ns));
	return snprintf(buf, len,
		"QP %u state %u remote %d: sq cons %u prod %u req_next %u in_flight %u psn_next %#x\n"
		"  requester: una %#x acked %#x tx_psn %#x tx_high %#x tx_index %u retry_left %u\n"
		"  window %u (credit %u, slow start to %u) losses %.1f in %u sent\n"
		"  rto %.3f ms: %s; rnr %s index %u in %.3f ms\n"
		"  responder: epsn %#x msn %u nak_sent %d nak_high %#x ack_due %d ack_psn %#x listed %d"
		" reads %u rx_active %d\n"
		"  worker: %u timers armed, next in %s\n",
		s->qpn, s->state, s->remote, s->sq_cons, s->sq_prod, s->req_next, s->in_flight, s->psn_next,
		s->una, s->acked, s->tx_psn, s->tx_high, s->tx_index, s->retry_left,
		s->window, s->window_credit, s->slow_start_to, s->loss_seen / 256.0, s->loss_sent,
		ms((int64_t)s->rto_ns), rto, s->rnr_active ? "active" : "idle", s->rnr_index, ms(s->rnr_in_ns),
		s->epsn, s->msn, s->nak_sent, s->nak_high, s->ack_due, s->ack_psn, s->ack_listed,
		s->read_count, s->rx_active, s->timers_armed, next);
}
