/* SPDX-License-Identifier: MIT */
#include "dataplane/virtio/vhost_user.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dataplane/virtio/vhost_user_wire.h"
#include "lib/log.h"

#define HDR_SIZE sizeof(struct vhost_user_header)

#define BIT(n) (1ull << (n))
/* Ring features a device may not offer: we serve split rings in guest physical memory, no dirty log. */
#define VIRTIO_F_RING_PACKED      34
#define VIRTIO_F_ACCESS_PLATFORM  33
#define VHOST_F_LOG_ALL           26
#define FEATURES_UNSERVED (BIT(VIRTIO_F_RING_PACKED) | BIT(VIRTIO_F_ACCESS_PLATFORM) | \
			   BIT(VHOST_F_LOG_ALL) | BIT(VHOST_USER_F_PROTOCOL_FEATURES))

#define PROTOCOL_OFFERED (BIT(VHOST_USER_PROTOCOL_F_MQ) | BIT(VHOST_USER_PROTOCOL_F_REPLY_ACK) | \
			  BIT(VHOST_USER_PROTOCOL_F_CONFIG) | BIT(VHOST_USER_PROTOCOL_F_RESET_DEVICE))

struct queue_slot {
	struct virtqueue vq;
	bool kick_set;                 /* SET_VRING_KICK came (an fd or NOFD) since the last stop */
	bool enabled;                  /* SET_VRING_ENABLE's last word */
};

struct vhost_user_session {
	int fd;
	const struct vhost_user_device_ops *ops;
	void *dev;
	uint64_t features;             /* negotiated virtio features */
	uint64_t protocol_features;
	bool protocol_set;             /* SET_PROTOCOL_FEATURES came (bit 30 offered, before SET_FEATURES) */
	struct vhost_mem *mem;
	const char *error;
	/* the message being read: header and payload, and the fds that came with it */
	union {
		struct vhost_user_header hdr;
		uint8_t bytes[HDR_SIZE + VHOST_USER_PAYLOAD_MAX];
	} in;
	size_t have;
	int fds[VHOST_USER_FDS_MAX];
	unsigned nfds;
	unsigned nq;
	struct queue_slot q[];
};

/* A request being handled: its payload, and the answer its handler writes (if it has one). */
struct request {
	const struct vhost_user_header *hdr;
	const uint8_t *payload;
	union {
		uint64_t u64;
		struct vhost_user_vring_state state;
		uint8_t bytes[VHOST_USER_PAYLOAD_MAX];
	} reply;
	uint32_t reply_size;
};

/* Records why a request failed; returns err. */
static int fail(struct vhost_user_session *s, int err, const char *why)
{
	s->error = why;
	return err;
}

/* ---- queues: when they run ---- */

/*
 * The front end speaks the protocol features: it took bit 30 in
 * SET_FEATURES, or it set them already, as QEMU does at its start, before
 * the guest's driver sets the features (and then enables rings by
 * SET_VRING_ENABLE: a queue starts disabled from then on).
 */
static bool protocol_features_negotiated(const struct vhost_user_session *s)
{
	return (s->features & BIT(VHOST_USER_F_PROTOCOL_FEATURES)) || s->protocol_set;
}

static bool should_run(const struct vhost_user_session *s, const struct queue_slot *q)
{
	return s->mem && q->kick_set && vq_ready(&q->vq) &&
	       (q->enabled || !protocol_features_negotiated(s));
}

static void queue_halt(struct vhost_user_session *s, unsigned i)
{
	if (!vq_running(&s->q[i].vq))
		return;
	s->ops->queue_stop(s->dev, i);
	vq_stop(&s->q[i].vq);
}

