/* SPDX-License-Identifier: MIT */
/*
 * The JSON forms of attributes several interfaces share: access flags (a
 * list of words) and address vectors (the RFC's virtio_rdma_ah_attr).
 * Errors are model errors naming the field, prefix included ("av.dgid").
 */
#pragma once

#include <stdint.h>
#include <json-c/json.h>

#include "daemon/verbs/ah.h"
#include "daemon/verbs/error.h"

/* RoCE v2 carries hop_limit as the IP TTL; 64 is Linux's default TTL. */
#define API_AV_HOP_LIMIT_DEFAULT 64

/*
 * The optional number o[key] as a uint32 (def when absent or null); a
 * negative or too large number is refused naming field.
 */
int api_get_u32(struct json_object *o, const char *key, const char *field, uint32_t def,
		uint32_t *out, struct rdma_error *err);

/* Access words (local_write, remote_write, remote_read; the IDL checked them) as RFC flags. */
uint32_t api_access_from_json(struct json_object *list);
struct json_object *api_access_json(uint32_t flags);

/*
 * An address vector from the object holding its fields: dgid (IPv6 text or
 * IPv4), sgid_index, optional flow_label, hop_limit, traffic_class, dmac.
 * Widths and the GID table are the model's to check.
 */
int api_av_parse(struct json_object *o, const char *prefix, struct rdma_ah_attr *av,
		 struct rdma_error *err);
/* Adds dgid, sgid_index, flow_label, hop_limit, traffic_class and dmac to o. */
void api_av_add_json(struct json_object *o, const struct rdma_ah_attr *av);
