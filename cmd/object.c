/* SPDX-License-Identifier: MIT */
/* What the commands of every device object share: show-or-list and destroy by handle. */
#include "cmd/rdmactl.h"
#include "cmd/output.h"

#include <errno.h>
#include <stdio.h>

int ctl_object_show(struct ctl *ctl, const struct cmd_args *args, const char *arg,
		    const char *iface, const char *one, const char *many)
{
	struct json_object *params = ctl_device_params(args);
	char method[128];

	if (!arg_get(args, arg)) {
		snprintf(method, sizeof(method), "%s.List", iface);
		return output_call_records(ctl, args, method, params, many, one);
	}
	if (ctl_add_number(ctl, args, arg, params, "handle", UINT32_MAX) < 0) {
		json_object_put(params);
		return -EINVAL;
	}
	snprintf(method, sizeof(method), "%s.Show", iface);
	return output_call_records(ctl, args, method, params, one, one);
}

int ctl_call_quiet(struct ctl *ctl, const struct cmd_args *args, const char *method,
		   struct json_object *params)
{
	struct json_object *reply;
	int r;

	r = ctl_call(ctl, args->path, method, params, &reply);
	json_object_put(params);
	json_object_put(reply);
	return r < 0 ? -EIO : 0;
}

int ctl_object_destroy(struct ctl *ctl, const struct cmd_args *args, const char *arg,
		       const char *iface)
{
	struct json_object *params = ctl_device_params(args);
	char method[128];

	if (ctl_add_number(ctl, args, arg, params, "handle", UINT32_MAX) < 0) {
		json_object_put(params);
		return -EINVAL;
	}
	snprintf(method, sizeof(method), "%s.Destroy", iface);
	return ctl_call_quiet(ctl, args, method, params);
}
