/* SPDX-License-Identifier: MIT */
/* rdmactl pool: MKEY pools and their counters. */
#include "cmd/rdmactl.h"
#include "cmd/output.h"
#include "cmd/progress.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IFACE "io.rdmad.Pool"

static const char *const type_words[] = { "signature", "crypto", "signature+crypto", NULL };

/* params with "name" = the NAME argument. */
static struct json_object *pool_params(const struct cmd_args *args)
{
	struct json_object *params = ctl_device_params(args);

	json_object_object_add(params, "name", json_object_new_string(arg_get(args, "NAME")));
	return params;
}

static int pool_show(struct ctl *ctl, const struct cmd_args *args)
{
	if (!arg_get(args, "NAME"))
		return output_call_records(ctl, args, IFACE ".List", ctl_device_params(args), "pools", "pool");
	return output_call_records(ctl, args, IFACE ".Show", pool_params(args), "pool", "pool");
}

static int pool_list(struct ctl *ctl, const struct cmd_args *args)
{
	return output_call_list(ctl, args, IFACE ".List", ctl_device_params(args), "pools", "pool");
}

/* The records' output, whose list begins once the progress line is gone. */
static const struct output *records_out;

static void begin_list_after_line(struct ctl *ctl)
{
	progress_end();
	records_out->begin_list(ctl);
}

/*
 * One call that creates many MKEYs and says nothing until its end: the
 * progress line shows text while it runs, and goes before the records print.
 */
static int call_with_progress(struct ctl *ctl, const struct cmd_args *args, const char *text,
			      struct json_object *params)
{
	struct output out = *ctl->out;
	int r;

	records_out = ctl->out;
	out.begin_list = begin_list_after_line;
	ctl->out = &out;
	progress_start_text(ctl, text);
	r = output_call_records(ctl, args, IFACE ".Create", params, "pool", "pool");
	ctl->out = records_out;
	progress_end();
	return r;
}

static int pool_create(struct ctl *ctl, const struct cmd_args *args)
{
	struct json_object *params = pool_params(args);
	char text[160];

	json_object_object_add(params, "type", json_object_new_string(arg_get(args, "--type")));
	if (ctl_add_number(ctl, args, "--size", params, "size", UINT32_MAX) < 0 ||
	    (arg_get(args, "--pd") && ctl_add_number(ctl, args, "--pd", params, "pd", UINT32_MAX) < 0) ||
	    (arg_get(args, "--max-entries") &&
	     ctl_add_number(ctl, args, "--max-entries", params, "max_entries", UINT16_MAX) < 0)) {
		json_object_put(params);
		return -EINVAL;
	}
	ctl_add_lend(args, "--allow", params, "allow");
	/* The daemon creates them all in the one call, and says nothing before its end. */
	snprintf(text, sizeof(text), "%s: creating %s MKEYs of pool %s", args->path,
		 arg_get(args, "--size"), arg_get(args, "NAME"));
	return call_with_progress(ctl, args, text, params);
}

static int pool_resize(struct ctl *ctl, const struct cmd_args *args)
{
	struct json_object *params = pool_params(args);

	if (ctl_add_number(ctl, args, "--size", params, "size", UINT32_MAX) < 0) {
		json_object_put(params);
		return -EINVAL;
	}
	return output_call_records(ctl, args, IFACE ".Resize", params, "pool", "pool");
}

static int pool_modify(struct ctl *ctl, const struct cmd_args *args)
{
	struct json_object *params = pool_params(args);

	if (!arg_count(args, "--allow") && !arg_count(args, "--disallow")) {
		json_object_put(params);
		return ctl_usage_error("%s: nothing to change: give --allow or --disallow", args->path);
	}
	ctl_add_lend(args, "--allow", params, "allow");
	ctl_add_lend(args, "--disallow", params, "disallow");
	return output_call_records(ctl, args, IFACE ".Modify", params, "pool", "pool");
}

static int pool_destroy(struct ctl *ctl, const struct cmd_args *args)
{
	struct json_object *params = pool_params(args);

	if (arg_flag(args, "--force"))
		json_object_object_add(params, "force", json_object_new_boolean(true));
	return ctl_call_quiet(ctl, args, IFACE ".Destroy", params);
}

static void add_owner(const struct cmd_args *args, struct json_object *params)
{
	if (arg_get(args, "--owner"))
		json_object_object_add(params, "owner", json_object_new_string(arg_get(args, "--owner")));
}

/*
 * Prints the key of the MKEY borrowed.  Without --owner the MKEY is this
 * connection's and goes back when it closes: after a one-shot command, at
 * once, which no one can want.
 */
static int pool_borrow(struct ctl *ctl, const struct cmd_args *args)
{
	struct json_object *params;

	if (ctl->one_shot && !arg_get(args, "--owner"))
		return ctl_usage_error("%s: without --owner the MKEY goes back to the pool when this "
				       "command's connection closes, at once: give --owner NAME, or "
				       "borrow in the shell (rdmactl -i) or a batch (-b)", args->path);
	params = pool_params(args);
	add_owner(args, params);
	return output_call_value(ctl, args, IFACE ".Borrow", params, "mkey");
}

