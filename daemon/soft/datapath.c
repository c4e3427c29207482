/* SPDX-License-Identifier: MIT */
/*
 * The driver of the software device's NIC: sets it up on the daemon's
 * workers, makes and programs QP and CQ contexts, places QPs on workers, and
 * hands the workers' events to the model.  Posting is in post.c.
 */
#include "daemon/soft/datapath.h"
#include "daemon/soft/datapath_int.h"
#include "daemon/verbs/cq.h"
#include "daemon/verbs/gid.h"
#include "daemon/verbs/mkey.h"
#include "daemon/verbs/mr.h"
#include "daemon/verbs/qp.h"
#include "daemon/verbs/recovery.h"
#include "daemon/soft/workers.h"
#include "dataplane/loopback/loopback.h"
#include "lib/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The model's numbers are the IBA's, as the NIC's. */
_Static_assert((int)RDMA_QPS_ERR == (int)DP_QPS_ERR && (int)RDMA_QPS_SQD == (int)DP_QPS_SQD &&
	       (int)RDMA_QPS_RESET == (int)DP_QPS_RESET, "one numbering of QP states");
_Static_assert((int)RDMA_QPT_UD == (int)DP_QPT_UD && (int)RDMA_QPT_UC == (int)DP_QPT_UC,
	       "one numbering of QP types");

/* ---- CQs ---- */

int rdma_datapath_cq_create(struct rdma_device *dev, struct rdma_cq *cq)
{
	unsigned lanes = dev->datapath->nic.n_workers;
	struct dp_cq *entries = cq->rings ? dp_cq_new_rings(cq->obj.handle, cq->cqe, lanes) :
				dp_cq_new(cq->obj.handle, cq->cqe, lanes);

	if (!entries)
		return -ENOMEM;
	cq->ring = (struct rdma_cq_ring *)(void *)entries;
	return 0;
}

void rdma_datapath_cq_hold(struct rdma_cq_ring *ring)
{
	dp_cq_get(soft_cq(ring));
}

void rdma_datapath_cq_release(struct rdma_cq_ring *ring)
{
	dp_cq_put(soft_cq(ring));
}

unsigned rdma_datapath_cq_poll(struct rdma_cq_ring *ring, struct dp_cqe *out, unsigned max)
{
	return dp_cq_poll(soft_cq(ring), out, max);
}

void rdma_datapath_cq_set_wanted(struct rdma_cq_ring *ring, bool wanted)
{
	/* Before the poll that follows: an entry written meanwhile is either polled or told of. */
	atomic_store_explicit(&soft_cq(ring)->wanted, wanted, memory_order_seq_cst);
}

void rdma_datapath_cq_set_armed(struct rdma_cq_ring *ring, bool armed)
{
	/* As wanted: the poll after arming (the application's) sees what no event tells of. */
	atomic_store_explicit(&soft_cq(ring)->armed, armed, memory_order_seq_cst);
}

/* ---- QPs ---- */

int rdma_dp_qp_create(struct rdma_device *dev, struct rdma_qp *qp)
{
	struct dp_qp_config cfg = {
		.qpn = qp->obj.handle, .pd = qp->pd->handle, .type = (enum dp_qp_type)qp->type,
		.max_send_wr = qp->cap.max_send_wr, .max_recv_wr = qp->cap.max_recv_wr,
		.max_send_sge = qp->cap.max_send_sge, .max_recv_sge = qp->cap.max_recv_sge,
		.max_inline = qp->cap.max_inline_data, .sq_sig_all = qp->sq_sig_all,
		.sig_pipelining = qp->sig_pipelining, .rings = qp->rings,
	};

	struct dp_qp *q;
	int r = dp_qp_new(&dev->datapath->nic, &cfg, soft_cq(rdma_cq(qp->send_cq)->ring),
			  soft_cq(rdma_cq(qp->recv_cq)->ring), &q);

	if (r == 0)
		qp->ctx = q;
	return r;
}

int rdma_dp_qp_reserve(struct rdma_device *dev, struct rdma_qp *qp)
{
	(void)dev;
	return dp_qp_reserve(soft_qp(qp));
}

