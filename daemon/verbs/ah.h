/* SPDX-License-Identifier: MIT */
/*
 * Address handles (virtio-net RoCE CREATE_AH / DESTROY_AH): the address
 * vector a UD send goes to, with the fields of the RFC's virtio_rdma_ah_attr
 * (GRH: dgid, flow_label, sgid_index, hop_limit, traffic_class; dmac).  An AH
 * references its PD and the GID entry it sends from.
 */
#pragma once

#include <stdint.h>

#include "daemon/verbs/device.h"
#include "daemon/verbs/gid.h"

struct rdma_ah_attr {
	unsigned port;            /* the port whose GID table sgid_index is in */
	uint8_t dgid[RDMA_GID_LEN];
	uint32_t flow_label;      /* 20 bits (IPv6 flow label) */
	uint32_t sgid_index;      /* a u8 in the RFC */
	uint32_t hop_limit;       /* u8 */
	uint32_t traffic_class;   /* u8 */
	uint8_t dmac[6];
};

struct rdma_ah {
	struct rdma_object obj;   /* handle = the AH number; refs: PD, GID entry */
	struct rdma_object *pd;
	struct rdma_ah_attr attr;
};

static inline struct rdma_ah *rdma_ah(struct rdma_object *obj)
{
	return (struct rdma_ah *)obj;
}

/*
 * CREATE_AH on pd; every field is checked against the RFC's widths and the GID
 * table.  -errno with err filled, or with no error code when out of memory.
 */
int rdma_ah_create(struct rdma_device *dev, uint32_t pd, const struct rdma_ah_attr *attr,
		   struct rdma_ah **out, struct rdma_error *err);
