/* SPDX-License-Identifier: MIT */
/*
 * The software device: a RoCE device inside rdmad whose NIC is dataplane/,
 * behind struct rdma_device_ops as a hardware backend would be.
 */
#pragma once

#include "daemon/verbs/device.h"

int soft_device_create(struct rdma_device **out, const char *name, unsigned index);
