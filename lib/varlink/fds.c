/* SPDX-License-Identifier: MIT */
#include "lib/varlink/fds.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Room for one message's descriptors; the kernel says MSG_CTRUNC past it. */
union fd_control {
	struct cmsghdr align;
	char buf[CMSG_SPACE(sizeof(int) * VARLINK_FDS_PER_MESSAGE_MAX)];
};

int varlink_fds_add(struct varlink_fds *fds, int fd)
{
	if (fds->n >= VARLINK_FDS_PER_MESSAGE_MAX)
		return -ENOBUFS;
	fds->fd[fds->n++] = fd;
	return 0;
}

int varlink_fds_peek(const struct varlink_fds *fds, unsigned i)
{
	return i < fds->n && fds->fd[i] >= 0 ? fds->fd[i] : -ENXIO;
}

int varlink_fds_take(struct varlink_fds *fds, unsigned i)
{
	int fd = varlink_fds_peek(fds, i);

	if (fd >= 0)
		fds->fd[i] = -1;
	return fd;
}

void varlink_fds_close(struct varlink_fds *fds)
{
	for (unsigned i = 0; i < fds->n; i++)
		if (fds->fd[i] >= 0)
			close(fds->fd[i]);
	fds->n = 0;
}

void varlink_fd_queue_release(struct varlink_fd_queue *q)
{
	for (size_t i = 0; i < q->n; i++)
		varlink_fds_close(&q->v[i].fds);
	free(q->v);
	memset(q, 0, sizeof(*q));
}

static int queue_reserve(struct varlink_fd_queue *q)
{
	struct varlink_fd_batch *v;
	size_t cap;

	if (q->n < q->cap)
		return 0;
	cap = q->cap ? 2 * q->cap : 4;
	v = realloc(q->v, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	q->v = v;
	q->cap = cap;
	return 0;
}

/* After queue_reserve(); moves fds in. */
static void queue_push(struct varlink_fd_queue *q, uint64_t at, size_t len, struct varlink_fds *fds)
{
	q->v[q->n++] = (struct varlink_fd_batch) { .at = at, .len = len, .fds = *fds };
	q->n_fds += fds->n;
	fds->n = 0;
}

static void queue_pop(struct varlink_fd_queue *q, struct varlink_fds *out)
{
	*out = q->v[0].fds;
	q->n_fds -= out->n;
	memmove(q->v, q->v + 1, --q->n * sizeof(*q->v));
}

void varlink_fd_queue_take(struct varlink_fd_queue *q, uint64_t at, struct varlink_fds *out)
{
	out->n = 0;
	/* Nothing queues descriptors for a message already taken; were it so, they go. */
	while (q->n > 0 && q->v[0].at < at) {
		queue_pop(q, out);
		varlink_fds_close(out);
	}
	if (q->n > 0 && q->v[0].at == at)
		queue_pop(q, out);
}

int varlink_queue_message(struct varlink_buffer *b, struct varlink_fd_queue *q,
			  struct json_object *obj, struct varlink_fds *fds)
{
	uint64_t at = b->base + varlink_buffer_pending(b);
	int r;

	if (fds && fds->n > 0) {
		r = queue_reserve(q);
		if (r < 0)
			return r;
	}
	r = varlink_buffer_append_message(b, obj);
	if (r < 0 || !fds || fds->n == 0)
		return r;
	queue_push(q, at, (size_t)(b->base + varlink_buffer_pending(b) - at), fds);
	return 0;
}

static void put_fds(struct msghdr *mh, union fd_control *control, const struct varlink_fds *fds)
{
	struct cmsghdr *c;

	mh->msg_control = control;
	mh->msg_controllen = CMSG_SPACE(sizeof(int) * fds->n);
	c = CMSG_FIRSTHDR(mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int) * fds->n);
	memcpy(CMSG_DATA(c), fds->fd, sizeof(int) * fds->n);
}

