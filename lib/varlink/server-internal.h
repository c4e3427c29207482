/* SPDX-License-Identifier: MIT */
/* What the server's parts share; not for users of lib/varlink. */
#pragma once

#include "lib/varlink/varlink.h"
#include "lib/varlink/idl.h"

struct varlink_interface {
	struct idl_interface *idl;
	const char *text;
	const struct varlink_method *methods;
	void *userdata;
};

struct varlink_server {
	sd_event *event;
	struct varlink_server_info info;
	struct varlink_interface *interfaces;
	size_t n_interfaces;
	sd_event_source **listeners;
	size_t n_listeners;
	struct varlink_connection *connections;
	unsigned n_connections;
	struct varlink_limits limits;
	struct varlink_server_stats stats; /* the counters; open and buffered_bytes are below */
	size_t buffered;                   /* bytes allocated to all connections' buffers */
	sd_event_source *sweep;            /* the timeouts' timer */
	uint64_t sweep_at;                 /* when it fires, 0 when it is off */
	varlink_authorize_fn authorize;
	void *authorize_data;
	varlink_close_fn close_hook;
	void *close_data;
	char *errno_error;
};

const struct varlink_interface *varlink_server_find_interface(const struct varlink_server *server,
							      const char *name);
/* Adds org.varlink.service, which every server has. */
int varlink_service_register(struct varlink_server *server);
