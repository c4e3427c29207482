/* SPDX-License-Identifier: MIT */
/* MKEY configurations as users write them (rdmactl offload --config, Mkey.Configure). */
#include "tests/fuzz/fuzz.h"
#include "dataplane/offload/transform.h"
#include "dataplane/offload/transform_json.h"

#include <json-c/json.h>

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = strndup((const char *)data, size);
	struct dp_transform_cfg cfg;
	struct dp_error err;

	if (!text)
		return 0;
	if (dp_transform_cfg_parse(text, &cfg, &err) == 0) {
		struct json_object *back = dp_transform_cfg_to_json(&cfg);

		dp_transform_cfg_validate(&cfg, &err);
		json_object_put(back);
	}
	free(text);
	return 0;
}