ssize_t varlink_send(int sock, struct varlink_buffer *b, struct varlink_fd_queue *q, int flags)
{
	struct varlink_fd_batch *next = q->n > 0 ? &q->v[0] : NULL;
	size_t len = varlink_buffer_pending(b);
	struct iovec iov;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	union fd_control control;
	bool with_fds = next && next->at == b->base;
	ssize_t n;

	memset(&control, 0, sizeof(control));
	if (with_fds) {
		/* Only this message's bytes: the reader ties the descriptors to the last message begun. */
		if (len > next->len)
			len = next->len;
		put_fds(&mh, &control, &next->fds);
	} else if (next && next->at - b->base < len) {
		len = (size_t)(next->at - b->base);
	}
	iov = (struct iovec) { .iov_base = b->data + b->start, .iov_len = len };
	/* Most messages carry no descriptor: the plain call costs the kernel less. */
	n = with_fds ? sendmsg(sock, &mh, flags | MSG_NOSIGNAL) :
		       send(sock, iov.iov_base, len, flags | MSG_NOSIGNAL);
	if (n < 0)
		return -errno;
	if (with_fds) {
		struct varlink_fds sent;

		/* The kernel holds references of its own until the peer reads them. */
		queue_pop(q, &sent);
		varlink_fds_close(&sent);
	}
	varlink_buffer_consume(b, (size_t)n);
	return n;
}

/* The descriptors of mh into *fds; -ETOOMANYREFS or -EPROTO (all closed) when they break the rules. */
static int collect_fds(struct msghdr *mh, struct varlink_fds *fds)
{
	int r = 0;

	fds->n = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		size_t n;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) {
			r = -EPROTO;
			continue;
		}
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(fd));
			if (varlink_fds_add(fds, fd) < 0) {
				close(fd);
				r = -ETOOMANYREFS;
			}
		}
	}
	if (mh->msg_flags & MSG_CTRUNC)
		r = -ETOOMANYREFS;
	if (r < 0)
		varlink_fds_close(fds);
	return r;
}

/*
 * The stream offset of the last message that begins in the n bytes just read
 * at offset at (p); -EPROTO when none does.  continuing: the bytes before them
 * end inside a message.
 */
static int64_t last_message_start(const char *p, size_t n, uint64_t at, bool continuing)
{
	const char *nul = n > 1 ? memrchr(p, '\0', n - 1) : NULL;

	if (nul)
		return (int64_t)(at + (uint64_t)(nul - p) + 1);
	return continuing || n == 0 ? -EPROTO : (int64_t)at;
}

ssize_t varlink_recv(int sock, struct varlink_buffer *b, struct varlink_fd_queue *q, size_t max,
		     int flags)
{
	size_t pending = varlink_buffer_pending(b);
	uint64_t at = b->base + pending;
	bool continuing = pending > 0 && b->data[b->len - 1] != '\0';
	struct iovec iov;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	union fd_control control;
	struct varlink_fds fds;
	int64_t start;
	ssize_t n;
	int r;

	r = varlink_buffer_reserve(b, max);
	if (r < 0)
		return r;
	iov = (struct iovec) { .iov_base = b->data + b->len, .iov_len = max };
	mh.msg_control = &control;
	mh.msg_controllen = sizeof(control);
	n = recvmsg(sock, &mh, flags | MSG_CMSG_CLOEXEC);
	if (n < 0)
		return -errno;
	r = collect_fds(&mh, &fds);
	if (r < 0)
		return r;
	if (fds.n > 0) {
		start = last_message_start(b->data + b->len, (size_t)n, at, continuing);
		if (start < 0)
			r = (int)start;
		else if (q->n_fds + fds.n > VARLINK_FDS_QUEUED_MAX)
			r = -ETOOMANYREFS;
		else
			r = queue_reserve(q);
		if (r < 0) {
			varlink_fds_close(&fds);
			return r;
		}
		queue_push(q, (uint64_t)start, 0, &fds);
	}
	b->len += (size_t)n;
	return n;
}
