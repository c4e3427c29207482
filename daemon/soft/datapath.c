/* SPDX-License-Identifier: MIT */
/*
 * The data path: device-wide setup, completion queue rings, QPs handed to
 * workers, and the main thread's side of the workers' events.  Transfers
 * themselves are in daemon/soft/transfer.c; posting in daemon/soft/post.c.
 */
#include "daemon/soft/datapath.h"
#include "daemon/soft/datapath_int.h"
#include "daemon/verbs/cq.h"
#include "daemon/verbs/qp.h"
#include "daemon/verbs/recovery.h"
#include "daemon/soft/workers.h"
#include "lib/log.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

/* ---- completion queue rings ---- */

struct rdma_cq_ring *rdma_cq_ring_new(struct rdma_device *dev, uint32_t cqn, uint32_t capacity)
{
	unsigned n = dev->datapath ? dev->datapath->n_workers : 0;
	struct rdma_cq_ring *ring;

	if (!n)
		return NULL;
	ring = calloc(1, sizeof(*ring) + n * sizeof(ring->lanes[0]));
	if (!ring)
		return NULL;
	atomic_init(&ring->refs, 1);
	ring->capacity = capacity;
	ring->cqn = cqn;
	ring->n_lanes = n;
	for (unsigned i = 0; i < n; i++)
		if (dp_queue_init(&ring->lanes[i], capacity, sizeof(struct dp_cqe), 0) < 0) {
			ring->n_lanes = i;
			rdma_cq_ring_put(ring);
			return NULL;
		}
	return ring;
}

struct rdma_cq_ring *rdma_cq_ring_get(struct rdma_cq_ring *ring)
{
	if (ring)
		atomic_fetch_add_explicit(&ring->refs, 1, memory_order_relaxed);
	return ring;
}

void rdma_cq_ring_put(struct rdma_cq_ring *ring)
{
	if (!ring || atomic_fetch_sub_explicit(&ring->refs, 1, memory_order_acq_rel) != 1)
		return;
	for (unsigned i = 0; i < ring->n_lanes; i++)
		dp_queue_release(&ring->lanes[i]);
	free(ring);
}

unsigned rdma_cq_ring_poll(struct rdma_cq_ring *ring, struct dp_cqe *out, unsigned max)
{
	unsigned n = 0;

	/* Round robin over the lanes, so that no worker's completions wait behind another's. */
	for (unsigned tried = 0; n < max && tried < ring->n_lanes; ) {
		if (!dp_queue_pop(&ring->lanes[ring->next_lane], &out[n])) {
			ring->next_lane = (ring->next_lane + 1) % ring->n_lanes;
			tried++;
			continue;
		}
		n++;
		atomic_fetch_sub_explicit(&ring->used, 1, memory_order_release);
		/* One entry per lane in turn: each QP's entries stay in order, as each QP has one lane. */
		ring->next_lane = (ring->next_lane + 1) % ring->n_lanes;
		tried = 0;
	}
	return n;
}

/* ---- commands to the worker ---- */

/* The worker always drains its commands, so a full ring is only a moment's wait. */
static void submit(struct dp_worker *w, dp_worker_fn fn, void *arg)
{
	while (dp_worker_submit(w, fn, arg) == -EAGAIN)
		sched_yield();
}

static void barrier(struct dp_worker *w)
{
	dp_worker_barrier(w);
}

struct qp_update {
	struct rdma_dp_qp *q;
	enum rdma_qp_state state;
	uint32_t access_flags, dest_qpn, rnr_retry, min_rnr_timer, max_dest_rd_atomic, qkey;
	uint32_t stops_seen;      /* the signature stops the main thread has been told of */
};

static struct rdma_dp_qp **bucket(struct rdma_datapath *dp, struct dp_worker *w, uint32_t qpn)
{
	return &dp->per_worker[w->index].qps[qpn % DP_QP_BUCKETS];
}

struct rdma_dp_qp *rdma_dp_worker_qp(struct rdma_datapath *dp, struct dp_worker *w, uint32_t qpn)
{
	for (struct rdma_dp_qp *q = *bucket(dp, w, qpn); q; q = q->hash_next)
		if (q->qpn == qpn)
			return q;
	return NULL;
}