/* Copies of the two descriptors for the reply, and room for n queues; -errno. */
static int rings_out(struct rdma_rings *out, int memfd, int eventfd, size_t bytes, unsigned n)
{
	out->bytes = bytes;
	out->n_queues = n;
	out->queues = calloc(n, sizeof(*out->queues));
	out->memfd = fcntl(memfd, F_DUPFD_CLOEXEC, 3);
	out->eventfd = fcntl(eventfd, F_DUPFD_CLOEXEC, 3);
	if (!out->queues || out->memfd < 0 || out->eventfd < 0) {
		int r = out->queues ? -errno : -ENOMEM;

		rdma_rings_release(out);
		return r;
	}
	return 0;
}

int rdma_datapath_rings(struct rdma_device *dev, struct rdma_object *obj, struct rdma_rings *out)
{
	(void)dev;
	if (obj->kind == RDMA_OBJ_QP && rdma_qp(obj)->rings) {
		struct dp_qp *q = soft_qp(rdma_qp(obj));
		int r = rings_out(out, q->ring.fd, q->sq.doorbell, q->ring.bytes, 2);

		if (r == 0)
			dp_qp_ring_geometry(q, &out->queues[0], &out->queues[1]);
		return r;
	}
	if (obj->kind == RDMA_OBJ_CQ && rdma_cq(obj)->rings) {
		struct dp_cq *cq = soft_cq(rdma_cq(obj)->ring);
		int r = rings_out(out, cq->mem.fd, cq->notify_fd, cq->mem.bytes, cq->n_lanes);

		for (unsigned i = 0; r == 0 && i < cq->n_lanes; i++)
			out->queues[i] = (struct dp_ring_geometry){
				.entries = dp_queue_capacity(&cq->lanes[i]), .entry_size = sizeof(struct dp_cqe),
				.offset = (uint64_t)((uint8_t *)cq->lanes[i].hdr - (uint8_t *)cq->mem.addr),
			};
		return r;
	}
	return -EINVAL;
}

unsigned rdma_datapath_cpus(const struct rdma_device *dev, int *cpus, unsigned max)
{
	const struct rdma_datapath *dp = dev->datapath;

	for (unsigned i = 0; i < dp->nic.n_workers && i < max; i++)
		cpus[i] = dp->nic.workers[i]->cpu;
	return dp->nic.n_workers;
}

/* The worker pinned to cpu, or NULL. */
static struct dp_worker *worker_of_cpu(struct rdma_datapath *dp, int cpu)
{
	for (unsigned i = 0; i < dp->nic.n_workers; i++)
		if (dp->nic.workers[i]->cpu == cpu)
			return dp->nic.workers[i];
	return NULL;
}

int rdma_dp_qp_placement(struct rdma_device *dev, const struct rdma_qp *qp, unsigned *worker)
{
	const struct dp_qp *q = soft_qp(qp);

	(void)dev;
	if (!q->worker)
		return -ENOENT;
	*worker = q->worker->index;
	return q->worker->cpu;
}

bool rdma_dp_qp_counters(struct rdma_device *dev, const struct rdma_qp *qp, struct dp_counters *out)
{
	struct dp_qp *q = soft_qp(qp);

	(void)dev;
	/*
	 * A QP that never left INIT has counted nothing: none, so that records
	 * of tens of thousands of idle QPs (lists, creates) stay small.
	 */
	if (!q->wqes)
		return false;
	memset(out, 0, sizeof(*out));
	dp_counters_add(out, &q->counters);
	return true;
}

/*
 * The path of a connected QP whose address vector names a GID of another
 * host, when the device speaks RoCE v2: the QP's packets go there.
 */
static struct dp_path roce_path(struct rdma_device *dev, const struct rdma_qp *qp)
{
	struct dp_path path = { 0 };

