/* SPDX-License-Identifier: MIT */
#include "daemon/verbs/cq.h"

#include <errno.h>

static void cq_release(struct rdma_device *dev, struct rdma_object *obj)
{
	(void)dev;
	/* QPs the workers still hold keep the entries until they let go. */
	rdma_device_cq_release(dev, rdma_cq(obj)->ring);
}

const struct rdma_object_type rdma_cq_type = {
	.size = sizeof(struct rdma_cq),
	.release = cq_release,
};

uint32_t rdma_cq_size(uint32_t cqe)
{
	uint64_t slots = 1;

	while (slots < (uint64_t)cqe + 1)
		slots <<= 1;
	return (uint32_t)(slots - 1);
}

int rdma_cq_create(struct rdma_device *dev, uint32_t cqe, bool rings, struct rdma_cq **out,
		   struct rdma_error *err)
{
	struct rdma_object *obj;
	struct rdma_cq *cq;

	if (cqe < 1 || cqe > dev->attr.max_cqe)
		return rdma_error_invalid(err, "cqe", "%u entries; a CQ holds 1 to %u (max_cqe)", cqe,
					  dev->attr.max_cqe);
	if (rings && !rdma_device_has_datapath(dev))
		return rdma_error_unsupported(err, "rings", "the device has no data path (no workers)");
	obj = rdma_object_create(dev, RDMA_OBJ_CQ, err);
	if (!obj)
		return -ENOSPC;
	cq = rdma_cq(obj);
	cq->cqe = rdma_cq_size(cqe);
	cq->rings = rings;
	if (rdma_device_cq_create(dev, cq) < 0) {
		rdma_object_free(dev, obj);
		err->code = RDMA_ERR_NONE;
		return -ENOMEM;
	}
	*out = cq;
	return 0;
}

int rdma_cq_check_polled_here(const struct rdma_cq *cq, struct rdma_error *err)
{
	if (!cq->rings)
		return 0;
	return rdma_error_state(err, "handle", "CQ %u is polled and armed by its application through "
				"shared memory (librdmad), not through rdmad", cq->obj.handle);
}

int rdma_cq_req_notify(struct rdma_device *dev, struct rdma_cq *cq, uint32_t flags, struct rdma_error *err)
{
	if (flags != RDMA_CQ_NOTIFY_SOLICITED && flags != RDMA_CQ_NOTIFY_NEXT)
		return rdma_error_invalid(err, "flags", "0x%x; one of solicited (1) or next (2)", flags);
	cq->armed |= flags;
	cq->notify_requests++;
	/* The workers tell of every completion from now on, until the event fires. */
	rdma_device_cq_set_armed(dev, cq->ring, true);
	return 0;
}

bool rdma_cq_completion_event(struct rdma_cq *cq, bool solicited)
{
	bool fire = (cq->armed & RDMA_CQ_NOTIFY_NEXT) ||
		    (solicited && (cq->armed & RDMA_CQ_NOTIFY_SOLICITED));

	if (fire) {
		cq->armed = 0;
		cq->events++;
	}
	return fire;
}

void rdma_cq_entry_event(struct rdma_device *dev, struct rdma_cq *cq, bool solicited)
{
	if (!cq->armed)
		return;
	rdma_cq_completion_event(cq, solicited);
	/* One-shot: the workers stop telling of entries once it fired. */
	rdma_device_cq_set_armed(dev, cq->ring, cq->armed != 0);
}

void rdma_cq_async_error(struct rdma_device *dev, struct rdma_cq *cq)
{
	if (cq->error)
		return;
	cq->error = true;
	rdma_device_post_event(dev, &(struct rdma_event){
		.type = RDMA_EVENT_CQ_ERROR, .kind = RDMA_OBJ_CQ, .handle = cq->obj.handle,
	});
}

const char *rdma_cq_armed_name(const struct rdma_cq *cq)
{
	if (cq->armed & RDMA_CQ_NOTIFY_NEXT)
		return "next";
	if (cq->armed & RDMA_CQ_NOTIFY_SOLICITED)
		return "solicited";
	return "none";
}
