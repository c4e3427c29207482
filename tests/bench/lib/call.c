/* SPDX-License-Identifier: MIT */
#include "tests/bench/lib/call.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long long bench_call_handle(struct varlink_client *vc, const char *method, const char *key,
			    const char *params)
{
	struct json_object *p = json_tokener_parse(params), *reply = NULL, *o, *h;
	char *error = NULL;
	long long handle = -1;
	int r = varlink_client_call(vc, method, p, &reply, &error);

	json_object_put(p);
	if (r < 0 || error)
		fprintf(stderr, "%s %s: %s %s\n", method, params, error ? error : strerror(-r),
			reply ? json_object_to_json_string(reply) : "");
	else if (!key)
		handle = 0;
	else if (json_object_object_get_ex(reply, key, &o) && json_object_object_get_ex(o, "handle", &h))
		handle = json_object_get_int64(h);
	free(error);
	json_object_put(reply);
	return handle;
}