	if (!dev->datapath->nic.remote || qp->type == RDMA_QPT_UD || !(qp->attr_mask & RDMA_QP_AV) ||
	    !qp->sgid || rdma_gid_is_local(dev, qp->attr.av.dgid))
		return path;
	path = (struct dp_path){
		.remote = true, .traffic_class = (uint8_t)qp->attr.av.traffic_class,
		.hop_limit = (uint8_t)qp->attr.av.hop_limit, .flow_label = qp->attr.av.flow_label,
		.mtu = qp->attr.path_mtu ? qp->attr.path_mtu : 1024, .timeout = qp->attr.timeout,
		.retry_cnt = qp->attr.retry_cnt, .sq_psn = qp->attr.sq_psn, .rq_psn = qp->attr.rq_psn,
	};
	memcpy(path.sgid, qp->sgid->gid, sizeof(path.sgid));
	memcpy(path.dgid, qp->attr.av.dgid, sizeof(path.dgid));
	memcpy(path.dmac, qp->attr.av.dmac, sizeof(path.dmac));
	return path;
}

/*
 * Where the QP runs: on the worker of the CPU its creator chose; else a
 * connected QP joins its peer's worker (a request and its response then
 * cost no queue), UD QPs share one, and the rest go round robin.  A QP
 * whose packets cross the network runs on the worker of the RoCE
 * endpoint, which receives them (UD QPs too, when the device speaks RoCE).
 */
static struct dp_worker *choose_worker(struct rdma_device *dev, struct rdma_qp *qp)
{
	struct rdma_datapath *dp = dev->datapath;
	struct dp_worker *placed = qp->cpu >= 0 ? worker_of_cpu(dp, qp->cpu) : NULL;
	struct dp_worker *roce = dp_roce_worker(&dp->nic);
	struct rdma_object *peer;

	if (roce && (qp->type == RDMA_QPT_UD || roce_path(dev, qp).remote)) {
		if (placed && placed != roce)
			log_notice("QP %u: runs on CPU %d, where RoCE v2 packets are received, not on CPU %d",
				   qp->obj.handle, roce->cpu, qp->cpu);
		return roce;
	}
	if (placed)
		return placed;
	if (qp->type == RDMA_QPT_UD) {
		if (!dp->ud_worker)
			dp->ud_worker = worker_set_pick(dp->ws);
		return dp->ud_worker;
	}
	if (qp->attr_mask & RDMA_QP_DEST_QPN) {
		peer = object_table_find(&dev->tables[RDMA_OBJ_QP], qp->attr.dest_qp_num);
		if (peer && soft_qp(rdma_qp(peer)) && soft_qp(rdma_qp(peer))->worker)
			return soft_qp(rdma_qp(peer))->worker;
	}
	return worker_set_pick(dp->ws);
}

void rdma_dp_qp_modified(struct rdma_device *dev, struct rdma_qp *qp, int old_state)
{
	struct dp_qp *q = soft_qp(qp);
	struct dp_qp_attr attr = {
		.state = (enum dp_qp_state)qp->state, .access_flags = qp->attr.access_flags,
		.dest_qpn = qp->attr.dest_qp_num, .rnr_retry = qp->attr.rnr_retry,
		.min_rnr_timer = qp->attr.min_rnr_timer, .max_dest_rd_atomic = qp->attr.max_dest_rd_atomic,
		.qkey = qp->attr.qkey, .stops_seen = qp->sig_stops_seen, .path = roce_path(dev, qp),
	};

	(void)old_state;
	if (!dev->datapath->nic.running)
		return;
	if (qp->state == RDMA_QPS_RESET) {
		/*
		 * The worker lets the QP go, so that its next connection may be
		 * placed anew; with no consumer left, RESET drops what was posted.
		 */
		if (q->worker)
			dp_qp_release(q);
		dp_qp_drop_posted(q);
		return;
	}
	/* Receives may be posted in INIT; a worker takes the queues over when the QP leaves it. */
	if (qp->state == RDMA_QPS_INIT)
		return;
	/* Reserved before the model's state changed (rdma_dp_qp_reserve): attaching cannot fail here. */
	if (!q->worker && dp_qp_attach(q, choose_worker(dev, qp)) < 0)
		log_error("QP %u: out of memory to run on a worker", q->qpn);
	if (dp_qp_update(q, &attr) < 0)
		log_error("QP %u: out of memory telling its worker of state %s", q->qpn,
			  rdma_qp_state_name(qp->state));
}

void rdma_dp_qp_destroy(struct rdma_device *dev, struct rdma_qp *qp)
{
	struct dp_qp *q = soft_qp(qp);

	qp->ctx = NULL;
	/* Synchronously: once the QP is gone, no worker reaches the memory its WRs named. */
	if (q->worker && dev->datapath && dev->datapath->nic.running)
		dp_qp_release(q);
	dp_qp_free(q);
}

