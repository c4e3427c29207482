/* SPDX-License-Identifier: MIT */
/*
 * A call as its handler sees it: what came with it, and its replies.  A call
 * ends with its final reply (or error), and its connection then reads the
 * next message; a handler that keeps the call (varlink_call_ref) answers it
 * later, or learns through its cancel hook that nobody will read the reply.
 */
#include "lib/varlink/varlink.h"
#include "lib/varlink/server-internal.h"
#include "lib/log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void call_close_fds(struct varlink_call *call)
{
	varlink_fds_close(&call->fds);
	varlink_fds_close(&call->reply_fds);
}

struct varlink_call *varlink_call_ref(struct varlink_call *call)
{
	call->ref++;
	return call;
}

struct varlink_call *varlink_call_unref(struct varlink_call *call)
{
	if (!call || --call->ref > 0)
		return NULL;
	call_close_fds(call);
	conn_unref(call->conn);
	free(call->method);
	free(call);
	return NULL;
}

void varlink_call_set_cancel(struct varlink_call *call, void (*on_cancel)(struct varlink_call *, void *),
			     void *userdata)
{
	call->on_cancel = on_cancel;
	call->cancel_data = userdata;
}

bool varlink_call_wants_more(const struct varlink_call *call)
{
	return call->flags & VARLINK_CALL_MORE;
}

bool varlink_call_is_oneway(const struct varlink_call *call)
{
	return call->flags & VARLINK_CALL_ONEWAY;
}

const char *varlink_call_method(const struct varlink_call *call)
{
	return call->method;
}

const struct ucred *varlink_call_peer(const struct varlink_call *call)
{
	return &call->conn->peer;
}

struct varlink_peer varlink_call_credentials(const struct varlink_call *call)
{
	return (struct varlink_peer) {
		.cred = call->conn->peer, .groups = call->conn->groups, .n_groups = call->conn->n_groups,
	};
}

struct varlink_connection *varlink_call_connection(struct varlink_call *call)
{
	return call->conn;
}

int varlink_call_peek_fd(const struct varlink_call *call, unsigned i)
{
	return varlink_fds_peek(&call->fds, i);
}

int varlink_call_take_fd(struct varlink_call *call, unsigned i)
{
	return varlink_fds_take(&call->fds, i);
}

unsigned varlink_call_n_fds(const struct varlink_call *call)
{
	return call->fds.n;
}

int varlink_call_push_fd(struct varlink_call *call, int fd)
{
	if (call->done)
		return -EALREADY;
	return varlink_fds_add(&call->reply_fds, fd);
}

/* Ends the call; the connection may then read its next message. */
static void call_finish(struct varlink_call *call)
{
	struct varlink_connection *conn = call->conn;

	call->done = true;
	varlink_fds_close(&call->fds);
	if (conn->call != call)
		return;
	conn->call = NULL;
	conn_touch(conn);
	if (!conn->dead)
		sd_event_source_set_enabled(conn->defer, SD_EVENT_ONESHOT);
}

static int call_send(struct varlink_call *call, struct json_object *params, const char *error,
		     bool continues)
{
	struct json_object *msg;
	int r;

	if (call->done) {
		json_object_put(params);
		return call->conn->dead ? -ENOTCONN : -EALREADY;
	}
	if (continues && !(call->flags & VARLINK_CALL_MORE)) {
		/* A streaming reply to a caller that did not ask for more is a handler bug. */
		json_object_put(params);
		return -EINVAL;
	}
	if (!continues)
		call_finish(call);
	if (call->flags & VARLINK_CALL_ONEWAY) {
		json_object_put(params);
		varlink_fds_close(&call->reply_fds);
		return 0;
	}
	if (!error && call->member && params) {
		char path[256];

		if (idl_validate(call->member->out, params, path, sizeof(path)) < 0)
			log_error("varlink: reply of %s does not match its description at '%s'",
				  call->method, path);
	}

	msg = json_object_new_object();
	if (!msg) {
		json_object_put(params);
		varlink_fds_close(&call->reply_fds);
		return -ENOMEM;
	}
	if (error)
		json_object_object_add(msg, "error", json_object_new_string(error));
	json_object_object_add(msg, "parameters", params ? params : json_object_new_object());
	if (continues)
		json_object_object_add(msg, "continues", json_object_new_boolean(1));
	/*
	 * A send that closes the connection cancels its calls, whose cancel hook
	 * may drop the last reference to this one (a subscriber unsubscribed).
	 */
	varlink_call_ref(call);
	r = conn_send(call->conn, msg, &call->reply_fds);
	varlink_fds_close(&call->reply_fds); /* what did not go out */
	json_object_put(msg);
	if (!call->conn->dead)
		conn_update_events(call->conn);
	varlink_call_unref(call);
	return r;
}

int varlink_call_reply(struct varlink_call *call, struct json_object *params)
{
	return call_send(call, params, NULL, false);
}

int varlink_call_reply_more(struct varlink_call *call, struct json_object *params)
{
	return call_send(call, params, NULL, true);
}

int varlink_call_error(struct varlink_call *call, const char *error, struct json_object *params)
{
	return call_send(call, params, error, false);
}

int varlink_call_error_string(struct varlink_call *call, const char *error, const char *key,
			     const char *value)
{
	struct json_object *p = json_object_new_object();

	json_object_object_add(p, key, json_object_new_string(value));
	return varlink_call_error(call, error, p);
}

int varlink_call_error_invalid_parameter(struct varlink_call *call, const char *parameter)
{
	return varlink_call_error_string(call, VARLINK_ERROR_INVALID_PARAMETER, "parameter", parameter);
}

int varlink_call_error_errno(struct varlink_call *call, int negative_errno)
{
	struct varlink_server *server = call->conn->server;
	struct json_object *p = json_object_new_object();
	int err = negative_errno < 0 ? -negative_errno : negative_errno;
	const char *name = strerrorname_np(err);

	json_object_object_add(p, "errno", json_object_new_int(err));
	json_object_object_add(p, "errnoName", json_object_new_string(name ? name : "EIO"));
	return varlink_call_error(call, server->errno_error ? server->errno_error :
				  VARLINK_ERROR_METHOD_NOT_IMPLEMENTED, p);
}