static void on_attach(struct dp_worker *w, void *arg)
{
	struct rdma_dp_qp *q = arg;
	struct rdma_dp_qp **b = bucket(q->dp, w, q->qpn);

	q->hash_next = *b;
	*b = q;
	if (dp_worker_add_poller(w, rdma_dp_qp_poll, q) < 0)
		log_error("worker %u: no room for the poller of QP %u", w->index, q->qpn);
}

/* RESET discards every posted WR without a completion (by the queues' consumer, or once there is none). */
static void drop_posted(struct rdma_dp_qp *q)
{
	dp_queue_consume(&q->sq, dp_queue_count(&q->sq));
	dp_queue_consume(&q->rq, dp_queue_count(&q->rq));
}

static void on_update(struct dp_worker *w, void *arg)
{
	struct qp_update *u = arg;
	struct rdma_dp_qp *q = u->q;

	(void)w;
	/*
	 * A state the worker went to on its own (ERR; SQD after a signature
	 * error) stands until the main thread, told of it, moves the QP on.
	 */
	if (q->state == RDMA_QPS_ERR && u->state != RDMA_QPS_ERR)
		u->state = RDMA_QPS_ERR;
	if (q->state == RDMA_QPS_SQD && u->state == RDMA_QPS_RTS &&
	    u->stops_seen != atomic_load_explicit(&q->stops, memory_order_relaxed))
		u->state = RDMA_QPS_SQD;
	q->state = u->state;
	q->access_flags = u->access_flags;
	q->dest_qpn = u->dest_qpn;
	q->rnr_retry = u->rnr_retry;
	q->min_rnr_timer = u->min_rnr_timer;
	q->max_dest_rd_atomic = u->max_dest_rd_atomic;
	q->qkey = u->qkey;
	free(u);
}

/* A QP in RESET (or destroyed) leaves its worker: what it had posted goes, its state is RESET's. */
static void on_release(struct dp_worker *w, void *arg)
{
	struct rdma_dp_qp *q = arg;

	for (struct rdma_dp_qp **p = bucket(q->dp, w, q->qpn); *p; p = &(*p)->hash_next)
		if (*p == q) {
			*p = q->hash_next;
			break;
		}
	dp_worker_remove_poller(w, rdma_dp_qp_poll, q);
	q->state = RDMA_QPS_RESET;
	q->rnr_active = false;
	q->error_pending = false;
	q->stop_pending = false;
}

/* Main thread: takes the QP back from its worker; from here on it may go to any worker, or be freed. */
static void release(struct rdma_dp_qp *q)
{
	submit(q->worker, on_release, q);
	barrier(q->worker);
	q->worker = NULL;
}

static void qp_free(struct rdma_dp_qp *q)
{
	dp_queue_release(&q->sq);
	dp_queue_release(&q->rq);
	free(q->sq_slots);
	rdma_cq_ring_put(q->send_cq);
	rdma_cq_ring_put(q->recv_cq);
	free(q);
}

/* ---- QPs (main thread) ---- */

int rdma_dp_qp_create(struct rdma_device *dev, struct rdma_qp *qp)
{
	struct rdma_dp_qp *q;

	if (!dev->datapath)
		return 0;
	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	q->dp = dev->datapath;
	q->qpn = qp->obj.handle;
	q->type = qp->type;
	q->max_send_wr = qp->cap.max_send_wr;
	q->max_recv_wr = qp->cap.max_recv_wr;
	q->pd = qp->pd->handle;
	q->max_send_sge = qp->cap.max_send_sge;
	q->max_recv_sge = qp->cap.max_recv_sge;
	q->max_inline = qp->cap.max_inline_data;
	q->sq_sig_all = qp->sq_sig_all;
	q->sig_pipelining = qp->sig_pipelining;
	q->send_cq = rdma_cq_ring_get(rdma_cq(qp->send_cq)->ring);
	q->recv_cq = rdma_cq_ring_get(rdma_cq(qp->recv_cq)->ring);
	if (!q->send_cq || !q->recv_cq ||
	    dp_queue_init(&q->sq, qp->cap.max_send_wr ? qp->cap.max_send_wr : 1,
			  sizeof(struct dp_sq_req) + qp->cap.max_send_sge * sizeof(struct dp_sge), 0) < 0 ||
	    dp_queue_init(&q->rq, qp->cap.max_recv_wr ? qp->cap.max_recv_wr : 1,
			  sizeof(struct dp_rq_req) + qp->cap.max_recv_sge * sizeof(struct dp_sge), 0) < 0 ||
	    !(q->sq_slots = calloc(dp_queue_capacity(&q->sq), sizeof(*q->sq_slots)))) {
		qp_free(q);
		return -ENOMEM;
	}
	qp->dp = q;
	return 0;
}

