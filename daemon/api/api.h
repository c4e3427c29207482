/* SPDX-License-Identifier: MIT */
/* Varlink method tables of the io.rdmad.* interfaces: one file per interface. */
#pragma once

#include "daemon/manager.h"
#include "lib/json-util.h"
#include "lib/varlink/varlink.h"

extern const struct varlink_method api_daemon_methods[];
extern const struct varlink_method api_device_methods[];

/* Replies io.rdmad.<iface>.<error> with one string parameter. */
int api_error_string(struct varlink_call *call, const char *error, const char *key, const char *value);
