/* SPDX-License-Identifier: MIT */
/*
 * vhost_user.h - the front end's half of the vhost-user protocol (QEMU's
 * docs/interop/vhost-user.rst): the message header, the payloads this
 * program sends, and sending and receiving them with file descriptors.
 */
#ifndef VHOST_GUEST_VHOST_USER_H
#define VHOST_GUEST_VHOST_USER_H

#include <stdbool.h>
#include <stdint.h>

enum vhost_user_request {
	VHOST_USER_GET_FEATURES = 1,
	VHOST_USER_SET_FEATURES = 2,
	VHOST_USER_SET_OWNER = 3,
	VHOST_USER_SET_MEM_TABLE = 5,
	VHOST_USER_SET_VRING_NUM = 8,
	VHOST_USER_SET_VRING_ADDR = 9,
	VHOST_USER_SET_VRING_BASE = 10,
	VHOST_USER_GET_VRING_BASE = 11,
	VHOST_USER_SET_VRING_KICK = 12,
	VHOST_USER_SET_VRING_CALL = 13,
	VHOST_USER_SET_VRING_ERR = 14,
	VHOST_USER_GET_PROTOCOL_FEATURES = 15,
	VHOST_USER_SET_PROTOCOL_FEATURES = 16,
	VHOST_USER_GET_QUEUE_NUM = 17,
	VHOST_USER_SET_VRING_ENABLE = 18,
	VHOST_USER_GET_CONFIG = 24,
};

#define VHOST_USER_PROTOCOL_F_MQ	0
#define VHOST_USER_PROTOCOL_F_REPLY_ACK	3
#define VHOST_USER_PROTOCOL_F_CONFIG	9

#define VHOST_USER_VERSION		0x1
#define VHOST_USER_FLAG_REPLY		(1u << 2)
#define VHOST_USER_FLAG_NEED_REPLY	(1u << 3)

/* SET_VRING_KICK/CALL/ERR: the index is 8 bits, bit 8 says "no fd". */
#define VHOST_USER_VRING_IDX_MAX	0xff
#define VHOST_USER_VRING_NOFD		(1ull << 8)

#define VHOST_USER_MAX_REGIONS		8
#define VHOST_USER_MAX_FDS		8
#define VHOST_USER_PAYLOAD_MAX		4096

struct vhost_user_hdr {
	uint32_t request;
	uint32_t flags;
	uint32_t size;
};

struct vhost_vring_state {
	uint32_t index;
	uint32_t num;
};

struct vhost_vring_addr {
	uint32_t index;
	uint32_t flags;
	uint64_t desc_user_addr;
	uint64_t used_user_addr;
	uint64_t avail_user_addr;
	uint64_t log_guest_addr;
};

struct vhost_user_region {
	uint64_t guest_phys_addr;
	uint64_t memory_size;
	uint64_t userspace_addr;
	uint64_t mmap_offset;
};

struct vhost_user_memory {
	uint32_t nregions;
	uint32_t padding;
	struct vhost_user_region regions[VHOST_USER_MAX_REGIONS];
};

struct vhost_user_config {
	uint32_t offset;
	uint32_t size;
	uint32_t flags;
	uint8_t payload[256];
};

_Static_assert(sizeof(struct vhost_vring_addr) == 40, "vring address");
_Static_assert(sizeof(struct vhost_user_region) == 32, "memory region");

/* A connection.  closed is set (and stays) once the back end has gone. */
struct vhost_user {
	int fd;
	bool closed;
	bool reply_ack;		/* VHOST_USER_PROTOCOL_F_REPLY_ACK negotiated */
	int timeout_ms;		/* for a reply */
};

int vu_connect(struct vhost_user *vu, const char *path);
void vu_close(struct vhost_user *vu);

/* Sends one message; -EPIPE when the connection is gone (vu->closed). */
int vu_send(struct vhost_user *vu, uint32_t request, uint32_t flags, const void *payload,
	    uint32_t size, const int *fds, unsigned nfds);
/* Receives the reply to request into payload (at most max bytes): its size,
 * -EPIPE closed, -ETIMEDOUT, -EPROTO a reply to something else or too long. */
int vu_recv(struct vhost_user *vu, uint32_t request, void *payload, uint32_t max);

/* A request that has no reply of its own: with REPLY_ACK, need_reply is set
 * and the back end's u64 is returned (0 accepted, else refused, as a
 * positive number); without, 0 once sent. */
int vu_request(struct vhost_user *vu, uint32_t request, const void *payload, uint32_t size,
	       const int *fds, unsigned nfds, uint64_t *refused);
/* A request whose reply is a u64 (GET_FEATURES, ...). */
int vu_get_u64(struct vhost_user *vu, uint32_t request, uint64_t *value);

const char *vu_request_name(uint32_t request);

#endif
