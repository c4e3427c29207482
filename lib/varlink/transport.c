/* SPDX-License-Identifier: MIT */
/* The varlink client's two ways to its server: a socket, or the pipes of a child. */
#include "lib/varlink/transport.h"
#include "lib/varlink/varlink.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

int varlink_transport_connect(struct varlink_transport *t, const char *address)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
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
	*t = (struct varlink_transport) { .in_fd = fd, .out_fd = fd, .child_status = -1 };
	return 0;
}

int varlink_connect_fd(const char *address)
{
	struct varlink_transport t;
	int r = varlink_transport_connect(&t, address);

	return r < 0 ? r : t.in_fd;
}

int varlink_transport_spawn(struct varlink_transport *t, char *const argv[])
{
	int to_child[2], from_child[2];
	posix_spawn_file_actions_t actions;
	posix_spawnattr_t attr;
	sigset_t none, defaults;
	pid_t pid;
	int r;

	if (pipe2(to_child, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(from_child, O_CLOEXEC) < 0) {
		r = -errno;
		close(to_child[0]);
		close(to_child[1]);
		return r;
	}
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_adddup2(&actions, to_child[0], STDIN_FILENO);
	posix_spawn_file_actions_adddup2(&actions, from_child[1], STDOUT_FILENO);
	/* The child starts as a program does, whatever this process blocks or ignores. */
	posix_spawnattr_init(&attr);
	sigemptyset(&none);
	sigemptyset(&defaults);
	sigaddset(&defaults, SIGPIPE);
	sigaddset(&defaults, SIGINT);
	sigaddset(&defaults, SIGTERM);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &defaults);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	/* glibc reports a program that cannot be run here, not as the child's exit. */
	r = -posix_spawnp(&pid, argv[0], &actions, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&actions);
	posix_spawnattr_destroy(&attr);
	close(to_child[0]);
	close(from_child[1]);
	if (r < 0) {
		close(to_child[1]);
		close(from_child[0]);
		return r;
	}
	*t = (struct varlink_transport) {
		.in_fd = from_child[0], .out_fd = to_child[1], .child = pid, .child_status = -1,
	};
	return 0;
}

bool varlink_transport_is_socket(const struct varlink_transport *t)
{
	return t->in_fd == t->out_fd;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int varlink_transport_child_status(struct varlink_transport *t, int timeout_ms, int *status)
{
	long long end = now_ms() + timeout_ms;

	while (t->child > 0) {
		pid_t r = waitpid(t->child, &t->child_status, WNOHANG);

		if (r < 0 && errno != EINTR)
			return -errno;
		if (r == t->child) {
			t->child = 0;
			break;
		}
		if (now_ms() >= end)
			return -ETIMEDOUT;
		/* A child that closed its output ends within moments: a short sleep, not a pidfd. */
		nanosleep(&(struct timespec) { .tv_nsec = 5 * 1000 * 1000 }, NULL);
	}
	if (t->child_status < 0)
		return -ECHILD;
	*status = t->child_status;
	return 0;
}

void varlink_transport_close(struct varlink_transport *t)
{
	int status;

	close(t->in_fd);
	if (t->out_fd != t->in_fd)
		close(t->out_fd);
	t->in_fd = t->out_fd = -1;
	if (t->child <= 0)
		return;
	/* Its input closed, ssh ends once the far end has: a second at most, then it is told to. */
	if (varlink_transport_child_status(t, 1000, &status) == -ETIMEDOUT) {
		kill(t->child, SIGTERM);
		while (waitpid(t->child, &t->child_status, 0) < 0 && errno == EINTR)
			;
		t->child = 0;
	}
}

/*
 * A write to a pipe whose reader is gone raises SIGPIPE, which would end the
 * program: it is blocked for the write, and one raised by it taken back.
 */
static ssize_t write_no_sigpipe(int fd, const void *data, size_t len)
{
	sigset_t pipe_only, old, pending;
	bool was_pending;
	ssize_t n;
	int err;

	sigemptyset(&pipe_only);
	sigaddset(&pipe_only, SIGPIPE);
	sigpending(&pending);
	was_pending = sigismember(&pending, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
	n = write(fd, data, len);
	err = errno;
	if (n < 0 && err == EPIPE && !was_pending)
		sigtimedwait(&pipe_only, NULL, &(struct timespec) { 0 });
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = err;
	return n;
}

ssize_t varlink_transport_send(struct varlink_transport *t, struct varlink_buffer *b,
			       struct varlink_fd_queue *q)
{
	ssize_t n;

	if (varlink_transport_is_socket(t))
		return varlink_send(t->out_fd, b, q, 0);
	if (q->n > 0)
		return -EOPNOTSUPP;
	n = write_no_sigpipe(t->out_fd, b->data + b->start, varlink_buffer_pending(b));
	if (n < 0)
		return -errno;
	varlink_buffer_consume(b, (size_t)n);
	return n;
}

ssize_t varlink_transport_recv(struct varlink_transport *t, struct varlink_buffer *b,
			       struct varlink_fd_queue *q, size_t max, bool nowait)
{
	struct pollfd pfd = { .fd = t->in_fd, .events = POLLIN };
	ssize_t n;
	int r;

	if (varlink_transport_is_socket(t))
		return varlink_recv(t->in_fd, b, q, max, nowait ? MSG_DONTWAIT : 0);
	if (nowait && poll(&pfd, 1, 0) == 0)
		return -EAGAIN;
	r = varlink_buffer_reserve(b, max);
	if (r < 0)
		return r;
	n = read(t->in_fd, b->data + b->len, max);
	if (n < 0)
		return -errno;
	b->len += (size_t)n;
	return n;
}

bool varlink_transport_hung_up(const struct varlink_transport *t)
{
	struct pollfd pfd[2] = {
		{ .fd = t->in_fd, .events = POLLRDHUP },
		{ .fd = t->out_fd, .events = 0 },
	};
	/* A socket is both; a pipe's reader gone shows on the write end (POLLERR). */
	nfds_t n = varlink_transport_is_socket(t) ? 1 : 2;

	if (poll(pfd, n, 0) <= 0)
		return false;
	for (nfds_t i = 0; i < n; i++)
		if (pfd[i].revents & (POLLHUP | POLLRDHUP | POLLERR))
			return true;
	return false;
}
