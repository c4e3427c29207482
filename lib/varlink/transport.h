/* SPDX-License-Identifier: MIT */
/*
 * How the bytes of a varlink client travel: over one connected AF_UNIX
 * socket, which also carries file descriptors, or over a pair of pipes to a
 * child process that speaks varlink on its standard input and output (ssh
 * running `rdmactl --bridge` on another host), which carries bytes only.
 * The client (client.c) frames, sends and reads messages the same over both.
 */
#pragma once

#include "lib/varlink/buffer.h"
#include "lib/varlink/fds.h"

#include <stdbool.h>
#include <sys/types.h>

struct varlink_transport {
	int in_fd, out_fd;   /* the same socket; or the read end and the write end of two pipes */
	pid_t child;         /* at the pipes' other end (0: none, or reaped) */
	int child_status;    /* its wait status, once reaped */
};

/* A socket connected to address (see varlink_client_connect()). */
int varlink_transport_connect(struct varlink_transport *t, const char *address);
/* argv[0] (looked up in PATH) started with pipes for standard input and output. */
int varlink_transport_spawn(struct varlink_transport *t, char *const argv[]);
/*
 * Closes the descriptors; a child still running is asked to end (SIGTERM)
 * and reaped.
 */
void varlink_transport_close(struct varlink_transport *t);

bool varlink_transport_is_socket(const struct varlink_transport *t);
/*
 * One write of b's pending bytes, as varlink_send() does it; over pipes,
 * -EOPNOTSUPP for a message with descriptors, and a reader gone is -EPIPE
 * (never SIGPIPE).
 */
ssize_t varlink_transport_send(struct varlink_transport *t, struct varlink_buffer *b,
			       struct varlink_fd_queue *q);
/*
 * One read into b, as varlink_recv() does it.  nowait: -EAGAIN rather than
 * sleeping (sockets only; over pipes the read sleeps).
 */
ssize_t varlink_transport_recv(struct varlink_transport *t, struct varlink_buffer *b,
			       struct varlink_fd_queue *q, size_t max, bool nowait);
/* The other end has gone (a call would fail). */
bool varlink_transport_hung_up(const struct varlink_transport *t);
/*
 * How the child ended (its wait status in *status), waiting for it at most
 * timeout_ms: -ETIMEDOUT while it runs, -ECHILD when there is none.
 */
int varlink_transport_child_status(struct varlink_transport *t, int timeout_ms, int *status);
