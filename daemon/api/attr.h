/* SPDX-License-Identifier: MIT */
/*
 * The JSON forms of attributes several interfaces share: access flags (a
 * list of words) and address vectors (the RFC's virtio_rdma_ah_attr).
 */
#pragma once

#include <stdint.h>
#include <json-c/json.h>

#include "daemon/api/dispatch.h"
#include "daemon/verbs/ah.h"
#include "daemon/verbs/error.h"
#include "daemon/verbs/mr.h"

/* RoCE v2 carries hop_limit as the IP TTL; 64 is Linux's default TTL. */
#define API_AV_HOP_LIMIT_DEFAULT 64

/* Access words (local_write, remote_write, remote_read) as RFC flags, into a uint32_t member. */
#define API_ACCESS_FIELD(key, params_type, member) \
	API_ACCESS_FIELD_OF(key, params_type, member, RDMA_ACCESS_ALL)
/* The same, taking the flags of allowed (RDMA_ACCESS_MR_ALL: on_demand too). */
#define API_ACCESS_FIELD_OF(key, params_type, member, allowed) { .name = key, \
	.type = API_FIELD_FLAGS, .offset = offsetof(params_type, member), \
	.word = rdma_access_name, .max = allowed }
/* Access flags as their JSON word list. */
struct json_object *api_access_json(uint32_t flags);

/*
 * An address vector as a request gives it (the RFC's virtio_rdma_ah_attr):
 * the numbers go straight into attr by api_av_fields (dgid, sgid_index,
 * optional flow_label, hop_limit, traffic_class, dmac); api_av_resolve()
 * parses the two texts.  Widths and the GID table are the model's to check.
 */
struct api_av {
	struct rdma_ah_attr attr;
	const char *dgid, *dmac;
};

#define API_AV_INIT { .attr.hop_limit = API_AV_HOP_LIMIT_DEFAULT }

extern const struct api_field api_av_fields[];
/* dgid and dmac into attr; a refusal names the field with prefix ("av."). */
int api_av_resolve(struct api_av *av, const char *prefix, struct rdma_error *err);
/* Adds dgid, sgid_index, flow_label, hop_limit, traffic_class and dmac to o. */
void api_av_add_json(struct json_object *o, const struct rdma_ah_attr *av);
