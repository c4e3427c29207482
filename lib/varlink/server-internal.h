/* SPDX-License-Identifier: MIT */
/* What the server's parts share; not for users of lib/varlink. */
#pragma once

#include "lib/varlink/varlink.h"
#include "lib/varlink/idl.h"
#include "lib/varlink/buffer.h"
#include "lib/varlink/fds.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

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
	uint64_t refusal_logged_usec;      /* when a refused connection was last logged */
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

struct varlink_connection {
	struct varlink_server *server;
	struct varlink_connection *prev, *next;
	unsigned ref;
	int fd;
	sd_event_source *io;
	sd_event_source *defer;
	struct ucred peer;
	gid_t *groups;              /* of the peer, when it connected */
	size_t n_groups;
	struct varlink_buffer in, out;
	struct varlink_fd_queue in_fds, out_fds;
	struct varlink_call *call;  /* the call being served, if any */
	bool dead;
	bool eof;                   /* the client closed its writing side */
	size_t accounted;           /* its part of server->buffered */
	/* CLOCK_MONOTONIC: the last byte either way or end of a call; ... */
	uint64_t active_usec;
	uint64_t partial_usec;      /* ... the first byte of an unfinished message, or 0; */
	uint64_t over_usec;         /* ... since when replies over output_budget wait, or 0. */
};

struct varlink_call {
	unsigned ref;
	struct varlink_connection *conn;
	const struct varlink_interface *iface;
	const struct idl_member *member;
	char *method;
	unsigned flags;
	struct varlink_fds fds;       /* passed with the call */
	struct varlink_fds reply_fds; /* to go with the next reply */
	bool done;
	void (*on_cancel)(struct varlink_call *, void *);
	void *cancel_data;
};

/* Between the connection (server.c) and its calls (call.c). */
void conn_touch(struct varlink_connection *conn);
void conn_unref(struct varlink_connection *conn);
void conn_update_events(struct varlink_connection *conn);
/* Sends msg with fds (moved out of *fds when queued). */
int conn_send(struct varlink_connection *conn, struct json_object *msg, struct varlink_fds *fds);
void call_close_fds(struct varlink_call *call);
int varlink_call_error_string(struct varlink_call *call, const char *error, const char *key,
			      const char *value);
