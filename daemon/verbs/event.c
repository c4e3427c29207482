/* SPDX-License-Identifier: MIT */
#include "daemon/verbs/event.h"
#include "daemon/verbs/device.h"

#include <errno.h>
#include <string.h>

const char *rdma_event_type_name(enum rdma_event_type type)
{
	static const char *const names[RDMA_EVENT_TYPE_COUNT] = {
		[RDMA_EVENT_OBJECT_CREATED] = "object_created",
		[RDMA_EVENT_OBJECT_DESTROYED] = "object_destroyed",
		[RDMA_EVENT_QP_STATE] = "qp_state",
		[RDMA_EVENT_SQ_DRAINED] = "sq_drained",
		[RDMA_EVENT_SIG_ERROR] = "sig_error",
		[RDMA_EVENT_WR_CANCELED] = "wr_canceled",
		[RDMA_EVENT_RECOVERY] = "recovery",
		[RDMA_EVENT_CQ_ERROR] = "cq_error",
		[RDMA_EVENT_POOL_BORROW] = "pool_borrow",
		[RDMA_EVENT_POOL_RETURN] = "pool_return",
		[RDMA_EVENT_POOL_RESIZE] = "pool_resize",
		[RDMA_EVENT_VNIC_STATE] = "vnic_state",
		[RDMA_EVENT_VNIC_MAC_TABLE] = "vnic_mac_table",
		[RDMA_EVENT_VNIC_TRAP] = "vnic_trap",
	};

	return type < RDMA_EVENT_TYPE_COUNT ? names[type] : NULL;
}

int rdma_device_add_event_sink(struct rdma_device *dev, rdma_event_fn fn, void *userdata)
{
	for (unsigned i = 0; i < RDMA_EVENT_SINKS_MAX; i++)
		if (!dev->event_sinks[i].fn) {
			dev->event_sinks[i] = (struct rdma_event_sink){ .fn = fn, .userdata = userdata };
			return 0;
		}
	return -ENOSPC;
}

void rdma_device_remove_event_sink(struct rdma_device *dev, rdma_event_fn fn, void *userdata)
{
	for (unsigned i = 0; i < RDMA_EVENT_SINKS_MAX; i++)
		if (dev->event_sinks[i].fn == fn && dev->event_sinks[i].userdata == userdata) {
			/* The rest move up: the order of delivery stays the order of adding. */
			memmove(&dev->event_sinks[i], &dev->event_sinks[i + 1],
				(RDMA_EVENT_SINKS_MAX - i - 1) * sizeof(dev->event_sinks[0]));
			dev->event_sinks[RDMA_EVENT_SINKS_MAX - 1] = (struct rdma_event_sink){ 0 };
			return;
		}
}

void rdma_device_post_event(struct rdma_device *dev, const struct rdma_event *ev)
{
	/* A sink may remove itself (a closed subscriber's last event): copy the list first. */
	struct rdma_event_sink sinks[RDMA_EVENT_SINKS_MAX];

	memcpy(sinks, dev->event_sinks, sizeof(sinks));
	for (unsigned i = 0; i < RDMA_EVENT_SINKS_MAX && sinks[i].fn; i++)
		sinks[i].fn(dev, ev, sinks[i].userdata);
}
