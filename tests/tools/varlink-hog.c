/* SPDX-License-Identifier: MIT */
/*
 * A hostile varlink client for tests/bats/limits.bats: what it holds and
 * what the server did about it, one "key value" line at a time.
 *
 *   varlink-hog SOCKET connect N SECONDS
 *       opens N connections and makes a call on each ("answered A": those the
 *       server answered), keeps them SECONDS, then says how many are still
 *       open ("open O").
 *   varlink-hog SOCKET partial BYTES SECONDS
 *       sends BYTES of one message without its end ("sent S"), and waits up
 *       to SECONDS for the server to close ("closed_after_ms T", or "open").
 *   varlink-hog SOCKET pipeline CALLS SECONDS
 *       writes CALLS calls and never reads a reply; once the server stops
 *       taking them, "sent S of T" (bytes), then as for partial.
 *   varlink-hog SOCKET hold N SECONDS BYTES
 *       opens N connections one after the other and sends BYTES of one
 *       message without its end on each; "held H" once the server has read
 *       them all: those it did not close instead.  Keeps them SECONDS, then
 *       "open O" as for connect.
 *
 * Every time is from the moment the client stopped sending.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <linux/sockios.h>
#include <time.h>
#include <unistd.h>

/* A reply worth some kilobytes, which anyone may ask for. */
static const char big_call[] = "{\"method\":\"org.varlink.service.GetInterfaceDescription\","
			       "\"parameters\":{\"interface\":\"io.rdmad.Device\"}}";
static const char small_call[] = "{\"method\":\"org.varlink.service.GetInfo\"}";

/* Writes that make no progress for this long: the server stopped reading. */
#define STALL_MS 500

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int connect_to(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || strlen(path) >= sizeof(addr.sun_path)) {
		perror("socket");
		exit(2);
	}
	strcpy(addr.sun_path, path);
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		perror("connect");
		exit(2);
	}
	return fd;
}

/* The server closed fd: what it sent before stays unread. */
static bool hung_up(int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLRDHUP };

	return poll(&pfd, 1, timeout_ms) == 1 && (pfd.revents & (POLLHUP | POLLRDHUP | POLLERR));
}

/* Whether the server answers a call on fd (a refused connection is closed instead). */
static bool answered(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char buf[4096];
	size_t got = 0;

	if (send(fd, small_call, sizeof(small_call), MSG_NOSIGNAL) != sizeof(small_call))
		return false;
	while (got == 0 || buf[got - 1] != '\0') {
		ssize_t n;

		if (poll(&pfd, 1, 5000) != 1)
			return false;
		n = recv(fd, buf + got, sizeof(buf) - got, 0);
		if (n <= 0)
			return false;
		got += (size_t)n;
		if (got == sizeof(buf))
			got = 0; /* only the end matters */
	}
	return true;
}

/*
 * Says "WORD COUNT", keeps the n connections for seconds, then says how many
 * the server left open ("open N") and closes them.
 */
static void hold_then_count(const char *word, unsigned count, int *fds, unsigned n, double seconds)
{
	unsigned open = 0;

	printf("%s %u\n", word, count);
	fflush(stdout);
	usleep((useconds_t)(seconds * 1e6));
	for (unsigned i = 0; i < n; i++) {
		open += !hung_up(fds[i], 0);
		close(fds[i]);
	}
	printf("open %u\n", open);
}

static int do_connect(const char *path, unsigned n, double seconds)
{
	int *fds = calloc(n, sizeof(int));
	unsigned ok = 0;

	if (!fds)
		return 2;
	for (unsigned i = 0; i < n; i++) {
		fds[i] = connect_to(path);
		ok += answered(fds[i]);
	}
	hold_then_count("answered", ok, fds, n, seconds);
	free(fds);
	return 0;
}

/* Sends what it can of data without blocking, until the server stalls or closes. */
static size_t send_until_stalled(int fd, const char *data, size_t len)
{
	long long last = now_ms();
	size_t sent = 0;

	while (sent < len && now_ms() - last < STALL_MS) {
		ssize_t n = send(fd, data + sent, len - sent, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n > 0) {
			sent += (size_t)n;
			last = now_ms();
		} else if (n < 0 && errno == EAGAIN) {
			usleep(1000);
		} else {
			break; /* closed */
		}
	}
	return sent;
}

