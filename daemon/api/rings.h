/* SPDX-License-Identifier: MIT */
#pragma once

#include <json-c/json.h>

struct varlink_call;
struct rdma_device;
struct rdma_object;
struct rdma_rings;

/*
 * Sends rings' memfd and eventfd with the call's reply (taken over: -1 in
 * rings once they go) and returns the JSON that says where the queues lie
 * (an IDL's Rings); NULL with *r a negative errno when one could not go.
 */
struct json_object *api_rings_pass(struct varlink_call *call, struct rdma_rings *rings, int *r);

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
