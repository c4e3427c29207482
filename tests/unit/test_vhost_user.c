/* SPDX-License-Identifier: MIT */
/*
 * A vhost-user session (dataplane/virtio/vhost_user.c) over a socketpair:
 * the test is the front end, writing messages byte by byte as the spec lays
 * them out (its own code, not the library's structs), with memfd guest
 * memory, and a recording device behind the session.
 */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "dataplane/virtio/vhost_user.h"

/* The spec's numbers, restated here. */
enum {
	GET_FEATURES = 1, SET_FEATURES = 2, SET_OWNER = 3, RESET_OWNER = 4, SET_MEM_TABLE = 5,
	SET_VRING_NUM = 8, SET_VRING_ADDR = 9, SET_VRING_BASE = 10, GET_VRING_BASE = 11,
	SET_VRING_KICK = 12, SET_VRING_CALL = 13, SET_VRING_ERR = 14, GET_PROTOCOL_FEATURES = 15,
	SET_PROTOCOL_FEATURES = 16, GET_QUEUE_NUM = 17, SET_VRING_ENABLE = 18, GET_CONFIG = 24,
	SET_CONFIG = 25, RESET_DEVICE = 34,
};
#define V1          1u
#define REPLY_FLAG  4u
#define NEED_REPLY  8u
#define NOFD        0x100u
#define PF_ALL      ((1ull << 0) | (1ull << 3) | (1ull << 9) | (1ull << 13))
#define F_DEVICE    (1ull << 5)
#define F_OFFERED   (F_DEVICE | (1ull << 28) | (1ull << 29) | (1ull << 32))
#define F_PROTOCOL  (1ull << 30)
#define NQ          4

#define MEM_SIZE    0x100000ull
#define GPA0        0x40000000ull
#define UVA0        0x7f0000000000ull

struct dev {
	unsigned starts[NQ], stops[NQ], resets;
	struct virtqueue *vq[NQ];
	uint64_t features;
	bool refuse_start;
	uint8_t config[64];
};

static int dev_features_set(void *d, uint64_t f)
{
	((struct dev *)d)->features = f;
	return 0;
}

static int dev_config_read(void *d, uint32_t offset, void *buf, uint32_t size)
{
	struct dev *dev = d;

	if (offset > sizeof(dev->config) || size > sizeof(dev->config) - offset)
		return -EINVAL;
	memcpy(buf, dev->config + offset, size);
	return 0;
}

static int dev_config_write(void *d, uint32_t offset, const void *buf, uint32_t size, uint32_t flags)
{
	struct dev *dev = d;

	if (offset > sizeof(dev->config) || size > sizeof(dev->config) - offset)
		return -EINVAL;
	memcpy(dev->config + offset, buf, size);
	return 0;
}

static int dev_queue_start(void *d, unsigned i, struct virtqueue *vq)
{
	struct dev *dev = d;

	if (dev->refuse_start)
		return -ENOSPC;
	dev->starts[i]++;
	dev->vq[i] = vq;
	return 0;
}

static void dev_queue_stop(void *d, unsigned i)
{
	struct dev *dev = d;

	dev->stops[i]++;
	dev->vq[i] = NULL;
}

static void dev_reset(void *d)
{
	((struct dev *)d)->resets++;
}

static const struct vhost_user_device_ops ops = {
	.features = F_OFFERED, .num_queues = NQ,
	.features_set = dev_features_set, .config_read = dev_config_read,
	.config_write = dev_config_write, .queue_start = dev_queue_start,
	.queue_stop = dev_queue_stop, .reset = dev_reset,
};

struct fixture {
	struct dev dev;
	struct vhost_user_session *s;
	int fe;                      /* the front end's end of the socket */
	int memfd;
	uint8_t *g;
};

static void open_session(struct fixture *f)
{
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(vhost_user_session_new(sv[0], &ops, &f->dev, &f->s), 0);
	f->fe = sv[1];
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	for (unsigned i = 0; i < sizeof(f->dev.config); i++)
		f->dev.config[i] = (uint8_t)i;
	open_session(f);
	f->memfd = memfd_create("test-vhost-guest", MFD_CLOEXEC);
	assert_int_equal(ftruncate(f->memfd, MEM_SIZE), 0);
	f->g = mmap(NULL, MEM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, f->memfd, 0);
	assert_true(f->g != MAP_FAILED);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	vhost_user_session_free(f->s);
	close(f->fe);
	munmap(f->g, MEM_SIZE);
	close(f->memfd);
	free(f);
	return 0;
}

