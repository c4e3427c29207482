/* SPDX-License-Identifier: MIT */
/*
 * Varlink server on sd-event: the server object, its interfaces, limits and
 * settings, and the sockets it listens on and accepts connections from.
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
 * uid and in all, with the last few kept for root (here); unsent replies, past
 * which its calls wait and, after a while, it is closed; an unfinished
 * message's time and, past 64 KiB, its share of a budget for all buffers
 * (its uid's share, and never root's reserve of it); and for other uids than
 * root, how long a connection may sit idle (connection.c, timeouts.c).  Every
 * input message is wiped once parsed, and the strings of its call once the
 * handler returned: a parameter may be key material (dispatch.c).
 *
 * The parts: server.c (this), connection.c (a connection's I/O and buffers),
 * timeouts.c (the connections' deadlines), dispatch.c (a message to its
 * method), call.c (a call's replies), turns.c (changes after reads),
 * service.c (org.varlink.service); server-internal.h is what they share.
 */
#include "lib/varlink/varlink.h"
#include "lib/varlink/idl.h"
#include "lib/varlink/server-internal.h"
#include "lib/log.h"
#include "lib/unix_listen.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

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
	r = timeouts_init(server);
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
	struct ucred peer;
	socklen_t len = sizeof(peer);
	int cfd;

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
	if (conn_new(server, cfd, &peer) < 0)
		close(cfd);
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

int varlink_server_listen_path(struct varlink_server *server, const char *path, mode_t mode)
{
	int fd = unix_listen_path(path, mode), r;

	if (fd < 0)
		return fd;
	r = varlink_server_listen_fd(server, fd);
	if (r < 0)
		close(fd);
	return r;
}
