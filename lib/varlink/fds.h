/* SPDX-License-Identifier: MIT */
/*
 * File descriptors that travel with varlink messages (SCM_RIGHTS), shared by
 * the server and the client.
 *
 * A sender passes a message's descriptors with the write that carries that
 * message's first bytes, and with no bytes of any other message.  The kernel
 * hands them over with a read that ends inside that write's bytes (a read may
 * begin with bytes written earlier, but stops after bytes that carried
 * descriptors), so the message they belong to is the last one that begins in
 * that read.  Descriptors are kept by the stream offset of their message's
 * first byte until that message is taken.
 */
#pragma once

#include "lib/varlink/buffer.h"
#include "lib/varlink/varlink.h"

#include <sys/types.h>

/* The descriptors of one message; a slot is -1 once taken. */
struct varlink_fds {
	int fd[VARLINK_FDS_PER_MESSAGE_MAX];
	unsigned n;
};

struct varlink_fd_batch {
	uint64_t at;            /* stream offset of the message's first byte */
	size_t len;             /* bytes of the message, with its NUL (outgoing only) */
	struct varlink_fds fds;
};

/* Batches in stream order. */
struct varlink_fd_queue {
	struct varlink_fd_batch *v;
	size_t n, cap;
	unsigned n_fds;         /* in all batches */
};

/* -ENOBUFS when full (fd stays the caller's). */
int varlink_fds_add(struct varlink_fds *fds, int fd);
/* The i-th descriptor, still owned by fds; -ENXIO when there is none. */
int varlink_fds_peek(const struct varlink_fds *fds, unsigned i);
/* The i-th descriptor, now the caller's; -ENXIO when there is none. */
int varlink_fds_take(struct varlink_fds *fds, unsigned i);
void varlink_fds_close(struct varlink_fds *fds);

/* Closes every descriptor the queue holds. */
void varlink_fd_queue_release(struct varlink_fd_queue *q);
/*
 * Moves the descriptors of the message that begins at stream offset at into
 * *out (empty when that message came without any).
 */
void varlink_fd_queue_take(struct varlink_fd_queue *q, uint64_t at, struct varlink_fds *out);

/*
 * Appends obj as a message to b; its descriptors (moved out of *fds, which
 * may be NULL) go with its first bytes.  On failure *fds is left as it was.
 */
int varlink_queue_message(struct varlink_buffer *b, struct varlink_fd_queue *q,
			  struct json_object *obj, struct varlink_fds *fds);

/*
 * One sendmsg() of b's pending bytes: up to the next message that carries
 * descriptors, or that message's bytes with its descriptors, which are then
 * closed here.  Returns the bytes sent or -errno.
 */
ssize_t varlink_send(int sock, struct varlink_buffer *b, struct varlink_fd_queue *q, int flags);

/*
 * One recvmsg() of at most max bytes into b; descriptors that come along are
 * queued in q for their message.  Returns the bytes read (0 at end of stream)
 * or -errno: -ETOOMANYREFS when a message brought more than
 * VARLINK_FDS_PER_MESSAGE_MAX descriptors or q would hold more than
 * VARLINK_FDS_QUEUED_MAX, -EPROTO when descriptors came with no message's
 * first bytes.  Either breaks the protocol; the descriptors are closed.
 */
ssize_t varlink_recv(int sock, struct varlink_buffer *b, struct varlink_fd_queue *q, size_t max,
		     int flags);
