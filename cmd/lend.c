/* SPDX-License-Identifier: MIT */
/* --allow and --disallow of `dek` and `pool`: the users and groups root lends them to. */
#include "cmd/rdmactl.h"

#include <stdlib.h>
#include <string.h>

void ctl_add_lend(const struct cmd_args *args, const char *opt, struct json_object *params,
		  const char *key)
{
	struct json_object *list;

	if (!arg_count(args, opt))
		return;
	list = json_object_new_array();
	for (unsigned i = 0; i < arg_count(args, opt); i++) {
		const char *text = arg_get_nth(args, opt, i);

		/* "a,,b" and a trailing comma send "": the daemon names what is wrong with it. */
		for (const char *p = text;; ) {
			const char *comma = strchr(p, ',');
			size_t n = comma ? (size_t)(comma - p) : strlen(p);

			json_object_array_add(list, json_object_new_string_len(p, (int)n));
			if (!comma)
				break;
			p = comma + 1;
		}
	}
	json_object_object_add(params, key, list);
}
