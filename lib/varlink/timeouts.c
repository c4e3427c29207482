/* SPDX-License-Identifier: MIT */
/*
 * The connections' deadlines: an unfinished message's, replies left unread
 * past the output budget, and an idle connection's (for every uid but
 * root's).  A connection past one is closed, and counted in the server's
 * stats.
 *
 * One timer for the server, at the earliest deadline of any connection,
 * rather than one per connection: a deadline moves with every byte and
 * every call, and moving a timer is a priority-queue update each time.  A
 * deadline is a timestamp in its connection instead, and the timer is only
 * moved earlier; when it fires early (the deadline it was set for moved on)
 * it costs one walk of the connections, at most one per timeout period.
 */
#include "lib/varlink/server-internal.h"
#include "lib/log.h"

/* Timeouts strike within this much after their time. */
#define SWEEP_ACCURACY_USEC (100 * 1000)

enum conn_timeout {
	TIMEOUT_NONE,
	TIMEOUT_INCOMPLETE,
	TIMEOUT_OUTPUT,
	TIMEOUT_IDLE,
};

uint64_t server_now(const struct varlink_server *server)
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

void conn_schedule(struct varlink_connection *conn)
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

int timeouts_init(struct varlink_server *server)
{
	int r = sd_event_add_time(server->event, &server->sweep, CLOCK_MONOTONIC, 0,
				  SWEEP_ACCURACY_USEC, on_sweep, server);

	if (r >= 0)
		r = sd_event_source_set_enabled(server->sweep, SD_EVENT_OFF);
	return r;
}
