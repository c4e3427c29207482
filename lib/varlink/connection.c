/* SPDX-License-Identifier: MIT */
/*
 * A connection: accepted into the server, its socket read into its input
 * buffer and its replies written out of its output buffer, within the
 * limits of what its buffers may hold, and closed.  The watch on its socket
 * is edge-triggered (conn_update_events()).
 */
#include "lib/varlink/varlink.h"
#include "lib/varlink/buffer.h"
#include "lib/varlink/fds.h"
#include "lib/varlink/server-internal.h"
#include "lib/log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

/* A read asks for room for this much at least (most calls fit), and reads at most READ_CHUNK. */
#define READ_MIN   VARLINK_BUFFER_MIN
#define READ_CHUNK (64 * 1024)

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

bool conn_output_over(const struct varlink_connection *conn)
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

void conn_close(struct varlink_connection *conn)
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
 * Stop reading while a whole message waits to be run, or while the next
 * message's descriptors might pass the bound (and, in conn_update_events(),
 * while the client leaves more replies unread than its budget).  A client
 * that pipelines calls faster than they run is held back by its own socket,
 * not by our memory: what is read ahead is one read's worth, whatever the
 * race between its writes and our reads.  (The buffer remembers how far it
 * looked for the end of a message, so asking again costs only new bytes.)
 */
static bool conn_may_read(struct varlink_connection *conn)
{
	size_t len;

	return !conn->eof && varlink_buffer_pending(&conn->in) <= VARLINK_MESSAGE_MAX &&
	       !varlink_buffer_next_message(&conn->in, &len) &&
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

int conn_new(struct varlink_server *server, int fd, const struct ucred *peer)
{
	struct varlink_connection *conn = calloc(1, sizeof(*conn));
	int r;

	if (!conn)
		return -ENOMEM;
	conn->ref = 1;
	conn->server = server;
	conn->fd = fd;
	conn->peer = *peer;
	conn->active_usec = server_now(server);
	read_peer_groups(conn);
	r = sd_event_add_io(server->event, &conn->io, fd, EPOLLIN | EPOLLET, on_connection_io, conn);
	conn->io_events = EPOLLIN | EPOLLET;
	if (r >= 0)
		r = sd_event_add_defer(server->event, &conn->defer, on_defer, conn);
	if (r >= 0)
		r = sd_event_source_set_enabled(conn->defer, SD_EVENT_OFF);
	if (r < 0) {
		log_warning_errno(r, "varlink: cannot watch connection");
		sd_event_source_disable_unref(conn->io);
		sd_event_source_disable_unref(conn->defer);
		free(conn->groups);
		free(conn);
		return r;
	}
	conn->next = server->connections;
	if (conn->next)
		conn->next->prev = conn;
	server->connections = conn;
	server->n_connections++;
	conn_schedule(conn);
	log_debug("varlink: connection from pid %d uid %u", (int)peer->pid, (unsigned)peer->uid);
	return 0;
}