/*
 * A connected QP joins the worker of its peer, so that one thread plays both
 * ends; UD QPs, which any of them may send to, all share one worker.
 */
static struct dp_worker *choose_worker(struct rdma_device *dev, struct rdma_qp *qp)
{
	struct rdma_datapath *dp = dev->datapath;
	struct rdma_error err;
	struct rdma_object *peer;

	if (qp->type == RDMA_QPT_UD) {
		if (!dp->ud_worker)
			dp->ud_worker = worker_set_pick(dp->ws);
		return dp->ud_worker;
	}
	if (qp->attr_mask & RDMA_QP_DEST_QPN) {
		peer = rdma_object_lookup(dev, RDMA_OBJ_QP, qp->attr.dest_qp_num, &err);
		if (peer && rdma_qp(peer)->dp && rdma_qp(peer)->dp->worker)
			return rdma_qp(peer)->dp->worker;
	}
	return worker_set_pick(dev->datapath->ws);
}

void rdma_dp_qp_modified(struct rdma_device *dev, struct rdma_qp *qp, enum rdma_qp_state old)
{
	struct rdma_dp_qp *q = qp->dp;
	struct qp_update *u;

	(void)old;
	if (!q || !dev->datapath->running)
		return;
	if (qp->state == RDMA_QPS_RESET) {
		/*
		 * The worker lets the QP go, so that its next connection may be to
		 * a QP of another worker; with no consumer left, RESET drops what
		 * was posted, here.
		 */
		if (q->worker)
			release(q);
		qp->worker = NULL;
		drop_posted(q);
		return;
	}
	/* Receives may be posted in INIT; a worker takes the queues over when the QP leaves it. */
	if (qp->state == RDMA_QPS_INIT)
		return;
	if (!q->worker) {
		q->worker = choose_worker(dev, qp);
		qp->worker = q->worker;
		submit(q->worker, on_attach, q);
	}
	u = calloc(1, sizeof(*u));
	if (!u) {
		log_error("QP %u: out of memory telling its worker of state %s", q->qpn,
			  rdma_qp_state_name(qp->state));
		return;
	}
	u->q = q;
	u->state = qp->state;
	u->access_flags = qp->attr.access_flags;
	u->dest_qpn = qp->attr.dest_qp_num;
	u->rnr_retry = qp->attr.rnr_retry;
	u->min_rnr_timer = qp->attr.min_rnr_timer;
	u->max_dest_rd_atomic = qp->attr.max_dest_rd_atomic;
	u->qkey = qp->attr.qkey;
	u->stops_seen = qp->sig_stops_seen;
	submit(q->worker, on_update, u);
	/* SQD: the worker starts no WQE once it has the update, and none is ever half done. */
	if (qp->state == RDMA_QPS_SQD)
		barrier(q->worker);
}

void rdma_dp_qp_destroy(struct rdma_device *dev, struct rdma_qp *qp)
{
	struct rdma_dp_qp *q = qp->dp;

	if (!q)
		return;
	qp->dp = NULL;
	qp->worker = NULL;
	/* Synchronously: once the QP is gone, no worker reaches the memory its WRs named. */
	if (q->worker && dev->datapath && dev->datapath->running)
		release(q);
	qp_free(q);
}

/* ---- keys in use ---- */

