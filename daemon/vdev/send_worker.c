/* SPDX-License-Identifier: MIT */
/*
 * A guest's send queue on its QP's worker.  While an RC or UC QP can send
 * (RTS, SQD, ERR) its send virtqueue belongs to the worker that runs the QP:
 * the worker takes each WQE out of its descriptor into the QP's send queue
 * as a ring's producer would (the seed's WQE is the ring's entry; the worker
 * checks it as it checks a ring's).  The virtqueue is split between the two
 * threads: the worker takes descriptors off its available ring, the main
 * thread gives them back on its used ring when the WQE's completion (or a
 * later one's, for an unsignaled WQE) reaches the guest, just before that
 * completion, as when it does both: the guest's queues keep bounding what
 * its CQ must take.  The WQEs in flight between them are a ring with one
 * producer and one consumer (vdev_posted_add).
 * The main thread then never sees the WQEs of the hot path: it hands the
 * taking over (vdev_send_attach) and takes it back (vdev_send_detach) by
 * running a command on the worker and waiting for it, so that exactly one
 * thread takes from the available ring at any time.
 * UD QPs stay on the main thread: their AHs are resolved there.
 */
#include "daemon/vdev/session_int.h"
#include "daemon/vdev/wqe.h"
#include "daemon/soft/datapath.h"
#include "dataplane/engine/qp.h"
#include "dataplane/worker.h"

#include <sys/epoll.h>

/* WQEs the guest queued go into the QP's send queue while it has room. */
static unsigned take(struct vdev_rdmaq *q)
{
	struct dp_qp *dpq = q->dpq;
	uint8_t wqe[VDEV_SQ_WQE_MAX];
	unsigned n = 0;

	for (;;) {
		if (dp_queue_count(&dpq->sq) >= dpq->max_send_wr || vdev_posted_count(q) >= q->posted_cap) {
			/*
			 * No room: it comes with the QP's completions (here) or the
			 * main thread's giving back (which wakes us); meanwhile the
			 * guest's next WQE kicks, should we sleep before.
			 */
			vq_kick_enable(q->vq);
			break;
		}
		size_t len;
		uint32_t index;
		uint64_t wr_id;
		int r;

		if (!q->held && (r = vq_pop(q->vq, &q->chain)) <= 0) {
			/* All taken: the guest kicks at its next WQE (or queued one meanwhile). */
			if (r == 0 && vq_kick_enable(q->vq))
				continue;
			break;
		}
		q->held = false;
		len = q->chain.read_bytes < sizeof(wqe) ? (size_t)q->chain.read_bytes : sizeof(wqe);
		/*
		 * Not a whole WQE (or one that cannot be read): it goes in as one
		 * no WR is, which the worker completes in error; its descriptor
		 * comes back with that completion, on the main thread's side.
		 */
		if (vdev_wqe_read_send(q->vq, &q->chain, wqe, len) < 0)
			len = 0;
		/* Room was looked for above: the next slot is free, and so is an entry in flight. */
		index = dp_queue_prod(&dpq->sq);
		wr_id = vdev_wqe_send_entry(wqe, len, dpq->max_send_sge, dp_queue_slot(&dpq->sq, index));
		/* The slot may hold an earlier WR's context: a guest's WR has none. */
		dp_qp_sq_slot(dpq, index)->configure = NULL;
		/* In flight before it can complete: the main thread finds it when its completion comes. */
		vdev_posted_add(q, q->chain.head, wr_id);
		dp_queue_publish(&dpq->sq, 1);
		n++;
	}
	return n;
}

static unsigned poll_send(struct dp_worker *w, void *arg)
{
	return take(arg);
}

static void on_kick(struct dp_worker *w, int fd, uint32_t revents, void *arg)
{
	struct vdev_rdmaq *q = arg;

	vq_kick_read(q->vq);
	(void)take(q);
}

static void attach_on_worker(struct dp_worker *w, void *arg)
{
	struct vdev_rdmaq *q = arg;

	q->attach_error = dp_worker_add_fd(w, vq_kick_fd(q->vq), EPOLLIN, on_kick, q);
	if (q->attach_error == 0 && (q->attach_error = dp_worker_add_poller(w, poll_send, q)) < 0)
		dp_worker_remove_fd(w, vq_kick_fd(q->vq));
}

static void detach_on_worker(struct dp_worker *w, void *arg)
{
	struct vdev_rdmaq *q = arg;

	dp_worker_remove_poller(w, poll_send, q);
	dp_worker_remove_fd(w, vq_kick_fd(q->vq));
}

bool vdev_send_attach(struct vdev_rdmaq *q, struct rdma_qp *qp)
{
	struct dp_qp *dpq = qp ? soft_qp(qp) : NULL;

	if (q->worker || !q->vq || !dpq || !dpq->worker ||
	    (qp->type != RDMA_QPT_RC && qp->type != RDMA_QPT_UC) ||
	    (qp->state != RDMA_QPS_RTS && qp->state != RDMA_QPS_SQD && qp->state != RDMA_QPS_ERR))
		return false;
	q->dpq = dpq;
	dp_worker_run(dpq->worker, attach_on_worker, q);
	if (q->attach_error < 0)
		return false;
	q->worker = dpq->worker;
	return true;
}

void vdev_send_detach(struct vdev_rdmaq *q)
{
	if (!q->worker)
		return;
	dp_worker_run(q->worker, detach_on_worker, q);
	q->worker = NULL;
	q->dpq = NULL;
}
