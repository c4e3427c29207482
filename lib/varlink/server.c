/* SPDX-License-Identifier: MIT */
/*
 * Varlink server on sd-event.
 *
 * Each connection runs one call at a time: the next message is not read from
 * the input buffer until the current call has sent its final reply, which is
 * what keeps pipelined calls answered in order.  Protocol violations (bad JSON,
 * unknown keys, conflicting flags, an oversized message) close the connection;
 * everything else is answered with an error and the connection goes on.
 * File descriptors that came with a message belong to its call, and are
 * closed when the call ends unless its handler took them.
 *
 * What a client may hold is bounded (struct varlink_limits): connections per
 * uid and in all, with the last few kept for root; unsent replies, past
 * which its calls wait and, after a while, it is closed; an unfinished
 * message's time and, past 64 KiB, its share of a budget for all buffers
 * (its uid's share, and never root's reserve of it); and for other uids
 * than root, how long a connection may sit idle.  Every
 * input message is wiped once parsed, and the strings of its call once the
 * handler returned: a parameter may be key material.
 */
#include "lib/varlink/varlink.h"
#include "lib/varlink/buffer.h"
#include "lib/varlink/fds.h"
#include "lib/varlink/idl.h"
#include "lib/varlink/server-internal.h"
#include "lib/log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* A read asks for room for this much at least (most calls fit), and reads at most READ_CHUNK. */
#define READ_MIN   VARLINK_BUFFER_MIN
#define READ_CHUNK (64 * 1024)
/* Timeouts strike within this much after their time. */
#define SWEEP_ACCURACY_USEC (100 * 1000)

enum conn_timeout {
	TIMEOUT_NONE,
	TIMEOUT_INCOMPLETE,
	TIMEOUT_OUTPUT,
	TIMEOUT_IDLE,
};

static void conn_close(struct varlink_connection *conn);
static int on_sweep(sd_event_source *s, uint64_t usec, void *userdata);
static uint64_t server_now(const struct varlink_server *server);

/* ---- server ---- */

int varlink_server_new(struct varlink_server **out, sd_event *event,
		       const struct varlink_server_info *info)
{
	struct varlink_server *server = calloc(1, sizeof(*server));
	int r;

	if (!server)
		return -ENOMEM;
	server->event = sd_event_ref(event);
	server->info = *info;
	server->limits = VARLINK_LIMITS_DEFAULT;
	varlink_limits_derive(&server->limits);
	r = sd_event_add_time(event, &server->sweep, CLOCK_MONOTONIC, 0, SWEEP_ACCURACY_USEC,
			      on_sweep, server);
	if (r >= 0)
		r = sd_event_source_set_enabled(server->sweep, SD_EVENT_OFF);
	if (r >= 0)
		r = turns_init(server);
	if (r >= 0)
		r = varlink_service_register(server);
	if (r < 0) {
		varlink_server_free(server);
		return r;
	}
	*out = server;
	return 0;
}

struct varlink_server *varlink_server_free(struct varlink_server *server)
{
	if (!server)
		return NULL;
	turns_finish(server);
	while (server->connections)
		conn_close(server->connections);
	sd_event_source_disable_unref(server->sweep);
	turns_release(server);
	for (size_t i = 0; i < server->n_listeners; i++)
		sd_event_source_disable_unref(server->listeners[i]);
	free(server->listeners);
	for (size_t i = 0; i < server->n_interfaces; i++)
		idl_interface_free(server->interfaces[i].idl);
	free(server->interfaces);
	free(server->errno_error);
	sd_event_unref(server->event);
	free(server);
	return NULL;
}

int varlink_server_add_interface(struct varlink_server *server, const char *idl_text,
				 const struct varlink_method *methods, void *userdata)
{
	struct varlink_interface *v;
	struct idl_interface *idl;
	char *msg = NULL;
	int r;

	r = idl_parse(idl_text, &idl, &msg);
	if (r < 0) {
		log_error("varlink: interface description does not parse: %s", msg ? msg : "?");
		free(msg);
		return r;
	}
	if (varlink_server_find_interface(server, idl->name)) {
		idl_interface_free(idl);
		return -EEXIST;
	}
	for (const struct varlink_method *m = methods; m && m->name; m++)
		if (!idl_find(idl, IDL_MEMBER_METHOD, m->name)) {
			log_error("varlink: %s.%s has a handler but no description", idl->name, m->name);
			idl_interface_free(idl);
			return -EINVAL;
		}
	v = realloc(server->interfaces, (server->n_interfaces + 1) * sizeof(*v));
	if (!v) {
		idl_interface_free(idl);
		return -ENOMEM;
	}
	server->interfaces = v;
	server->interfaces[server->n_interfaces++] = (struct varlink_interface) {
		.idl = idl, .text = idl_text, .methods = methods, .userdata = userdata,
	};
	return 0;
}

