/* SPDX-License-Identifier: MIT */
/* rdmactl cq: completion queues. */
#include "cmd/rdmactl.h"

#include <errno.h>
#include "cmd/output.h"

#define IFACE "io.rdmad.Cq"

static int cq_show(struct ctl *ctl, const struct cmd_args *args)
{
	return ctl_object_show(ctl, args, "CQ", IFACE, "cq", "cqs");
}

static int cq_list(struct ctl *ctl, const struct cmd_args *args)
{
	return output_call_list(ctl, args, IFACE ".List", ctl_device_params(args), "cqs", "cq");
}

static int cq_create(struct ctl *ctl, const struct cmd_args *args)
{
	struct json_object *params = ctl_device_params(args);

	if (ctl_add_number(ctl, args, "--cqe", params, "cqe", UINT32_MAX) < 0) {
		json_object_put(params);
		return -EINVAL;
	}
	return output_call_records(ctl, args, IFACE ".Create", params, "cq", "cq");
}

static int cq_destroy(struct ctl *ctl, const struct cmd_args *args)
{
	return ctl_object_destroy(ctl, args, "CQ", IFACE);
}

static int cq_notify(struct ctl *ctl, const struct cmd_args *args)
{
	bool solicited = arg_flag(args, "--solicited"), next = arg_flag(args, "--next");
	struct json_object *params;

	/* REQ_NOTIFY_CQ takes one of the two; next already covers solicited completions. */
	if (solicited == next)
		return ctl_usage_error("%s: give one of --solicited and --next", args->path);
	params = ctl_device_params(args);
	if (ctl_add_number(ctl, args, "CQ", params, "handle", UINT32_MAX) < 0) {
		json_object_put(params);
		return -EINVAL;
	}
	json_object_object_add(params, "notify", json_object_new_string(next ? "next" : "solicited"));
	return output_call_records(ctl, args, IFACE ".Notify", params, "cq", "cq");
}

static int cq_poll(struct ctl *ctl, const struct cmd_args *args)
{
	struct json_object *params = ctl_device_params(args);

	if (ctl_add_number(ctl, args, "CQ", params, "handle", UINT32_MAX) < 0 ||
	    ctl_add_number(ctl, args, "--max", params, "max", UINT32_MAX) < 0 ||
	    ctl_add_number(ctl, args, "--wait", params, "wait", UINT32_MAX) < 0) {
		json_object_put(params);
		return -EINVAL;
	}
	return output_call_records(ctl, args, IFACE ".Poll", params, "completions", "completion");
}

static const struct cmd_arg dev_only[] = { CMD_ARG_DEV, { NULL } };
static const struct cmd_arg show_args[] = {
	{ .name = "CQ", .kind = ARG_POSITIONAL, .help = "the CQ's number (default: all)" },
	CMD_ARG_DEV, { NULL },
};
static const struct cmd_arg destroy_args[] = {
	{ .name = "CQ", .kind = ARG_POSITIONAL, .help = "the CQ's number", .required = true },
	CMD_ARG_DEV, { NULL },
};
static const struct cmd_arg create_args[] = {
	{ .name = "--cqe", .kind = ARG_OPTION, .metavar = "N", .required = true,
	  .help = "entries, 1 to max_cqe (rounded up to a power of two, minus one)" },
	CMD_ARG_DEV, { NULL },
};
static const struct cmd_arg notify_args[] = {
	{ .name = "CQ", .kind = ARG_POSITIONAL, .help = "the CQ's number", .required = true },
	{ .name = "--solicited", .kind = ARG_FLAG,
	  .help = "the event comes with the next solicited completion" },
	{ .name = "--next", .kind = ARG_FLAG, .help = "the event comes with the next completion" },
	CMD_ARG_DEV, { NULL },
};

static const struct cmd_arg poll_args[] = {
	{ .name = "CQ", .kind = ARG_POSITIONAL, .help = "the CQ's number", .required = true },
	{ .name = "--max", .kind = ARG_OPTION, .metavar = "N",
	  .help = "completions to take at most, 1-1024 (default 16)" },
	{ .name = "--wait", .kind = ARG_OPTION, .metavar = "MS",
	  .help = "with none ready, wait this long for the first (default 0)" },
	CMD_ARG_DEV, { NULL },
};

const struct cmd cmd_cq[] = {
	{ .name = "show", .summary = "Show completion queues: size, notification, users",
	  .args = show_args, .run = cq_show, .is_default = true },
	{ .name = "list", .summary = "List completion queues", .args = dev_only, .run = cq_list },
	{ .name = "create", .summary = "Create a completion queue", .args = create_args,
	  .run = cq_create },
	{ .name = "destroy", .spelled_out = true, .summary = "Destroy a completion queue no QP uses",
	  .args = destroy_args, .run = cq_destroy },
	{ .name = "notify", .summary = "Arm a CQ for one completion event (REQ_NOTIFY_CQ)",
	  .args = notify_args, .run = cq_notify },
	{ .name = "poll", .summary = "Take work completions: wr_id, status, opcode, byte_len, imm, qp",
	  .args = poll_args, .run = cq_poll },
	{ NULL },
};
