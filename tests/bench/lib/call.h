/* SPDX-License-Identifier: MIT */
/* One varlink call of a bench, for the handle its reply names. */
#pragma once

#include "lib/varlink/varlink.h"

/*
 * Calls method with params (JSON text); the reply's key.handle, 0 when key is NULL, or -1
 * with the error printed on stderr.
 */
long long bench_call_handle(struct varlink_client *vc, const char *method, const char *key,
			    const char *params);
