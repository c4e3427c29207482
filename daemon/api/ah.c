/* SPDX-License-Identifier: MIT */
/* io.rdmad.Ah */
#include "daemon/api/api.h"
#include "daemon/ah.h"

#include <stdio.h>

#define IFACE "io.rdmad.Ah"

/* RoCE v2 carries hop_limit as the IP TTL; 64 is Linux's default TTL. */
#define AH_HOP_LIMIT_DEFAULT 64

static struct json_object *ah_json(struct rdma_device *dev, struct rdma_object *obj)
{
	struct rdma_ah *ah = rdma_ah(obj);
	struct json_object *o = json_object_new_object();
	const struct rdma_ah_attr *a = &ah->attr;
	char gid[RDMA_GID_TEXT_MAX], mac[18];

	rdma_gid_format(a->dgid, gid);
	snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", a->dmac[0], a->dmac[1],
		 a->dmac[2], a->dmac[3], a->dmac[4], a->dmac[5]);
	json_add_string(o, "device", dev->name);
	json_add_uint(o, "handle", ah->obj.handle);
	json_add_uint(o, "pdn", ah->pd->handle);
	json_add_uint(o, "port", a->port);
	json_add_string(o, "dgid", gid);
	json_add_uint(o, "sgid_index", a->sgid_index);
	json_add_uint(o, "flow_label", a->flow_label);
	json_add_uint(o, "hop_limit", a->hop_limit);
	json_add_uint(o, "traffic_class", a->traffic_class);
	json_add_string(o, "dmac", mac);
	return o;
}

static int parse_mac(const char *text, uint8_t mac[6])
{
	unsigned b[6];
	char end;

	if (sscanf(text, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5],
		   &end) != 6)
		return -1;
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
	return 0;
}

static int create(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev = api_device(call, userdata, params, IFACE);
	struct rdma_ah_attr attr = { 0 };
	const char *dmac = json_get_string(params, "dmac");
	struct rdma_error err;
	struct rdma_ah *ah;
	uint32_t pd, port;
	int r;

	if (!dev || api_get_handle(call, params, "pd", &pd) < 0 ||
	    api_get_handle(call, params, "sgid_index", &attr.sgid_index) < 0 ||
	    api_get_optional_u32(call, params, "port", 1, &port) < 0 ||
	    api_get_optional_u32(call, params, "flow_label", 0, &attr.flow_label) < 0 ||
	    api_get_optional_u32(call, params, "hop_limit", AH_HOP_LIMIT_DEFAULT, &attr.hop_limit) < 0 ||
	    api_get_optional_u32(call, params, "traffic_class", 0, &attr.traffic_class) < 0)
		return 0;
	attr.port = port;
	if (rdma_gid_parse(json_get_string(params, "dgid"), attr.dgid) < 0) {
		rdma_error_invalid(&err, "dgid", "not a GID: IPv6 text (fe80::1) or IPv4 (192.0.2.1)");
		return api_reply_error(call, IFACE, &err);
	}
	if (dmac && parse_mac(dmac, attr.dmac) < 0) {
		rdma_error_invalid(&err, "dmac", "not a MAC address (xx:xx:xx:xx:xx:xx)");
		return api_reply_error(call, IFACE, &err);
	}
	r = rdma_ah_create(dev, pd, &attr, &ah, &err);
	if (r < 0)
		return err.code != RDMA_ERR_NONE ? api_reply_error(call, IFACE, &err) : r;
	return api_reply_record(call, "ah", ah_json(dev, &ah->obj));
}

static int list(struct varlink_call *call, struct json_object *params, void *userdata)
{
	return api_list(call, userdata, params, IFACE, RDMA_OBJ_AH, "ahs", ah_json);
}

static int show(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_object *obj = api_lookup(call, userdata, params, IFACE, RDMA_OBJ_AH, &dev);

	return obj ? api_reply_record(call, "ah", ah_json(dev, obj)) : 0;
}

static int destroy(struct varlink_call *call, struct json_object *params, void *userdata)
{
	return api_destroy(call, userdata, params, IFACE, RDMA_OBJ_AH);
}

const struct varlink_method api_ah_methods[] = {
	{ "Create", create, VARLINK_METHOD_PRIVILEGED },
	{ "List", list, 0 },
	{ "Show", show, 0 },
	{ "Destroy", destroy, VARLINK_METHOD_PRIVILEGED },
	{ NULL, NULL, 0 },
};
