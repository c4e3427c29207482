/* SPDX-License-Identifier: MIT */
#include "daemon/device.h"

#include <stddef.h>

unsigned rdma_block_size_bytes(enum rdma_block_size size)
{
	static const unsigned bytes[RDMA_BLOCK_SIZE_COUNT] = { 512, 520, 4048, 4096, 4160 };

	return size < RDMA_BLOCK_SIZE_COUNT ? bytes[size] : 0;
}

const char *rdma_port_state_name(enum rdma_port_state state)
{
	switch (state) {
	case RDMA_PORT_DOWN:   return "DOWN";
	case RDMA_PORT_INIT:   return "INIT";
	case RDMA_PORT_ARMED:  return "ARMED";
	case RDMA_PORT_ACTIVE: return "ACTIVE";
	}
	return "UNKNOWN";
}

const char *rdma_port_phys_state_name(enum rdma_port_phys_state state)
{
	switch (state) {
	case RDMA_PHYS_POLLING:  return "POLLING";
	case RDMA_PHYS_DISABLED: return "DISABLED";
	case RDMA_PHYS_LINK_UP:  return "LINK_UP";
	}
	return "UNKNOWN";
}

void rdma_device_free(struct rdma_device *dev)
{
	if (dev && dev->ops && dev->ops->destroy)
		dev->ops->destroy(dev);
}
