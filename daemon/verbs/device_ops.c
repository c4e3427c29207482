/* SPDX-License-Identifier: MIT */
/*
 * The model's side of struct rdma_device_ops: a device with a data path does
 * what is asked; one without (no workers) programs nothing, holds no entries
 * and refuses posting with NotSupported.
 */
#include <unistd.h>
#include "daemon/verbs/device.h"
#include "daemon/verbs/cq.h"
#include "daemon/verbs/qp.h"
#include "dataplane/counters.h"
#include "dataplane/keytab.h"
#include "dataplane/mkey.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

bool rdma_device_has_datapath(const struct rdma_device *dev)
{
	return dev->datapath != NULL;
}

int rdma_device_need_datapath(const struct rdma_device *dev, const char *field, struct rdma_error *err)
{
	if (rdma_device_has_datapath(dev))
		return 0;
	return rdma_error_unsupported(err, field, "the device has no data path (no workers)");
}

/* Posting to a QP the device made no context for: the device has no data path. */
static int no_context(struct rdma_error *err)
{
	return rdma_error_unsupported(err, "handle", "the device has no data path (no workers)");
}

int rdma_device_start(struct rdma_device *dev, struct worker_set *ws)
{
	return dev->ops->start ? dev->ops->start(dev, ws) : 0;
}

void rdma_device_workers_stopped(struct rdma_device *dev)
{
	if (dev->datapath)
		dev->ops->workers_stopped(dev);
}

void rdma_device_sync(struct rdma_device *dev)
{
	if (dev->datapath)
		dev->ops->sync(dev);
}

void rdma_device_counters(struct rdma_device *dev, struct dp_counters *out)
{
	memset(out, 0, sizeof(*out));
	if (dev->datapath)
		dev->ops->counters(dev, out);
}

unsigned rdma_device_cpus(const struct rdma_device *dev, int *cpus, unsigned max)
{
	return dev->datapath ? dev->ops->cpus(dev, cpus, max) : 0;
}

int rdma_device_cq_create(struct rdma_device *dev, struct rdma_cq *cq)
{
	cq->ring = NULL;
	return dev->datapath ? dev->ops->cq_create(dev, cq) : 0;
}

struct rdma_cq_ring *rdma_device_cq_hold(struct rdma_device *dev, struct rdma_cq_ring *ring)
{
	if (ring)
		dev->ops->cq_hold(ring);
	return ring;
}

void rdma_device_cq_release(struct rdma_device *dev, struct rdma_cq_ring *ring)
{
	if (ring)
		dev->ops->cq_release(ring);
}

unsigned rdma_device_cq_poll(struct rdma_device *dev, struct rdma_cq_ring *ring, struct dp_cqe *out,
			     unsigned max)
{
	return ring ? dev->ops->cq_poll(ring, out, max) : 0;
}

void rdma_device_cq_set_wanted(struct rdma_device *dev, struct rdma_cq_ring *ring, bool wanted)
{
	if (ring)
		dev->ops->cq_set_wanted(ring, wanted);
}

void rdma_device_cq_set_armed(struct rdma_device *dev, struct rdma_cq_ring *ring, bool armed)
{
	if (ring)
		dev->ops->cq_set_armed(ring, armed);
}

void rdma_device_set_cq_hook(struct rdma_device *dev, void (*fn)(struct rdma_device *dev, void *ud),
			     void *userdata)
{
	if (dev->datapath)
		dev->ops->set_cq_hook(dev, fn, userdata);
}

int rdma_device_qp_create(struct rdma_device *dev, struct rdma_qp *qp)
{
	return dev->datapath ? dev->ops->qp_create(dev, qp) : 0;
}

int rdma_device_qp_reserve(struct rdma_device *dev, struct rdma_qp *qp)
{
	return qp->ctx && dev->ops->qp_reserve ? dev->ops->qp_reserve(dev, qp) : 0;
}

void rdma_device_qp_modified(struct rdma_device *dev, struct rdma_qp *qp, int old_state)
{
	if (qp->ctx)
		dev->ops->qp_modified(dev, qp, old_state);
}