/* fn(key, iova, length, data) for each key a posted WR not yet retired names; true stops. */
static bool each_posted_key(struct rdma_dp_qp *q,
			    bool (*fn)(uint32_t key, uint64_t iova, uint64_t length, void *data), void *data)
{
	for (uint32_t i = dp_queue_cons(&q->sq), end = i + dp_queue_count(&q->sq); i != end; i++) {
		const struct dp_sq_req *req = dp_queue_slot(&q->sq, i);
		uint64_t length = 0;

		if (rdma_dp_sq_slot(q, i)->canceled)
			continue;
		for (uint32_t s = 0; !(req->send_flags & DP_SEND_INLINE) && s < req->num_sge; s++) {
			length += req->sg_list[s].length;
			if (fn(req->sg_list[s].lkey, req->sg_list[s].addr, req->sg_list[s].length, data))
				return true;
		}
		if (req->opcode != DP_WR_SEND && req->opcode != DP_WR_SEND_WITH_IMM &&
		    q->type != RDMA_QPT_UD && fn(req->rdma.rkey, req->rdma.remote_addr, length, data))
			return true;
	}
	for (uint32_t i = dp_queue_cons(&q->rq), end = i + dp_queue_count(&q->rq); i != end; i++) {
		const struct dp_rq_req *req = dp_queue_slot(&q->rq, i);

		for (uint32_t s = 0; s < req->num_sge; s++)
			if (fn(req->sg_list[s].lkey, req->sg_list[s].addr, req->sg_list[s].length, data))
				return true;
	}
	return false;
}

/* The first QP whose posted WRs name something fn finds, or NULL. */
static struct rdma_object *posted_user(struct rdma_device *dev,
				       bool (*fn)(uint32_t key, uint64_t iova, uint64_t length, void *data),
				       void *data)
{
	struct rdma_object *obj;

	for (uint32_t pos = 0; (obj = object_table_next(&dev->tables[RDMA_OBJ_QP], &pos)); ) {
		struct rdma_dp_qp *q = rdma_qp(obj)->dp;

		if (q && each_posted_key(q, fn, data))
			return obj;
	}
	return NULL;
}

struct memory_range {
	const struct dp_keytab *keytab;
	const uint8_t *addr;
	uint64_t length;
};

static bool names_memory(uint32_t key, uint64_t iova, uint64_t length, void *data)
{
	struct memory_range *m = data;
	const struct dp_key *k = dp_keytab_get(m->keytab, key);
	const uint8_t *p;

	if (!length || !k || k->kind == DP_KEY_MKEY)
		return false;
	p = dp_keytab_resolve(m->keytab, key, false, k->pd, 0, iova, length);
	return p && p >= m->addr && (uint64_t)(p - m->addr) < m->length;
}

struct rdma_object *rdma_datapath_memory_user(struct rdma_device *dev, const uint8_t *addr,
					      uint64_t length)
{
	struct memory_range m = { .addr = addr, .length = length };

	if (!dev->datapath)
		return NULL;
	m.keytab = &dev->datapath->keytab;
	return posted_user(dev, names_memory, &m);
}

static bool names_key(uint32_t key, uint64_t iova, uint64_t length, void *data)
{
	(void)iova;
	(void)length;
	return key == *(const uint32_t *)data;
}

struct rdma_object *rdma_datapath_key_user(struct rdma_device *dev, uint32_t key)
{
	struct rdma_object *user = posted_user(dev, names_key, &key);

	/* Retired WRs may have left reports on an MKEY: they are applied before it changes. */
	if (!user)
		rdma_datapath_reports(dev);
	return user;
}

static void free_key_entry(struct dp_key *k)
{
	dp_mkey_free(k->mkey);
}

void rdma_datapath_key_set(struct rdma_device *dev, struct dp_key *k)
{
	if (dev->datapath && dp_keytab_set(&dev->datapath->keytab, k) == 0)
		return;
	free_key_entry(k);
	free(k);
}

void rdma_datapath_key_clear(struct rdma_device *dev, uint32_t key)
{
	if (dev->datapath)
		dp_keytab_clear(&dev->datapath->keytab, key);
}

/* ---- the main thread's side of worker events ---- */

/*
 * QP qpn if its data path is still q, which a worker told of: not when it is
 * gone, or was destroyed and its number handed out again.
 */