/* Starts queue i when everything it needs is there; 0 when it runs or need not. */
static int queue_run(struct vhost_user_session *s, unsigned i)
{
	struct virtqueue *vq = &s->q[i].vq;
	int err;

	if (vq_running(vq) || !should_run(s, &s->q[i]))
		return 0;
	vq_set_features(vq, s->features & BIT(VIRTIO_RING_F_EVENT_IDX),
			s->features & BIT(VIRTIO_RING_F_INDIRECT_DESC));
	err = vq_start(vq, s->mem);
	if (err)
		return fail(s, err, "ring addresses outside guest memory or misaligned");
	err = s->ops->queue_start(s->dev, i, vq);
	if (err < 0) {
		vq_stop(vq);
		return fail(s, err, "the device refused to start the queue");
	}
	return 0;
}

static int run_all(struct vhost_user_session *s)
{
	int err = 0;

	for (unsigned i = 0; i < s->nq; i++) {
		int r = queue_run(s, i);

		if (r && !err)
			err = r;
	}
	return err;
}

static void halt_all(struct vhost_user_session *s)
{
	for (unsigned i = 0; i < s->nq; i++)
		queue_halt(s, i);
}

static bool any_running(const struct vhost_user_session *s)
{
	for (unsigned i = 0; i < s->nq; i++)
		if (vq_running(&s->q[i].vq))
			return true;
	return false;
}

/* RESET_OWNER, RESET_DEVICE, the end: queues stopped and forgotten, the device new again. */
static void reset_all(struct vhost_user_session *s)
{
	halt_all(s);
	for (unsigned i = 0; i < s->nq; i++) {
		vq_reset(&s->q[i].vq);
		s->q[i].kick_set = false;
		s->q[i].enabled = false;
	}
	s->features = 0;
	s->ops->reset(s->dev);
}

/* ---- requests ---- */

static uint64_t payload_u64(const struct request *r)
{
	uint64_t v;

	memcpy(&v, r->payload, sizeof(v));
	return v;
}

/* A vring state's index, checked against the queues; -EINVAL otherwise. */
static int state_queue(struct vhost_user_session *s, const struct request *r,
		       struct vhost_user_vring_state *st)
{
	memcpy(st, r->payload, sizeof(*st));
	if (st->index >= s->nq)
		return fail(s, -EINVAL, "a queue index not below the number of queues");
	return 0;
}

static uint64_t features_offered(const struct vhost_user_session *s)
{
	return s->ops->features | BIT(VHOST_USER_F_PROTOCOL_FEATURES);
}

static int get_features(struct vhost_user_session *s, struct request *r)
{
	r->reply.u64 = features_offered(s);
	r->reply_size = sizeof(uint64_t);
	return 0;
}

static int set_features(struct vhost_user_session *s, struct request *r)
{
	uint64_t f = payload_u64(r);
	int err;

	if (f & ~features_offered(s))
		return fail(s, -EINVAL, "features that were not offered");
	if (f != s->features && any_running(s))
		return fail(s, -EBUSY, "a change of features while queues run");
	err = s->ops->features_set(s->dev, f);
	if (err < 0)
		return fail(s, err, "the device refused the features");
	s->features = f;
	return run_all(s);
}

static int set_owner(struct vhost_user_session *s, struct request *r)
{
	return 0;
}

static int reset(struct vhost_user_session *s, struct request *r)
{
	reset_all(s);
	return 0;
}

static void close_fds(struct vhost_user_session *s)
{
	for (unsigned i = 0; i < s->nfds; i++)
		if (s->fds[i] >= 0)
			close(s->fds[i]);
	s->nfds = 0;
}

