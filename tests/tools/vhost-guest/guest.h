/* SPDX-License-Identifier: MIT */
/*
 * guest.h - what vhost-guest holds of its "virtual machine": the vhost-user
 * connection, guest memory, the negotiated features and config, the
 * virtqueues it set up on the device (net, control, and the CQ/SQ/RQ
 * queues the seed numbers after them), and the named guest buffers.
 * Shared by the command files; each command replies through reply_ok or
 * reply_fail, exactly one line.
 */
#ifndef VHOST_GUEST_GUEST_H
#define VHOST_GUEST_GUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "args.h"
#include "guest_mem.h"
#include "roce_abi.h"
#include "vhost_user.h"
#include "vring.h"

/* Virtqueue numbering with N = 1 queue pair (seed 004; the guest driver
 * its authors wrote maps CQ handle cqn to completeq cqn+1 and QP handle qpn
 * to transmit/receive pair qpn+1). */
#define VQ_RX		0
#define VQ_TX		1
#define VQ_CTRL		2
#define VQ_CQ_FIRST	3

#define NET_BUF_SIZE	2048
#define CTRL_TIMEOUT_MS	5000

enum vq_kind { VQ_NONE, VQ_KIND_RX, VQ_KIND_TX, VQ_KIND_CTRL, VQ_KIND_CQ, VQ_KIND_SQ, VQ_KIND_RQ };

struct vq {
	enum vq_kind kind;
	unsigned index;
	struct vring ring;
	uint64_t ring_gpa;	/* the block vring_layout describes */
	size_t ring_pages;
	uint64_t slots_gpa;	/* one buffer per descriptor head: frames, WQEs, CQEs */
	size_t slot_size;
	size_t slots_pages;
	int kick_fd;
	int call_fd;
};

/* A named guest buffer: guest-virtual from va on, its pages anywhere. */
struct gbuf {
	char name[32];
	uint64_t va;
	uint64_t bytes;
	size_t npages;
	uint64_t *pages;	/* guest-physical page of each 4 KiB */
	struct gbuf *next;
};

struct guest {
	const char *socket_path;
	struct vhost_user vu;
	struct guest_mem mem;
	unsigned queue_size;
	bool want_roce, want_indirect, want_event_idx;

	bool negotiated;
	uint64_t features;
	uint64_t protocol;
	bool have_config;
	struct virtio_net_config config;

	unsigned nvqs;
	struct vq *vqs;	/* nvqs entries once started */
	bool started;

	uint64_t ctrl_gpa;	/* pages for control commands */
	size_t ctrl_pages;

	struct gbuf *bufs;
	uint64_t next_va;
};

#define HAS(g, bit)	(((g)->features >> (bit)) & 1)

/* Replies: one line each, flushed.  reply_fail says "closed" once the
 * back end has gone, whatever the caller meant to say. */