static struct rdma_qp *qp_of(struct rdma_device *dev, uint32_t qpn, const struct rdma_dp_qp *q)
{
	struct rdma_object *obj = object_table_find(&dev->tables[RDMA_OBJ_QP], qpn);
	struct rdma_qp *qp = obj ? rdma_qp(obj) : NULL;

	return qp && qp->dp == q ? qp : NULL;
}

static struct rdma_qp *event_qp(struct rdma_device *dev, const struct dp_event *ev)
{
	return qp_of(dev, ev->object, ev->ptr);
}

void rdma_datapath_reports(struct rdma_device *dev)
{
	struct rdma_datapath *dp = dev->datapath;

	for (unsigned i = 0; dp && i < dp->n_workers; i++) {
		struct rdma_dp_report *r = atomic_exchange_explicit(&dp->per_worker[i].reports, NULL,
								     memory_order_acquire);
		struct rdma_dp_report *fifo = NULL;

		while (r) {
			struct rdma_dp_report *next = r->next;

			r->next = fifo;
			fifo = r;
			r = next;
		}
		while (fifo) {
			struct rdma_dp_report *next = fifo->next;

			rdma_recovery_sig_error(dev, qp_of(dev, fifo->qpn, fifo->q), fifo->qpn, fifo->wr_id,
						fifo->mkey, fifo->dir, &fifo->err);
			free(fifo);
			fifo = next;
		}
	}
}

static void on_reports(struct dp_worker *w, const struct dp_event *ev, void *userdata)
{
	struct rdma_datapath *dp = (struct rdma_datapath *)(uintptr_t)ev->cookie;

	(void)w;
	(void)userdata;
	rdma_datapath_reports(dp->dev);
}

static void on_qp_stopped(struct dp_worker *w, const struct dp_event *ev, void *userdata)
{
	struct rdma_datapath *dp = (struct rdma_datapath *)(uintptr_t)ev->cookie;
	struct rdma_qp *qp;

	(void)w;
	(void)userdata;
	/* The errors that stopped it first, so that a recovery finds them. */
	rdma_datapath_reports(dp->dev);
	qp = event_qp(dp->dev, ev);
	if (!qp)
		return;
	/*
	 * Known from now on, whatever the state: a later RTS update must carry
	 * it, or the worker keeps the stop (a user took the QP to SQD or ERR
	 * meanwhile, and will move it on).
	 */
	qp->sig_stops_seen = atomic_load_explicit(&qp->dp->stops, memory_order_relaxed);
	if (qp->state == RDMA_QPS_RTS)
		rdma_qp_sig_stopped(dp->dev, qp, qp->sig_stops_seen, (uint64_t)ev->value);
}

static void on_qp_error(struct dp_worker *w, const struct dp_event *ev, void *userdata)
{
	struct rdma_datapath *dp = (struct rdma_datapath *)(uintptr_t)ev->cookie;
	struct rdma_device *dev = dp->dev;
	struct rdma_error err;
	struct rdma_qp *qp = event_qp(dev, ev);

	(void)w;
	(void)userdata;
	/* The QP may be gone, or taken to RESET or ERR by a user meanwhile. */
	if (!qp || qp->state == RDMA_QPS_RESET || qp->state == RDMA_QPS_ERR || qp->state == RDMA_QPS_INIT)
		return;
	rdma_qp_enter_error(dev, qp, &err);
}

static void on_cq_entry(struct dp_worker *w, const struct dp_event *ev, void *userdata)
{
	struct rdma_datapath *dp = (struct rdma_datapath *)(uintptr_t)ev->cookie;
	struct rdma_object *obj = object_table_find(&dp->dev->tables[RDMA_OBJ_CQ], ev->object);
	struct rdma_cq *cq = obj ? rdma_cq(obj) : NULL;

	(void)w;
	(void)userdata;
	/* The CQ may be gone; its ring is only compared, never reached, from here. */
	if (cq && cq->ring == ev->ptr && cq->armed) {
		rdma_cq_completion_event(cq, ev->value != 0);
		atomic_store_explicit(&cq->ring->armed, cq->armed != 0, memory_order_release);
	}
	if (dp->cq_hook)
		dp->cq_hook(dp->dev, dp->cq_hook_data);
}