/* ---- the front end's side of the wire ---- */

static void send_raw(struct fixture *f, uint32_t req, uint32_t flags, const void *payload, uint32_t size,
		     uint32_t claimed_size, const int *fds, unsigned nfds)
{
	uint8_t msg[12 + 512];
	union {
		struct cmsghdr align;
		uint8_t buf[CMSG_SPACE(sizeof(int) * 16)];
	} control = { 0 };
	struct iovec iov = { .iov_base = msg, .iov_len = 12 + size };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	memcpy(msg, &req, 4);
	memcpy(msg + 4, &flags, 4);
	memcpy(msg + 8, &claimed_size, 4);
	if (size)
		memcpy(msg + 12, payload, size);
	if (nfds) {
		struct cmsghdr *c;

		mh.msg_control = control.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	assert_int_equal(sendmsg(f->fe, &mh, MSG_NOSIGNAL), 12 + size);
}

/* Sends a request and lets the session handle it: what handle returned. */
static int request(struct fixture *f, uint32_t req, uint32_t flags, const void *payload, uint32_t size,
		   const int *fds, unsigned nfds)
{
	send_raw(f, req, flags, payload, size, size, fds, nfds);
	return vhost_user_session_handle(f->s);
}

/* Reads one reply (it must be there now): its payload size, payload copied to out. */
static uint32_t reply(struct fixture *f, uint32_t req, void *out, size_t max)
{
	uint32_t h[3];
	struct pollfd p = { .fd = f->fe, .events = POLLIN };

	assert_int_equal(poll(&p, 1, 1000), 1);
	assert_int_equal(recv(f->fe, h, 12, 0), 12);
	assert_int_equal(h[0], req);
	assert_int_equal(h[1], V1 | REPLY_FLAG);
	assert_true(h[2] <= max);
	if (h[2])
		assert_int_equal(recv(f->fe, out, h[2], 0), h[2]);
	return h[2];
}

static void no_reply(struct fixture *f)
{
	struct pollfd p = { .fd = f->fe, .events = POLLIN };

	assert_int_equal(poll(&p, 1, 0), 0);
}

static uint64_t ask_u64(struct fixture *f, uint32_t req)
{
	uint64_t v = 0;

	assert_int_equal(request(f, req, V1, NULL, 0, NULL, 0), 0);
	assert_int_equal(reply(f, req, &v, sizeof(v)), 8);
	return v;
}

/* A request with need_reply: the ack's status (0 success). */
static uint64_t acked(struct fixture *f, uint32_t req, const void *payload, uint32_t size, const int *fds,
		      unsigned nfds)
{
	uint64_t status = 99;

	assert_int_equal(request(f, req, V1 | NEED_REPLY, payload, size, fds, nfds), 0);
	assert_int_equal(reply(f, req, &status, sizeof(status)), 8);
	return status;
}

static uint64_t acked_u64(struct fixture *f, uint32_t req, uint64_t v)
{
	return acked(f, req, &v, sizeof(v), NULL, 0);
}

static uint64_t acked_state(struct fixture *f, uint32_t req, uint32_t index, uint32_t num)
{
	uint32_t st[2] = { index, num };

	return acked(f, req, st, sizeof(st), NULL, 0);
}

static void negotiate(struct fixture *f, uint64_t features)
{
	assert_int_equal(ask_u64(f, GET_FEATURES), F_OFFERED | F_PROTOCOL);
	assert_int_equal(ask_u64(f, GET_PROTOCOL_FEATURES), PF_ALL);
	assert_int_equal(request(f, SET_PROTOCOL_FEATURES, V1, &(uint64_t){ PF_ALL }, 8, NULL, 0), 0);
	no_reply(f);
	assert_int_equal(acked_u64(f, SET_FEATURES, features), 0);
	assert_int_equal(acked(f, SET_OWNER, NULL, 0, NULL, 0), 0);
}

static uint64_t mem_table(struct fixture *f, uint64_t gpa, uint64_t uva)
{
	uint64_t t[1 + 4] = { 1, gpa, MEM_SIZE, uva, 0 };

	return acked(f, SET_MEM_TABLE, t, sizeof(t), &f->memfd, 1);
}

/* Queue 0's rings at offsets 0 (descriptors), 0x1000 (available), 0x2000 (used), 8 entries. */
static void ring_setup(struct fixture *f, unsigned q, uint16_t base)
{
	uint32_t a[10] = { q, 0 };
	uint64_t addrs[3] = { UVA0, UVA0 + 0x2000, UVA0 + 0x1000 };     /* desc, used, avail */

	memcpy(&a[2], addrs, sizeof(addrs));
	assert_int_equal(acked_state(f, SET_VRING_NUM, q, 8), 0);
	assert_int_equal(acked(f, SET_VRING_ADDR, a, 40, NULL, 0), 0);
	assert_int_equal(acked_state(f, SET_VRING_BASE, q, base), 0);
}

static uint64_t set_kick(struct fixture *f, unsigned q, int fd)
{
	uint64_t v = q | (fd < 0 ? NOFD : 0);

	return acked(f, SET_VRING_KICK, &v, 8, fd < 0 ? NULL : &fd, fd < 0 ? 0 : 1);
}

static void running_queue(struct fixture *f)
{
	int kick = eventfd(0, EFD_CLOEXEC);
	unsigned before = f->dev.starts[0];

	negotiate(f, F_OFFERED | F_PROTOCOL);
	assert_int_equal(mem_table(f, GPA0, UVA0), 0);
	ring_setup(f, 0, 5);
	assert_int_equal(set_kick(f, 0, kick), 0);
	close(kick);                 /* the session has its own */
	assert_int_equal(f->dev.starts[0], before);             /* not before it is enabled */
	assert_int_equal(acked_state(f, SET_VRING_ENABLE, 0, 1), 0);
	assert_int_equal(f->dev.starts[0], before + 1);
	assert_non_null(f->dev.vq[0]);
}

/* ---- tests ---- */

static void test_negotiation(void **state)
{
	struct fixture *f = *state;

	negotiate(f, F_DEVICE | (1ull << 32) | F_PROTOCOL);
	assert_int_equal(f->dev.features, F_DEVICE | (1ull << 32) | F_PROTOCOL);
	assert_int_equal(vhost_user_session_features(f->s), F_DEVICE | (1ull << 32) | F_PROTOCOL);
	assert_int_equal(vhost_user_session_protocol_features(f->s), PF_ALL);
	assert_int_equal(ask_u64(f, GET_QUEUE_NUM), NQ);
	/* A feature not offered is refused and nothing changes. */
	assert_int_equal(acked_u64(f, SET_FEATURES, F_OFFERED | (1ull << 40)), 1);
	assert_int_equal(f->dev.features, F_DEVICE | (1ull << 32) | F_PROTOCOL);
	assert_non_null(vhost_user_session_error(f->s));
	assert_int_equal(acked_u64(f, SET_PROTOCOL_FEATURES, 1ull << 1), 1);
	assert_int_equal(vhost_user_session_protocol_features(f->s), PF_ALL);
}

static void test_offer_checked(void **state)
{
	struct vhost_user_device_ops bad = ops;
	struct vhost_user_session *s;
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	bad.features |= 1ull << 34;                             /* packed rings */
	assert_int_equal(vhost_user_session_new(sv[0], &bad, NULL, &s), -EINVAL);
	bad = ops;
	bad.num_queues = VHOST_USER_QUEUES_MAX + 1;
	assert_int_equal(vhost_user_session_new(sv[0], &bad, NULL, &s), -EINVAL);
	bad = ops;
	bad.queue_stop = NULL;
	assert_int_equal(vhost_user_session_new(sv[0], &bad, NULL, &s), -EINVAL);
	close(sv[0]);
	close(sv[1]);
}

static void test_ring_setup_and_base(void **state)
{
	struct fixture *f = *state;
	struct vq_chain c;
	uint32_t st[2] = { 0, 0 }, got[2];

	running_queue(f);
	assert_int_equal(vq_last_avail(f->dev.vq[0]), 5);
	/* The guest offers a chain; the device (here: the test) takes it from the queue it was given. */
	{
		uint64_t gpa = GPA0 + 0x10000;
		uint32_t len = 16;
		uint16_t flags = 0, next = 0, head = 0, idx = 6;

		memcpy(f->g, &gpa, 8);
		memcpy(f->g + 8, &len, 4);
		memcpy(f->g + 12, &flags, 2);
		memcpy(f->g + 14, &next, 2);
		memcpy(f->g + 0x1000 + 4 + 2 * (5 & 7), &head, 2);
		memcpy(f->g + 0x1000 + 2, &idx, 2);
	}
	assert_int_equal(vq_pop(f->dev.vq[0], &c), 1);
	assert_int_equal(c.read_bytes, 16);
	/* GET_VRING_BASE stops the queue and answers the next index it would take. */
	assert_int_equal(request(f, GET_VRING_BASE, V1, st, 8, NULL, 0), 0);
	assert_int_equal(reply(f, GET_VRING_BASE, got, sizeof(got)), 8);
	assert_int_equal(got[0], 0);
	assert_int_equal(got[1], 6);
	assert_int_equal(f->dev.stops[0], 1);
	assert_null(f->dev.vq[0]);
	assert_false(vq_running(vhost_user_session_queue(f->s, 0)));
	/* Stopped until a new kick; then it runs again, from where it stopped. */
	assert_int_equal(set_kick(f, 0, -1), 0);
	assert_int_equal(f->dev.starts[0], 2);
	assert_int_equal(vq_last_avail(f->dev.vq[0]), 6);
	assert_int_equal(vq_kick_fd(f->dev.vq[0]), -1);         /* NOFD: polling */
	/* A running queue is not reconfigured under the device. */
	assert_int_equal(acked_state(f, SET_VRING_NUM, 0, 16), 1);
	assert_int_equal(acked_state(f, SET_VRING_BASE, 0, 1), 1);
	assert_int_equal(acked_u64(f, SET_FEATURES, F_OFFERED), 1);
	/* Disabling stops it. */
	assert_int_equal(acked_state(f, SET_VRING_ENABLE, 0, 0), 0);
	assert_int_equal(f->dev.stops[0], 2);
	assert_int_equal(acked_state(f, SET_VRING_ENABLE, 0, 2), 1);
	assert_int_equal(acked_state(f, SET_VRING_ENABLE, NQ, 1), 1);
}

static void test_call_fd_change_restarts(void **state)
{
	struct fixture *f = *state;
	int call = eventfd(0, EFD_CLOEXEC);
	uint64_t v = 0;

	running_queue(f);
	assert_int_equal(acked(f, SET_VRING_CALL, &v, 8, &call, 1), 0);
	close(call);
	/* Stopped around the change, then started with the same indexes. */
	assert_int_equal(f->dev.stops[0], 1);
	assert_int_equal(f->dev.starts[0], 2);
	assert_int_equal(vq_last_avail(f->dev.vq[0]), 5);
	/* NOFD with an fd, an fd without NOFD missing, bits above NOFD: refused. */
	call = eventfd(0, EFD_CLOEXEC);
	v = NOFD;
	assert_int_equal(acked(f, SET_VRING_CALL, &v, 8, &call, 1), 1);
	v = 0;
	assert_int_equal(acked(f, SET_VRING_ERR, &v, 8, NULL, 0), 1);
	v = 1ull << 9;
	assert_int_equal(acked(f, SET_VRING_ERR, &v, 8, &call, 1), 1);
	v = NQ;
	assert_int_equal(acked(f, SET_VRING_ERR, &v, 8, &call, 1), 1);
	v = 0;
	assert_int_equal(acked(f, SET_VRING_ERR, &v, 8, &call, 1), 0);
	close(call);
}

static void test_mem_table_swap(void **state)
{
	struct fixture *f = *state;
	struct vhost_mem *before, *after;
	uint64_t t[1 + 4 * 2] = { 2, GPA0, MEM_SIZE / 2, UVA0, 0, GPA0 + MEM_SIZE / 2 - 1, MEM_SIZE / 2,
				   UVA0 + MEM_SIZE / 2, MEM_SIZE / 2 };
	int fds[2] = { f->memfd, f->memfd };

	running_queue(f);
	before = vhost_user_session_mem(f->s);
	/* Overlapping regions: refused, the old table and the queue stay. */
	assert_int_equal(acked(f, SET_MEM_TABLE, t, sizeof(t), fds, 2), 1);
	assert_int_equal(f->dev.stops[0], 0);
	/* One fd too few, a size that is not the regions': refused. */
	t[5] = GPA0 + MEM_SIZE / 2;
	assert_int_equal(acked(f, SET_MEM_TABLE, t, sizeof(t), fds, 1), 1);
	assert_int_equal(acked(f, SET_MEM_TABLE, t, sizeof(t) - 8, fds, 2), 1);
	/* A good table while the queue runs: stopped, swapped, started again. */
	assert_int_equal(acked(f, SET_MEM_TABLE, t, sizeof(t), fds, 2), 0);
	assert_int_equal(f->dev.stops[0], 1);
	assert_int_equal(f->dev.starts[0], 2);
	after = vhost_user_session_mem(f->s);
	assert_int_not_equal(vhost_mem_id(before), vhost_mem_id(after));
	assert_int_equal(vhost_mem_region_count(after), 2);
	vhost_mem_unref(before);                                /* the last reference: unmapped now */
	vhost_mem_unref(after);
	/* A table the rings are not in: the queue stays stopped and the request fails. */
	assert_int_equal(mem_table(f, GPA0, UVA0 + 2 * MEM_SIZE), 1);
	assert_int_equal(f->dev.stops[0], 2);
	assert_null(f->dev.vq[0]);
	assert_int_equal(mem_table(f, GPA0, UVA0), 0);
	assert_int_equal(f->dev.starts[0], 3);
}

static void test_device_refuses_start(void **state)
{
	struct fixture *f = *state;

	negotiate(f, F_OFFERED | F_PROTOCOL);
	assert_int_equal(mem_table(f, GPA0, UVA0), 0);
	ring_setup(f, 1, 0);
	assert_int_equal(set_kick(f, 1, -1), 0);
	f->dev.refuse_start = true;
	assert_int_equal(acked_state(f, SET_VRING_ENABLE, 1, 1), 1);
	assert_false(vq_running(vhost_user_session_queue(f->s, 1)));
	f->dev.refuse_start = false;
	assert_int_equal(acked_state(f, SET_VRING_ENABLE, 1, 1), 0);
	assert_true(vq_running(vhost_user_session_queue(f->s, 1)));
}

/* A front end that never sets protocol features: a ring runs at its kick, no enable needed. */
static void test_no_protocol_features(void **state)
{
	struct fixture *f = *state;
	uint32_t num[2] = { 2, 8 }, base[2] = { 2, 0 };
	uint32_t addr[10] = { 2, 0 };
	uint64_t addrs[3] = { UVA0, UVA0 + 0x2000, UVA0 + 0x1000 };
	uint64_t table[1 + 4] = { 1, GPA0, MEM_SIZE, UVA0, 0 };
	uint64_t kick = 2 | NOFD;

	memcpy(&addr[2], addrs, sizeof(addrs));
	assert_int_equal(ask_u64(f, GET_FEATURES), F_OFFERED | F_PROTOCOL);
	assert_int_equal(request(f, SET_FEATURES, V1, &(uint64_t){ F_OFFERED }, 8, NULL, 0), 0);
	assert_int_equal(request(f, SET_OWNER, V1, NULL, 0, NULL, 0), 0);
	assert_int_equal(request(f, SET_MEM_TABLE, V1, table, sizeof(table), &f->memfd, 1), 0);
	assert_int_equal(request(f, SET_VRING_NUM, V1, num, sizeof(num), NULL, 0), 0);
	assert_int_equal(request(f, SET_VRING_ADDR, V1, addr, sizeof(addr), NULL, 0), 0);
	assert_int_equal(request(f, SET_VRING_BASE, V1, base, sizeof(base), NULL, 0), 0);
	assert_int_equal(request(f, SET_VRING_KICK, V1, &kick, 8, NULL, 0), 0);
	no_reply(f);
	assert_int_equal(f->dev.starts[2], 1);
}

/*
 * QEMU's order: protocol features set (REPLY_ACK) before SET_FEATURES takes
 * bit 30, and the rings enabled before the guest's driver sets the features.
 * The protocol is in use from SET_PROTOCOL_FEATURES on: a ring waits for its enable.
 */
static void test_protocol_features_before_bit_30(void **state)
{
	struct fixture *f = *state;

	negotiate(f, F_OFFERED);
	assert_int_equal(mem_table(f, GPA0, UVA0), 0);
	ring_setup(f, 2, 0);
	assert_int_equal(set_kick(f, 2, -1), 0);
	assert_int_equal(f->dev.starts[2], 0);
	assert_int_equal(acked_state(f, SET_VRING_ENABLE, 2, 1), 0);
	assert_int_equal(f->dev.starts[2], 1);
}

static void test_config(void **state)
{
	struct fixture *f = *state;
	uint8_t msg[12 + 8], got[12 + 256];
	uint32_t hdr[3] = { 4, 8, 0 };

	/* Before CONFIG is negotiated: an empty answer. */
	memcpy(msg, hdr, 12);
	memset(msg + 12, 0, 8);
	assert_int_equal(request(f, GET_CONFIG, V1, msg, sizeof(msg), NULL, 0), 0);
	assert_int_equal(reply(f, GET_CONFIG, got, sizeof(got)), 0);
	negotiate(f, F_OFFERED | F_PROTOCOL);
	assert_int_equal(request(f, GET_CONFIG, V1, msg, sizeof(msg), NULL, 0), 0);
	assert_int_equal(reply(f, GET_CONFIG, got, sizeof(got)), 20);
	assert_memory_equal(got, hdr, 12);
	assert_memory_equal(got + 12, f->dev.config + 4, 8);
	/* Outside the device's space: it refuses, an empty answer. */
	hdr[0] = 60;
	memcpy(msg, hdr, 12);
	assert_int_equal(request(f, GET_CONFIG, V1, msg, sizeof(msg), NULL, 0), 0);
	assert_int_equal(reply(f, GET_CONFIG, got, sizeof(got)), 0);
	/* A size that is not the payload's: an empty answer too. */
	hdr[0] = 0;
	hdr[1] = 9;
	memcpy(msg, hdr, 12);
	assert_int_equal(request(f, GET_CONFIG, V1, msg, sizeof(msg), NULL, 0), 0);
	assert_int_equal(reply(f, GET_CONFIG, got, sizeof(got)), 0);
	/* SET_CONFIG writes; flags other than 0 and 1 are refused. */
	hdr[1] = 8;
	memcpy(msg, hdr, 12);
	memcpy(msg + 12, "ABCDEFGH", 8);
	assert_int_equal(acked(f, SET_CONFIG, msg, sizeof(msg), NULL, 0), 0);
	assert_memory_equal(f->dev.config, "ABCDEFGH", 8);
	hdr[2] = 2;
	memcpy(msg, hdr, 12);
	memcpy(msg + 12, "zzzzzzzz", 8);
	assert_int_equal(acked(f, SET_CONFIG, msg, sizeof(msg), NULL, 0), 1);
	assert_memory_equal(f->dev.config, "ABCDEFGH", 8);
}

static void test_bad_requests_answered(void **state)
{
	struct fixture *f = *state;
	int efd = eventfd(0, EFD_CLOEXEC);
	uint32_t st[2] = { 0, 8 };

	negotiate(f, F_OFFERED | F_PROTOCOL);
	/* A payload size other than the request's, fds on a request that takes none, an unknown request. */
	assert_int_equal(acked(f, SET_VRING_NUM, st, 4, NULL, 0), 1);
	assert_int_equal(acked(f, SET_VRING_NUM, st, 8, &efd, 1), 1);
	assert_int_equal(acked(f, 99, NULL, 0, NULL, 0), 1);
	assert_int_equal(acked(f, 7 /* SET_LOG_FD: not offered */, NULL, 0, &efd, 1), 1);
	assert_int_equal(acked_state(f, SET_VRING_NUM, 0, 3), 1);
	assert_int_equal(acked_state(f, SET_VRING_NUM, 0, 65536), 1);
	assert_int_equal(acked_state(f, SET_VRING_NUM, NQ, 8), 1);
	assert_int_equal(acked_state(f, SET_VRING_BASE, 0, 65536), 1);
	/* Still a working session. */
	assert_int_equal(acked_state(f, SET_VRING_NUM, 0, 8), 0);
	assert_int_equal(ask_u64(f, GET_QUEUE_NUM), NQ);
	close(efd);
}

/* Without REPLY_ACK, a request that fails ends the session: the front end would think it done. */
static void test_failure_without_ack_ends(void **state)
{
	struct fixture *f = *state;
	uint32_t st[2] = { 0, 3 };

	/* need_reply without REPLY_ACK negotiated: no answer. */
	assert_int_equal(request(f, SET_OWNER, V1 | NEED_REPLY, NULL, 0, NULL, 0), 0);
	no_reply(f);
	assert_int_equal(request(f, SET_VRING_NUM, V1, st, 8, NULL, 0), -EPROTO);
}

static void test_unknown_without_ack_ends(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(request(f, 99, V1, NULL, 0, NULL, 0), -EPROTO);
}

static void test_bad_headers_end(void **state)
{
	static const struct {
		uint32_t flags, size;
	} cases[] = {
		{ 2, 0 },                                       /* version 2 */
		{ V1 | REPLY_FLAG, 0 },                         /* a reply */
		{ V1 | 0x10, 0 },                               /* an unknown flag */
		{ V1, 4096 },                                   /* larger than any request */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fixture *f = *state;
		uint8_t pad[8] = { 0 };

		send_raw(f, GET_FEATURES, cases[i].flags, pad, 0, cases[i].size, NULL, 0);
		assert_int_equal(vhost_user_session_handle(f->s), -EPROTO);
		teardown(state);
		setup(state);
	}
}

/* A message that comes in pieces waits for the rest. */
static void test_partial_message(void **state)
{
	struct fixture *f = *state;
	uint32_t h[3] = { GET_QUEUE_NUM, V1, 0 };
	uint64_t v;

	assert_int_equal(send(f->fe, h, 5, 0), 5);
	assert_int_equal(vhost_user_session_handle(f->s), 0);
	no_reply(f);
	assert_int_equal(send(f->fe, (uint8_t *)h + 5, 7, 0), 7);
	assert_int_equal(vhost_user_session_handle(f->s), 0);
	assert_int_equal(reply(f, GET_QUEUE_NUM, &v, sizeof(v)), 8);
	assert_int_equal(v, NQ);
}

static void test_too_many_fds_ends(void **state)
{
	struct fixture *f = *state;
	int fds[9];
	uint64_t t[1 + 4] = { 1, GPA0, MEM_SIZE, UVA0, 0 };

	for (int i = 0; i < 9; i++)
		fds[i] = f->memfd;
	send_raw(f, SET_MEM_TABLE, V1, t, sizeof(t), sizeof(t), fds, 9);
	assert_int_equal(vhost_user_session_handle(f->s), -EPROTO);
}

static void test_reset(void **state)
{
	struct fixture *f = *state;

	running_queue(f);
	assert_int_equal(acked(f, RESET_DEVICE, NULL, 0, NULL, 0), 0);
	assert_int_equal(f->dev.stops[0], 1);
	assert_int_equal(f->dev.resets, 1);
	assert_false(vq_ready(vhost_user_session_queue(f->s, 0)));
	assert_int_equal(vhost_user_session_features(f->s), 0);
	/* Set up again after the reset, it runs again. */
	assert_int_equal(acked_u64(f, SET_FEATURES, F_OFFERED | F_PROTOCOL), 0);
	ring_setup(f, 0, 0);
	assert_int_equal(set_kick(f, 0, -1), 0);
	assert_int_equal(acked_state(f, SET_VRING_ENABLE, 0, 1), 0);
	assert_int_equal(f->dev.starts[0], 2);
	assert_int_equal(acked(f, RESET_OWNER, NULL, 0, NULL, 0), 0);
	assert_int_equal(f->dev.stops[0], 2);
	assert_int_equal(f->dev.resets, 2);
}

/* The front end goes: the session ends, the device is reset, and a new front end starts afresh. */
static void test_second_session(void **state)
{
	struct fixture *f = *state;

	running_queue(f);
	close(f->fe);
	assert_int_equal(vhost_user_session_handle(f->s), -ECONNRESET);
	vhost_user_session_free(f->s);
	assert_int_equal(f->dev.stops[0], 1);
	assert_int_equal(f->dev.resets, 1);
	open_session(f);
	assert_int_equal(vhost_user_session_features(f->s), 0);
	assert_false(vq_running(vhost_user_session_queue(f->s, 0)));
	assert_null(vhost_user_session_queue(f->s, NQ));
	running_queue(f);
	assert_int_equal(f->dev.starts[0], 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_negotiation, setup, teardown),
		cmocka_unit_test(test_offer_checked),
		cmocka_unit_test_setup_teardown(test_ring_setup_and_base, setup, teardown),
		cmocka_unit_test_setup_teardown(test_call_fd_change_restarts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mem_table_swap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device_refuses_start, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_protocol_features, setup, teardown),
		cmocka_unit_test_setup_teardown(test_protocol_features_before_bit_30, setup, teardown),
		cmocka_unit_test_setup_teardown(test_config, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_requests_answered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failure_without_ack_ends, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_without_ack_ends, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_headers_end, setup, teardown),
		cmocka_unit_test_setup_teardown(test_partial_message, setup, teardown),
		cmocka_unit_test_setup_teardown(test_too_many_fds_ends, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_second_session, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
