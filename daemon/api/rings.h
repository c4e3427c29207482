/* SPDX-License-Identifier: MIT */
#pragma once

#include <json-c/json.h>

struct varlink_call;
struct rdma_device;
struct rdma_object;

/*
 * The rings of obj, just created with them (io.rdmad.Qp/Cq Rings): their
 * memfd and eventfd go out with the call's reply, and the JSON that says
 * where the queues lie is returned.  NULL once the call has been answered
 * with the failure: obj is destroyed then, so that a Create gives all or nothing.
 */
struct json_object *api_rings(struct varlink_call *call, const char *iface, struct rdma_device *dev,
			      struct rdma_object *obj);

/* Replies { key: record, ring_layout: rings } (rings NULL: without it). */
int api_reply_with_rings(struct varlink_call *call, const char *key, struct json_object *record,
			 struct json_object *rings);
