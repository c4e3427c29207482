/* SPDX-License-Identifier: MIT */
/*
 * One vhost-user front end's session (QEMU's docs/interop/vhost-user.rst),
 * the back end's side, on whatever event loop the caller runs: it is made
 * from a connected AF_UNIX stream socket and a device (an ops table and a
 * pointer), and vhost_user_session_handle runs whenever the socket is
 * readable.  Everything the front end sends is hostile: every header,
 * payload size, index, file descriptor count and address is checked before
 * anything changes, and the queues check the rings (virtqueue.h).
 *
 * What the session answers: GET/SET_FEATURES, SET_OWNER, RESET_OWNER,
 * SET_MEM_TABLE, SET_VRING_NUM/ADDR/BASE, GET_VRING_BASE,
 * SET_VRING_KICK/CALL/ERR, GET/SET_PROTOCOL_FEATURES, GET_QUEUE_NUM,
 * SET_VRING_ENABLE, GET/SET_CONFIG, RESET_DEVICE; protocol features offered:
 * MQ, REPLY_ACK, CONFIG, RESET_DEVICE.  A request that fails (refused,
 * unknown, or not allowed by what was negotiated) is answered with a failure
 * when the front end asked for an answer (REPLY_ACK's need_reply, or a
 * request that always has one); when it did not, the session ends, as the
 * front end would otherwise go on as if it had succeeded
 * (docs/decisions.md, "vhost-user: our own back end").
 *
 * Queue life (the spec's ring states): a queue starts, and the device hears
 * queue_start, when it has a size, addresses, a memory table, a kick (an fd
 * or NOFD for polling) and, once VHOST_USER_F_PROTOCOL_FEATURES was
 * negotiated, SET_VRING_ENABLE 1.  It stops, and the device hears
 * queue_stop, at GET_VRING_BASE (which then answers its last available
 * index), at SET_VRING_ENABLE 0, around any change of its kick, call or error
 * fd or of the memory table (it starts again after, with the same indexes),
 * at RESET_OWNER, RESET_DEVICE and when the session is freed.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "dataplane/virtio/guest_mem.h"
#include "dataplane/virtio/virtqueue.h"

/* Virtio feature bits the library knows (it serves their ring side). */
#define VIRTIO_RING_F_INDIRECT_DESC    28
#define VIRTIO_RING_F_EVENT_IDX        29
#define VHOST_USER_F_PROTOCOL_FEATURES 30
#define VIRTIO_F_VERSION_1             32

/* Queues one device may have: SET_VRING_KICK/CALL/ERR name a queue in 8 bits. */
#define VHOST_USER_QUEUES_MAX 256

/*
 * The device behind a session.  Hooks run on the session's thread, inside
 * vhost_user_session_handle or vhost_user_session_free; dev is the pointer
 * given at vhost_user_session_new.
 */
struct vhost_user_device_ops {
	/*
	 * Virtio features offered (the device's own bits and the ring's: 28,
	 * 29, 32).  The library adds VHOST_USER_F_PROTOCOL_FEATURES itself
	 * and refuses a table that offers a ring feature it cannot serve
	 * (VIRTIO_F_RING_PACKED 34, VIRTIO_F_ACCESS_PLATFORM 33,
	 * VHOST_F_LOG_ALL 26) or bit 30.
	 */
	uint64_t features;
	unsigned num_queues;           /* 1..VHOST_USER_QUEUES_MAX */
	unsigned mem_flags;            /* vhost_mem_new's flags for every table (VHOST_MEM_SEALED_ONLY) */

	/*
	 * SET_FEATURES: the features the front end chose (a subset of those
	 * offered, bit 30 included when it was chosen; checked before).  <0
	 * refuses them (nothing changes).  Never called while a queue runs
	 * with other ring features than these would give: such a change is
	 * refused before.
	 */
	int (*features_set)(void *dev, uint64_t negotiated);
	/*
	 * Config space, after VHOST_USER_PROTOCOL_F_CONFIG: read or write
	 * size bytes at offset (size 1..256).  <0 refuses (GET_CONFIG then
	 * answers an empty payload).  flags is SET_CONFIG's: 0 a driver's
	 * write, 1 live migration (only then may read-only fields change).
	 */
	int (*config_read)(void *dev, uint32_t offset, void *buf, uint32_t size);
	int (*config_write)(void *dev, uint32_t offset, const void *buf, uint32_t size, uint32_t flags);
	/*
	 * Queue index runs: from now on the device owns vq (it may hand it to
	 * another thread) and calls vq_pop/vq_push/vq_signal/the copy helpers
	 * on it, until queue_stop.  <0 refuses (the queue stays stopped and
	 * the request that started it fails).
	 */
	int (*queue_start)(void *dev, unsigned index, struct virtqueue *vq);
	/*
	 * Queue index stops: return only once no thread of the device touches
	 * it any more.  Chains it popped and has not pushed stay the device's
	 * (their heads may be pushed after the queue starts again; their
	 * bytes are gone: the copy helpers answer -ESTALE).
	 */
	void (*queue_stop)(void *dev, unsigned index);
	/* RESET_OWNER, RESET_DEVICE, and the session's end: every queue stopped before; back to the state of a new device. */
	void (*reset)(void *dev);
};

struct vhost_user_session;

/*
 * A session on fd (a connected AF_UNIX stream socket: it becomes the
 * session's, made non-blocking and closed at free).  -EINVAL when ops offers
 * what the library cannot serve or a queue count out of range, -ENOMEM.
 * The device may serve one session at a time: free the first before you
 * make the next.
 */
int vhost_user_session_new(int fd, const struct vhost_user_device_ops *ops, void *dev,
			   struct vhost_user_session **out);
/* Stops every queue (queue_stop), resets the device, closes fd and every fd received. */
void vhost_user_session_free(struct vhost_user_session *s);
/* The socket to wait on for reading. */
int vhost_user_session_fd(const struct vhost_user_session *s);
/*
 * Handles every whole message waiting on the socket (a partial one waits for
 * the rest): 0 when the socket has nothing more for now, <0 when the session
 * must end (-ECONNRESET: the front end closed; -EPROTO: it broke the
 * protocol or a request failed without an answer asked; -errno of the
 * socket).  Then free it.
 */
int vhost_user_session_handle(struct vhost_user_session *s);

/* The virtio features negotiated (SET_FEATURES), protocol features negotiated. */
uint64_t vhost_user_session_features(const struct vhost_user_session *s);
uint64_t vhost_user_session_protocol_features(const struct vhost_user_session *s);
/* The current memory table with a reference of the caller's (vhost_mem_unref), NULL before SET_MEM_TABLE. */
struct vhost_mem *vhost_user_session_mem(const struct vhost_user_session *s);
/* Queue index (NULL when out of range): to read its counters and state, never to drive it. */
const struct virtqueue *vhost_user_session_queue(const struct vhost_user_session *s, unsigned index);
/* Why the last request failed (a static string), NULL when none did. */
const char *vhost_user_session_error(const struct vhost_user_session *s);