int reply_ok(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int reply_fail(struct guest *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* In a command (struct guest *g, struct args *a): a word that does not parse is the reply. */
#define CHECK(call)						\
	do {							\
		if ((call) < 0)					\
			return reply_fail(g, "%s", a->err);	\
	} while (0)
/* A line before the reply (cqe ..., data). */
void reply_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "fail <what>: <strerror>", or closed. */
int reply_errno(struct guest *g, const char *what, int err);
void print_hex(const uint8_t *p, size_t len);

/* vhost-user session (session.c) */
int session_connect(struct guest *g);
int session_negotiate(struct guest *g);
int session_send_mem_table(struct guest *g, const struct vhost_user_memory *mem, uint64_t *refused);
void session_mem_table(const struct guest *g, struct vhost_user_memory *mem);
int session_get_config(struct guest *g);
void session_reset(struct guest *g);

/* virtqueues on the device (queues.c) */
unsigned vq_cq_index(const struct guest *g, uint32_t cqn);
unsigned vq_sq_index(const struct guest *g, uint32_t qpn);
int vq_setup(struct guest *g, unsigned index, enum vq_kind kind, size_t slot_size, char *err,
	     size_t errlen);
int vq_reset(struct guest *g, unsigned index, uint32_t *base);
/* Frees a queue's memory and eventfds without telling the device. */
void vq_release(struct guest *g, unsigned index);
struct vq *vq_get(struct guest *g, unsigned index, enum vq_kind kind);
void *vq_slot(struct guest *g, struct vq *q, unsigned head);
uint64_t vq_slot_gpa(const struct vq *q, unsigned head);
/* Posts one slot-sized (or len) buffer of slot head; publishes and kicks. */
int vq_post_slot(struct guest *g, struct vq *q, uint32_t len, bool write);
void vq_kick_if_needed(struct vq *q);
/* Waits until the device has used something, taking nothing: 0, -ETIMEDOUT, -EPIPE. */
int vq_wait_ready(struct guest *g, struct vq *q, int timeout_ms);
/* Waits for a used entry and takes it: its head and length; -ETIMEDOUT, -EPIPE, -EIO. */
int vq_wait_used(struct guest *g, struct vq *q, int timeout_ms, uint32_t *len);
/* Frees used SQ/RQ descriptors without waiting. */
void vq_reap(struct vq *q);
int vq_wait_call(struct guest *g, struct vq *q, int timeout_ms);
/* REQ_NOTIFY_CQ through the control queue: 0, or -1 with the failure replied. */
int roce_req_notify_cq(struct guest *g, uint32_t cqn, uint32_t flags);

/* Milliseconds of CLOCK_MONOTONIC. */
int64_t now_ms(void);

/* control queue (ctrl.c) */
struct ctrl_result {
	uint8_t ack;
	uint32_t used_len;
};
int ctrl_exec(struct guest *g, uint8_t cls, uint8_t cmd, const void *req, size_t req_len,
	      void *ack_data, size_t ack_len, struct ctrl_result *res);

/* work requests and completions (wqe.c) */
#define POLL_TIMEOUT_MS	2000
/* The SQ or RQ virtqueue of a QP set up here, or NULL. */
struct vq *qp_vq(struct guest *g, uint32_t qpn, enum vq_kind kind);
/* Copies a WQE (and its SGEs) into the next slot and adds it; no kick.
 * -ENOSPC when the queue is full after taking back what the device used. */
int wqe_post_send(struct guest *g, struct vq *sq, const struct virtio_rdma_sq_req *wr,
		  const struct virtio_rdma_sge *sges, unsigned nsge);
/* Takes one CQE off a CQ's virtqueue and posts its buffer again: 0, -EAGAIN, -EIO. */
int cq_take(struct guest *g, struct vq *cq, struct virtio_rdma_cq_req *cqe, uint32_t *len);
/* A receive WQE of nsge SGEs on rq; no kick. */
int wqe_post_recv(struct guest *g, struct vq *rq, uint64_t wr_id, const struct virtio_rdma_sge *sges,
		  unsigned nsge);

/* guest buffers (buffers.c) */
struct gbuf *gbuf_find(struct guest *g, const char *name);
/* Forgets every buffer (their pages go with the guest's memory). */
void gbuf_forget_all(struct guest *g);
/* Host pointer of [off, off+len) of b one page at a time: calls fn per piece. */
int gbuf_copy_in(struct guest *g, struct gbuf *b, uint64_t off, const void *src, size_t len);
int gbuf_copy_out(struct guest *g, struct gbuf *b, uint64_t off, void *dst, size_t len);
/* "NAME[+OFFSET]" or a number: a guest-virtual address. */
int gbuf_addr(struct guest *g, const char *text, uint64_t *addr);

/* Commands: each takes its line's words and replies one line. */
typedef int (*command_fn)(struct guest *g, struct args *a);
struct command {
	const char *name;
	command_fn run;
};
extern const struct command session_commands[], roce_commands[], buffer_commands[],
	wqe_commands[], net_commands[], hostile_commands[], bench_commands[];

#endif
