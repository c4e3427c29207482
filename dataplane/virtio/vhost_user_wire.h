/* SPDX-License-Identifier: MIT */
/*
 * vhost-user messages as they travel on the socket (QEMU's
 * docs/interop/vhost-user.rst): a 12-byte header, then the payload, in the
 * host's byte order; file descriptors ride along as SCM_RIGHTS with the
 * message's first bytes.  Only what vhost_user.c speaks is here.
 */
#pragma once

#include <stdint.h>

enum vhost_user_request {
	VHOST_USER_GET_FEATURES = 1,
	VHOST_USER_SET_FEATURES = 2,
	VHOST_USER_SET_OWNER = 3,
	VHOST_USER_RESET_OWNER = 4,
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
	VHOST_USER_SET_CONFIG = 25,
	VHOST_USER_RESET_DEVICE = 34,
};

/* header flags */
#define VHOST_USER_VERSION        0x1u
#define VHOST_USER_VERSION_MASK   0x3u
#define VHOST_USER_REPLY          (1u << 2)
#define VHOST_USER_NEED_REPLY     (1u << 3)

/* protocol features */
#define VHOST_USER_PROTOCOL_F_MQ           0
#define VHOST_USER_PROTOCOL_F_REPLY_ACK    3
#define VHOST_USER_PROTOCOL_F_CONFIG       9
#define VHOST_USER_PROTOCOL_F_RESET_DEVICE 13

/* the u64 of SET_VRING_KICK/CALL/ERR */
#define VHOST_USER_VRING_IDX_MASK 0xffu
#define VHOST_USER_VRING_NOFD     (1u << 8)

/* SET_VRING_ADDR's flags: dirty logging, which we do not offer (VHOST_F_LOG_ALL) */
#define VHOST_VRING_F_LOG         1u

#define VHOST_USER_CONFIG_MAX     256u

struct vhost_user_header {
	uint32_t request;
	uint32_t flags;
	uint32_t size;
} __attribute__((packed));

struct vhost_user_vring_state {
	uint32_t index;
	uint32_t num;
};

struct vhost_user_vring_addr {
	uint32_t index;
	uint32_t flags;
	uint64_t desc;
	uint64_t used;
	uint64_t avail;
	uint64_t log;
};

struct vhost_user_mem_region {
	uint64_t guest_phys;
	uint64_t size;
	uint64_t user_addr;
	uint64_t mmap_offset;
};

struct vhost_user_memory {
	uint32_t nregions;
	uint32_t padding;
	struct vhost_user_mem_region regions[];
};

struct vhost_user_config {
	uint32_t offset;
	uint32_t size;
	uint32_t flags;
	uint8_t payload[];
};

/* The largest payload any request we answer carries (GET/SET_CONFIG at its largest). */
#define VHOST_USER_PAYLOAD_MAX (sizeof(struct vhost_user_config) + VHOST_USER_CONFIG_MAX)
/* Descriptors one request may bring: SET_MEM_TABLE's, one per region. */
#define VHOST_USER_FDS_MAX 8
