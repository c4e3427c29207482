/* SPDX-License-Identifier: MIT */
/*
 * A QP on its worker: the driver attaches it (it is found by number there,
 * and its poller runs), tells the worker of each state change and of a path
 * to another host (the NIC's remote transport then carries it, with a
 * connection of its own), and takes it back once nothing of it is in flight.
 */
#include "dataplane/engine/engine.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/epoll.h>

static struct dp_qp **bucket(struct dp_nic_worker *nw, uint32_t qpn)
{
	return &nw->qps[qpn & (nw->n_buckets - 1)];
}

struct dp_qp *dp_nic_worker_qp(struct dp_nic *nic, struct dp_worker *w, uint32_t qpn)
{
	struct dp_nic_worker *nw = &nic->per_worker[w->index];

	for (struct dp_qp *q = *bucket(nw, qpn); q; q = q->hash_next)
		if (q->qpn == qpn)
			return q;
	return NULL;
}

/*
 * Room for one more QP with chains of one on average, so that lookups stay
 * constant time with tens of thousands of QPs.  Out of memory, the table
 * stays as it was (dp_nic_init made its first buckets): longer chains that
 * still find every QP.
 */
static void qps_make_room(struct dp_nic_worker *nw)
{
	uint32_t n = nw->n_buckets * 2;
	struct dp_qp **qps;

	if (nw->n_qps < nw->n_buckets || !(qps = calloc(n, sizeof(*qps))))
		return;
	for (uint32_t i = 0; i < nw->n_buckets; i++)
		for (struct dp_qp *q = nw->qps[i], *next; q; q = next) {
			next = q->hash_next;
			q->hash_next = qps[q->qpn & (n - 1)];
			qps[q->qpn & (n - 1)] = q;
		}
	free(nw->qps);
	nw->qps = qps;
	nw->n_buckets = n;
}

/* An application rang: the worker is awake now, and the QP's poller finds its WRs. */
static void on_doorbell(struct dp_worker *w, int fd, uint32_t revents, void *arg)
{
	struct dp_qp *q = arg;

	(void)w;
	(void)fd;
	(void)revents;
	dp_queue_ack(&q->sq);
}

/* The QP is found by its number on this worker, and by requests from others. */
static void on_attach(struct dp_worker *w, void *arg)
{
	struct dp_qp *q = arg;
	struct dp_nic_worker *nw = &q->nic->per_worker[w->index];
	struct dp_qp **b;

	qps_make_room(nw);
	b = bucket(nw, q->qpn);
	q->hash_next = *b;
	*b = q;
	nw->n_qps++;
	q->epoch++;
	atomic_store_explicit(&q->req_next, dp_queue_cons(&q->sq), memory_order_relaxed);
	q->resp_epsn_valid = false;
	(void)dp_worker_add_poller(w, dp_qp_poll, q);
	/* Without them the QP still runs, found by the worker's turns while it is awake. */
	if (q->ring.fd >= 0 && dp_worker_add_fd(w, q->sq.doorbell, EPOLLIN, on_doorbell, q) == 0)
		(void)dp_worker_add_sleep_flag(w, &q->sq);
	if (q->qpn < q->nic->n_qpn)
		atomic_store_explicit(&q->nic->qp_worker[q->qpn], w->index + 1, memory_order_release);
}

int dp_qp_attach(struct dp_qp *q, struct dp_worker *w)
{
	int r = dp_qp_reserve(q);

	if (r < 0)
		return r;
	q->worker = w;
	dp_worker_submit_wait(w, on_attach, q);
	return 0;
}

struct qp_update {
	struct dp_qp *q;
	struct dp_qp_attr attr;
	/* A remote path: its transport, and a connection state should the QP have none yet (the worker frees a spare). */
	const struct dp_transport *transport;
	void *conn;
};

