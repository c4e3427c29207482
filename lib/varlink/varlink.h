/* SPDX-License-Identifier: MIT */
/*
 * Varlink over AF_UNIX with json-c: a server on sd-event and a blocking client.
 *
 * Wire protocol: NUL-terminated JSON objects, one call at a time per connection,
 * replies in call order (UAPI.20 "Varlink IPC").  Interfaces are described by
 * their IDL text; the server parses it once and checks every call's parameters
 * against it before a handler runs, so handlers see well-typed input only.
 *
 * File descriptors may travel with a message in both directions (SCM_RIGHTS,
 * sent with the message's first bytes); a parameter names one by its index
 * among those of its message.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <json-c/json.h>
#include <systemd/sd-event.h>

#define VARLINK_MESSAGE_MAX      (16u * 1024 * 1024)
/* File descriptors passed with one message, and waiting in messages not yet served. */
#define VARLINK_FDS_PER_MESSAGE_MAX 16u
#define VARLINK_FDS_QUEUED_MAX      64u

#define VARLINK_ERROR_INTERFACE_NOT_FOUND   "org.varlink.service.InterfaceNotFound"
#define VARLINK_ERROR_METHOD_NOT_FOUND      "org.varlink.service.MethodNotFound"
#define VARLINK_ERROR_METHOD_NOT_IMPLEMENTED "org.varlink.service.MethodNotImplemented"
#define VARLINK_ERROR_INVALID_PARAMETER     "org.varlink.service.InvalidParameter"
#define VARLINK_ERROR_PERMISSION_DENIED     "org.varlink.service.PermissionDenied"
#define VARLINK_ERROR_EXPECTED_MORE         "org.varlink.service.ExpectedMore"

/* Call flags, as on the wire. */
enum {
	VARLINK_CALL_ONEWAY = 1u << 0,
	VARLINK_CALL_MORE   = 1u << 1,
};

struct varlink_server;
struct varlink_connection;
struct varlink_call;

/*
 * A handler owns the call until it sends the final reply or error, which it may
 * do later (the call is then kept with varlink_call_ref()).  It returns 0, or a
 * negative errno when it failed without replying; the server then answers with
 * the server's errno error (see varlink_server_set_errno_error()).
 * params is the call's until the handler returns: then the server wipes every
 * string in it (a parameter may be a secret), so a handler copies what it keeps.
 */
typedef int (*varlink_method_fn)(struct varlink_call *call, struct json_object *params,
				 void *userdata);

/*
 * A copy of params that a handler keeps past its return (to run the call
 * again later), and its end, which wipes its strings as the server would.
 */
struct json_object *varlink_params_keep(struct json_object *params);
void varlink_params_drop(struct json_object *kept);

enum {
	VARLINK_METHOD_REQUIRES_MORE = 1u << 0, /* answer ExpectedMore to calls without more */
	/* Changes state.  Refused when the server has no authorizer. */
	VARLINK_METHOD_PRIVILEGED    = 1u << 1,
	/* Open to every peer that can connect: the authorizer is not asked. */
	VARLINK_METHOD_PUBLIC        = 1u << 2,
};
/* Flag bits left to the application: passed to its authorizer, ignored by the server. */
#define VARLINK_METHOD_APP(n) (1u << (16 + (n)))

struct varlink_method {
	const char *name;           /* unqualified, e.g. "Show" */
	varlink_method_fn fn;
	unsigned flags;
};

struct varlink_server_info {
	const char *vendor, *product, *version, *url;
};

/* Who is at the other end, as the kernel said when the peer connected. */
struct varlink_peer {
	struct ucred cred;          /* SO_PEERCRED: pid, uid, gid */
	const gid_t *groups;        /* SO_PEERGROUPS: supplementary groups */
	size_t n_groups;
	/* Which of its connections: what the application knows of it (attached, say). */
	const struct varlink_connection *conn;
};

/* The peer's primary or one of its supplementary groups is gid. */
bool varlink_peer_in_group(const struct varlink_peer *peer, gid_t gid);