static int set_mem_table(struct vhost_user_session *s, struct request *r)
{
	struct vhost_mem_region_desc desc[VHOST_MEM_REGIONS_MAX];
	struct vhost_user_memory head;
	struct vhost_mem *mem, *old;
	uint32_t n;
	int err;

	/* The payload sits 4 bytes into an 8-byte word: copied out, never cast. */
	if (r->hdr->size < sizeof(head))
		return fail(s, -EINVAL, "a memory table shorter than its header");
	memcpy(&head, r->payload, sizeof(head));
	n = head.nregions;
	if (n < 1 || n > VHOST_MEM_REGIONS_MAX)
		return fail(s, -EINVAL, "a memory table of no region or more than 8");
	if (r->hdr->size != sizeof(head) + n * sizeof(struct vhost_user_mem_region))
		return fail(s, -EINVAL, "a memory table whose size is not that of its regions");
	if (s->nfds != n)
		return fail(s, -EINVAL, "a memory table without one file descriptor per region");
	memcpy(desc, r->payload + sizeof(head), n * sizeof(desc[0]));
	err = vhost_mem_new(desc, s->fds, n, s->ops->mem_flags, &mem);
	if (err)
		return fail(s, err, "memory regions that are empty, overlap, or are not in their files");
	halt_all(s);
	old = s->mem;
	s->mem = mem;
	vhost_mem_unref(old);
	return run_all(s);
}

static int set_vring_num(struct vhost_user_session *s, struct request *r)
{
	struct vhost_user_vring_state st;
	int err = state_queue(s, r, &st);

	if (err)
		return err;
	err = vq_set_num(&s->q[st.index].vq, st.num);
	if (err == -EBUSY)
		return fail(s, err, "a change of a running queue");
	if (err)
		return fail(s, err, "a queue size that is not a power of two up to 32768");
	return queue_run(s, st.index);
}

static int set_vring_addr(struct vhost_user_session *s, struct request *r)
{
	struct vhost_user_vring_addr a;
	int err;

	memcpy(&a, r->payload, sizeof(a));
	if (a.index >= s->nq)
		return fail(s, -EINVAL, "a queue index not below the number of queues");
	if (a.flags)
		return fail(s, -EINVAL, "ring address flags (dirty logging is not offered)");
	err = vq_set_addr(&s->q[a.index].vq, a.desc, a.avail, a.used);
	if (err)
		return fail(s, err, "a change of a running queue");
	return queue_run(s, a.index);
}

static int set_vring_base(struct vhost_user_session *s, struct request *r)
{
	struct vhost_user_vring_state st;
	int err = state_queue(s, r, &st);

	if (err)
		return err;
	if (st.num > UINT16_MAX)
		return fail(s, -EINVAL, "a ring base above 65535");
	err = vq_set_base(&s->q[st.index].vq, (uint16_t)st.num);
	if (err)
		return fail(s, err, "a change of a running queue");
	return 0;
}

static int get_vring_base(struct vhost_user_session *s, struct request *r)
{
	struct vhost_user_vring_state st;
	int err = state_queue(s, r, &st);

	if (err)
		return err;
	queue_halt(s, st.index);
	/* Stopped until a new kick: the front end sets the ring up again before it runs. */
	vq_set_kick(&s->q[st.index].vq, -1);
	s->q[st.index].kick_set = false;
	r->reply.state = (struct vhost_user_vring_state){
		.index = st.index, .num = vq_last_avail(&s->q[st.index].vq),
	};
	r->reply_size = sizeof(r->reply.state);
	return 0;
}

/* SET_VRING_KICK/CALL/ERR: the queue, and the fd taken from the message (-1 for NOFD). */
static int vring_fd(struct vhost_user_session *s, const struct request *r, unsigned *index, int *fd)
{
	uint64_t v = payload_u64(r);
	bool nofd = v & VHOST_USER_VRING_NOFD;

	if (v & ~(uint64_t)(VHOST_USER_VRING_IDX_MASK | VHOST_USER_VRING_NOFD))
		return fail(s, -EINVAL, "bits beyond the queue index and NOFD");
	*index = v & VHOST_USER_VRING_IDX_MASK;
	if (*index >= s->nq)
		return fail(s, -EINVAL, "a queue index not below the number of queues");
	if (s->nfds != (nofd ? 0u : 1u))
		return fail(s, -EINVAL, "a file descriptor count that does not match the NOFD flag");
	*fd = nofd ? -1 : s->fds[0];
	if (!nofd)
		s->fds[0] = -1;
	return 0;
}

