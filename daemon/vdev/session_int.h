/* SPDX-License-Identifier: MIT */
/*
 * Inside a vdev's session: what vdev_session.c (the front end's protocol
 * and the device's life), ctrl_queue.c (the control queue) and net_queues.c
 * (the guest's Ethernet frames) share.  All of it runs on the main thread.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "daemon/vdev/roce_ctrl.h"
#include "daemon/vdev/vdev_session.h"
#include "daemon/vdev/virtio_net.h"
#include "dataplane/virtio/vhost_user.h"

struct dp_worker;
struct dp_qp;

/* A virtqueue the main thread serves: its kick watched in the event loop. */
struct vdev_mainq {
	struct vdev_session *session;
	struct virtqueue *vq;         /* NULL: not running */
	sd_event_source *kick;
	void (*serve)(struct vdev_session *s);
	bool drains;                  /* serve takes every chain there is (not receiveq1's buffers) */
};

/* A CQ's, send or receive queue's virtqueue (rdma_queues.c). */
struct vdev_rdmaq {
	struct vdev_session *session;
	unsigned index;
	struct virtqueue *vq;         /* NULL: not running */
	sd_event_source *kick;
	struct vq_chain chain;        /* held: popped, not given back yet (a full QP queue, a CQ buffer) */
	bool held;
	bool waiting;                 /* a WQE waits for room in its QP's queue */
	uint32_t armed;               /* a CQ's: REQ_NOTIFY_CQ flags until its next interrupt */
	uint64_t errors;              /* WQEs with no QP or not whole, CQEs with no buffer */
	/*
	 * A send or receive queue's WQEs posted and not yet retired, oldest
	 * first: their descriptors go back as their completions reach the
	 * guest (size: the virtqueue's, which bounds what is in flight).  One
	 * producer, the thread that takes the WQEs (posted_end), one consumer,
	 * the main thread, which delivers the completions (posted_first).
	 */
	struct vdev_posted { uint16_t head; uint64_t wr_id; } *posted;
	uint32_t posted_cap;
	_Atomic uint32_t posted_first, posted_end;
	/*
	 * A send queue whose WQEs its QP's worker takes (send_worker.c): the
	 * worker alone takes descriptors off the available ring (and holds the
	 * chain, and asks for kicks); the main thread still gives them back on
	 * the used ring as completions reach the guest.  NULL: the main
	 * thread does both.
	 */
	struct dp_worker *worker;
	struct dp_qp *dpq;
	int attach_error;
};

struct vdev_net_counters {
	uint64_t tx_frames, tx_dropped, rx_frames, rx_dropped;
};

struct vdev_session {
	struct vdev_session_env env;
	struct vhost_user_session *vu;
	sd_event_source *source;      /* the front end's socket (the vhost-user session owns it) */
	struct rdma_device *dev;      /* the VM's device: its objects die with the session */
	struct vdev_roce roce;
	struct vhost_mem *dma_mem;    /* the table the DMA MRs reach (a reference), NULL: none yet */
	struct vdev_mainq rx, tx, ctrl;
	sd_event_source *tap_source;  /* the TAP, read while the guest has receive buffers */
	struct vdev_net_counters net;
	unsigned rdma_queues;         /* CQ and QP virtqueues running */
	sd_event_source *cq_pass;     /* one pass over the CQs for all the workers' events of a turn */
	uint64_t features;            /* negotiated */
	uint8_t *rx_frame;            /* where a frame of the TAP is read */
	bool closing;                 /* the session ends: a reset makes no device again */
	struct vdev_rdmaq *rdmaq[VDEV_QUEUES_MAX];   /* by virtqueue index, made at their first start */
};

/* ctrl_queue.c: runs every control command the guest queued. */
void vdev_ctrl_serve(struct vdev_session *s);
/* ctrl_queue.c: the DMA MRs reach the front end's memory table now (after SET_MEM_TABLE). */
void vdev_ctrl_sync_mem(struct vdev_session *s);

/* rdma_queues.c: the CQs' and QPs' virtqueues start, stop, are served (index: the virtqueue's). */
int vdev_rdma_queue_start(struct vdev_session *s, unsigned index, struct virtqueue *vq);
void vdev_rdma_queue_stop(struct vdev_session *s, unsigned index);
void vdev_rdma_serve(struct vdev_session *s, unsigned index);
/* rdma_queues.c: the guest made a CQ or a QP (kind, handle): its queues are served from now on. */
void vdev_rdma_object_ready(struct vdev_session *s, enum rdma_object_kind kind, uint32_t handle);
/* rdma_queues.c: QP qpn's state is about to change, or changed, or it goes (its send queue moves). */
void vdev_rdma_qp_changing(struct vdev_session *s, uint32_t qpn);
void vdev_rdma_qp_changed(struct vdev_session *s, uint32_t qpn);
/* rdma_queues.c: REQ_NOTIFY_CQ. */
void vdev_rdma_armed(struct vdev_session *s, uint32_t cqn, uint32_t flags);
/* rdma_queues.c: every queue's state goes (the session ends). */
void vdev_rdma_free(struct vdev_session *s);

/*
 * send_worker.c: the send queue q of QP qp goes to the QP's worker, when the
 * QP is RC or UC and can send (true: it went); vdev_send_detach takes it back.
 */
bool vdev_send_attach(struct vdev_rdmaq *q, struct rdma_qp *qp);
void vdev_send_detach(struct vdev_rdmaq *q);
/* posted.c: a WQE of q's, of descriptor head, is in flight (false: no room to say so). */
bool vdev_posted_add(struct vdev_rdmaq *q, uint16_t head, uint64_t wr_id);
/* posted.c: how many WQEs of q's are in flight. */
uint32_t vdev_posted_count(const struct vdev_rdmaq *q);
/*
 * posted.c, main thread: the descriptors of q's WQEs up to the one of wr_id
 * (all of them with all) go back, oldest first, and the guest is told.
 */
void vdev_posted_retire(struct vdev_rdmaq *q, uint64_t wr_id, bool all);

/* net_queues.c: frames the guest queued go to the TAP (dropped and counted without one). */
void vdev_net_tx(struct vdev_session *s);
/* net_queues.c: frames of the TAP: RoCE to the device, the rest into the guest's receive buffers. */
void vdev_net_rx(struct vdev_session *s);
/* net_queues.c: the TAP is read from now on (the session's life), or no more. */
int vdev_net_watch(struct vdev_session *s, bool on);
