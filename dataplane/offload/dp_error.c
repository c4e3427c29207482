/* SPDX-License-Identifier: MIT */
/* Error values (see dp_error.h) */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dataplane/offload/dp_error.h"

int dp_error_set(struct dp_error *err, int errnum, const char *field, const char *fmt, ...)
{
	if (err) {
		va_list ap;

		err->code = -errnum;
		snprintf(err->field, sizeof(err->field), "%s", field ? field : "");
		va_start(ap, fmt);
		vsnprintf(err->message, sizeof(err->message), fmt, ap);
		va_end(ap);
	}
	return -errnum;
}

void dp_error_clear(struct dp_error *err)
{
	if (err)
		memset(err, 0, sizeof(*err));
}
