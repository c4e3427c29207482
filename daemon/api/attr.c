/* SPDX-License-Identifier: MIT */
#include "daemon/api/attr.h"
#include "daemon/verbs/mr.h"
#include "lib/json-util.h"
#include "lib/mac.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

struct json_object *api_access_json(uint32_t flags)
{
	struct json_object *list = json_object_new_array();

	for (uint32_t bit = 1; bit; bit <<= 1)
		if ((flags & bit) && rdma_access_name(bit))
			json_object_array_add(list, json_object_new_string(rdma_access_name(bit)));
	return list;
}

#define AV_NUMBER(member) { .name = #member, .type = API_FIELD_U32, \
			   .offset = offsetof(struct api_av, attr.member) }

const struct api_field api_av_fields[] = {
	{ .name = "dgid", .type = API_FIELD_STRING, .offset = offsetof(struct api_av, dgid) },
	AV_NUMBER(sgid_index),
	AV_NUMBER(flow_label),
	AV_NUMBER(hop_limit),
	AV_NUMBER(traffic_class),
	{ .name = "dmac", .type = API_FIELD_STRING, .offset = offsetof(struct api_av, dmac) },
	{ NULL },
};

int api_av_resolve(struct api_av *av, const char *prefix, struct rdma_error *err)
{
	char field[64];

	if (!av->dgid || rdma_gid_parse(av->dgid, av->attr.dgid) < 0) {
		snprintf(field, sizeof(field), "%sdgid", prefix);
		return rdma_error_invalid(err, field, "not a GID: IPv6 text (fe80::1) or IPv4 "
					  "(192.0.2.1)");
	}
	if (av->dmac && mac_parse(av->dmac, av->attr.dmac) < 0) {
		snprintf(field, sizeof(field), "%sdmac", prefix);
		return rdma_error_invalid(err, field, "not a MAC address (xx:xx:xx:xx:xx:xx)");
	}
	return 0;
}

void api_av_add_json(struct json_object *o, const struct rdma_ah_attr *av)
{
	char gid[RDMA_GID_TEXT_MAX];

	rdma_gid_format(av->dgid, gid);
	json_add_string(o, "dgid", gid);
	json_add_uint(o, "sgid_index", av->sgid_index);
	json_add_uint(o, "flow_label", av->flow_label);
	json_add_uint(o, "hop_limit", av->hop_limit);
	json_add_uint(o, "traffic_class", av->traffic_class);
	json_add_mac(o, "dmac", av->dmac);
}
