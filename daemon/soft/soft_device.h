/* SPDX-License-Identifier: MIT */
/*
 * The software device: a RoCE device inside rdmad whose NIC is dataplane/,
 * behind struct rdma_device_ops as a hardware backend would be.
 */
#pragma once

#include "daemon/verbs/device.h"

int soft_device_create(struct rdma_device **out, const char *name, unsigned index);
/*
 * A virtual machine's device (daemon/vdev/): the same, with QP numbers
 * below max_qpn and CQ numbers below max_cqn, as its virtqueues number them.
 */
int soft_device_create_vm(struct rdma_device **out, const char *name, unsigned index,
			  uint32_t max_qpn, uint32_t max_cqn);
