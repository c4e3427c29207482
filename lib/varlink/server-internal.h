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
	sd_event_source *turn;             /* runs the next held change (turns.c) */
	int64_t turn_priority;
	unsigned reads_waited;             /* reads run while a change waited for its turn */
	struct varlink_turn *turns_head, *turns_tail; /* held changes and work, in order */
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
/* The interface whose name is the first len bytes of name. */
const struct varlink_interface *varlink_server_find_interface_n(const struct varlink_server *server,
								const char *name, size_t len);
const struct varlink_method *varlink_interface_find_method(const struct varlink_interface *iface,
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
	struct json_object *held;   /* a change waiting for its turn (turns.c), with its fds */
	struct varlink_fds held_fds;
	struct varlink_turn turn;   /* in the server's turns while a change is held */
	bool dead;
	bool keep_open;             /* never closed as idle (varlink_connection_keep_open) */
	bool eof;                   /* the client closed its writing side */
	/*
	 * The events the watch has (edge-triggered), and whether the last read
	 * found the socket empty: then an unchanged watch needs no epoll_ctl
	 * (sd-event re-arms an edge-triggered one at every call, two system
	 * calls per varlink call), since new bytes make a new edge.
	 */
	uint32_t io_events;
	bool drained;
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

/* The connection (connection.c), for the server, its dispatch and its calls (call.c). */
/* A connection on fd from peer, in the server's list and watched; fd is the caller's on failure. */
int conn_new(struct varlink_server *server, int fd, const struct ucred *peer);
struct varlink_connection *conn_ref(struct varlink_connection *conn);
void conn_unref(struct varlink_connection *conn);
/* Closes conn's socket and cancels its unfinished call; its memory goes with the last reference. */
void conn_close(struct varlink_connection *conn);
void conn_update_events(struct varlink_connection *conn);
/* Whether conn's client leaves more replies unread than its output budget. */
bool conn_output_over(const struct varlink_connection *conn);
/* Sends msg with fds (moved out of *fds when queued). */
int conn_send(struct varlink_connection *conn, struct json_object *msg, struct varlink_fds *fds);
void call_close_fds(struct varlink_call *call);

/* The connections' deadlines (timeouts.c). */
int timeouts_init(struct varlink_server *server);
/* CLOCK_MONOTONIC as the server's event loop last read it. */
uint64_t server_now(const struct varlink_server *server);
/* Something happened on conn: its idle time starts again. */
void conn_touch(struct varlink_connection *conn);
/* The server's timer fires no later than conn's earliest deadline. */
void conn_schedule(struct varlink_connection *conn);

/* From the input buffer to the method (dispatch.c). */
/* Runs the messages conn has buffered, as far as it may. */
void conn_process(struct varlink_connection *conn);
/* Dispatches msg (NULL: one that did not parse) with fds, then frees and wipes it. */
void conn_run_message(struct varlink_connection *conn, struct json_object *msg,
		      struct varlink_fds *fds);

/* Between the connection and the change turn (turns.c). */
int turns_init(struct varlink_server *server);
void turns_release(struct varlink_server *server);
bool turns_message_changes(const struct varlink_server *server, struct json_object *msg);
/* A read ran: a change that waited for READS_PER_CHANGE of them goes next. */
void turns_note_read(struct varlink_server *server);
/* Holds msg and fds (moved out) until conn's turn comes. */
void turns_hold(struct varlink_connection *conn, struct json_object *msg, struct varlink_fds *fds);
/* Takes conn's held change out of the queue and frees it. */
void turns_drop(struct varlink_connection *conn);
/* At the server's end: queued work runs, held changes do not. */
void turns_finish(struct varlink_server *server);
int varlink_call_error_string(struct varlink_call *call, const char *error, const char *key,
			      const char *value);
