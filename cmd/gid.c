/* SPDX-License-Identifier: MIT */
/* rdmactl gid: the ports' GID tables. */
#include "cmd/rdmactl.h"

#include <errno.h>
#include "cmd/output.h"

#define IFACE "io.rdmad.Gid"

/* device, port (when given) and index (when given): what every gid command sends. */
static struct json_object *gid_params(struct ctl *ctl, const struct cmd_args *args)
{
	struct json_object *params = ctl_device_params(args);

	if (ctl_add_number(ctl, args, "--port", params, "port", UINT32_MAX) < 0 ||
	    ctl_add_number(ctl, args, "INDEX", params, "index", UINT32_MAX) < 0) {
		json_object_put(params);
		return NULL;
	}
	return params;
}

static int gid_show(struct ctl *ctl, const struct cmd_args *args)
{
	struct json_object *params = gid_params(ctl, args);

	if (!params)
		return -EINVAL;
	if (arg_get(args, "INDEX"))
		return output_call_records(ctl, args, IFACE ".Show", params, "gid", "gid");
	return output_call_records(ctl, args, IFACE ".List", params, "gids", "gid");
}

static int gid_add(struct ctl *ctl, const struct cmd_args *args)
{
	struct json_object *params = gid_params(ctl, args);

	if (!params)
		return -EINVAL;
	json_object_object_add(params, "gid", json_object_new_string(arg_get(args, "GID")));
	return output_call_records(ctl, args, IFACE ".Add", params, "gid", "gid");
}

static int gid_del(struct ctl *ctl, const struct cmd_args *args)
{
	struct json_object *params = gid_params(ctl, args);

	return params ? ctl_call_quiet(ctl, args, IFACE ".Del", params) : -EINVAL;
}

#define ARG_INDEX(req, text) { .name = "INDEX", .kind = ARG_POSITIONAL, .required = req, \
			       .help = text }
#define ARG_PORT { .name = "--port", .kind = ARG_OPTION, .metavar = "P", \
		   .help = "the port (default 1; show: every port)" }

static const struct cmd_arg show_args[] = {
	ARG_INDEX(false, "the entry (default: every filled entry)"), ARG_PORT, CMD_ARG_DEV, { NULL },
};
static const struct cmd_arg add_args[] = {
	ARG_INDEX(true, "the entry, 0 to gid_tbl_len - 1"),
	{ .name = "GID", .kind = ARG_POSITIONAL, .required = true,
	  .help = "IPv6 text, or IPv4 for its IPv4-mapped GID" },
	ARG_PORT, CMD_ARG_DEV, { NULL },
};
static const struct cmd_arg del_args[] = {
	ARG_INDEX(true, "the entry to empty"), ARG_PORT, CMD_ARG_DEV, { NULL },
};

static const struct cmd_arg list_args[] = { ARG_PORT, CMD_ARG_DEV, { NULL } };

const struct cmd cmd_gid[] = {
	{ .name = "show", .summary = "Show the filled GID table entries", .args = show_args,
	  .run = gid_show, .is_default = true },
	/* As every object has it: show without an index. */
	{ .name = "list", .summary = "List the filled GID table entries", .args = list_args,
	  .run = gid_show },
	{ .name = "add", .summary = "Put a GID at an empty index (ADD_GID)", .args = add_args,
	  .run = gid_add },
	{ .name = "del", .spelled_out = true, .summary = "Empty a GID table entry no AH or QP uses (DEL_GID)",
	  .args = del_args, .run = gid_del },
	{ NULL },
};
