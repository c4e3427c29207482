/* SPDX-License-Identifier: MIT */
/* Blocking varlink client: what rdmactl and the test tools talk through. */
#include "lib/varlink/varlink.h"
#include "lib/varlink/buffer.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

struct varlink_client {
	int fd;
	struct varlink_buffer in;
};

int varlink_client_connect(struct varlink_client **out, const char *address)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct varlink_client *client;
	const char *path = address;
	socklen_t len;
	size_t n;
	int fd;

	if (strncmp(path, "unix:", 5) == 0)
		path += 5;
	/* Text after ';' is a parameter extension (e.g. ";mode=0666"), not part of the path. */
	n = strcspn(path, ";");
	if (n == 0 || n >= sizeof(addr.sun_path))
		return -EINVAL;
	memcpy(addr.sun_path, path, n);
	if (addr.sun_path[0] == '@')
		addr.sun_path[0] = '\0';
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + (path[0] == '@' ? 0 : 1));

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&addr, len) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	client = calloc(1, sizeof(*client));
	if (!client) {
		close(fd);
		return -ENOMEM;
	}
	client->fd = fd;
	*out = client;
	return 0;
}

struct varlink_client *varlink_client_free(struct varlink_client *client)
{
	if (!client)
		return NULL;
	close(client->fd);
	varlink_buffer_release(&client->in);
	free(client);
	return NULL;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int varlink_client_send(struct varlink_client *client, const char *method,
			struct json_object *params, unsigned flags)
{
	struct json_object *msg = json_object_new_object();
	const char *s;
	size_t len;
	int r;

	if (!msg)
		return -ENOMEM;
	json_object_object_add(msg, "method", json_object_new_string(method));
	if (params)
		json_object_object_add(msg, "parameters", json_object_get(params));
	if (flags & VARLINK_CALL_ONEWAY)
		json_object_object_add(msg, "oneway", json_object_new_boolean(1));
	if (flags & VARLINK_CALL_MORE)
		json_object_object_add(msg, "more", json_object_new_boolean(1));
	s = varlink_json_string(msg, &len);
	r = s ? write_all(client->fd, s, len + 1) : -ENOMEM; /* with the NUL */
	json_object_put(msg);
	return r;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int fill(struct varlink_client *client, long long deadline)
{
	struct pollfd pfd = { .fd = client->fd, .events = POLLIN };
	ssize_t n;
	int r;

	if (deadline >= 0) {
		long long left = deadline - now_ms();

		r = poll(&pfd, 1, left > 0 ? (int)left : 0);
		if (r < 0)
			return errno == EINTR ? 0 : -errno;
		if (r == 0)
			return -ETIMEDOUT;
	}
	if (varlink_buffer_pending(&client->in) > VARLINK_MESSAGE_MAX)
		return -EMSGSIZE;
	r = varlink_buffer_reserve(&client->in, 64 * 1024);
	if (r < 0)
		return r;
	n = recv(client->fd, client->in.data + client->in.len, 64 * 1024, 0);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	if (n == 0)
		return -ECONNRESET;
	client->in.len += (size_t)n;
	return 0;
}

int varlink_client_read(struct varlink_client *client, struct json_object **params, char **error,
			bool *continues, int timeout_ms)
{
	long long deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
	struct json_object *msg, *p = NULL, *e = NULL, *c = NULL;
	const char *data;
	size_t len;
	int r;

	while (!(data = varlink_buffer_next_message(&client->in, &len))) {
		r = fill(client, deadline);
		if (r < 0)
			return r;
	}
	msg = varlink_parse_message(data, len);
	varlink_buffer_consume(&client->in, len + 1);
	if (!msg)
		return -EPROTO;

	json_object_object_get_ex(msg, "parameters", &p);
	json_object_object_get_ex(msg, "error", &e);
	json_object_object_get_ex(msg, "continues", &c);
	if ((p && !json_object_is_type(p, json_type_object)) ||
	    (e && !json_object_is_type(e, json_type_string)) ||
	    (c && !json_object_is_type(c, json_type_boolean))) {
		json_object_put(msg);
		return -EPROTO;
	}
	*params = p ? json_object_get(p) : json_object_new_object();
	*error = e ? strdup(json_object_get_string(e)) : NULL;
	*continues = c && json_object_get_boolean(c) && !e;
	json_object_put(msg);
	if (!*params || (e && !*error)) {
		json_object_put(*params);
		free(*error);
		return -ENOMEM;
	}
	return 0;
}

int varlink_client_call(struct varlink_client *client, const char *method,
			struct json_object *params, struct json_object **reply, char **error)
{
	bool continues;
	int r;

	r = varlink_client_send(client, method, params, 0);
	if (r < 0)
		return r;
	r = varlink_client_read(client, reply, error, &continues, -1);
	if (r < 0)
		return r;
	if (continues) {
		/* A server must not set continues without more. */
		json_object_put(*reply);
		free(*error);
		return -EPROTO;
	}
	return 0;
}
