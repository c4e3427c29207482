/* SPDX-License-Identifier: MIT */
#include "daemon/api/attr.h"
#include "daemon/verbs/mr.h"
#include "lib/json-util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

int api_get_u32(struct json_object *o, const char *key, const char *field, uint32_t def,
		uint32_t *out, struct rdma_error *err)
{
	struct json_object *v = NULL;
	int64_t n;

	if (!json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null)) {
		*out = def;
		return 0;
	}
	n = json_object_get_int64(v);
	/* json-c keeps numbers above INT64_MAX unsigned; they read back as INT64_MAX. */
	if (n < 0 || n > UINT32_MAX)
		return rdma_error_invalid(err, field, "%s; a number from 0 to %" PRIu32,
					  json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN),
					  UINT32_MAX);
	*out = (uint32_t)n;
	return 0;
}

uint32_t api_access_from_json(struct json_object *list)
{
	uint32_t flags = 0;

	for (size_t i = 0; list && i < json_object_array_length(list); i++) {
		const char *word = json_object_get_string(json_object_array_get_idx(list, i));

		for (uint32_t bit = 1; bit & RDMA_ACCESS_ALL; bit <<= 1)
			if (strcmp(word, rdma_access_name(bit)) == 0)
				flags |= bit;
	}
	return flags;
}

struct json_object *api_access_json(uint32_t flags)
{
	struct json_object *list = json_object_new_array();

	for (uint32_t bit = 1; bit & RDMA_ACCESS_ALL; bit <<= 1)
		if (flags & bit)
			json_object_array_add(list, json_object_new_string(rdma_access_name(bit)));
	return list;
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

int api_av_parse(struct json_object *o, const char *prefix, struct rdma_ah_attr *av,
		 struct rdma_error *err)
{
	static const struct { const char *key; size_t offset; uint32_t def; } numbers[] = {
		{ "sgid_index", offsetof(struct rdma_ah_attr, sgid_index), 0 },
		{ "flow_label", offsetof(struct rdma_ah_attr, flow_label), 0 },
		{ "hop_limit", offsetof(struct rdma_ah_attr, hop_limit), API_AV_HOP_LIMIT_DEFAULT },
		{ "traffic_class", offsetof(struct rdma_ah_attr, traffic_class), 0 },
	};
	const char *dgid = json_get_string(o, "dgid"), *dmac = json_get_string(o, "dmac");
	char field[64];

	for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++) {
		snprintf(field, sizeof(field), "%s%s", prefix, numbers[i].key);
		if (api_get_u32(o, numbers[i].key, field, numbers[i].def,
				(uint32_t *)((char *)av + numbers[i].offset), err) < 0)
			return -EINVAL;
	}
	if (!dgid || rdma_gid_parse(dgid, av->dgid) < 0) {
		snprintf(field, sizeof(field), "%sdgid", prefix);
		return rdma_error_invalid(err, field, "not a GID: IPv6 text (fe80::1) or IPv4 "
					  "(192.0.2.1)");
	}
	if (dmac && parse_mac(dmac, av->dmac) < 0) {
		snprintf(field, sizeof(field), "%sdmac", prefix);
		return rdma_error_invalid(err, field, "not a MAC address (xx:xx:xx:xx:xx:xx)");
	}
	return 0;
}

void api_av_add_json(struct json_object *o, const struct rdma_ah_attr *av)
{
	char gid[RDMA_GID_TEXT_MAX], mac[18];

	rdma_gid_format(av->dgid, gid);
	snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", av->dmac[0], av->dmac[1],
		 av->dmac[2], av->dmac[3], av->dmac[4], av->dmac[5]);
	json_add_string(o, "dgid", gid);
	json_add_uint(o, "sgid_index", av->sgid_index);
	json_add_uint(o, "flow_label", av->flow_label);
	json_add_uint(o, "hop_limit", av->hop_limit);
	json_add_uint(o, "traffic_class", av->traffic_class);
	json_add_string(o, "dmac", mac);
}