const struct varlink_interface *varlink_server_find_interface_n(const struct varlink_server *server,
								const char *name, size_t len)
{
	for (size_t i = 0; i < server->n_interfaces; i++) {
		const char *n = server->interfaces[i].idl->name;

		if (strncmp(n, name, len) == 0 && n[len] == '\0')
			return &server->interfaces[i];
	}
	return NULL;
}

const struct varlink_interface *varlink_server_find_interface(const struct varlink_server *server,
							      const char *name)
{
	return varlink_server_find_interface_n(server, name, strlen(name));
}

const struct varlink_method *varlink_interface_find_method(const struct varlink_interface *iface,
							   const char *name)
{
	for (const struct varlink_method *m = iface->methods; m && m->name; m++)
		if (strcmp(m->name, name) == 0)
			return m;
	return NULL;
}

void varlink_limits_derive(struct varlink_limits *l)
{
	if (l->buffer_reserved_for_root == VARLINK_LIMIT_DERIVED)
		l->buffer_reserved_for_root = l->buffer_budget / 8;
	if (l->buffer_per_uid == VARLINK_LIMIT_DERIVED) {
		size_t left = l->buffer_budget > l->buffer_reserved_for_root ?
			      l->buffer_budget - l->buffer_reserved_for_root : 0;

		l->buffer_per_uid = l->buffer_budget / 4 < left ? l->buffer_budget / 4 : left;
	}
}

void varlink_server_set_limits(struct varlink_server *server, const struct varlink_limits *limits)
{
	uint64_t now = server_now(server);

	server->limits = *limits;
	varlink_limits_derive(&server->limits);
	/*
	 * Each connection looks again at its budget and its deadlines, from its
	 * next turn; its idle time starts now, as it was not kept without an
	 * idle timeout.
	 */
	for (struct varlink_connection *c = server->connections; c; c = c->next) {
		c->active_usec = now;
		sd_event_source_set_enabled(c->defer, SD_EVENT_ONESHOT);
	}
}

const struct varlink_limits *varlink_server_limits(const struct varlink_server *server)
{
	return &server->limits;
}

void varlink_server_stats(const struct varlink_server *server, struct varlink_server_stats *stats)
{
	*stats = server->stats;
	stats->open = server->n_connections;
	stats->buffered_bytes = server->buffered;
}

void varlink_server_set_authorizer(struct varlink_server *server, varlink_authorize_fn fn,
				   void *userdata)
{
	server->authorize = fn;
	server->authorize_data = userdata;
}

void varlink_server_set_errno_error(struct varlink_server *server, const char *error_name)
{
	free(server->errno_error);
	server->errno_error = error_name ? strdup(error_name) : NULL;
}

void varlink_server_set_close_hook(struct varlink_server *server, varlink_close_fn fn,
				   void *userdata)
{
	server->close_hook = fn;
	server->close_data = userdata;
}

unsigned varlink_server_connections(const struct varlink_server *server)
{
	return server->n_connections;
}

/* ---- timeouts ---- */

/*
 * One timer for the server, at the earliest deadline of any connection,
 * rather than one per connection: a deadline moves with every byte and
 * every call, and moving a timer is a priority-queue update each time.  A
 * deadline is a timestamp in its connection instead, and the timer is only
 * moved earlier; when it fires early (the deadline it was set for moved on)
 * it costs one walk of the connections, at most one per timeout period.
 */
static uint64_t server_now(const struct varlink_server *server)
{
	uint64_t usec = 0;

	sd_event_now(server->event, CLOCK_MONOTONIC, &usec);
	return usec;
}

static void server_wake_at(struct varlink_server *server, uint64_t usec)
{
	int r;

	if (server->sweep_at && server->sweep_at <= usec)
		return;
	r = sd_event_source_set_time(server->sweep, usec);
	if (r >= 0)
		r = sd_event_source_set_enabled(server->sweep, SD_EVENT_ONESHOT);
	if (r < 0) {
		log_warning_errno(r, "varlink: cannot arm the connections' timer");
		return;
	}
	server->sweep_at = usec;
}

/* The idle timeout is for every uid but root's, and not for a connection kept open. */
static bool conn_may_idle_out(const struct varlink_connection *conn)
{
	return conn->peer.uid != 0 && !conn->keep_open && conn->server->limits.idle_timeout_usec;
}

void varlink_connection_keep_open(struct varlink_connection *conn)
{
	conn->keep_open = true;
}

/* Something happened on conn: its idle time starts again (only read when it may idle out). */
void conn_touch(struct varlink_connection *conn)
{
	if (conn_may_idle_out(conn))
		conn->active_usec = server_now(conn->server);
}