/* Stops the queue around the change of one of its fds (the owner reads them), then runs it again. */
static int set_queue_fd(struct vhost_user_session *s, struct request *r,
			int (*set)(struct virtqueue *, int), bool is_kick)
{
	unsigned i;
	int fd, err = vring_fd(s, r, &i, &fd);

	if (err)
		return err;
	queue_halt(s, i);
	set(&s->q[i].vq, fd);
	if (is_kick)
		s->q[i].kick_set = true;
	return queue_run(s, i);
}

static int set_vring_kick(struct vhost_user_session *s, struct request *r)
{
	return set_queue_fd(s, r, vq_set_kick, true);
}

static int set_vring_call(struct vhost_user_session *s, struct request *r)
{
	return set_queue_fd(s, r, vq_set_call, false);
}

static int set_vring_err(struct vhost_user_session *s, struct request *r)
{
	return set_queue_fd(s, r, vq_set_err, false);
}

static int get_protocol_features(struct vhost_user_session *s, struct request *r)
{
	r->reply.u64 = PROTOCOL_OFFERED;
	r->reply_size = sizeof(uint64_t);
	return 0;
}

static int set_protocol_features(struct vhost_user_session *s, struct request *r)
{
	uint64_t f = payload_u64(r);

	if (f & ~(uint64_t)PROTOCOL_OFFERED)
		return fail(s, -EINVAL, "protocol features that were not offered");
	s->protocol_features = f;
	s->protocol_set = true;
	return 0;
}

static int get_queue_num(struct vhost_user_session *s, struct request *r)
{
	r->reply.u64 = s->nq;
	r->reply_size = sizeof(uint64_t);
	return 0;
}

static int set_vring_enable(struct vhost_user_session *s, struct request *r)
{
	struct vhost_user_vring_state st;
	int err = state_queue(s, r, &st);

	if (err)
		return err;
	if (!protocol_features_negotiated(s))
		return fail(s, -EINVAL, "SET_VRING_ENABLE without VHOST_USER_F_PROTOCOL_FEATURES");
	if (st.num > 1)
		return fail(s, -EINVAL, "an enable word other than 0 or 1");
	s->q[st.index].enabled = st.num;
	if (!st.num) {
		queue_halt(s, st.index);
		return 0;
	}
	return queue_run(s, st.index);
}

/* GET/SET_CONFIG's header, checked: size 1..256 and exactly what the payload holds. */
static int config_header(struct vhost_user_session *s, const struct request *r,
			 struct vhost_user_config *c)
{
	if (r->hdr->size < sizeof(*c))
		return fail(s, -EINVAL, "a config message shorter than its header");
	memcpy(c, r->payload, sizeof(*c));
	if (c->size < 1 || c->size > VHOST_USER_CONFIG_MAX || r->hdr->size != sizeof(*c) + c->size)
		return fail(s, -EINVAL, "a config size not 1..256 or not the payload's");
	return 0;
}

static int get_config(struct vhost_user_session *s, struct request *r)
{
	struct vhost_user_config c;
	int err = config_header(s, r, &c);

	if (err)
		return err;
	if (!s->ops->config_read)
		return fail(s, -ENOTSUP, "a device without config space");
	err = s->ops->config_read(s->dev, c.offset, r->reply.bytes + sizeof(c), c.size);
	if (err < 0)
		return fail(s, err, "the device refused the config read");
	memcpy(r->reply.bytes, &c, sizeof(c));
	r->reply_size = sizeof(c) + c.size;
	return 0;
}

