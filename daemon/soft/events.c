/* SPDX-License-Identifier: MIT */
/*
 * The main thread's side of the workers' events: each names its NIC and an
 * object by number (and context, for QPs and CQs), which may be gone by the
 * time the event is taken; what is still there hears of it through the
 * model (daemon/verbs/).
 */
#include "daemon/soft/datapath_int.h"
#include "daemon/verbs/cq.h"
#include "daemon/verbs/mkey.h"
#include "daemon/verbs/mr.h"
#include "daemon/verbs/qp.h"
#include "daemon/verbs/recovery.h"
#include "daemon/soft/workers.h"

#include <stdlib.h>

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
	if (qp)
		rdma_qp_sig_stopped(dev, qp, atomic_load_explicit(&soft_qp(qp)->stops, memory_order_relaxed),
				    (uint64_t)ev->value);
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

static void on_cq_entry(struct dp_worker *w, const struct dp_event *ev, void *userdata)
{
	struct rdma_datapath *dp = event_datapath(ev);
	struct rdma_object *obj = object_table_find(&dp->dev->tables[RDMA_OBJ_CQ], ev->object);
	struct rdma_cq *cq = obj ? rdma_cq(obj) : NULL;

	(void)w;
	(void)userdata;
	/* The CQ may be gone; its entries are only compared, never reached, from here. */
	if (cq && (void *)cq->ring == ev->ptr)
		rdma_cq_entry_event(dp->dev, cq, ev->value != 0);
	if (dp->cq_hook)
		dp->cq_hook(dp->dev, dp->cq_hook_data);
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

void rdma_datapath_events_register(struct worker_set *ws)
{
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
}
