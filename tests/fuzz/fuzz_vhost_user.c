/* SPDX-License-Identifier: MIT */
/*
 * A front end's byte stream into a vhost-user session.  The input is a
 * sequence of records: a control byte (bits 0-1: how many file descriptors
 * ride along, each a memfd of guest memory; bit 2: the session handles what
 * came before the next record), a 16-bit length, then that many bytes of the
 * stream, sent with one sendmsg; messages may span records or share one.
 * The device behind the session pops and pushes whatever a started queue
 * holds.  Nothing the stream says may crash the session, leak a descriptor
 * or let a queue run without the memory it needs; when the session ends
 * (peer gone, protocol broken) a new one takes the rest of the stream.
 */
#include "tests/fuzz/fuzz.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dataplane/virtio/vhost_user.h"

#define NQ 4
#define GUEST_SIZE 0x10000

static int guest_fd = -1;

static int dev_features_set(void *dev, uint64_t f)
{
	return f & 1 ? -EINVAL : 0;      /* a device may refuse; bit 0 here */
}

static int dev_config_read(void *dev, uint32_t offset, void *buf, uint32_t size)
{
	if (offset > 32 || size > 32 - offset)
		return -EINVAL;
	memset(buf, 0x11, size);
	return 0;
}

static int dev_config_write(void *dev, uint32_t offset, const void *buf, uint32_t size, uint32_t flags)
{
	return offset > 32 || size > 32 - offset ? -EINVAL : 0;
}

static int dev_queue_start(void *dev, unsigned index, struct virtqueue *vq)
{
	struct vq_chain c;
	uint8_t byte;

	if (!vq_running(vq) || index >= NQ)
		abort();
	for (int i = 0; i < 8 && vq_pop(vq, &c) == 1; i++) {
		if (c.read_bytes)
			vq_chain_read(vq, &c, 0, &byte, 1);
		vq_push(vq, c.head, 0);
	}
	vq_signal(vq);
	return 0;
}

static void dev_queue_stop(void *dev, unsigned index)
{
}

static void dev_reset(void *dev)
{
}

static const struct vhost_user_device_ops ops = {
	.features = (1ull << 1) | (1ull << 28) | (1ull << 29) | (1ull << 32), .num_queues = NQ,
	.features_set = dev_features_set, .config_read = dev_config_read,
	.config_write = dev_config_write, .queue_start = dev_queue_start,
	.queue_stop = dev_queue_stop, .reset = dev_reset,
};

static int open_session(struct vhost_user_session **s, int *fe)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		abort();
	if (vhost_user_session_new(sv[0], &ops, NULL, s) < 0)
		abort();
	*fe = sv[1];
	return 0;
}

/* What the session answered is read and dropped, so its socket never fills. */
static void drain(int fe)
{
	uint8_t buf[4096];

	while (recv(fe, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

static void handle(struct vhost_user_session **s, int *fe)
{
	if (vhost_user_session_handle(*s) < 0) {
		vhost_user_session_free(*s);
		close(*fe);
		open_session(s, fe);
	}
	drain(*fe);
}

static void send_record(int fe, const uint8_t *bytes, size_t n, unsigned nfds)
{
	union {
		struct cmsghdr align;
		uint8_t buf[CMSG_SPACE(sizeof(int) * 3)];
	} control = { 0 };
	int fds[3] = { guest_fd, guest_fd, guest_fd };
	struct iovec iov = { .iov_base = (void *)bytes, .iov_len = n };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (nfds && n) {
		struct cmsghdr *c;

		mh.msg_control = control.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	if (n)
		sendmsg(fe, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vhost_user_session *s;
	int fe;

	if (guest_fd < 0) {
		guest_fd = memfd_create("fuzz-vhost-guest", MFD_CLOEXEC);
		if (guest_fd < 0 || ftruncate(guest_fd, GUEST_SIZE) < 0)
			abort();
	}
	open_session(&s, &fe);
	while (size >= 3) {
		uint8_t control = data[0];
		size_t n = (size_t)data[1] | (size_t)data[2] << 8;

		data += 3;
		size -= 3;
		if (n > size)
			n = size;
		send_record(fe, data, n, control & 3);
		data += n;
		size -= n;
		if (control & 4)
			handle(&s, &fe);
	}
	handle(&s, &fe);
	/* The front end goes away: the session must see it and end. */
	close(fe);
	if (vhost_user_session_handle(s) >= 0)
		abort();
	vhost_user_session_free(s);
	return 0;
}