/* Neither a call nor a byte in either direction, and the idle timeout is for its uid. */
static bool conn_idle(const struct varlink_connection *conn)
{
	return conn_may_idle_out(conn) && !conn->call && varlink_buffer_pending(&conn->in) == 0 &&
	       varlink_buffer_pending(&conn->out) == 0;
}

static uint64_t deadline(uint64_t since, uint64_t timeout)
{
	return since && timeout ? since + timeout : UINT64_MAX;
}

/* conn's earliest deadline (UINT64_MAX for none), and in *which what it is for. */
static uint64_t conn_deadline(const struct varlink_connection *conn, enum conn_timeout *which)
{
	const struct varlink_limits *l = &conn->server->limits;
	const uint64_t at[] = {
		[TIMEOUT_NONE] = UINT64_MAX,
		[TIMEOUT_INCOMPLETE] = deadline(conn->partial_usec, l->incomplete_timeout_usec),
		[TIMEOUT_OUTPUT] = deadline(conn->over_usec, l->output_timeout_usec),
		[TIMEOUT_IDLE] = conn_idle(conn) ? deadline(conn->active_usec, l->idle_timeout_usec) :
						  UINT64_MAX,
	};

	*which = TIMEOUT_NONE;
	for (unsigned i = 1; i < sizeof(at) / sizeof(at[0]); i++)
		if (at[i] < at[*which])
			*which = i;
	return at[*which];
}

static void conn_schedule(struct varlink_connection *conn)
{
	enum conn_timeout which;
	uint64_t at = conn_deadline(conn, &which);

	if (at != UINT64_MAX)
		server_wake_at(conn->server, at);
}

static unsigned long long seconds(uint64_t usec)
{
	return usec / VARLINK_USEC_PER_SEC;
}

static void conn_time_out(struct varlink_connection *conn, enum conn_timeout which)
{
	struct varlink_server *server = conn->server;
	const struct varlink_limits *l = &server->limits;
	int pid = (int)conn->peer.pid;

	switch (which) {
	case TIMEOUT_INCOMPLETE:
		log_warning("varlink: pid %d left a message unfinished for %llu s (%zu bytes), closing",
			    pid, seconds(l->incomplete_timeout_usec), varlink_buffer_pending(&conn->in));
		server->stats.closed_incomplete_timeout++;
		break;
	case TIMEOUT_OUTPUT:
		log_warning("varlink: pid %d left over %zu bytes of replies unread for %llu s, closing",
			    pid, l->output_budget, seconds(l->output_timeout_usec));
		server->stats.closed_output_budget++;
		break;
	case TIMEOUT_IDLE:
		log_debug("varlink: connection of pid %d uid %u idle for %llu s, closing", pid,
			  (unsigned)conn->peer.uid, seconds(l->idle_timeout_usec));
		server->stats.closed_idle++;
		break;
	case TIMEOUT_NONE:
		return;
	}
	conn_close(conn);
}

static int on_sweep(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct varlink_server *server = userdata;
	struct varlink_connection *conn, *next;
	uint64_t now = server_now(server), earliest = UINT64_MAX;

	server->sweep_at = 0;
	for (conn = server->connections; conn; conn = next) {
		enum conn_timeout which;
		uint64_t at = conn_deadline(conn, &which);

		next = conn->next;
		if (at <= now)
			conn_time_out(conn, which);
		else if (at < earliest)
			earliest = at;
	}
	if (earliest != UINT64_MAX)
		server_wake_at(server, earliest);
	return 0;
}

/* ---- connections ---- */

/* Updates conn's part of the bytes that all connections' buffers hold. */
static void conn_account(struct varlink_connection *conn)
{
	size_t now = conn->in.cap + conn->out.cap;

	conn->server->buffered = conn->server->buffered - conn->accounted + now;
	conn->accounted = now;
}

/* Gives back what a large message took once it is through, and counts what is left. */
static void conn_trim(struct varlink_connection *conn)
{
	varlink_buffer_shrink(&conn->in, VARLINK_BUFFER_KEEP);
	varlink_buffer_shrink(&conn->out, VARLINK_BUFFER_KEEP);
	conn_account(conn);
}

static bool conn_output_over(const struct varlink_connection *conn)
{
	return varlink_buffer_pending(&conn->out) > conn->server->limits.output_budget;
}

struct varlink_connection *conn_ref(struct varlink_connection *conn)
{
	conn->ref++;
	return conn;
}

void conn_unref(struct varlink_connection *conn)
{
	if (!conn || --conn->ref > 0)
		return;
	varlink_buffer_release(&conn->in);
	varlink_buffer_release(&conn->out);
	varlink_fd_queue_release(&conn->in_fds);
	varlink_fd_queue_release(&conn->out_fds);
	free(conn->groups);
	free(conn);
}

const struct ucred *varlink_connection_peer(const struct varlink_connection *conn)
{
	return &conn->peer;
}

