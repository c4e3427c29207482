/* SPDX-License-Identifier: MIT */
#include "daemon/api/vocab.h"
#include "daemon/vdev/vdev.h"
#include "lib/json-util.h"

#include <stdio.h>

void api_add_device(struct json_object *o, const struct rdma_device *dev)
{
	json_add_string(o, "ifname", dev->name);
	json_add_uint(o, "ifindex", dev->index);
}

void api_add_named_ref(struct json_object *o, const char *key, bool known, uint32_t number,
		       const char *name)
{
	char name_key[64];

	snprintf(name_key, sizeof(name_key), "%s_name", key);
	json_object_object_add(o, key, known ? json_object_new_uint64(number) : NULL);
	json_object_object_add(o, name_key, name ? json_object_new_string(name) : NULL);
}

struct json_object *api_sig_errors_json(const uint64_t by_type[DP_SIG_ERR_APPTAG + 1])
{
	/* In the order of the Mkey interface's SigError. */
	static const enum dp_sig_err_type types[] = { DP_SIG_ERR_GUARD, DP_SIG_ERR_APPTAG, DP_SIG_ERR_REFTAG };
	struct json_object *o = json_object_new_object();

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		json_add_uint(o, dp_sig_err_type_name(types[i]), by_type[types[i]]);
	return o;
}

struct json_object *api_front_end_json(const struct vdev_front_end *fe)
{
	struct json_object *o = json_object_new_object();

	json_add_int(o, "pid", fe->pid);
	json_add_uint(o, "uid", fe->uid);
	json_add_string(o, "comm", fe->comm);
	json_add_uint(o, "started_usec", fe->started_usec);
	return o;
}
