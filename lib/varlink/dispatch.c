/* SPDX-License-Identifier: MIT */
/*
 * From a connection's input buffer to a method: each whole message is
 * parsed, wiped, and either held for the change turn (turns.c) or
 * dispatched: its interface and method found, the caller authorized, its
 * parameters checked against the IDL, and the handler called.  A message
 * that breaks the protocol closes its connection.
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
