/* SPDX-License-Identifier: MIT */
/*
 * The JSON forms of the things every interface's replies name the same way
 * (rdmad-varlink(7), "Vocabulary"): the device an object belongs to, a
 * reference to a DEK or a pool (number and name), signature errors counted
 * by type.  One function each, so no interface spells them its own way.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <json-c/json.h>

#include "daemon/verbs/device.h"
#include "dataplane/offload/sig.h"

struct vdev_front_end;

/* A vdev's front end (Vdev records, Monitor's vdev events): pid, uid, comm, started_usec. */
struct json_object *api_front_end_json(const struct vdev_front_end *fe);

/* "ifname" and "ifindex" of dev, as iproute2's rdma -j names a device. */
void api_add_device(struct json_object *o, const struct rdma_device *dev);


/*
 * A reference to a DEK or a pool: "KEY" its number (null unless known) and
 * "KEY_name" its name (null when NULL: none, or withheld from the caller).
 */
void api_add_named_ref(struct json_object *o, const char *key, bool known, uint32_t number,
		       const char *name);

/* {guard, apptag, reftag}: signature errors by type (by_type indexed by enum dp_sig_err_type). */
struct json_object *api_sig_errors_json(const uint64_t by_type[DP_SIG_ERR_APPTAG + 1]);
