/* SPDX-License-Identifier: MIT */
#include "daemon/verbs/ah.h"

#include <errno.h>
#include <string.h>

const struct rdma_object_type rdma_ah_type = {
	.size = sizeof(struct rdma_ah),
};

#define FLOW_LABEL_MAX 0xfffffu

static int check_attr(const struct rdma_ah_attr *a, struct rdma_error *err)
{
	if (a->flow_label > FLOW_LABEL_MAX)
		return rdma_error_invalid(err, "flow_label", "%u; a flow label has 20 bits (0-%u)",
					  a->flow_label, FLOW_LABEL_MAX);
	if (a->sgid_index > UINT8_MAX)
		return rdma_error_invalid(err, "sgid_index", "%u; the AH's sgid_index is a byte (0-255)",
					  a->sgid_index);
	if (a->hop_limit > UINT8_MAX)
		return rdma_error_invalid(err, "hop_limit", "%u; 0-255", a->hop_limit);
	if (a->traffic_class > UINT8_MAX)
		return rdma_error_invalid(err, "traffic_class", "%u; 0-255", a->traffic_class);
	return 0;
}

int rdma_ah_create(struct rdma_device *dev, uint32_t pd, const struct rdma_ah_attr *attr,
		   struct rdma_ah **out, struct rdma_error *err)
{
	static const uint8_t zero[RDMA_GID_LEN];
	struct rdma_object *pd_obj, *obj;
	struct rdma_gid_entry *sgid;
	struct rdma_ah *ah;
	int r;

	r = check_attr(attr, err);
	if (r < 0)
		return r;
	if (memcmp(attr->dgid, zero, RDMA_GID_LEN) == 0)
		return rdma_error_invalid(err, "dgid", "the zero GID addresses nobody");
	sgid = rdma_gid_get(dev, attr->port, attr->sgid_index, "sgid_index", err);
	if (!sgid) {
		/* An empty entry is bad input here, not a missing object of this interface. */
		if (err->code == RDMA_ERR_NO_SUCH_OBJECT)
			return rdma_error_invalid(err, "sgid_index", "GID index %u of port %u is empty",
						  attr->sgid_index, attr->port);
		return -EINVAL;
	}
	r = rdma_gid_check_path(sgid->gid, attr->dgid, "dgid", err);
	if (r < 0)
		return r;
	pd_obj = rdma_object_lookup(dev, RDMA_OBJ_PD, pd, err);
	if (!pd_obj)
		return -ENOENT;
	obj = rdma_object_create(dev, RDMA_OBJ_AH, err);
	if (!obj)
		return -ENOSPC;
	ah = rdma_ah(obj);
	ah->pd = pd_obj;
	ah->attr = *attr;
	r = rdma_object_use(obj, pd_obj);
	if (r == 0)
		r = rdma_object_use(obj, &sgid->obj);
	if (r < 0) {
		rdma_object_free(dev, obj);
		memset(err, 0, sizeof(*err));
		return r;
	}
	*out = ah;
	return 0;
}
