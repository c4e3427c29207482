/* SPDX-License-Identifier: MIT */
/*
 * Reads before changes.  A call of a method that changes state
 * (VARLINK_METHOD_PRIVILEGED) does not run when its connection is read: it is
 * held, and the server's change turn runs the held calls one per turn, in the
 * order they were read.  The turn's event source ranks below the
 * connections, so it runs when no connection has anything to read; and after
 * READS_PER_CHANGE reads while a change waits, it ranks above them for one
 * turn.  Under a load of changes a read waits for at most one change beside
 * the reads ahead of it, and the changes still get one turn in
 * READS_PER_CHANGE + 1 under a load of reads (docs/decisions.md, "Reads before
 * changes").
 */
#include "lib/varlink/server-internal.h"

#include <string.h>

#define READS_PER_CHANGE 8
#define PRIORITY_TURN    (SD_EVENT_PRIORITY_NORMAL + 1)
#define PRIORITY_OVERDUE (SD_EVENT_PRIORITY_NORMAL - 1)

static void turn_rank(struct varlink_server *server, int64_t priority)
{
	if (server->turn_priority != priority) {
		server->turn_priority = priority;
		sd_event_source_set_priority(server->turn, priority);
	}
}

static int on_change_turn(sd_event_source *s, void *userdata)
{
	struct varlink_server *server = userdata;
	struct varlink_connection *conn = server->turns_head;

	server->reads_waited = 0;
	turn_rank(server, PRIORITY_TURN);
	if (conn) {
		struct json_object *msg = conn->held;
		struct varlink_fds fds = conn->held_fds;

		turns_remove(conn);
		conn_ref(conn);
		conn_run_message(conn, msg, &fds);
		/* What it sent after the change: reads run now, another change queues again. */
		conn_process(conn);
		conn_unref(conn);
	}
	if (server->turns_head)
		sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
	return 0;
}

void turns_note_read(struct varlink_server *server)
{
	if (server->turns_head && ++server->reads_waited >= READS_PER_CHANGE)
		turn_rank(server, PRIORITY_OVERDUE);
}

int turns_init(struct varlink_server *server)
{
	int r = sd_event_add_defer(server->event, &server->turn, on_change_turn, server);

	if (r >= 0)
		r = sd_event_source_set_priority(server->turn, PRIORITY_TURN);
	if (r >= 0)
		r = sd_event_source_set_enabled(server->turn, SD_EVENT_OFF);
	server->turn_priority = PRIORITY_TURN;
	return r;
}

void turns_release(struct varlink_server *server)
{
	server->turn = sd_event_source_disable_unref(server->turn);
}

/* The method msg calls changes state (unknown methods do not: their error is cheap). */
bool turns_message_changes(const struct varlink_server *server, struct json_object *msg)
{
	struct json_object *m;
	const char *method, *dot;
	const struct varlink_interface *iface;
	const struct varlink_method *handler;

	if (!json_object_object_get_ex(msg, "method", &m) || !json_object_is_type(m, json_type_string))
		return false;
	method = json_object_get_string(m);
	dot = strrchr(method, '.');
	if (!dot)
		return false;
	iface = varlink_server_find_interface_n(server, method, (size_t)(dot - method));
	handler = iface ? varlink_interface_find_method(iface, dot + 1) : NULL;
	return handler && (handler->flags & VARLINK_METHOD_PRIVILEGED);
}

void turns_hold(struct varlink_connection *conn, struct json_object *msg, struct varlink_fds *fds)
{
	struct varlink_server *server = conn->server;

	conn->held = msg;
	conn->held_fds = *fds;
	*fds = (struct varlink_fds){ 0 };
	conn->turn_prev = server->turns_tail;
	conn->turn_next = NULL;
	if (server->turns_tail)
		server->turns_tail->turn_next = conn;
	else
		server->turns_head = conn;
	server->turns_tail = conn;
	sd_event_source_set_enabled(server->turn, SD_EVENT_ONESHOT);
}

void turns_remove(struct varlink_connection *conn)
{
	struct varlink_server *server = conn->server;

	if (!conn->held)
		return;
	if (conn->turn_prev)
		conn->turn_prev->turn_next = conn->turn_next;
	else
		server->turns_head = conn->turn_next;
	if (conn->turn_next)
		conn->turn_next->turn_prev = conn->turn_prev;
	else
		server->turns_tail = conn->turn_prev;
	conn->turn_prev = conn->turn_next = NULL;
	conn->held = NULL;
	conn->held_fds = (struct varlink_fds){ 0 };
}

void turns_drop(struct varlink_connection *conn)
{
	struct json_object *msg = conn->held;
	struct varlink_fds fds = conn->held_fds;

	if (!msg)
		return;
	turns_remove(conn);
	varlink_fds_close(&fds);
	varlink_json_wipe_strings(msg);
	json_object_put(msg);
}