/*
 * Asked before every call of a method without VARLINK_METHOD_PUBLIC, before its
 * parameters are checked; flags are the method's.  Returns true to let the
 * call run, false to answer org.varlink.service.PermissionDenied.  Without an
 * authorizer, every method but the VARLINK_METHOD_PRIVILEGED ones runs.
 */
typedef bool (*varlink_authorize_fn)(const struct varlink_peer *peer, const char *method,
				     unsigned flags, void *userdata);
typedef void (*varlink_close_fn)(struct varlink_connection *conn, void *userdata);

int varlink_server_new(struct varlink_server **out, sd_event *event,
		       const struct varlink_server_info *info);
struct varlink_server *varlink_server_free(struct varlink_server *server);

/* idl is the interface description text; methods ends with a { NULL } entry. */
int varlink_server_add_interface(struct varlink_server *server, const char *idl,
				 const struct varlink_method *methods, void *userdata);
int varlink_server_listen_fd(struct varlink_server *server, int fd);
/*
 * Binds path.  A socket file nobody answers on is replaced; -EADDRINUSE when a
 * server answers there, -EEXIST when path is not a socket (left alone).
 */
int varlink_server_listen_path(struct varlink_server *server, const char *path, mode_t mode);

/*
 * What a server lets its clients hold (rdmad.conf(5) documents the daemon's
 * settings of each).  Times are in microseconds, 0 for never.
 */
struct varlink_limits {
	unsigned max_connections;
	unsigned max_per_uid;          /* of every uid but root */
	unsigned reserved_for_root;    /* of max_connections: the last ones, root's alone */
	/* A connection's calls wait while more reply bytes than this wait to be sent... */
	size_t output_budget;
	uint64_t output_timeout_usec;  /* ...and it is closed when that lasts this long. */
	/* A message begun and not finished for this long closes its connection. */
	uint64_t incomplete_timeout_usec;
	/* A connection of a uid but root with no call, no bytes, for this long is closed. */
	uint64_t idle_timeout_usec;
	/* All connections' buffers: past it, no input buffer grows beyond 64 KiB. */
	size_t buffer_budget;
	/*
	 * Of buffer_budget, what the connections of one uid but root may hold
	 * together, and the last bytes, root's alone: no uid's input buffer
	 * grows beyond 64 KiB past either.  VARLINK_LIMIT_DERIVED: from the
	 * budget (varlink_limits_derive()).
	 */
	size_t buffer_per_uid;
	size_t buffer_reserved_for_root;
};

#define VARLINK_LIMIT_DERIVED SIZE_MAX

#define VARLINK_USEC_PER_SEC 1000000ull
#define VARLINK_LIMITS_DEFAULT ((struct varlink_limits) {			\
	.max_connections = 4096,						\
	.max_per_uid = 64,							\
	.reserved_for_root = 16,						\
	.output_budget = 1024 * 1024,						\
	.output_timeout_usec = 10 * VARLINK_USEC_PER_SEC,			\
	.incomplete_timeout_usec = 30 * VARLINK_USEC_PER_SEC,			\
	.idle_timeout_usec = 60 * VARLINK_USEC_PER_SEC,				\
	.buffer_budget = 256u * 1024 * 1024,					\
	.buffer_per_uid = VARLINK_LIMIT_DERIVED,				\
	.buffer_reserved_for_root = VARLINK_LIMIT_DERIVED,			\
})

/*
 * Sets the fields left VARLINK_LIMIT_DERIVED: root's reserve an eighth of the
 * budget (at the default 256 MiB, 32 MiB: the buffer of one message of
 * VARLINK_MESSAGE_MAX), a uid's share a quarter of it, or what the reserve
 * leaves when that is less.
 */
void varlink_limits_derive(struct varlink_limits *limits);

/* What the limits did since the server started, and what connections hold now. */
struct varlink_server_stats {
	unsigned open;
	size_t buffered_bytes;              /* allocated to connections' input and output buffers */
	uint64_t refused_limit;             /* connections over max_connections, max_per_uid, or root's */
	/* Connections whose message would pass buffer_budget (for other uids than root, its reserve)... */
	uint64_t refused_memory_budget;
	uint64_t refused_buffer_per_uid;    /* ... or their uid's share of it */
	uint64_t closed_output_budget;      /* replies left unread past output_timeout_usec */
	uint64_t closed_incomplete_timeout;
	uint64_t closed_idle;
};

