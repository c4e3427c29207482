/* SPDX-License-Identifier: MIT */
/* rdmactl vdev: the virtio-net RoCE devices rdmad serves to VMs as a vhost-user back end. */
#include "cmd/rdmactl.h"
#include "cmd/output.h"

#include <errno.h>

#define IFACE "io.rdmad.Vdev"

/* params with "name" = the NAME argument. */
static struct json_object *vdev_params(const struct cmd_args *args)
{
	struct json_object *params = ctl_device_params(args);

	json_object_object_add(params, "name", json_object_new_string(arg_get(args, "NAME")));
	return params;
}

static int vdev_show(struct ctl *ctl, const struct cmd_args *args)
{
	if (!arg_get(args, "NAME"))
		return output_call_records(ctl, args, IFACE ".List", ctl_device_params(args), "vdevs", "vdev");
	return output_call_records(ctl, args, IFACE ".Show", vdev_params(args), "vdev", "vdev");
}

static int vdev_list(struct ctl *ctl, const struct cmd_args *args)
{
	return output_call_list(ctl, args, IFACE ".List", ctl_device_params(args), "vdevs", "vdev");
}

/* The string options as they are: the daemon checks them and names the field it refuses. */
static void add_string(const struct cmd_args *args, const char *option, struct json_object *params,
		       const char *key)
{
	if (arg_get(args, option))
		json_object_object_add(params, key, json_object_new_string(arg_get(args, option)));
}

static int vdev_create(struct ctl *ctl, const struct cmd_args *args)
{
	struct json_object *params = vdev_params(args);

	add_string(args, "--socket", params, "socket");
	add_string(args, "--mac", params, "mac");
	add_string(args, "--tap", params, "tap");
	if ((arg_get(args, "--max-qps") &&
	     ctl_add_number(ctl, args, "--max-qps", params, "max_qps", UINT32_MAX) < 0) ||
	    (arg_get(args, "--max-cqs") &&
	     ctl_add_number(ctl, args, "--max-cqs", params, "max_cqs", UINT32_MAX) < 0)) {
		json_object_put(params);
		return -EINVAL;
	}
	return output_call_records(ctl, args, IFACE ".Create", params, "vdev", "vdev");
}

static int vdev_destroy(struct ctl *ctl, const struct cmd_args *args)
{
	return ctl_call_quiet(ctl, args, IFACE ".Destroy", vdev_params(args));
}

static void complete_vdevs(struct ctl *ctl, const char *prefix,
			   void (*add)(void *data, const char *word), void *data)
{
	cmd_complete_objects(ctl, "VDEV", prefix, add, data);
}

#define ARG_NAME(req) { .name = "NAME", .kind = ARG_POSITIONAL, .required = req, \
			.help = "the vdev's name", .complete = complete_vdevs }

static const struct cmd_arg dev_only[] = { CMD_ARG_DEV, { NULL } };
static const struct cmd_arg show_args[] = { ARG_NAME(false), CMD_ARG_DEV, { NULL } };
static const struct cmd_arg create_args[] = {
	{ .name = "NAME", .kind = ARG_POSITIONAL, .required = true,
	  .help = "a new vdev's name: 1 to 31 letters, digits, '_', '-'" },
	{ .name = "--socket", .kind = ARG_OPTION, .metavar = "PATH", .required = true,
	  .help = "the vhost-user socket to listen on, an absolute path (QEMU's -chardev socket,path=)" },
	{ .name = "--mac", .kind = ARG_OPTION, .metavar = "MAC",
	  .help = "the guest's MAC address (default: derived from the name, locally administered)" },
	{ .name = "--tap", .kind = ARG_OPTION, .metavar = "IFNAME",
	  .help = "make this TAP interface for the guest's Ethernet frames (at most 15 characters)" },
	{ .name = "--max-qps", .kind = ARG_OPTION, .metavar = "N",
	  .help = "the VM's QP numbers, 3-125: QPs 2 to N-1 (default 64)" },
	{ .name = "--max-cqs", .kind = ARG_OPTION, .metavar = "N",
	  .help = "the VM's CQ numbers, 2-247: CQs 1 to N-1 (default 64)" },
	CMD_ARG_DEV, { NULL },
};
static const struct cmd_arg name_args[] = { ARG_NAME(true), CMD_ARG_DEV, { NULL } };

const struct cmd cmd_vdev[] = {
	{ .name = "show", .summary = "Show vdevs: socket, MAC, TAP, limits, state and front end",
	  .args = show_args, .run = vdev_show, .is_default = true },
	{ .name = "list", .summary = "List vdevs", .args = dev_only, .run = vdev_list },
	{ .name = "create", .summary = "Make a vdev: a vhost-user socket a VM's front end connects to",
	  .args = create_args, .run = vdev_create },
	{ .name = "destroy", .spelled_out = true,
	  .summary = "Destroy a vdev: its front end's session, socket and TAP", .args = name_args,
	  .run = vdev_destroy },
	{ NULL },
};
