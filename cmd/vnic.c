/* SPDX-License-Identifier: MIT */
/* rdmactl vnic: Omni-Path VNIC ports, as the Ethernet Manager configured them. */
#include "cmd/rdmactl.h"

#include <errno.h>
#include "cmd/output.h"

#define IFACE "io.rdmad.Vnic"

static int vnic_show(struct ctl *ctl, const struct cmd_args *args)
{
	return ctl_object_show(ctl, args, "PORT", IFACE, "port", "ports");
}

static int vnic_list(struct ctl *ctl, const struct cmd_args *args)
{
	return output_call_list(ctl, args, IFACE ".List", ctl_device_params(args), "ports", "port");
}

static int vnic_counters(struct ctl *ctl, const struct cmd_args *args)
{
	struct json_object *params = ctl_device_params(args);

	if (arg_get(args, "PORT") &&
	    ctl_add_number(ctl, args, "PORT", params, "handle", UINT8_MAX) < 0) {
		json_object_put(params);
		return -EINVAL;
	}
	return output_call_records(ctl, args, IFACE ".Counters", params, "counters", "port");
}

static int vnic_fabric(struct ctl *ctl, const struct cmd_args *args)
{
	return output_call_records(ctl, args, IFACE ".Fabric", ctl_device_params(args), "fabric",
				   "fabric");
}

static const struct cmd_arg dev_only[] = { CMD_ARG_DEV, { NULL } };
static const struct cmd_arg port_args[] = {
	{ .name = "PORT", .kind = ARG_POSITIONAL,
	  .help = "the port's handle, the manager's index 0-255 (default: all)" },
	CMD_ARG_DEV, { NULL },
};

const struct cmd cmd_vnic[] = {
	{ .name = "show", .summary = "Show VNIC ports: switch, addresses, state; one with its MAC table",
	  .args = port_args, .run = vnic_show, .is_default = true },
	{ .name = "list", .summary = "List VNIC ports", .args = dev_only, .run = vnic_list },
	{ .name = "counters", .summary = "Frames and errors of VNIC ports, by ethtool's names",
	  .args = port_args, .run = vnic_counters },
	{ .name = "fabric", .summary = "The OPA port: LID, fabric map, VEMA agent and trap counters",
	  .args = dev_only, .run = vnic_fabric },
	{ NULL },
};