/* Applies to connections open now too; one over a new per-uid limit is not closed. */
void varlink_server_set_limits(struct varlink_server *server, const struct varlink_limits *limits);
const struct varlink_limits *varlink_server_limits(const struct varlink_server *server);
void varlink_server_stats(const struct varlink_server *server, struct varlink_server_stats *stats);
/* Bytes the buffers of uid's connections hold now. */
size_t varlink_server_uid_buffered(const struct varlink_server *server, uid_t uid);
void varlink_server_set_authorizer(struct varlink_server *server, varlink_authorize_fn fn,
				   void *userdata);
/* The error sent when a handler returns -errno: NAME(errno: int, errnoName: string). */
void varlink_server_set_errno_error(struct varlink_server *server, const char *error_name);
/* Called for every connection that closes, e.g. to give back what its client held. */
void varlink_server_set_close_hook(struct varlink_server *server, varlink_close_fn fn,
				   void *userdata);
unsigned varlink_server_connections(const struct varlink_server *server);

/* Replies.  reply and error take ownership of params (may be NULL). */
int varlink_call_reply(struct varlink_call *call, struct json_object *params);
int varlink_call_reply_more(struct varlink_call *call, struct json_object *params);
int varlink_call_error(struct varlink_call *call, const char *error, struct json_object *params);
int varlink_call_error_invalid_parameter(struct varlink_call *call, const char *parameter);
int varlink_call_error_errno(struct varlink_call *call, int negative_errno);

bool varlink_call_wants_more(const struct varlink_call *call);
bool varlink_call_is_oneway(const struct varlink_call *call);
const char *varlink_call_method(const struct varlink_call *call);
const struct ucred *varlink_call_peer(const struct varlink_call *call);
/* The same with the supplementary groups, as the authorizer sees them; valid while the call is. */
struct varlink_peer varlink_call_credentials(const struct varlink_call *call);
struct varlink_connection *varlink_call_connection(struct varlink_call *call);

/*
 * Work that belongs to a change, on the server's change turn: it runs after
 * the reads that wait, in order with the change calls held for their turn
 * (reads before changes, rdmad's docs/decisions.md).  For what a change still
 * has to do on the loop after its handler, answering it once it is durable.
 * Queued work runs once; at the server's end it runs before the connections
 * close.
 */
struct varlink_turn {
	struct varlink_turn *prev, *next;
	void (*run)(struct varlink_turn *turn);
};

void varlink_call_queue_turn(struct varlink_call *call, struct varlink_turn *turn);

/* A call kept beyond its handler; on_cancel runs if its connection goes away first. */
struct varlink_call *varlink_call_ref(struct varlink_call *call);
struct varlink_call *varlink_call_unref(struct varlink_call *call);
void varlink_call_set_cancel(struct varlink_call *call, void (*on_cancel)(struct varlink_call *, void *),
			     void *userdata);

/*
 * The file descriptors passed with the call's message, by index.  peek: still
 * the call's, closed when the call ends (its final reply, or its connection
 * going away).  take: the caller's from then on.  -ENXIO when there is none at i.
 */
int varlink_call_peek_fd(const struct varlink_call *call, unsigned i);
int varlink_call_take_fd(struct varlink_call *call, unsigned i);
unsigned varlink_call_n_fds(const struct varlink_call *call);
/*
 * fd goes out with the call's next reply or error and is the call's from now
 * on (closed once sent, or when no reply carries it).  -ENOBUFS past
 * VARLINK_FDS_PER_MESSAGE_MAX and -EALREADY after the final reply: fd then
 * stays the caller's.
 */
int varlink_call_push_fd(struct varlink_call *call, int fd);

