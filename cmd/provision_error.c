/* SPDX-License-Identifier: MIT */
/* How the provisioning file's readers say what is wrong in it, and where. */
#include "cmd/provision.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

int prov_fail(struct prov_error *err, const char *path, const char *fmt, ...)
{
	va_list ap;

	snprintf(err->path, sizeof(err->path), "%s", path);
	va_start(ap, fmt);
	vsnprintf(err->reason, sizeof(err->reason), fmt, ap);
	va_end(ap);
	return -EINVAL;
}
