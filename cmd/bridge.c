/* SPDX-License-Identifier: MIT */
/*
 * rdmactl --bridge: what ssh runs for `rdmactl -H` on the far host.  Standard
 * input goes to rdmad's socket, and the socket's bytes to standard output,
 * untouched: the daemon checks every message as it would from a local
 * client, and sees this process (the ssh user) as its peer.
 */
#include "cmd/remote.h"
#include "lib/varlink/varlink.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define BRIDGE_BUFFER (64 * 1024)

/* One direction: bytes read from `from`, not yet written to `to`. */
struct pipe_half {
	int from, to;
	char buf[BRIDGE_BUFFER];
	size_t start, len;
	bool eof;                 /* from has ended */
	bool done;                /* and all it gave is written; to was told */
};

/*
 * Neither side waits for the other: a direction whose buffer is full stops
 * reading, never blocks writing, so replies flow while calls queue up.
 */
static int step_read(struct pipe_half *h)
{
	ssize_t n = read(h->from, h->buf + h->len, sizeof(h->buf) - h->len);

	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : -errno;
	if (n == 0)
		h->eof = true;
	h->len += (size_t)n;
	return 0;
}

static int step_write(struct pipe_half *h)
{
	ssize_t n = write(h->to, h->buf + h->start, h->len - h->start);

	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : -errno;
	h->start += (size_t)n;
	if (h->start == h->len)
		h->start = h->len = 0;
	return 0;
}

/* The end of the input reached the output: a socket's peer hears it, a pipe is closed. */
static void finish(struct pipe_half *h)
{
	if (h->done || !h->eof || h->len > 0)
		return;
	if (shutdown(h->to, SHUT_WR) < 0 && errno == ENOTSOCK)
		close(h->to);
	h->done = true;
}

static void set_nonblocking(int fd)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags >= 0)
		fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

static int relay(struct pipe_half *up, struct pipe_half *down)
{
	struct pipe_half *h[2] = { up, down };

	/* The daemon's end of the stream ends the bridge; ours lets its replies finish. */
	while (!down->done) {
		struct pollfd pfd[4];
		int n = 0, in[2] = { -1, -1 }, out[2] = { -1, -1 };

		for (int i = 0; i < 2; i++) {
			if (!h[i]->eof && h[i]->len < sizeof(h[i]->buf)) {
				in[i] = n;
				pfd[n++] = (struct pollfd) { .fd = h[i]->from, .events = POLLIN };
			}
			if (h[i]->len > 0) {
				out[i] = n;
				pfd[n++] = (struct pollfd) { .fd = h[i]->to, .events = POLLOUT };
			}
		}
		if (n == 0)
			break;
		if (poll(pfd, (nfds_t)n, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (int i = 0; i < 2; i++) {
			int r = 0;

			if (out[i] >= 0 && pfd[out[i]].revents)
				r = step_write(h[i]);
			if (r == 0 && in[i] >= 0 && pfd[in[i]].revents)
				r = step_read(h[i]);
			if (r < 0)
				return r;
			finish(h[i]);
		}
	}
	return 0;
}

int cmd_bridge_run(const char *socket_path)
{
	static struct pipe_half up, down;
	int sock, r;

	/* ssh gone, a write to standard output fails (EPIPE) and the bridge ends. */
	signal(SIGPIPE, SIG_IGN);
	sock = varlink_connect_fd(socket_path);
	if (sock < 0) {
		ctl_say_connect_error(socket_path, sock);
		return EXIT_FAIL;
	}
	up = (struct pipe_half) { .from = STDIN_FILENO, .to = sock };
	down = (struct pipe_half) { .from = sock, .to = STDOUT_FILENO };
	/* A write of more than there is room for must not wait: poll() said only "some room". */
	set_nonblocking(STDIN_FILENO);
	set_nonblocking(STDOUT_FILENO);
	set_nonblocking(sock);
	r = relay(&up, &down);
	close(sock);
	if (r < 0) {
		fprintf(stderr, "rdmactl: --bridge: %s\n", strerror(-r));
		return EXIT_FAIL;
	}
	return EXIT_OK;
}
