/* SPDX-License-Identifier: MIT */
/* Protection domains: nothing but a name other objects share to be allowed together. */
#include "daemon/verbs/device.h"

const struct rdma_object_type rdma_pd_type = {
	.size = sizeof(struct rdma_object),
};
