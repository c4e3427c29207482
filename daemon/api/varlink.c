/* SPDX-License-Identifier: MIT */
/*
 * The daemon's varlink service: the server on the manager's event loop, every
 * io.rdmad.* interface registered, and the socket it listens on (the one
 * systemd passed, else its own).  The manager knows none of this; rdmad's
 * main calls api_varlink_init once the manager has started.
 */
#include "daemon/api/api.h"
#include "lib/log.h"

#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

static int listen_varlink(struct manager *m)
{
	char **names = NULL;
	int n, r = 0, used = 0;

	n = sd_listen_fds_with_names(1, &names);
	if (n < 0)
		return log_error_errno(n, "cannot read passed sockets");
	for (int i = 0; i < n; i++) {
		int fd = SD_LISTEN_FDS_START + i;

		if (r == 0 && names && (strcmp(names[i], "varlink") == 0 ||
					(n == 1 && strcmp(names[i], "unknown") == 0))) {
			r = sd_is_socket_unix(fd, SOCK_STREAM, 1, NULL, 0);
			if (r <= 0) {
				log_error("passed fd %d (%s) is not a listening AF_UNIX stream socket",
					  fd, names[i]);
				r = -EBADF;
			} else {
				r = varlink_server_listen_fd(m->varlink, fd);
				used++;
			}
		} else {
			close(fd);
		}
		free(names ? names[i] : NULL);
	}
	free(names);
	if (r < 0)
		return r;
	if (n > 0) {
		if (!used)
			return log_error_errno(-EBADF, "socket activation passed no socket named 'varlink'");
		m->socket_activated = true;
		log_info("listening on the socket passed by the service manager");
		return 0;
	}

	/* Our own socket: its directory first (as /run/rdmad would be made by tmpfiles). */
	{
		char *dir = strdup(m->socket_path);

		if (!dir)
			return -ENOMEM;
		if (mkdir(dirname(dir), 0755) < 0 && errno != EEXIST)
			log_warning_errno(-errno, "cannot create %s", dir);
		free(dir);
	}
	r = varlink_server_listen_path(m->varlink, m->socket_path, 0660);
	if (r == -EADDRINUSE) {
		log_error("%s: another daemon answers on this socket", m->socket_path);
		return r;
	}
	if (r == -EEXIST) {
		log_error("%s exists and is not a socket; not removing it", m->socket_path);
		return r;
	}
	if (r < 0)
		return log_error_errno(r, "cannot listen on %s", m->socket_path);
	m->socket_bound = true;
	log_info("listening on %s", m->socket_path);
	return 0;
}

int api_varlink_init(struct manager *m)
{
	static const struct varlink_server_info info = {
		.vendor = "rdmad project",
		.product = "rdmad",
		.version = RDMAD_VERSION,
		.url = "man:rdmad(8)",
	};
	int r = varlink_server_new(&m->varlink, m->event, &info);

	if (r < 0)
		return log_error_errno(r, "cannot create the varlink server");
	varlink_server_set_limits(m->varlink, &m->config.limits);
	r = api_register(m);
	if (r < 0)
		return log_error_errno(r, "cannot register the varlink interfaces");
	return listen_varlink(m);
}

void api_varlink_free(struct manager *m)
{
	m->varlink = varlink_server_free(m->varlink);
	api_monitor_free(m);
	if (m->socket_bound)
		unlink(m->socket_path);
	m->socket_bound = false;
}