static int set_config(struct vhost_user_session *s, struct request *r)
{
	struct vhost_user_config c;
	int err = config_header(s, r, &c);

	if (err)
		return err;
	if (c.flags > 1)
		return fail(s, -EINVAL, "config flags other than 0 (driver) or 1 (migration)");
	if (!s->ops->config_write)
		return fail(s, -ENOTSUP, "a device without writable config space");
	err = s->ops->config_write(s->dev, c.offset, r->payload + sizeof(c), c.size, c.flags);
	if (err < 0)
		return fail(s, err, "the device refused the config write");
	return 0;
}

enum reply_kind {
	REPLY_ACK_ONLY,                /* answered only when need_reply was set (and REPLY_ACK negotiated) */
	REPLY_ALWAYS,                  /* has its own answer; a failure ends the session */
	REPLY_EMPTY_ON_FAIL,           /* has its own answer; a failure answers an empty payload */
};

#define SIZE_VARIABLE UINT32_MAX   /* the handler checks the size */

struct request_type {
	int (*handle)(struct vhost_user_session *s, struct request *r);
	const char *name;
	uint32_t size;                 /* exact payload size, or SIZE_VARIABLE */
	unsigned max_fds;
	int protocol_feature;          /* needed, or -1 */
	enum reply_kind reply;
};

#define REQ(id, fn, sz, fds, pf, rk) \
	[VHOST_USER_##id] = { .handle = fn, .name = #id, .size = sz, .max_fds = fds, \
			      .protocol_feature = pf, .reply = rk }

static const struct request_type requests[] = {
	REQ(GET_FEATURES, get_features, 0, 0, -1, REPLY_ALWAYS),
	REQ(SET_FEATURES, set_features, 8, 0, -1, REPLY_ACK_ONLY),
	REQ(SET_OWNER, set_owner, 0, 0, -1, REPLY_ACK_ONLY),
	REQ(RESET_OWNER, reset, 0, 0, -1, REPLY_ACK_ONLY),
	REQ(SET_MEM_TABLE, set_mem_table, SIZE_VARIABLE, VHOST_USER_FDS_MAX, -1, REPLY_ACK_ONLY),
	REQ(SET_VRING_NUM, set_vring_num, 8, 0, -1, REPLY_ACK_ONLY),
	REQ(SET_VRING_ADDR, set_vring_addr, 40, 0, -1, REPLY_ACK_ONLY),
	REQ(SET_VRING_BASE, set_vring_base, 8, 0, -1, REPLY_ACK_ONLY),
	REQ(GET_VRING_BASE, get_vring_base, 8, 0, -1, REPLY_ALWAYS),
	REQ(SET_VRING_KICK, set_vring_kick, 8, 1, -1, REPLY_ACK_ONLY),
	REQ(SET_VRING_CALL, set_vring_call, 8, 1, -1, REPLY_ACK_ONLY),
	REQ(SET_VRING_ERR, set_vring_err, 8, 1, -1, REPLY_ACK_ONLY),
	REQ(GET_PROTOCOL_FEATURES, get_protocol_features, 0, 0, -1, REPLY_ALWAYS),
	REQ(SET_PROTOCOL_FEATURES, set_protocol_features, 8, 0, -1, REPLY_ACK_ONLY),
	REQ(GET_QUEUE_NUM, get_queue_num, 0, 0, -1, REPLY_ALWAYS),
	REQ(SET_VRING_ENABLE, set_vring_enable, 8, 0, -1, REPLY_ACK_ONLY),
	REQ(GET_CONFIG, get_config, SIZE_VARIABLE, 0, VHOST_USER_PROTOCOL_F_CONFIG, REPLY_EMPTY_ON_FAIL),
	REQ(SET_CONFIG, set_config, SIZE_VARIABLE, 0, VHOST_USER_PROTOCOL_F_CONFIG, REPLY_ACK_ONLY),
	REQ(RESET_DEVICE, reset, 0, 0, VHOST_USER_PROTOCOL_F_RESET_DEVICE, REPLY_ACK_ONLY),
};