struct varlink_peer varlink_connection_peer_groups(const struct varlink_connection *conn)
{
	return (struct varlink_peer){
		.cred = conn->peer, .groups = conn->groups, .n_groups = conn->n_groups, .conn = conn,
	};
}

static void conn_close(struct varlink_connection *conn)
{
	struct varlink_server *server = conn->server;
	struct varlink_call *call = conn->call;

	if (conn->dead)
		return;
	conn->dead = true;
	conn->io = sd_event_source_disable_unref(conn->io);
	conn->defer = sd_event_source_disable_unref(conn->defer);
	turns_drop(conn);
	close(conn->fd);
	conn->fd = -1;
	/* The buffers go now, not with the last reference a kept call may hold. */
	varlink_buffer_release(&conn->in);
	varlink_buffer_release(&conn->out);
	conn_account(conn);
	if (conn->prev)
		conn->prev->next = conn->next;
	else
		server->connections = conn->next;
	if (conn->next)
		conn->next->prev = conn->prev;
	server->n_connections--;

	/* Whoever keeps an unfinished call learns that nobody will read its reply. */
	conn->call = NULL;
	if (call && !call->done) {
		call->done = true;
		/* Before on_cancel, which may drop the last reference. */
		call_close_fds(call);
		if (call->on_cancel)
			call->on_cancel(call, call->cancel_data);
	}
	if (server->close_hook)
		server->close_hook(conn, server->close_data);
	log_debug("varlink: connection of pid %d closed", (int)conn->peer.pid);
	conn_unref(conn);
}

static int conn_flush(struct varlink_connection *conn)
{
	while (varlink_buffer_pending(&conn->out) > 0) {
		ssize_t n = varlink_send(conn->fd, &conn->out, &conn->out_fds, MSG_DONTWAIT);

		if (n == -EINTR)
			continue;
		if (n == -EAGAIN)
			return 0;
		if (n < 0)
			return (int)n;
		conn_touch(conn);
	}
	return 0;
}

/* Its clock runs while the server reads: a client cannot finish a message that is not read. */
static void conn_time_partial(struct varlink_connection *conn, bool reading)
{
	const struct varlink_buffer *in = &conn->in;

	if (!reading || varlink_buffer_pending(in) == 0 || in->data[in->len - 1] == '\0')
		conn->partial_usec = 0;
	else if (!conn->partial_usec)
		conn->partial_usec = server_now(conn->server);
}

/*
 * Stop reading while a full message waits behind a call in progress, or while
 * the next message's descriptors might pass the bound (and, in
 * conn_update_events(), while the client leaves more replies unread than its
 * budget).
 */
static bool conn_may_read(const struct varlink_connection *conn)
{
	return !conn->eof && varlink_buffer_pending(&conn->in) <= VARLINK_MESSAGE_MAX &&
	       conn->in_fds.n_fds <= VARLINK_FDS_QUEUED_MAX - VARLINK_FDS_PER_MESSAGE_MAX;
}

/*
 * The watch is edge-triggered: epoll reports a connection once when it
 * becomes ready, not again on every turn of the loop while it waits for its
 * dispatch among many (which made each turn cost as much as the number of
 * busy connections).  So a read goes on until the socket is empty or reading
 * stops; a watch changed to read again looks at the socket at once.
 */
void conn_update_events(struct varlink_connection *conn)
{
	bool over, reading;
	uint32_t events;

	if (conn->dead)
		return;
	over = conn_output_over(conn);
	if (!over)
		conn->over_usec = 0;
	else if (!conn->over_usec)
		conn->over_usec = server_now(conn->server);
	reading = !over && conn_may_read(conn);
	events = EPOLLET | (reading ? EPOLLIN : 0) | (varlink_buffer_pending(&conn->out) > 0 ? EPOLLOUT : 0);
	/* A socket read to its end makes a new edge when bytes come: else the watch is armed again. */
	if (events != conn->io_events || !conn->drained) {
		sd_event_source_set_io_events(conn->io, events);
		conn->io_events = events;
	}
	conn_time_partial(conn, reading);
	conn_trim(conn);
	conn_schedule(conn);

	/* A client that closed its side is done once everything it asked is answered. */
	if (conn->eof && !conn->call && !conn->held && varlink_buffer_pending(&conn->out) == 0) {
		size_t len;

		if (!varlink_buffer_next_message(&conn->in, &len))
			conn_close(conn);
	}
}