/* ---- keys ---- */

/* The first QP whose posted WRs name something fn finds, or NULL. */
static struct rdma_object *posted_user(struct rdma_device *dev,
				       bool (*fn)(uint32_t key, uint64_t iova, uint64_t length, void *data),
				       void *data)
{
	struct rdma_object *obj;

	for (uint32_t pos = 0; (obj = object_table_next(&dev->tables[RDMA_OBJ_QP], &pos)); ) {
		struct dp_qp *q = soft_qp(rdma_qp(obj));

		if (q && dp_qp_each_posted_key(q, fn, data))
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
	m.keytab = &dev->datapath->nic.keytab;
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

void rdma_datapath_key_set(struct rdma_device *dev, struct dp_key *k)
{
	if (dev->datapath && dp_keytab_set(&dev->datapath->nic.keytab, k) == 0)
		return;
	dp_mkey_free(k->mkey);
	free(k);
}

void rdma_datapath_key_retire(struct rdma_device *dev, struct dp_key *k)
{
	if (dev->datapath)
		dp_keytab_retire(&dev->datapath->nic.keytab, k);
}

void rdma_datapath_key_clear(struct rdma_device *dev, uint32_t key)
{
	if (dev->datapath)
		dp_keytab_clear(&dev->datapath->nic.keytab, key);
}

/* ---- the main thread's side of worker events ---- */

/*
 * QP qpn if its context is still q, which a worker told of: not when it is
 * gone, or was destroyed and its number handed out again.
 */
static struct rdma_qp *qp_of(struct rdma_device *dev, uint32_t qpn, const void *q)
{
	struct rdma_object *obj = object_table_find(&dev->tables[RDMA_OBJ_QP], qpn);
	struct rdma_qp *qp = obj ? rdma_qp(obj) : NULL;

	return qp && (const void *)qp->ctx == q ? qp : NULL;
}

static struct rdma_datapath *event_datapath(const struct dp_event *ev)
{
	return (struct rdma_datapath *)((struct dp_nic *)(uintptr_t)ev->cookie)->owner;
}

/* The CQ an event names by number and entries, or NULL: it may be gone, its number another's. */
static struct rdma_cq *cq_of(struct rdma_device *dev, const struct dp_event *ev)
{
	struct rdma_object *obj = object_table_find(&dev->tables[RDMA_OBJ_CQ], ev->object);
	struct rdma_cq *cq = obj ? rdma_cq(obj) : NULL;

	/* Its entries are only compared, never reached, from here. */
	return cq && (void *)cq->ring == ev->ptr ? cq : NULL;
}

void rdma_datapath_reports(struct rdma_device *dev)
{
	struct dp_report *r = dev->datapath ? dp_nic_take_reports(&dev->datapath->nic) : NULL;

	while (r) {
		struct dp_report *next = r->next;

		rdma_recovery_sig_error(dev, qp_of(dev, r->qpn, r->qp), r->qpn, r->wr_id, r->mkey, r->dir,
					&r->err);
		free(r);
		r = next;
	}
}

static void on_reports(struct dp_worker *w, const struct dp_event *ev, void *userdata)
{
	(void)w;
	(void)userdata;
	rdma_datapath_reports(event_datapath(ev)->dev);
}

static void on_qp_stopped(struct dp_worker *w, const struct dp_event *ev, void *userdata)
{
	struct rdma_device *dev = event_datapath(ev)->dev;
	struct rdma_qp *qp;

	(void)w;
	(void)userdata;
	/* The errors that stopped it first, so that a recovery finds them. */
	rdma_datapath_reports(dev);
	qp = qp_of(dev, ev->object, ev->ptr);
	/* The model follows the stop, then the recovery starts: the event path's, not the QP's. */
	if (qp && rdma_qp_sig_stopped(dev, qp,
				      atomic_load_explicit(&soft_qp(qp)->stops, memory_order_relaxed),
				      (uint64_t)ev->value))
		rdma_recovery_stopped(dev, qp);
}

static void on_qp_error(struct dp_worker *w, const struct dp_event *ev, void *userdata)
{
	struct rdma_device *dev = event_datapath(ev)->dev;
	struct rdma_qp *qp = qp_of(dev, ev->object, ev->ptr);

	(void)w;
	(void)userdata;
	/* The QP may be gone. */
	if (qp)
		rdma_qp_async_error(dev, qp);
}

/*
 * Every armed CQ that holds entries: a worker found the event queue full, so
 * some of their events may be lost.  Whether the lost one was solicited is not
 * known: an event too many (the application polls and finds the entry) beats
 * one too few (it waits for ever).
 */
static void tell_armed_with_entries(struct rdma_device *dev)
{
	struct rdma_object *obj;

	for (uint32_t i = 0; (obj = object_table_next(&dev->tables[RDMA_OBJ_CQ], &i)); ) {
		struct rdma_cq *cq = rdma_cq(obj);

		if (cq->armed && cq->ring && !cq->rings && dp_cq_has_entries(soft_cq(cq->ring)))
			rdma_cq_entry_event(dev, cq, true);
	}
}

static void on_cq_entry(struct dp_worker *w, const struct dp_event *ev, void *userdata)
{
	struct rdma_datapath *dp = event_datapath(ev);
	struct rdma_cq *cq = cq_of(dp->dev, ev);

	(void)w;
	(void)userdata;
	if (!ev->ptr)
		tell_armed_with_entries(dp->dev);
	else if (cq)
		rdma_cq_entry_event(dp->dev, cq, ev->value != 0);
	if (dp->cq_hook)
		dp->cq_hook(dp->dev, dp->cq_hook_data);
}

static void on_cq_error(struct dp_worker *w, const struct dp_event *ev, void *userdata)
{
	struct rdma_datapath *dp = event_datapath(ev);
	struct rdma_cq *cq = cq_of(dp->dev, ev);

	(void)w;
	(void)userdata;
	if (cq)
		rdma_cq_async_error(dp->dev, cq);
}

static void on_key_invalidated(struct dp_worker *w, const struct dp_event *ev, void *userdata)
{
	struct rdma_datapath *dp = event_datapath(ev);
	struct rdma_device *dev = dp->dev;
	uint32_t key = ev->object;
	struct rdma_object *obj;

	(void)w;
	(void)userdata;
	/* A configure WR before the LOCAL_INV: the model takes it first, as the NIC did. */
	if ((obj = object_table_find(&dev->tables[RDMA_OBJ_MKEY], key)))
		rdma_mkey_settle(dev, rdma_mkey(obj));
	/* Published anew since (the MKEY configured again): the invalidation is over. */
	if (dp_keytab_get(&dp->nic.keytab, key))
		return;
	if ((obj = object_table_find(&dev->tables[RDMA_OBJ_MKEY], key)))
		rdma_mkey_invalidated(dev, rdma_mkey(obj));
	else if ((obj = object_table_find(&dev->tables[RDMA_OBJ_MR], key)))
		rdma_mr(obj)->invalidated = true;
}

static void on_key_configured(struct dp_worker *w, const struct dp_event *ev, void *userdata)
{
	struct rdma_datapath *dp = event_datapath(ev);
	struct rdma_object *obj = object_table_find(&dp->dev->tables[RDMA_OBJ_MKEY], ev->object);

	(void)w;
	(void)userdata;
	if (obj)
		rdma_mkey_settle(dp->dev, rdma_mkey(obj));
}

/* ---- the device's data path ---- */

int rdma_datapath_start(struct rdma_device *dev, struct worker_set *ws)
{
	struct rdma_datapath *dp;
	int r;

	if (!ws || !ws->n)
		return 0;
	dp = calloc(1, sizeof(*dp));
	if (!dp)
		return -ENOMEM;
	dp->workers = calloc(ws->n, sizeof(*dp->workers));
	if (!dp->workers) {
		free(dp);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < ws->n; i++)
		dp->workers[i] = &ws->workers[i];
	/* Slot 0 of an object table is never handed out: one more slot than the limit. */
	r = dp_nic_init(&dp->nic, dp->workers, ws->n, rdma_device_limit(dev, RDMA_OBJ_MR) + 1,
			rdma_device_limit(dev, RDMA_OBJ_MKEY) + 1,
			rdma_device_limit(dev, RDMA_OBJ_QP) + RDMA_QPN_FIRST);
	if (r == 0) {
		r = dp_loopback_open(&dp->nic);
		if (r < 0)
			dp_nic_release(&dp->nic);
	}
	if (r < 0) {
		free(dp->workers);
		free(dp);
		return r;
	}
	dp->nic.owner = dp;
	dp->dev = dev;
	dp->ws = ws;
	/*
	 * One handler per event type for all devices (the event names its
	 * NIC): the second device finds them registered already.
	 */
	(void)worker_set_on_event(ws, DP_EVENT_QP_ERROR, on_qp_error, NULL);
	(void)worker_set_on_event(ws, DP_EVENT_CQ_ENTRY, on_cq_entry, NULL);
	(void)worker_set_on_event(ws, DP_EVENT_REPORTS, on_reports, NULL);
	(void)worker_set_on_event(ws, DP_EVENT_QP_STOPPED, on_qp_stopped, NULL);
	(void)worker_set_on_event(ws, DP_EVENT_KEY_INVALIDATED, on_key_invalidated, NULL);
	(void)worker_set_on_event(ws, DP_EVENT_KEY_CONFIGURED, on_key_configured, NULL);
	(void)worker_set_on_event(ws, DP_EVENT_CQ_ERROR, on_cq_error, NULL);
	dev->datapath = dp;
	return 0;
}

int rdma_datapath_roce_start(struct rdma_device *dev, const struct dp_roce_config *cfg)
{
	struct rdma_datapath *dp = dev->datapath;

	if (!dp)
		return -ENODEV;
	/* UD QPs meet their peers there: the endpoint's worker is theirs too. */
	if (!dp->ud_worker)
		dp->ud_worker = worker_set_pick(dp->ws);
	return dp_roce_open(&dp->nic, dp->ud_worker, cfg);
}

enum dp_roce_receive rdma_datapath_roce_receive(struct rdma_device *dev, int *packet_error)
{
	*packet_error = 0;
	if (!dev->datapath)
		return DP_ROCE_RECEIVE_AUTO;
	return dp_roce_receive_in_use(&dev->datapath->nic, packet_error);
}

void rdma_datapath_roce_netdev_changed(struct rdma_device *dev)
{
	if (dev->datapath)
		dp_roce_netdev_changed(&dev->datapath->nic);
}

int rdma_datapath_roce_start_link(struct rdma_device *dev, const struct dp_roce_config *cfg,
				  const struct dp_roce_link *link)
{
	struct rdma_datapath *dp = dev->datapath;

	if (!dp)
		return -ENODEV;
	if (!dp->ud_worker)
		dp->ud_worker = worker_set_pick(dp->ws);
	return dp_roce_open_link(&dp->nic, dp->ud_worker, cfg, link);
}

int rdma_datapath_roce_link_input(struct rdma_device *dev, const uint8_t *ip, size_t len)
{
	return dev->datapath ? dp_roce_link_input(&dev->datapath->nic, ip, len) : -ENODEV;
}

void rdma_datapath_workers_stopped(struct rdma_device *dev)
{
	if (dev->datapath)
		dp_nic_workers_stopped(&dev->datapath->nic);
}

void rdma_datapath_free(struct rdma_datapath *dp)
{
	if (!dp)
		return;
	/* The driver opened the RoCE endpoint (rdma_datapath_roce_start): it closes it. */
	dp_roce_close(&dp->nic);
	/*
	 * A device that goes while the workers run on (a VM's): what they
	 * reported of its NIC is dispatched before the NIC goes (its objects
	 * are gone already: the events find none).
	 */
	if (dp->nic.running) {
		dp_nic_leave(&dp->nic);
		worker_set_dispatch(dp->ws);
	}
	dp_nic_release(&dp->nic);
	free(dp->workers);
	free(dp);
}

void rdma_datapath_sync(struct rdma_device *dev)
{
	if (dev->datapath && dev->datapath->nic.running)
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

void rdma_datapath_counters(struct rdma_device *dev, struct dp_counters *out)
{
	memset(out, 0, sizeof(*out));
	if (dev->datapath)
		dp_nic_counters(&dev->datapath->nic, out);
}
