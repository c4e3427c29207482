/* SPDX-License-Identifier: MIT */
/* rdmactl ah: address handles. */
#include "cmd/rdmactl.h"

#include <errno.h>
#include "cmd/output.h"

#define IFACE "io.rdmad.Ah"

static int ah_show(struct ctl *ctl, const struct cmd_args *args)
{
	return ctl_object_show(ctl, args, "AH", IFACE, "ah", "ahs");
}

static int ah_list(struct ctl *ctl, const struct cmd_args *args)
{
	return output_call_list(ctl, args, IFACE ".List", ctl_device_params(args), "ahs", "ah");
}

static int ah_create(struct ctl *ctl, const struct cmd_args *args)
{
	static const struct { const char *arg, *key; } numbers[] = {
		{ "PD", "pd" }, { "--sgid-index", "sgid_index" }, { "--port", "port" },
		{ "--flow-label", "flow_label" }, { "--hop-limit", "hop_limit" },
		{ "--traffic-class", "traffic_class" },
	};
	struct json_object *params = ctl_device_params(args);
	const char *dmac = arg_get(args, "--dmac");

	/* The daemon checks each against the RFC's field widths and names the field. */
	for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++)
		if (ctl_add_number(ctl, args, numbers[i].arg, params, numbers[i].key, UINT32_MAX) < 0) {
			json_object_put(params);
			return -EINVAL;
		}
	json_object_object_add(params, "dgid", json_object_new_string(arg_get(args, "--dgid")));
	if (dmac)
		json_object_object_add(params, "dmac", json_object_new_string(dmac));
	return output_call_records(ctl, args, IFACE ".Create", params, "ah", "ah");
}

static int ah_destroy(struct ctl *ctl, const struct cmd_args *args)
{
	return ctl_object_destroy(ctl, args, "AH", IFACE);
}

static const struct cmd_arg dev_only[] = { CMD_ARG_DEV, { NULL } };
static const struct cmd_arg show_args[] = {
	{ .name = "AH", .kind = ARG_POSITIONAL, .help = "the AH's handle (default: all)" },
	CMD_ARG_DEV, { NULL },
};
static const struct cmd_arg destroy_args[] = {
	{ .name = "AH", .kind = ARG_POSITIONAL, .help = "the AH's handle", .required = true },
	CMD_ARG_DEV, { NULL },
};
static const struct cmd_arg create_args[] = {
	{ .name = "PD", .kind = ARG_POSITIONAL, .required = true,
	  .help = "the protection domain it belongs to" },
	{ .name = "--dgid", .kind = ARG_OPTION, .metavar = "GID", .required = true,
	  .help = "destination GID: IPv6 text, or IPv4 for its IPv4-mapped GID" },
	{ .name = "--sgid-index", .kind = ARG_OPTION, .metavar = "N", .required = true,
	  .help = "the source GID's index in the port's table (0-255)" },
	{ .name = "--port", .kind = ARG_OPTION, .metavar = "P", .help = "the port (default 1)" },
	{ .name = "--flow-label", .kind = ARG_OPTION, .metavar = "N",
	  .help = "IPv6 flow label, 20 bits (default 0)" },
	{ .name = "--hop-limit", .kind = ARG_OPTION, .metavar = "N",
	  .help = "hop limit / IP TTL, 0-255 (default 64)" },
	{ .name = "--traffic-class", .kind = ARG_OPTION, .metavar = "N",
	  .help = "traffic class, 0-255 (default 0)" },
	{ .name = "--dmac", .kind = ARG_OPTION, .metavar = "MAC",
	  .help = "destination MAC (default 00:00:00:00:00:00: left to the transport)" },
	CMD_ARG_DEV, { NULL },
};

const struct cmd cmd_ah[] = {
	{ .name = "show", .summary = "Show address handles", .args = show_args, .run = ah_show,
	  .is_default = true },
	{ .name = "list", .summary = "List address handles", .args = dev_only, .run = ah_list },
	{ .name = "create", .summary = "Create an address handle on a PD", .args = create_args,
	  .run = ah_create },
	{ .name = "destroy", .spelled_out = true, .summary = "Destroy an address handle", .args = destroy_args,
	  .run = ah_destroy },
	{ NULL },
};