int rdma_device_qp_placement(struct rdma_device *dev, const struct rdma_qp *qp, unsigned *worker)
{
	return qp->ctx ? dev->ops->qp_placement(dev, qp, worker) : -ENOENT;
}

bool rdma_device_qp_counters(struct rdma_device *dev, const struct rdma_qp *qp, struct dp_counters *out)
{
	return qp->ctx && dev->ops->qp_counters(dev, qp, out);
}

void rdma_device_qp_destroy(struct rdma_device *dev, struct rdma_qp *qp)
{
	if (qp->ctx)
		dev->ops->qp_destroy(dev, qp);
}

void rdma_device_key_set(struct rdma_device *dev, struct dp_key *k)
{
	if (dev->datapath) {
		dev->ops->key_set(dev, k);
		return;
	}
	dp_mkey_free(k->mkey);
	free(k);
}

void rdma_device_key_clear(struct rdma_device *dev, uint32_t key)
{
	if (dev->datapath)
		dev->ops->key_clear(dev, key);
}

/* Without a data path no WR executes: a pending configure is dropped. */
int rdma_device_key_settle(struct rdma_device *dev, const struct dp_key *k, struct rdma_qp *qp,
			   uint32_t sq_index)
{
	return dev->datapath ? dev->ops->key_settle(dev, k, qp, sq_index) : -1;
}

void rdma_device_key_retire(struct rdma_device *dev, struct dp_key *k)
{
	if (dev->datapath)
		dev->ops->key_retire(dev, k);
}

struct rdma_object *rdma_device_key_user(struct rdma_device *dev, uint32_t key)
{
	return dev->datapath ? dev->ops->key_user(dev, key) : NULL;
}

struct rdma_object *rdma_device_memory_user(struct rdma_device *dev, const uint8_t *addr, uint64_t length)
{
	return dev->datapath ? dev->ops->memory_user(dev, addr, length) : NULL;
}

/* A QP with rings is posted to by its application, through shared memory: nobody else produces there. */
static int application_posts(const struct rdma_qp *qp, struct rdma_error *err)
{
	return rdma_error_state(err, "handle", "QP %u's queues are rings its application posts to "
				"itself (librdmad)", qp->obj.handle);
}

int rdma_device_rings(struct rdma_device *dev, struct rdma_object *obj, struct rdma_rings *out)
{
	*out = (struct rdma_rings){ .memfd = -1, .eventfd = -1 };
	return dev->datapath ? dev->ops->rings(dev, obj, out) : -ENODEV;
}

void rdma_rings_release(struct rdma_rings *r)
{
	if (r->memfd >= 0)
		close(r->memfd);
	if (r->eventfd >= 0)
		close(r->eventfd);
	free(r->queues);
	*r = (struct rdma_rings){ .memfd = -1, .eventfd = -1 };
}

int rdma_device_post_send(struct rdma_device *dev, struct rdma_qp *qp, const struct rdma_dp_send_wr *wrs,
			  uint32_t n, uint32_t *bad, struct rdma_error *err)
{
	*bad = 0;
	if (!qp->ctx)
		return no_context(err);
	if (qp->rings)
		return application_posts(qp, err);
	return dev->ops->post_send(dev, qp, wrs, n, bad, err);
}

int rdma_device_post_recv(struct rdma_device *dev, struct rdma_qp *qp, uint64_t wr_id,
			  const struct rdma_dp_sge *sges, uint32_t n_sges, struct rdma_error *err)
{
	if (!qp->ctx)
		return no_context(err);
	if (qp->rings)
		return application_posts(qp, err);
	return dev->ops->post_recv(dev, qp, wr_id, sges, n_sges, err);
}

int rdma_device_cancel(struct rdma_device *dev, struct rdma_qp *qp, uint64_t wr_id, uint32_t *count,
		       struct rdma_error *err)
{
	if (!qp->ctx)
		return no_context(err);
	return dev->ops->cancel(dev, qp, wr_id, count, err);
}

void rdma_device_posted_mkeys(struct rdma_device *dev, struct rdma_qp *qp,
			      void (*fn)(uint32_t mkey, uint64_t wr_id, void *data), void *data)
{
	if (qp->ctx)
		dev->ops->posted_mkeys(dev, qp, fn, data);
}
