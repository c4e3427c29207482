/* SPDX-License-Identifier: MIT */
/* rdmactl pd: protection domains. */
#include "cmd/rdmactl.h"
#include "cmd/output.h"

static int pd_create(struct ctl *ctl, const struct cmd_args *args)
{
	return output_call_records(ctl, args, "io.rdmad.Pd.Create", ctl_device_params(args), "pd", "pd");
}

static int pd_list(struct ctl *ctl, const struct cmd_args *args)
{
	return output_call_list(ctl, args, "io.rdmad.Pd.List", ctl_device_params(args), "pds", "pd");
}

static int pd_show(struct ctl *ctl, const struct cmd_args *args)
{
	return ctl_object_show(ctl, args, "PD", "io.rdmad.Pd", "pd", "pds");
}

static int pd_destroy(struct ctl *ctl, const struct cmd_args *args)
{
	return ctl_object_destroy(ctl, args, "PD", "io.rdmad.Pd");
}

static const struct cmd_arg dev_only[] = {
	CMD_ARG_DEV,
	{ NULL },
};

static const struct cmd_arg pd_optional[] = {
	{ .name = "PD", .kind = ARG_POSITIONAL, .help = "the protection domain's handle (default: all)" },
	CMD_ARG_DEV,
	{ NULL },
};

static const struct cmd_arg pd_required[] = {
	{ .name = "PD", .kind = ARG_POSITIONAL, .help = "the protection domain's handle",
	  .required = true },
	CMD_ARG_DEV,
	{ NULL },
};

const struct cmd cmd_pd[] = {
	{ .name = "show", .summary = "Show protection domains and what they hold",
	  .args = pd_optional, .run = pd_show, .is_default = true },
	{ .name = "list", .summary = "List protection domains", .args = dev_only, .run = pd_list },
	{ .name = "create", .summary = "Create a protection domain", .args = dev_only, .run = pd_create },
	{ .name = "destroy", .spelled_out = true, .summary = "Destroy a protection domain nothing uses", .args = pd_required,
	  .run = pd_destroy },
	{ NULL },
};
