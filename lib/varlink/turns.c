/* SPDX-License-Identifier: MIT */
/*
 * Reads before changes.  A call of a method that changes state
 * (VARLINK_METHOD_PRIVILEGED) does not run when its connection is read: it is
 * held, and the server's change turn runs the held calls one per turn, in the
 * order they were read, together with the work the application queued for
 * changes (varlink_call_queue_turn: answering them once durable).  The turn's
 * event source ranks below the connections, so it runs (WORK_PER_IDLE_TURN
 * pieces) when no connection has anything to read; and after READS_PER_CHANGE
 * reads while change work waited, it ranks above them for one piece.  Under a load of changes a read waits for
 * at most one piece of change work beside the reads ahead of it, and changes
 * still get one turn in READS_PER_CHANGE + 1 under a load of reads
 * (docs/decisions.md, "Reads before changes").
 */
#include "lib/varlink/server-internal.h"

#include <stddef.h>
#include <string.h>

#define READS_PER_CHANGE 8
#define WORK_PER_IDLE_TURN 4
#define PRIORITY_TURN    (SD_EVENT_PRIORITY_NORMAL + 1)
#define PRIORITY_OVERDUE (SD_EVENT_PRIORITY_NORMAL - 1)

static void turn_rank(struct varlink_server *server, int64_t priority)
{
	if (server->turn_priority != priority) {
		server->turn_priority = priority;
		sd_event_source_set_priority(server->turn, priority);
	}
}

static void queue(struct varlink_server *server, struct varlink_turn *t)
{
	t->prev = server->turns_tail;
	t->next = NULL;
	if (server->turns_tail)
		server->turns_tail->next = t;
	else
		server->turns_head = t;
	server->turns_tail = t;
	sd_event_source_set_enabled(server->turn, SD_EVENT_ONESHOT);
}

static void unqueue(struct varlink_server *server, struct varlink_turn *t)
{
	if (t->prev)
		t->prev->next = t->next;
	else
		server->turns_head = t->next;
	if (t->next)
		t->next->prev = t->prev;
	else
		server->turns_tail = t->prev;
	t->prev = t->next = NULL;
}

static struct varlink_connection *conn_of(struct varlink_turn *t)
{
	return (struct varlink_connection *)((char *)t - offsetof(struct varlink_connection, turn));
}

/* A held change's turn: it runs, then what its client sent after it. */
static void run_held(struct varlink_turn *t)
{
	struct varlink_connection *conn = conn_of(t);
	struct json_object *msg = conn->held;
	struct varlink_fds fds = conn->held_fds;

	conn->held = NULL;
	conn->held_fds = (struct varlink_fds){ 0 };
	conn_ref(conn);
	conn_run_message(conn, msg, &fds);
	conn_process(conn);
	conn_unref(conn);
}

/*
 * Ranked below the connections, the turn runs when the loop has just found
 * no connection to read: a few pieces of work then, as a read that comes
 * meanwhile waits for them all.  Overdue, it runs one.
 */
static int on_change_turn(sd_event_source *s, void *userdata)
{
	struct varlink_server *server = userdata;
	unsigned n = server->turn_priority == PRIORITY_OVERDUE ? 1 : WORK_PER_IDLE_TURN;

	server->reads_waited = 0;
	turn_rank(server, PRIORITY_TURN);
	for (struct varlink_turn *t; n-- && (t = server->turns_head);) {
		unqueue(server, t);
		t->run(t);
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

void turns_finish(struct varlink_server *server)
{
	struct varlink_turn *t = server->turns_head;

	while (t) {
		struct varlink_turn *next = t->next;

		if (t->run == run_held) {
			t = next;
			continue;
		}
		unqueue(server, t);
		t->run(t);
		/* What it ran may have queued or dropped others: start again. */
		t = server->turns_head;
	}
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
	conn->held = msg;
	conn->held_fds = *fds;
	*fds = (struct varlink_fds){ 0 };
	conn->turn.run = run_held;
	queue(conn->server, &conn->turn);
}

void turns_drop(struct varlink_connection *conn)
{
	struct json_object *msg = conn->held;

	if (!msg)
		return;
	unqueue(conn->server, &conn->turn);
	conn->held = NULL;
	varlink_fds_close(&conn->held_fds);
	varlink_json_wipe_strings(msg);
	json_object_put(msg);
}

void varlink_call_queue_turn(struct varlink_call *call, struct varlink_turn *turn)
{
	queue(call->conn->server, turn);
}
