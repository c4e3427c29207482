/* SPDX-License-Identifier: MIT */
/* vhost_user.c - vhost-user messages on a unix socket (see vhost_user.h). */
#include "vhost_user.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int vu_connect(struct vhost_user *vu, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	vu->fd = -1;
	vu->closed = true;
	vu->reply_ack = false;
	if (!vu->timeout_ms)
		vu->timeout_ms = 5000;
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int err = errno;

		close(fd);
		return -err;
	}
	vu->fd = fd;
	vu->closed = false;
	return 0;
}

void vu_close(struct vhost_user *vu)
{
	if (vu->fd >= 0)
		close(vu->fd);
	vu->fd = -1;
	vu->closed = true;
}

static int gone(struct vhost_user *vu)
{
	vu->closed = true;
	return -EPIPE;
}

int vu_send(struct vhost_user *vu, uint32_t request, uint32_t flags, const void *payload,
	    uint32_t size, const int *fds, unsigned nfds)
{
	struct vhost_user_hdr hdr = {
		.request = request, .flags = VHOST_USER_VERSION | flags, .size = size,
	};
	struct iovec iov[2] = {
		{ .iov_base = &hdr, .iov_len = sizeof(hdr) },
		{ .iov_base = (void *)payload, .iov_len = size },
	};
	char control[CMSG_SPACE(sizeof(int) * VHOST_USER_MAX_FDS)];
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = size ? 2 : 1 };
	ssize_t n;

	if (vu->closed)
		return -EPIPE;
	if (nfds > VHOST_USER_MAX_FDS)
		return -EINVAL;
	if (nfds) {
		struct cmsghdr *c;

		memset(control, 0, sizeof(control));
		msg.msg_control = control;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	do
		n = sendmsg(vu->fd, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EPIPE || errno == ECONNRESET ? gone(vu) : -errno;
	/* A unix stream socket takes a message this small whole, or fails. */
	return (size_t)n == sizeof(hdr) + size ? 0 : -EIO;
}

/* Reads exactly len bytes within the reply timeout. */
static int read_full(struct vhost_user *vu, void *buf, size_t len)
{
	struct pollfd p = { .fd = vu->fd, .events = POLLIN };
	size_t got = 0;

	while (got < len) {
		ssize_t n;
		int r = poll(&p, 1, vu->timeout_ms);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -ETIMEDOUT;
		n = recv(vu->fd, (char *)buf + got, len - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == ECONNRESET ? gone(vu) : -errno;
		if (n == 0)
			return gone(vu);
		got += (size_t)n;
	}
	return 0;
}

int vu_recv(struct vhost_user *vu, uint32_t request, void *payload, uint32_t max)
{
	uint8_t scratch[VHOST_USER_PAYLOAD_MAX];
	struct vhost_user_hdr hdr;
	int r;

	if (vu->closed)
		return -EPIPE;
	r = read_full(vu, &hdr, sizeof(hdr));
	if (r < 0)
		return r;
	if (hdr.size > sizeof(scratch))
		return -EPROTO;
	r = read_full(vu, scratch, hdr.size);
	if (r < 0)
		return r;
	if (hdr.request != request || !(hdr.flags & VHOST_USER_FLAG_REPLY) || hdr.size > max)
		return -EPROTO;
	memcpy(payload, scratch, hdr.size);
	return (int)hdr.size;
}

int vu_request(struct vhost_user *vu, uint32_t request, const void *payload, uint32_t size,
	       const int *fds, unsigned nfds, uint64_t *refused)
{
	uint64_t ack = 0;
	int r;

	*refused = 0;
	r = vu_send(vu, request, vu->reply_ack ? VHOST_USER_FLAG_NEED_REPLY : 0, payload, size,
		    fds, nfds);
	if (r < 0 || !vu->reply_ack)
		return r;
	r = vu_recv(vu, request, &ack, sizeof(ack));
	if (r < 0)
		return r;
	if (r != sizeof(ack))
		return -EPROTO;
	*refused = ack;
	return 0;
}

int vu_get_u64(struct vhost_user *vu, uint32_t request, uint64_t *value)
{
	int r = vu_send(vu, request, 0, NULL, 0, NULL, 0);

	if (r < 0)
		return r;
	r = vu_recv(vu, request, value, sizeof(*value));
	if (r < 0)
		return r;
	return r == sizeof(*value) ? 0 : -EPROTO;
}

const char *vu_request_name(uint32_t request)
{
	static const char *const names[] = {
		[VHOST_USER_GET_FEATURES] = "GET_FEATURES",
		[VHOST_USER_SET_FEATURES] = "SET_FEATURES",
		[VHOST_USER_SET_OWNER] = "SET_OWNER",
		[VHOST_USER_SET_MEM_TABLE] = "SET_MEM_TABLE",
		[VHOST_USER_SET_VRING_NUM] = "SET_VRING_NUM",
		[VHOST_USER_SET_VRING_ADDR] = "SET_VRING_ADDR",
		[VHOST_USER_SET_VRING_BASE] = "SET_VRING_BASE",
		[VHOST_USER_GET_VRING_BASE] = "GET_VRING_BASE",
		[VHOST_USER_SET_VRING_KICK] = "SET_VRING_KICK",
		[VHOST_USER_SET_VRING_CALL] = "SET_VRING_CALL",
		[VHOST_USER_SET_VRING_ERR] = "SET_VRING_ERR",
		[VHOST_USER_GET_PROTOCOL_FEATURES] = "GET_PROTOCOL_FEATURES",
		[VHOST_USER_SET_PROTOCOL_FEATURES] = "SET_PROTOCOL_FEATURES",
		[VHOST_USER_GET_QUEUE_NUM] = "GET_QUEUE_NUM",
		[VHOST_USER_SET_VRING_ENABLE] = "SET_VRING_ENABLE",
		[VHOST_USER_GET_CONFIG] = "GET_CONFIG",
	};

	if (request < sizeof(names) / sizeof(names[0]) && names[request])
		return names[request];
	return "UNKNOWN";
}
