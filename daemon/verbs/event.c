/* SPDX-License-Identifier: MIT */
#include "daemon/verbs/event.h"
#include "daemon/verbs/device.h"

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
		[RDMA_EVENT_VNIC_STATE] = "vnic_state",
		[RDMA_EVENT_VNIC_MAC_TABLE] = "vnic_mac_table",
		[RDMA_EVENT_VNIC_TRAP] = "vnic_trap",
	};

	return type < RDMA_EVENT_TYPE_COUNT ? names[type] : NULL;
}

void rdma_device_set_event_sink(struct rdma_device *dev, rdma_event_fn fn, void *userdata)
{
	dev->event_sink = fn;
	dev->event_sink_data = userdata;
}

void rdma_device_post_event(struct rdma_device *dev, const struct rdma_event *ev)
{
	if (dev->event_sink)
		dev->event_sink(dev, ev, dev->event_sink_data);
}
