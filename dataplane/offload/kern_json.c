/* SPDX-License-Identifier: MIT */
#include "dataplane/offload/kern.h"
#include "dataplane/offload/kern_json.h"

struct json_object *dp_kern_selftest_json(void)
{
	struct json_object *o = json_object_new_object();

	for (int l = 0; l < DP_KERN_LEVELS; l++)
		json_object_object_add(o, dp_kern_level_name((enum dp_kern_level)l),
				       json_object_new_string(dp_kern_level_selftest((enum dp_kern_level)l)));
	return o;
}