/* Sends msg with fds (moved out of *fds when queued). */
int conn_send(struct varlink_connection *conn, struct json_object *msg, struct varlink_fds *fds)
{
	/*
	 * Its calls wait while it is over its output budget, so only a stream
	 * (more) can take it this far: one message past the budget at most.
	 */
	size_t most = conn->server->limits.output_budget + VARLINK_MESSAGE_MAX;
	int r;

	if (conn->dead)
		return -ENOTCONN;
	if (varlink_buffer_pending(&conn->out) > most ||
	    conn->out_fds.n_fds + fds->n > VARLINK_FDS_QUEUED_MAX) {
		log_warning("varlink: client pid %d does not read its replies, closing",
			    (int)conn->peer.pid);
		conn->server->stats.closed_output_budget++;
		conn_close(conn);
		return -ENOBUFS;
	}
	r = varlink_queue_message(&conn->out, &conn->out_fds, msg, fds);
	if (r < 0)
		return r;
	r = conn_flush(conn);
	if (r < 0) {
		conn_close(conn);
		return r;
	}
	return 0;
}

static int on_defer(sd_event_source *s, void *userdata)
{
	conn_process(userdata);
	return 0;
}

/* ---- dispatch ---- */

/* The flags of a call, or -EBADMSG when the call object breaks the protocol. */
static int parse_call_object(struct json_object *msg, const char **method,
			     struct json_object **params, unsigned *flags, bool *upgrade)
{
	struct json_object *m = NULL;
	int set = 0;

	*params = NULL;
	*flags = 0;
	*upgrade = false;
	json_object_object_foreach(msg, key, val) {
		bool is_flag = true;
		unsigned bit = 0;

		if (strcmp(key, "method") == 0) {
			m = val;
			is_flag = false;
		} else if (strcmp(key, "parameters") == 0) {
			if (val && !json_object_is_type(val, json_type_object))
				return -EBADMSG;
			*params = val;
			is_flag = false;
		} else if (strcmp(key, "oneway") == 0) {
			bit = VARLINK_CALL_ONEWAY;
		} else if (strcmp(key, "more") == 0) {
			bit = VARLINK_CALL_MORE;
		} else if (strcmp(key, "upgrade") == 0) {
			bit = 0;
		} else if (strchr(key, '.')) {
			is_flag = false; /* a vendor extension, ignored */
		} else {
			return -EBADMSG;
		}
		if (!is_flag)
			continue;
		if (!json_object_is_type(val, json_type_boolean))
			return -EBADMSG;
		if (!json_object_get_boolean(val))
			continue;
		set++;
		if (bit)
			*flags |= bit;
		else
			*upgrade = true;
	}
	if (set > 1 || !m || !json_object_is_type(m, json_type_string))
		return -EBADMSG;
	*method = json_object_get_string(m);
	/* "A.B\u0000junk" would be A.B to every C string function: no method has such a name. */
	if (strlen(*method) != (size_t)json_object_get_string_len(m))
		return -EBADMSG;
	return 0;
}

bool varlink_peer_in_group(const struct varlink_peer *peer, gid_t gid)
{
	if (peer->cred.gid == gid)
		return true;
	for (size_t i = 0; i < peer->n_groups; i++)
		if (peer->groups[i] == gid)
			return true;
	return false;
}

static bool authorized(const struct varlink_connection *conn, const struct varlink_method *handler,
		       const char *method)
{
	const struct varlink_server *server = conn->server;
	struct varlink_peer peer = varlink_connection_peer_groups(conn);

	if (handler->flags & VARLINK_METHOD_PUBLIC)
		return true;
	if (!server->authorize)
		return !(handler->flags & VARLINK_METHOD_PRIVILEGED);
	return server->authorize(&peer, method, handler->flags, server->authorize_data);
}