/* What the table says of the request itself: it exists, is allowed now, has its size and fds. */
static int check_request(struct vhost_user_session *s, const struct request_type *t,
			 const struct vhost_user_header *h)
{
	if (!t->handle)
		return fail(s, -EOPNOTSUPP, "an unknown request");
	if (t->protocol_feature >= 0 && !(s->protocol_features & BIT(t->protocol_feature)))
		return fail(s, -EOPNOTSUPP, "a request whose protocol feature was not negotiated");
	if (t->size != SIZE_VARIABLE && h->size != t->size)
		return fail(s, -EINVAL, "a payload size other than the request's");
	if (s->nfds > t->max_fds)
		return fail(s, -EINVAL, "more file descriptors than the request takes");
	return 0;
}

static int send_reply(struct vhost_user_session *s, uint32_t request, const void *payload, uint32_t size)
{
	uint8_t out[HDR_SIZE + VHOST_USER_PAYLOAD_MAX];
	struct vhost_user_header h = { .request = request, .flags = VHOST_USER_VERSION | VHOST_USER_REPLY,
				       .size = size };
	ssize_t n;

	memcpy(out, &h, HDR_SIZE);
	memcpy(out + HDR_SIZE, payload, size);
	/* A front end that leaves its answers unread until the socket fills is broken: no waiting for it. */
	n = send(s->fd, out, HDR_SIZE + size, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (n < 0)
		return -errno;
	return (size_t)n == HDR_SIZE + size ? 0 : -EPROTO;
}

static int handle_message(struct vhost_user_session *s)
{
	const struct vhost_user_header *h = &s->in.hdr;
	const struct request_type *t = h->request < sizeof(requests) / sizeof(requests[0]) ?
				       &requests[h->request] : &(const struct request_type){ 0 };
	struct request r = { .hdr = h, .payload = s->in.bytes + HDR_SIZE };
	bool ack = (h->flags & VHOST_USER_NEED_REPLY) &&
		   (s->protocol_features & BIT(VHOST_USER_PROTOCOL_F_REPLY_ACK));
	int err;

	s->error = NULL;
	err = check_request(s, t, h);
	if (!err)
		err = t->handle(s, &r);
	close_fds(s);
	if (err)
		log_debug("vhost-user: request %u (%s) refused: %s", h->request, t->name ? t->name : "?",
			  s->error ? s->error : strerror(-err));
	switch (t->handle ? t->reply : REPLY_ACK_ONLY) {
	case REPLY_ALWAYS:
		if (err)
			return -EPROTO;
		return send_reply(s, h->request, &r.reply, r.reply_size);
	case REPLY_EMPTY_ON_FAIL:
		return send_reply(s, h->request, &r.reply, err ? 0 : r.reply_size);
	case REPLY_ACK_ONLY:
		if (ack) {
			uint64_t status = err ? 1 : 0;

			return send_reply(s, h->request, &status, sizeof(status));
		}
		return err ? -EPROTO : 0;
	}
	return -EPROTO;
}

/* The header as it came: version 1, a request (not a reply), no flag we do not know, a payload we take. */
static int check_header(struct vhost_user_session *s)
{
	const struct vhost_user_header *h = &s->in.hdr;

	if ((h->flags & VHOST_USER_VERSION_MASK) != VHOST_USER_VERSION ||
	    (h->flags & ~(VHOST_USER_VERSION_MASK | VHOST_USER_NEED_REPLY)))
		return fail(s, -EPROTO, "a header of another version, a reply, or unknown flags");
	if (h->size > VHOST_USER_PAYLOAD_MAX)
		return fail(s, -EPROTO, "a payload larger than any request takes");
	return 0;
}

/* Keeps the descriptors a read brought for the message being read; too many breaks the protocol. */
static int take_fds(struct vhost_user_session *s, struct msghdr *mh)
{
	int err = 0;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		size_t n;
		int fds[VHOST_USER_FDS_MAX + 1];

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		if (n > VHOST_USER_FDS_MAX + 1)
			n = VHOST_USER_FDS_MAX + 1;
		memcpy(fds, CMSG_DATA(c), n * sizeof(int));
		for (size_t i = 0; i < n; i++) {
			if (s->nfds < VHOST_USER_FDS_MAX) {
				s->fds[s->nfds++] = fds[i];
			} else {
				close(fds[i]);
				err = fail(s, -EPROTO, "more file descriptors than any request takes");
			}
		}
	}
	if (mh->msg_flags & MSG_CTRUNC)
		err = fail(s, -EPROTO, "more file descriptors than any request takes");
	return err;
}