static int pool_return(struct ctl *ctl, const struct cmd_args *args)
{
	struct json_object *params = ctl_device_params(args);

	if (ctl_add_number(ctl, args, "MKEY", params, "handle", UINT32_MAX) < 0) {
		json_object_put(params);
		return -EINVAL;
	}
	add_owner(args, params);
	return ctl_call_quiet(ctl, args, IFACE ".Return", params);
}

/* A pool's NAME completes as a POOL does. */
static void complete_pools(struct ctl *ctl, const char *prefix,
			   void (*add)(void *data, const char *word), void *data)
{
	cmd_complete_objects(ctl, "POOL", prefix, add, data);
}

#define ARG_NAME(req) { .name = "NAME", .kind = ARG_POSITIONAL, .required = req, \
			.help = "the pool's name", .complete = complete_pools }
#define ARG_SIZE(text) { .name = "--size", .kind = ARG_OPTION, .metavar = "N", .required = true, \
			 .help = text }

static const struct cmd_arg dev_only[] = { CMD_ARG_DEV, { NULL } };
static const struct cmd_arg show_args[] = { ARG_NAME(false), CMD_ARG_DEV, { NULL } };
static const struct cmd_arg create_args[] = {
	{ .name = "NAME", .kind = ARG_POSITIONAL, .required = true,
	  .help = "a new pool's name: letters, digits, '_', '.', '-'" },
	{ .name = "--type", .kind = ARG_OPTION, .metavar = "TYPE", .required = true, .values = type_words,
	  .help = "the flags of its MKEYs: signature (block_signature), crypto, or both" },
	ARG_SIZE("MKEYs created in advance"),
	{ .name = "--pd", .kind = ARG_OPTION, .metavar = "PD",
	  .help = "the protection domain of its MKEYs (default: one of the pool's own)" },
	{ .name = "--max-entries", .kind = ARG_OPTION, .metavar = "N",
	  .help = "layout entries of each MKEY (default 128)" },
	CMD_ARG_ALLOW("a user or @group whose programs may borrow besides root (repeat, or "
		      "comma-separated)"),
	CMD_ARG_DEV, { NULL },
};
static const struct cmd_arg modify_args[] = {
	ARG_NAME(true),
	CMD_ARG_ALLOW("let this user or @group's programs borrow too (repeat, or comma-separated)"),
	CMD_ARG_DISALLOW("take back what --allow gave (repeat, or comma-separated)"),
	CMD_ARG_DEV, { NULL },
};
static const struct cmd_arg resize_args[] = {
	ARG_NAME(true), ARG_SIZE("MKEYs the pool holds, at least those borrowed"), CMD_ARG_DEV, { NULL },
};
#define ARG_OWNER(text) { .name = "--owner", .kind = ARG_OPTION, .metavar = "OWNER", .help = text }
static const struct cmd_arg borrow_args[] = {
	ARG_NAME(true),
	ARG_OWNER("hold the MKEY under this name until `pool return --owner` gives it back (default: "
		  "this shell's connection, until it closes)"),
	CMD_ARG_DEV, { NULL },
};
static const struct cmd_arg return_args[] = {
	{ .name = "MKEY", .kind = ARG_POSITIONAL, .required = true, .help = "the borrowed MKEY's key" },
	ARG_OWNER("the name it was borrowed under (default: borrowed by this shell's connection)"),
	CMD_ARG_DEV, { NULL },
};
static const struct cmd_arg destroy_args[] = {
	ARG_NAME(true),
	{ .name = "--force", .kind = ARG_FLAG, .help = "also while MKEYs are borrowed (they go too)" },
	CMD_ARG_DEV, { NULL },
};

const struct cmd cmd_pool[] = {
	{ .name = "show", .summary = "Show pools and their counters", .args = show_args,
	  .run = pool_show, .is_default = true },
	{ .name = "list", .summary = "List pools", .args = dev_only, .run = pool_list },
	{ .name = "create", .summary = "Create a pool of MKEYs of one kind", .args = create_args,
	  .run = pool_create },
	{ .name = "resize", .summary = "Grow or shrink a pool", .args = resize_args, .run = pool_resize },
	{ .name = "modify", .summary = "Change which users and groups may borrow besides root",
	  .args = modify_args, .run = pool_modify },
	{ .name = "borrow", .summary = "Borrow an MKEY of a pool: for this shell, or under an owner name",
	  .args = borrow_args, .run = pool_borrow },
	{ .name = "return", .summary = "Give a borrowed MKEY back to its pool", .args = return_args,
	  .run = pool_return },
	{ .name = "destroy", .spelled_out = true, .summary = "Destroy a pool and its MKEYs", .args = destroy_args,
	  .run = pool_destroy },
	{ NULL },
};