/* The call of msg, which fds came with (the call's from here on). */
static int dispatch(struct varlink_connection *conn, struct json_object *msg, struct varlink_fds *fds)
{
	struct varlink_server *server = conn->server;
	const struct varlink_method *handler = NULL;
	struct json_object *params;
	struct varlink_call *call;
	const char *method, *dot;
	char path[256];
	unsigned flags;
	bool upgrade;
	char *iface_name;
	int r;

	if (parse_call_object(msg, &method, &params, &flags, &upgrade) < 0) {
		varlink_fds_close(fds);
		return -EBADMSG;
	}

	call = calloc(1, sizeof(*call));
	if (!call) {
		varlink_fds_close(fds);
		return -ENOMEM;
	}
	call->ref = 1;
	call->conn = conn_ref(conn);
	call->flags = flags;
	call->fds = *fds;
	call->method = strdup(method);
	if (!call->method) {
		varlink_call_unref(call);
		return -ENOMEM;
	}
	conn->call = call;

	dot = strrchr(method, '.');
	iface_name = dot ? strndup(method, (size_t)(dot - method)) : strdup("");
	call->iface = iface_name ? varlink_server_find_interface(server, iface_name) : NULL;
	if (upgrade) {
		/* No method here speaks another protocol after its reply. */
		varlink_call_error_invalid_parameter(call, "upgrade");
	} else if (!call->iface) {
		varlink_call_error_string(call, VARLINK_ERROR_INTERFACE_NOT_FOUND, "interface",
				  iface_name ? iface_name : "");
	} else if (!(call->member = idl_find(call->iface->idl, IDL_MEMBER_METHOD, dot + 1))) {
		varlink_call_error_string(call, VARLINK_ERROR_METHOD_NOT_FOUND, "method", method);
	} else {
		handler = varlink_interface_find_method(call->iface, dot + 1);
		if (!handler)
			varlink_call_error_string(call, VARLINK_ERROR_METHOD_NOT_IMPLEMENTED, "method", method);
		else if ((handler->flags & VARLINK_METHOD_REQUIRES_MORE) && !(flags & VARLINK_CALL_MORE))
			varlink_call_error(call, VARLINK_ERROR_EXPECTED_MORE, NULL);
		else if (!authorized(conn, handler, method))
			/* Before the parameters: a refused caller learns nothing of them. */
			varlink_call_error(call, VARLINK_ERROR_PERMISSION_DENIED, NULL);
		else if (idl_validate_call(call->member->in, params, path, sizeof(path)) < 0)
			varlink_call_error_invalid_parameter(call, path);
		else {
			r = handler->fn(call, params, call->iface->userdata);
			if (r < 0 && !call->done)
				varlink_call_error_errno(call, r);
			else if (!call->done && call->ref == 1) {
				/* Neither answered nor kept: the caller would wait forever. */
				log_error("varlink: %s returned without a reply", method);
				varlink_call_error_errno(call, -EIO);
			}
		}
	}
	free(iface_name);
	varlink_call_unref(call);
	return 0;
}

void conn_run_message(struct varlink_connection *conn, struct json_object *msg,
		      struct varlink_fds *fds)
{
	int r;

	if (msg) {
		r = dispatch(conn, msg, fds);
	} else {
		varlink_fds_close(fds);
		r = -EBADMSG;
	}
	varlink_json_wipe_strings(msg);
	json_object_put(msg);
	if (r < 0) {
		log_debug("varlink: protocol error from pid %d, closing", (int)conn->peer.pid);
		conn_close(conn);
	}
}

void conn_process(struct varlink_connection *conn)
{
	conn_ref(conn);
	while (!conn->dead && !conn->call && !conn->held && !conn_output_over(conn)) {
		struct json_object *msg;
		struct varlink_fds fds;
		const char *data;
		size_t len;

		data = varlink_buffer_next_message(&conn->in, &len);
		if (!data) {
			if (varlink_buffer_pending(&conn->in) > VARLINK_MESSAGE_MAX) {
				log_warning("varlink: message from pid %d exceeds %u bytes, closing",
					    (int)conn->peer.pid, VARLINK_MESSAGE_MAX);
				conn_close(conn);
			}
			break;
		}
		msg = len <= VARLINK_MESSAGE_MAX ? varlink_parse_message(data, len) : NULL;
		varlink_fd_queue_take(&conn->in_fds, conn->in.base, &fds);
		varlink_buffer_consume_wipe(&conn->in, len + 1);
		if (msg && turns_message_changes(conn->server, msg)) {
			turns_hold(conn, msg, &fds);
		} else {
			conn_run_message(conn, msg, &fds);
			turns_note_read(conn->server);
		}
	}
	conn_update_events(conn);
	conn_unref(conn);
}

size_t varlink_server_uid_buffered(const struct varlink_server *server, uid_t uid)
{
	size_t n = 0;

	for (const struct varlink_connection *c = server->connections; c; c = c->next)
		if (c->peer.uid == uid)
			n += c->accounted;
	return n;
}

/* Whether held bytes may take more and stay within limit. */
static bool fits(size_t held, size_t more, size_t limit)
{
	return held <= limit && more <= limit - held;
}

/*
 * Whether conn's input buffer may grow by more bytes.  Root's may take the
 * whole budget; another uid's may take its uid's share, and never the last
 * buffer_reserved_for_root: neither one user nor all of them together can
 * hold what root's large calls need.  A refusal is logged and counted.
 */
static bool conn_may_grow(struct varlink_connection *conn, size_t more)
{
	struct varlink_server *server = conn->server;
	const struct varlink_limits *l = &server->limits;
	unsigned uid = (unsigned)conn->peer.uid;
	size_t budget = l->buffer_budget, own;

	if (uid != 0)
		budget = budget > l->buffer_reserved_for_root ? budget - l->buffer_reserved_for_root : 0;
	if (!fits(server->buffered, more, budget)) {
		log_warning("varlink: a message of pid %d uid %u would take the connections' buffers "
			    "past %zu bytes (%s; %zu bytes of it so far), closing",
			    (int)conn->peer.pid, uid, budget,
			    uid ? "what root's reserve leaves of their budget" : "their budget",
			    varlink_buffer_pending(&conn->in));
		server->stats.refused_memory_budget++;
		return false;
	}
	if (uid == 0)
		return true;
	own = varlink_server_uid_buffered(server, conn->peer.uid);
	if (!fits(own, more, l->buffer_per_uid)) {
		log_warning("varlink: a message of pid %d would take the buffers of uid %u past its "
			    "share of %zu bytes (%zu held; %zu bytes of the message so far), closing",
			    (int)conn->peer.pid, uid, l->buffer_per_uid, own,
			    varlink_buffer_pending(&conn->in));
		server->stats.refused_buffer_per_uid++;
		return false;
	}
	return true;
}

