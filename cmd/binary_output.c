/* SPDX-License-Identifier: MIT */
/*
 * Where the bytes of `offload`, `mr read` and `mkey tx` go: --output FILE, or
 * standard output when that is not a terminal.  Binary data on a terminal
 * garbles it and is lost to the user, so it is refused there.  The bytes of
 * `mr write`, `mkey rx` and `offload` come from standard input, which is
 * refused when it is a terminal (as gzip refuses to read compressed data
 * from one): a command that reads it there would sit waiting for bytes the
 * user does not know to type, then end with what Enter and Ctrl-D gave it.
 */
#include "cmd/rdmactl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int ctl_binary_output_open(const struct cmd_args *args, int *fd)
{
	const char *path = arg_get(args, "--output");

	if (!path) {
		if (isatty(STDOUT_FILENO))
			return ctl_usage_error("%s: the output is binary: refusing to write it to a "
					       "terminal; give --output FILE or redirect standard output",
					       args->path);
		/* What text was printed before goes out before the bytes. */
		fflush(stdout);
		*fd = STDOUT_FILENO;
		return 0;
	}
	*fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (*fd < 0)
		return ctl_fail("%s: --output %s: %s", args->path, path, strerror(errno));
	return 0;
}

int ctl_binary_input_check(const struct cmd_args *args)
{
	if (isatty(STDIN_FILENO))
		return ctl_usage_error("%s: the input is binary: refusing to read it from a terminal; "
				       "give it on standard input from a file or a pipe (%s ... <FILE)",
				       args->path, args->path);
	return 0;
}

int ctl_binary_output_close(const struct cmd_args *args, int fd)
{
	if (fd == STDOUT_FILENO || fd < 0)
		return 0;
	if (close(fd) < 0)
		return ctl_fail("%s: --output %s: %s", args->path, arg_get(args, "--output"),
				strerror(errno));
	return 0;
}
