/* SPDX-License-Identifier: MIT */
/* rdmactl daemon: the daemon's own settings. */
#include "cmd/rdmactl.h"
#include "cmd/output.h"

#include <errno.h>
#include <stdio.h>

static int daemon_reload(struct ctl *ctl, const struct cmd_args *args)
{
	struct json_object *reply;
	int r = ctl_call(ctl, args->path, "io.rdmad.Daemon.Reload", NULL, &reply);

	if (r < 0)
		return r;
	json_object_put(reply);
	return 0;
}

static int daemon_log_level(struct ctl *ctl, const struct cmd_args *args)
{
	struct json_object *params = json_object_new_object(), *reply;
	int r;

	json_object_object_add(params, "level", json_object_new_string(arg_get(args, "LEVEL")));
	r = ctl_call(ctl, args->path, "io.rdmad.Daemon.SetLogLevel", params, &reply);
	json_object_put(params);
	if (r < 0)
		return r;
	json_object_put(reply);
	return 0;
}

static const char *const log_levels[] = {
	"emerg", "alert", "crit", "err", "warning", "notice", "info", "debug", "reset", NULL,
};

static const struct cmd_arg log_level_args[] = {
	{ .name = "LEVEL", .kind = ARG_POSITIONAL,
	  .help = "the most verbose level logged; reset: back to --log-level's or rdmad.conf's",
	  .required = true, .values = log_levels },
	{ NULL },
};

const struct cmd cmd_daemon[] = {
	{ .name = "reload", .summary = "Re-read the configuration file (as SIGHUP does)",
	  .run = daemon_reload },
	{ .name = "log-level", .summary = "Set the log level, kept across reloads and restarts "
	  "(reset forgets it)",
	  .args = log_level_args, .run = daemon_log_level },
	{ NULL },
};