/*
 * Room for the next read.  An input buffer grows past VARLINK_BUFFER_KEEP
 * only for a message that long, and only within the buffer budget of all
 * connections (conn_may_grow()): past it, the connection whose message needs
 * more is closed, and nothing else is disturbed.
 */
static int conn_make_room(struct varlink_connection *conn)
{
	size_t cap = varlink_buffer_capacity_for(&conn->in, READ_MIN);

	if (cap > VARLINK_BUFFER_KEEP && cap > conn->in.cap &&
	    !conn_may_grow(conn, cap - conn->in.cap))
		return -ENOBUFS;
	return varlink_buffer_reserve(&conn->in, READ_MIN);
}

/*
 * n bytes came at p: the connection is active, and when a message began
 * among them and is not finished, its time runs from now (see
 * conn_time_partial() for one that goes on).
 */
static void conn_note_input(struct varlink_connection *conn, const char *p, size_t n)
{
	conn_touch(conn);
	if (p[n - 1] != '\0' && memrchr(p, '\0', n))
		conn->partial_usec = server_now(conn->server);
}

/* One read: 1 when bytes came (there may be more), 0 when none is there or at the end, or -errno. */
static int conn_read(struct varlink_connection *conn)
{
	size_t room;
	ssize_t n;
	int r = conn_make_room(conn);

	if (r < 0)
		return r;
	room = conn->in.cap - conn->in.len;
	do
		n = varlink_recv(conn->fd, &conn->in, &conn->in_fds,
				 room < READ_CHUNK ? room : READ_CHUNK, MSG_DONTWAIT);
	while (n == -EINTR);
	if (n == -EAGAIN) {
		conn->drained = true;
		return 0;
	}
	conn->drained = false;
	if (n == -EPROTO)
		log_warning("varlink: pid %d passed file descriptors with no message's first bytes, "
			    "closing", (int)conn->peer.pid);
	else if (n == -ETOOMANYREFS)
		log_warning("varlink: pid %d passed more file descriptors than %u with a message or %u "
			    "waiting, closing", (int)conn->peer.pid, VARLINK_FDS_PER_MESSAGE_MAX,
			    VARLINK_FDS_QUEUED_MAX);
	if (n < 0)
		return (int)n;
	if (n == 0)
		conn->eof = true;
	else
		conn_note_input(conn, conn->in.data + conn->in.len - n, (size_t)n);
	conn_account(conn);
	return n > 0;
}

static int on_connection_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct varlink_connection *conn = userdata;

	if (revents & EPOLLOUT) {
		if (conn_flush(conn) < 0) {
			conn_close(conn);
			return 0;
		}
	}
	if (revents & EPOLLIN) {
		int r;

		while ((r = conn_read(conn)) > 0 && conn_may_read(conn))
			;
		if (r < 0) {
			conn_close(conn);
			return 0;
		}
	} else if (revents & (EPOLLHUP | EPOLLERR)) {
		conn_close(conn);
		return 0;
	}
	conn_process(conn);
	return 0;
}

static unsigned connections_of_uid(const struct varlink_server *server, uid_t uid)
{
	unsigned n = 0;

	for (const struct varlink_connection *c = server->connections; c; c = c->next)
		n += c->peer.uid == uid;
	return n;
}

/*
 * Root may take every connection; any other uid its own share, and none of
 * the last reserved_for_root, so that no group of users locks root out.
 */
static bool may_connect(const struct varlink_server *server, uid_t uid)
{
	const struct varlink_limits *l = &server->limits;

	if (server->n_connections >= l->max_connections)
		return false;
	if (uid == 0)
		return true;
	return server->n_connections + l->reserved_for_root < l->max_connections &&
	       connections_of_uid(server, uid) < l->max_per_uid;
}

/*
 * The peer's supplementary groups as they were at connect(), like SO_PEERCRED:
 * race-free, unlike reading /proc/PID later.  A kernel without SO_PEERGROUPS
 * leaves the list empty, and only the primary group counts.
 */
