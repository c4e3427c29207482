/* SPDX-License-Identifier: MIT */
/*
 * Errors as values: negative errno plus {field, message}.
 *
 * Every dataplane function that can fail returns 0 or a negative errno and, when the caller
 * passes a struct dp_error, fills in the name of the offending field (a JSON path such as
 * "mem.t10dif.bg" or "crypto.data_unit_size", or "input"/"key" for run-time arguments) and a
 * human-readable message.  Neither ever contains key material.
 */
#pragma once

#include <errno.h>

struct dp_error {
	int  code;              /* negative errno, 0 when no error */
	char field[64];         /* which field was wrong ("" if none applies) */
	char message[224];      /* why, including the allowed values */
};

/* Fill *err (if not NULL) and return -errnum.  fmt is printf-style. */
int dp_error_set(struct dp_error *err, int errnum, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Reset *err to "no error" (if not NULL). */
void dp_error_clear(struct dp_error *err);