static ssize_t read_some(struct vhost_user_session *s, size_t want)
{
	union {
		struct cmsghdr align;
		uint8_t buf[CMSG_SPACE(sizeof(int) * (VHOST_USER_FDS_MAX + 1))];
	} control;
	struct iovec iov = { .iov_base = s->in.bytes + s->have, .iov_len = want };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
			     .msg_controllen = sizeof(control.buf) };
	ssize_t n = recvmsg(s->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	int err;

	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
	err = take_fds(s, &mh);
	if (err)
		return err;
	if (n == 0)
		return -ECONNRESET;
	return n;
}

int vhost_user_session_handle(struct vhost_user_session *s)
{
	for (;;) {
		size_t want;
		ssize_t n;
		int err;

		if (s->have < HDR_SIZE) {
			want = HDR_SIZE - s->have;
		} else {
			want = HDR_SIZE + s->in.hdr.size - s->have;
			if (!want) {
				err = handle_message(s);
				s->have = 0;
				close_fds(s);
				if (err)
					return err;
				continue;
			}
		}
		n = read_some(s, want);
		if (n == 0)
			return 0;
		if (n < 0)
			return (int)n;
		s->have += (size_t)n;
		if (s->have == HDR_SIZE) {
			err = check_header(s);
			if (err)
				return err;
		}
	}
}

int vhost_user_session_new(int fd, const struct vhost_user_device_ops *ops, void *dev,
			   struct vhost_user_session **out)
{
	struct vhost_user_session *s;
	int fl;

	*out = NULL;
	if (!ops->num_queues || ops->num_queues > VHOST_USER_QUEUES_MAX || (ops->features & FEATURES_UNSERVED) ||
	    !ops->features_set || !ops->queue_start || !ops->queue_stop || !ops->reset)
		return -EINVAL;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	s = calloc(1, sizeof(*s) + ops->num_queues * sizeof(s->q[0]));
	if (!s)
		return -ENOMEM;
	s->fd = fd;
	s->ops = ops;
	s->dev = dev;
	s->nq = ops->num_queues;
	for (unsigned i = 0; i < s->nq; i++)
		vq_init(&s->q[i].vq, i);
	*out = s;
	return 0;
}

void vhost_user_session_free(struct vhost_user_session *s)
{
	if (!s)
		return;
	reset_all(s);
	close_fds(s);
	vhost_mem_unref(s->mem);
	close(s->fd);
	free(s);
}

int vhost_user_session_fd(const struct vhost_user_session *s)
{
	return s->fd;
}

uint64_t vhost_user_session_features(const struct vhost_user_session *s)
{
	return s->features;
}

uint64_t vhost_user_session_protocol_features(const struct vhost_user_session *s)
{
	return s->protocol_features;
}

struct vhost_mem *vhost_user_session_mem(const struct vhost_user_session *s)
{
	return vhost_mem_ref(s->mem);
}

const struct virtqueue *vhost_user_session_queue(const struct vhost_user_session *s, unsigned index)
{
	return index < s->nq ? &s->q[index].vq : NULL;
}

const char *vhost_user_session_error(const struct vhost_user_session *s)
{
	return s->error;
}
