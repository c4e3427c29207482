/* SPDX-License-Identifier: MIT */
/* Varlink method tables of the io.rdmad.* interfaces: one file per interface. */
#pragma once

#include "daemon/manager.h"
#include "lib/json-util.h"
#include "lib/varlink/varlink.h"

extern const struct varlink_method api_daemon_methods[];
extern const struct varlink_method api_device_methods[];
extern const struct varlink_method api_pd_methods[];

/*
 * The device named by the "device" parameter, or the first one.  On NULL the
 * call has been answered with IFACE.NoSuchDevice.
 */
struct rdma_device *api_device(struct varlink_call *call, struct manager *m,
			       struct json_object *params, const char *iface);
/* Replies IFACE.<error name> with the error's parameters. */
int api_reply_error(struct varlink_call *call, const char *iface, const struct rdma_error *err);
/* The parameter "handle" (the IDL makes it an int; range-checked here). */
int api_get_handle(struct varlink_call *call, struct json_object *params, const char *key,
		   uint32_t *out);

/* Replies io.rdmad.<iface>.<error> with one string parameter. */
int api_error_string(struct varlink_call *call, const char *error, const char *key, const char *value);
