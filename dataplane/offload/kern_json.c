/* SPDX-License-Identifier: MIT */
#include "dataplane/offload/kern.h"
#include "dataplane/offload/kern_json.h"

/* One record per level, {kernel, result}: a level's name is a value, never a key. */
struct json_object *dp_kern_selftest_json(void)
{
	struct json_object *list = json_object_new_array();

	for (int l = 0; l < DP_KERN_LEVELS; l++) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "kernel", json_object_new_string(dp_kern_level_name((enum dp_kern_level)l)));
		json_object_object_add(o, "result",
				       json_object_new_string(dp_kern_level_selftest((enum dp_kern_level)l)));
		json_object_array_add(list, o);
	}
	return list;
}
