/* SPDX-License-Identifier: MIT */
/* Inside the software device's driver (daemon/soft/datapath.c, post.c). */
#pragma once

#include "daemon/soft/datapath.h"
#include "dataplane/worker.h"

struct rdma_datapath {
	struct rdma_device *dev;
	struct worker_set *ws;    /* gone once the workers stopped */
	struct dp_nic nic;
	struct dp_worker **workers;      /* the NIC's workers, by index */
	struct dp_worker *ud_worker;     /* where UD QPs go unless placed */
	void (*cq_hook)(struct rdma_device *dev, void *userdata);
	void *cq_hook_data;
};