int rdma_datapath_start(struct rdma_device *dev, struct worker_set *ws)
{
	struct rdma_datapath *dp;

	if (!ws || !ws->n)
		return 0;
	dp = calloc(1, sizeof(*dp));
	if (!dp)
		return -ENOMEM;
	dp->per_worker = calloc(ws->n, sizeof(*dp->per_worker));
	dp->workers = calloc(ws->n, sizeof(*dp->workers));
	if (!dp->per_worker || !dp->workers ||
	    /* Slot 0 of an object table is never handed out: one more slot than the limit. */
	    dp_keytab_init(&dp->keytab, rdma_device_limit(dev, RDMA_OBJ_MR) + 1,
			   rdma_device_limit(dev, RDMA_OBJ_MKEY) + 1) < 0) {
		free(dp->per_worker);
		free(dp->workers);
		free(dp);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < ws->n; i++)
		dp->workers[i] = &ws->workers[i];
	dp->keytab.free_entry = free_key_entry;
	dp_keytab_set_workers(&dp->keytab, dp->workers, ws->n);
	dp->dev = dev;
	dp->ws = ws;
	dp->n_workers = ws->n;
	dp->running = true;
	/*
	 * One handler per event type for all devices (the event names its
	 * device): the second device finds them registered already.
	 */
	(void)worker_set_on_event(ws, WORKER_EVENT_QP_ERROR, on_qp_error, NULL);
	(void)worker_set_on_event(ws, WORKER_EVENT_CQ_ENTRY, on_cq_entry, NULL);
	(void)worker_set_on_event(ws, WORKER_EVENT_REPORTS, on_reports, NULL);
	(void)worker_set_on_event(ws, WORKER_EVENT_QP_STOPPED, on_qp_stopped, NULL);
	dev->datapath = dp;
	return 0;
}

void rdma_datapath_workers_stopped(struct rdma_device *dev)
{
	if (dev->datapath) {
		dev->datapath->running = false;
		/* No worker reads the key table any more: entries go at once. */
		dp_keytab_set_workers(&dev->datapath->keytab, NULL, 0);
	}
}

void rdma_datapath_free(struct rdma_datapath *dp)
{
	if (!dp)
		return;
	for (unsigned i = 0; i < dp->n_workers; i++) {
		struct rdma_dp_worker_ctx *wc = &dp->per_worker[i];
		struct rdma_dp_report *r = atomic_load(&wc->reports);

		while (r) {
			struct rdma_dp_report *next = r->next;

			free(r);
			r = next;
		}
		free(wc->scratch[0]);
		free(wc->scratch[1]);
	}
	dp_keytab_release(&dp->keytab);
	free(dp->per_worker);
	free(dp->workers);
	free(dp);
}

void rdma_datapath_sync(struct rdma_device *dev)
{
	if (dev->datapath && dev->datapath->running)
		worker_set_dispatch(dev->datapath->ws);
	rdma_datapath_reports(dev);
}

void rdma_datapath_set_cq_hook(struct rdma_device *dev, void (*fn)(struct rdma_device *dev, void *ud),
			       void *userdata)
{
	if (dev->datapath) {
		dev->datapath->cq_hook = fn;
		dev->datapath->cq_hook_data = userdata;
	}
}

static void add_counters(struct rdma_dp_counters *to, struct rdma_dp_counters *from)
{
	_Atomic uint64_t *t = (_Atomic uint64_t *)to, *f = (_Atomic uint64_t *)from;

	for (size_t i = 0; i < sizeof(*to) / sizeof(uint64_t); i++)
		atomic_fetch_add_explicit(&t[i], atomic_load_explicit(&f[i], memory_order_relaxed),
					  memory_order_relaxed);
}

void rdma_datapath_counters(struct rdma_device *dev, struct rdma_dp_counters *out)
{
	memset(out, 0, sizeof(*out));
	if (!dev->datapath)
		return;
	for (unsigned i = 0; i < dev->datapath->n_workers; i++)
		add_counters(out, &dev->datapath->per_worker[i].counters);
}

unsigned rdma_datapath_n_workers(const struct rdma_device *dev)
{
	return dev->datapath ? dev->datapath->n_workers : 0;
}