static void report_close(int fd, long long since, double seconds)
{
	long long left = since + (long long)(seconds * 1000) - now_ms();

	if (hung_up(fd, left > 0 ? (int)left : 0))
		printf("closed_after_ms %lld\n", now_ms() - since);
	else
		printf("open\n");
}

/* The first bytes of a call with a long string in it, and no end. */
static char *unfinished_message(size_t bytes)
{
	static const char head[] = "{\"method\":\"org.varlink.service.GetInfo\",\"org.example.pad\":\"";
	char *msg = malloc(bytes > sizeof(head) ? bytes : sizeof(head));

	if (!msg)
		return NULL;
	memset(msg, 'a', bytes);
	memcpy(msg, head, bytes < strlen(head) ? bytes : strlen(head));
	return msg;
}

/*
 * Sends all of msg on a new connection; whether the server kept the
 * connection once it read them all (closing it drops what it did not read).
 */
static bool held_after(const char *path, const char *msg, size_t bytes, int *fd)
{
	long long end;
	int unread = 0;

	*fd = connect_to(path);
	/* Fails when the server closes the connection before it read them all. */
	if (send(*fd, msg, bytes, MSG_NOSIGNAL) != (ssize_t)bytes)
		return false;
	for (end = now_ms() + 5000; now_ms() < end; usleep(1000))
		if (ioctl(*fd, SIOCOUTQ, &unread) < 0 || unread == 0)
			break;
	return unread == 0 && !hung_up(*fd, 0);
}

static int do_hold(const char *path, unsigned n, double seconds, size_t bytes)
{
	char *msg = unfinished_message(bytes);
	int *fds = calloc(n, sizeof(int));
	unsigned held = 0;

	if (!msg || !fds)
		return 2;
	for (unsigned i = 0; i < n; i++)
		held += held_after(path, msg, bytes, &fds[i]);
	hold_then_count("held", held, fds, n, seconds);
	free(fds);
	free(msg);
	return 0;
}

static int do_partial(const char *path, size_t bytes, double seconds)
{
	char *msg = unfinished_message(bytes);
	int fd = connect_to(path);
	size_t sent;

	if (!msg)
		return 2;
	sent = send_until_stalled(fd, msg, bytes);
	printf("sent %zu\n", sent);
	fflush(stdout);
	report_close(fd, now_ms(), seconds);
	close(fd);
	free(msg);
	return 0;
}

static int do_pipeline(const char *path, size_t calls, double seconds)
{
	size_t len = calls * sizeof(big_call), sent;
	char *all = malloc(len);
	int fd = connect_to(path);

	if (!all)
		return 2;
	for (size_t i = 0; i < calls; i++)
		memcpy(all + i * sizeof(big_call), big_call, sizeof(big_call));
	sent = send_until_stalled(fd, all, len);
	printf("sent %zu of %zu\n", sent, len);
	fflush(stdout);
	report_close(fd, now_ms() - STALL_MS, seconds);
	close(fd);
	free(all);
	return 0;
}

int main(int argc, char **argv)
{
	double seconds;
	unsigned long long n;

	if (argc != 5 && !(argc == 6 && strcmp(argv[2], "hold") == 0)) {
		fprintf(stderr, "usage: %s SOCKET connect|partial|pipeline N SECONDS\n"
			"       %s SOCKET hold N SECONDS BYTES\n", argv[0], argv[0]);
		return 2;
	}
	n = strtoull(argv[3], NULL, 10);
	seconds = strtod(argv[4], NULL);
	if (strcmp(argv[2], "connect") == 0)
		return do_connect(argv[1], (unsigned)n, seconds);
	if (strcmp(argv[2], "partial") == 0)
		return do_partial(argv[1], (size_t)n, seconds);
	if (strcmp(argv[2], "hold") == 0)
		return do_hold(argv[1], (unsigned)n, seconds, strtoull(argv[5], NULL, 10));
	if (strcmp(argv[2], "pipeline") == 0)
		return do_pipeline(argv[1], (size_t)n, seconds);
	fprintf(stderr, "%s: unknown mode %s\n", argv[0], argv[2]);
	return 2;
}