static void on_update(struct dp_worker *w, void *arg)
{
	struct qp_update *u = arg;
	struct dp_qp *q = u->q;
	enum dp_qp_state state = u->attr.state, before = q->state;

	/*
	 * A state the worker went to on its own (ERR; SQD after a signature
	 * error) stands until the driver, told of it, moves the QP on.
	 */
	if (q->state == DP_QPS_ERR && state != DP_QPS_ERR)
		state = DP_QPS_ERR;
	if (q->state == DP_QPS_SQD && state == DP_QPS_RTS &&
	    u->attr.stops_seen != atomic_load_explicit(&q->stops, memory_order_relaxed))
		state = DP_QPS_SQD;
	q->state = state;
	q->access_flags = u->attr.access_flags;
	q->dest_qpn = u->attr.dest_qpn;
	q->rnr_retry = u->attr.rnr_retry;
	q->min_rnr_timer = u->attr.min_rnr_timer;
	q->max_dest_rd_atomic = u->attr.max_dest_rd_atomic;
	q->qkey = u->attr.qkey;
	if (u->attr.path.remote && !q->transport) {
		q->transport = u->transport;
		q->conn = u->conn;
		u->conn = NULL;
	}
	if (u->conn)
		u->transport->qp_free(u->conn);
	/* The path of RTR (responder) and of RTS (requester) apply when the QP enters them. */
	if (q->transport && u->attr.path.remote && state != before &&
	    (state == DP_QPS_RTR || (state == DP_QPS_RTS && before == DP_QPS_RTR)))
		q->transport->qp_connect(w, q, &u->attr.path, state == DP_QPS_RTS);
	free(u);
}

/*
 * Driver: returns once the worker has no request of the QP in flight (the
 * responses are the completer's, on the QP's worker; another worker answers
 * each request).  A worker without a thread (a test's) has none in flight.
 */
static void wait_in_flight(struct dp_qp *q)
{
	while (q->worker->started && atomic_load_explicit(&q->in_flight, memory_order_acquire))
		sched_yield();
	dp_worker_barrier(q->worker);
}

int dp_qp_update(struct dp_qp *q, const struct dp_qp_attr *attr)
{
	struct qp_update *u = malloc(sizeof(*u));

	if (!u)
		return -ENOMEM;
	*u = (struct qp_update){ .q = q, .attr = *attr, .transport = q->nic->remote };
	/* A path off the NIC: the NIC's remote transport carries the QP, with a connection of its own. */
	if (attr->path.remote && !u->transport) {
		free(u);
		return -ENETUNREACH;
	}
	if (attr->path.remote && !(u->conn = u->transport->qp_new(&attr->path, attr->max_dest_rd_atomic))) {
		free(u);
		return -ENOMEM;
	}
	dp_worker_submit_wait(q->worker, on_update, u);
	/*
	 * RTR lets a peer's requests in: done when the worker has it, so that a
	 * request that comes next finds the QP ready.  SQD: the worker starts no
	 * WQE once it has the update, and none is in flight or half done.  The
	 * other changes concern only the QP's own worker, which has them before
	 * its next look at the QP.
	 */
	if (attr->state == DP_QPS_SQD)
		wait_in_flight(q);
	else if (attr->state == DP_QPS_RTR)
		dp_worker_barrier(q->worker);
	return 0;
}

/* Sends nothing more: what is in flight comes back to a QP that drops it. */
static void on_stop(struct dp_worker *w, void *arg)
{
	struct dp_qp *q = arg;

	q->state = DP_QPS_RESET;
	if (q->transport)
		q->transport->qp_stop(w, q);
}

static void on_release(struct dp_worker *w, void *arg)
{
	struct dp_qp *q = arg;
	struct dp_nic_worker *nw = &q->nic->per_worker[w->index];

	if (q->qpn < q->nic->n_qpn)
		atomic_store_explicit(&q->nic->qp_worker[q->qpn], 0, memory_order_release);
	for (struct dp_qp **p = bucket(nw, q->qpn); *p; p = &(*p)->hash_next)
		if (*p == q) {
			*p = q->hash_next;
			nw->n_qps--;
			break;
		}
	dp_worker_remove_poller(w, dp_qp_poll, q);
	if (q->ring.fd >= 0 && dp_worker_remove_fd(w, q->sq.doorbell) == 0)
		dp_worker_remove_sleep_flag(w, &q->sq);
	dp_worker_timer_cancel(w, &q->rnr_timer);
	q->rnr_active = false;
	q->error_pending = false;
	q->stop_pending = false;
	q->cq_error_pending = 0;
}

void dp_qp_release(struct dp_qp *q)
{
	dp_worker_submit_wait(q->worker, on_stop, q);
	wait_in_flight(q);
	dp_worker_submit_wait(q->worker, on_release, q);
	dp_worker_barrier(q->worker);
	q->worker = NULL;
}