static void read_peer_groups(struct varlink_connection *conn)
{
	socklen_t len = 64 * sizeof(gid_t);

	for (int attempt = 0; attempt < 4; attempt++) {
		gid_t *groups = realloc(conn->groups, len);

		if (!groups)
			break;
		conn->groups = groups;
		if (getsockopt(conn->fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) == 0) {
			conn->n_groups = len / sizeof(gid_t);
			return;
		}
		if (errno != ERANGE) {
			log_debug("varlink: cannot read the groups of pid %d: %s",
				  (int)conn->peer.pid, strerror(errno));
			break;
		}
	}
	conn->n_groups = 0;
}

/*
 * A flood of connections must not flood the journal: one warning a second at
 * most, counting those refused in between (all are in refused_limit).
 */
static void log_refusal(struct varlink_server *server, const struct ucred *peer)
{
	uint64_t now = server_now(server);

	if (server->refusal_logged_usec && now - server->refusal_logged_usec < VARLINK_USEC_PER_SEC)
		return;
	log_warning("varlink: connection limit reached, refusing pid %d uid %u "
		    "(%llu refused in all)", (int)peer->pid, (unsigned)peer->uid,
		    (unsigned long long)server->stats.refused_limit);
	server->refusal_logged_usec = now;
}

static int on_accept(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct varlink_server *server = userdata;
	struct varlink_connection *conn;
	struct ucred peer;
	socklen_t len = sizeof(peer);
	int cfd, r;

	cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (cfd < 0) {
		if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
			log_warning_errno(-errno, "varlink: accept failed");
		return 0;
	}
	if (getsockopt(cfd, SOL_SOCKET, SO_PEERCRED, &peer, &len) < 0) {
		log_warning_errno(-errno, "varlink: cannot read peer credentials");
		close(cfd);
		return 0;
	}
	if (!may_connect(server, peer.uid)) {
		server->stats.refused_limit++;
		log_refusal(server, &peer);
		close(cfd);
		return 0;
	}
	conn = calloc(1, sizeof(*conn));
	if (!conn) {
		close(cfd);
		return 0;
	}
	conn->ref = 1;
	conn->server = server;
	conn->fd = cfd;
	conn->peer = peer;
	conn->active_usec = server_now(server);
	read_peer_groups(conn);
	r = sd_event_add_io(server->event, &conn->io, cfd, EPOLLIN | EPOLLET, on_connection_io, conn);
	conn->io_events = EPOLLIN | EPOLLET;
	if (r >= 0)
		r = sd_event_add_defer(server->event, &conn->defer, on_defer, conn);
	if (r >= 0)
		r = sd_event_source_set_enabled(conn->defer, SD_EVENT_OFF);
	if (r < 0) {
		log_warning_errno(r, "varlink: cannot watch connection");
		sd_event_source_disable_unref(conn->io);
		sd_event_source_disable_unref(conn->defer);
		close(cfd);
		free(conn);
		return 0;
	}
	conn->next = server->connections;
	if (conn->next)
		conn->next->prev = conn;
	server->connections = conn;
	server->n_connections++;
	conn_schedule(conn);
	log_debug("varlink: connection from pid %d uid %u", (int)peer.pid, (unsigned)peer.uid);
	return 0;
}

int varlink_server_listen_fd(struct varlink_server *server, int fd)
{
	sd_event_source **v, *src;
	int r;

	v = realloc(server->listeners, (server->n_listeners + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	server->listeners = v;
	r = sd_event_add_io(server->event, &src, fd, EPOLLIN, on_accept, server);
	if (r < 0)
		return r;
	sd_event_source_set_io_fd_own(src, 1);
	server->listeners[server->n_listeners++] = src;
	return 0;
}

/* A socket file nobody answers on is left over from a dead daemon. */
static int socket_path_in_use(const struct sockaddr_un *addr, socklen_t len)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int r;

	if (fd < 0)
		return -errno;
	r = connect(fd, (const struct sockaddr *)addr, len) == 0 ? 1 : 0;
	close(fd);
	return r;
}

int varlink_server_listen_path(struct varlink_server *server, const char *path, mode_t mode)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	socklen_t len;
	mode_t old_umask;
	int fd, r;

	if (strlen(path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	strcpy(addr.sun_path, path);
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path) + 1);

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	old_umask = umask(~mode & 0777);
	r = bind(fd, (struct sockaddr *)&addr, len);
	if (r < 0 && errno == EADDRINUSE) {
		struct stat st;

		if (lstat(path, &st) < 0 || !S_ISSOCK(st.st_mode)) {
			umask(old_umask);
			close(fd);
			return -EEXIST;
		}
		r = socket_path_in_use(&addr, len);
		if (r != 0) {
			umask(old_umask);
			close(fd);
			return -EADDRINUSE;
		}
		unlink(path);
		r = bind(fd, (struct sockaddr *)&addr, len);
	}
	umask(old_umask);
	if (r < 0 || listen(fd, SOMAXCONN) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	r = varlink_server_listen_fd(server, fd);
	if (r < 0)
		close(fd);
	return r;
}
