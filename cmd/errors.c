/* SPDX-License-Identifier: MIT */
/*
 * How rdmactl says what went wrong: "rdmactl: ..." on stderr, and the
 * negative errno that cmd_exit_code() turns into the exit status (-EINVAL a
 * usage error, -EIO a failed operation).  Every other file reports through
 * these, so they depend on nothing of rdmactl but the progress line they
 * take away first (progress.h).
 */
#include "cmd/rdmactl.h"
#include "cmd/progress.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

static void print_error(const char *fmt, va_list ap)
{
	progress_hide();
	fputs("rdmactl: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int ctl_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	print_error(fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int ctl_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	print_error(fmt, ap);
	va_end(ap);
	return -EIO;
}