const struct ucred *varlink_connection_peer(const struct varlink_connection *conn);
/* The peer of conn, with its groups (valid while conn is). */
struct varlink_peer varlink_connection_peer_groups(const struct varlink_connection *conn);
/*
 * A connection kept open however long it sits idle, whoever its peer: one
 * that a program keeps while it works elsewhere (through shared memory, say).
 */
void varlink_connection_keep_open(struct varlink_connection *conn);

/* ---- client (blocking) ---- */

struct varlink_client;

#include <signal.h>

/* address: "unix:/path", "unix:@abstract" or a plain path. */
int varlink_client_connect(struct varlink_client **out, const char *address);
/*
 * A stream socket connected to address, for a program that relays the
 * bytes itself (rdmactl --bridge): the descriptor, or -errno.
 */
int varlink_connect_fd(const char *address);
/*
 * A client of a program that speaks varlink on its standard input and
 * output, started here (argv[0] looked up in PATH) with a pipe for each:
 * `ssh HOST rdmactl --bridge`.  Its standard error is this process's.  Such
 * a connection carries no file descriptors (-EOPNOTSUPP for a call that
 * passes some); the child is ended and reaped with the client.  -ENOENT (or
 * another errno) when the program cannot be started.
 */
int varlink_client_connect_exec(struct varlink_client **out, char *const argv[]);
/*
 * How the program of a varlink_client_connect_exec() connection ended: its
 * wait status in *status, after waiting at most timeout_ms for it to end;
 * -ETIMEDOUT when it still runs, -ECHILD for a connection to a socket.
 */
int varlink_client_child_status(struct varlink_client *client, int timeout_ms, int *status);
struct varlink_client *varlink_client_free(struct varlink_client *client);
/* The server has closed the connection (a call on it would fail), e.g. as idle. */
bool varlink_client_hung_up(const struct varlink_client *client);
/*
 * While *flag is set (by a signal handler installed without SA_RESTART), a
 * wait for a reply ends with -EINTR, whether it had begun or not, so an
 * interactive client can stop a long call; the connection must then be
 * closed (the reply may still come).  NULL (the default): waits go on.
 */
void varlink_client_set_interrupt(struct varlink_client *client,
				  const volatile sig_atomic_t *flag);

int varlink_client_send(struct varlink_client *client, const char *method,
			struct json_object *params, unsigned flags);
/*
 * The same, passing n_fds descriptors (at most VARLINK_FDS_PER_MESSAGE_MAX)
 * with the call; they stay the caller's.  -E2BIG past the limit.
 */
int varlink_client_send_fds(struct varlink_client *client, const char *method,
			    struct json_object *params, unsigned flags, const int *fds,
			    unsigned n_fds);
/*
 * Reads one reply.  On success *params is the reply's parameters (owned by the
 * caller, never NULL), *error the error name or NULL (owned by the caller), and
 * *continues whether more replies follow.  timeout_ms < 0 waits forever.
 * Returns -EPROTO on a malformed reply (or file descriptors against the rules
 * of lib/varlink/fds.h), -ECONNRESET when the server closed,
 * -ETIMEDOUT on timeout, -EINTR when interrupted (interruptible clients).
 */
int varlink_client_read(struct varlink_client *client, struct json_object **params, char **error,
			bool *continues, int timeout_ms);
/* send + read for a plain call. */
int varlink_client_call(struct varlink_client *client, const char *method,
			struct json_object *params, struct json_object **reply, char **error);
int varlink_client_call_fds(struct varlink_client *client, const char *method,
			    struct json_object *params, const int *fds, unsigned n_fds,
			    struct json_object **reply, char **error);
/*
 * The file descriptors that came with the reply read last, as for a call:
 * peek leaves them the client's (closed at the next read), take hands one over.
 */
int varlink_client_peek_fd(const struct varlink_client *client, unsigned i);
int varlink_client_take_fd(struct varlink_client *client, unsigned i);
unsigned varlink_client_n_fds(const struct varlink_client *client);

/* ---- helpers shared by server and client ---- */

/* Serialises as the wire wants it: no whitespace, no "\/". */
const char *varlink_json_string(struct json_object *obj, size_t *len);
