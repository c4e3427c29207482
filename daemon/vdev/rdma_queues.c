/* SPDX-License-Identifier: MIT */
/*
 * A guest's RDMA virtqueues (seed 004, "RoCE Support"): each QP's send and
 * receive queues, each CQ's completion queue.  A WQE the guest queues is
 * copied out of its descriptor once, checked, and posted to the QP as a
 * PostSend or PostRecv would post it (daemon/soft/post.c: the same checks,
 * the same entries, executed by the QP's worker like any QP's); its
 * descriptor is given back when the WQE retires (its completion, or a later
 * one's for an unsignaled send, reaches the guest), so the guest's queue
 * bounds what it has in flight as its driver counts it.
 * Completions go the other way: the workers tell of each entry of a guest's
 * CQ (it is always "wanted"), and each is written into the next buffer of
 * the CQ's virtqueue, with an interrupt when the guest armed the CQ
 * (REQ_NOTIFY_CQ, one-shot).  A WQE that cannot be posted (not the seed's,
 * or refused by the QP) completes at once with an error in the QP's CQ.
 * All of it on the main thread (docs/decisions.md, "A VM's RoCE device"),
 * but the taking of an RC or UC QP's send WQEs while it can send, which its
 * worker does (send_worker.c: the descriptors still come back here).
 */
#include "daemon/vdev/session_int.h"
#include "daemon/vdev/virtio_net.h"
#include "daemon/vdev/wqe.h"
#include "daemon/soft/datapath.h"
#include "daemon/verbs/cq.h"
#include "daemon/verbs/mkey.h"
#include "daemon/verbs/mr.h"
#include "daemon/verbs/qp.h"
#include "lib/log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>


/* What the virtqueue with this index serves. */
enum rq_kind { RQ_NONE, RQ_CQ, RQ_SQ, RQ_RQ };

static enum rq_kind kind_of(const struct vdev_session *s, unsigned index, uint32_t *handle)
{
	unsigned cqs = s->env.max_cqs;

	if (index < VDEV_VQ_FIRST_CQ)
		return RQ_NONE;
	if (index < VDEV_VQ_FIRST_CQ + cqs) {
		*handle = index - VDEV_VQ_FIRST_CQ;
		return RQ_CQ;
	}
	*handle = (index - VDEV_VQ_FIRST_CQ - cqs) / 2;
	return (index - VDEV_VQ_FIRST_CQ - cqs) % 2 ? RQ_RQ : RQ_SQ;
}

static struct vdev_rdmaq *rdma_queue(struct vdev_session *s, unsigned index)
{
	return index < VDEV_QUEUES_MAX ? s->rdmaq[index] : NULL;
}

/* The guest's object of kind with handle (its own, on its device), or NULL. */
static struct rdma_object *guest_object(struct vdev_session *s, enum rdma_object_kind kind,
					uint32_t handle)
{
	/* Found, not looked up: a miss is no refusal to explain (and costs no message). */
	struct rdma_object *obj = s->dev ? object_table_find(&s->dev->tables[kind], handle) : NULL;

	return obj && obj->owner == s ? obj : NULL;
}

/* ---- descriptors of WQEs in flight ---- */

/* The completion e reached the guest: the WQE it completes retires. */
static void retire(struct vdev_session *s, const struct dp_cqe *e)
{
	bool recv = e->opcode == DP_WC_RECV || e->opcode == DP_WC_RECV_RDMA_WITH_IMM;
	struct vdev_rdmaq *q;

	if (e->qp_num >= s->env.max_qps)
		return;
	q = rdma_queue(s, vdev_vq_sq(s->env.max_cqs, e->qp_num) + recv);
	if (q)
		vdev_posted_retire(q, e->wr_id, false);
}

/* ---- completions ---- */

/*
 * Moves the CQ's entries into its virtqueue's buffers while both are there.
 * extra, when not NULL, goes after them (a WQE that completed at once).
 */
static void drain_cq(struct vdev_session *s, uint32_t cqn, const struct dp_cqe *extra)
{
	struct vdev_rdmaq *q = rdma_queue(s, VDEV_VQ_FIRST_CQ + cqn);
	struct rdma_object *obj = guest_object(s, RDMA_OBJ_CQ, cqn);
	struct rdma_cq *cq = obj ? rdma_cq(obj) : NULL;
	bool pushed = false;

	if (!q || !q->vq || !cq)
		return;
	for (;;) {
		struct dp_cqe e;
		int r;

		if (!q->held && (r = vq_pop(q->vq, &q->chain)) <= 0) {
			if (r < 0)
				log_warning("vdev %s: CQ %u's virtqueue broke: %s", s->env.name, cqn,
					    vq_broken(q->vq));
			/* Out of buffers: the guest kicks when it gives more (or gave some meanwhile). */
			else if (vq_kick_enable(q->vq))
				continue;
			break;
		}
		q->held = true;
		if (cq->ring && rdma_device_cq_poll(s->dev, cq->ring, &e, 1) == 1) {
			/* The entries of the CQ's lanes first: they are older. */
			retire(s, &e);
		} else if (extra) {
			e = *extra;
			extra = NULL;
		} else {
			break;
		}
		if (q->chain.write_bytes < sizeof(e) || vq_chain_write(q->vq, &q->chain, 0, &e, sizeof(e)) < 0) {
			/* A buffer too small for a CQE loses it, as a malformed ring would. */
			q->errors++;
			vq_push(q->vq, q->chain.head, 0);
		} else {
			vq_push(q->vq, q->chain.head, sizeof(e));
		}
		q->held = false;
		pushed = true;
	}
	if (extra)
		q->errors++;   /* no buffer for it: the guest filled its CQ too little */
	/* Interrupts only for an armed CQ, once (REQ_NOTIFY_CQ; SOLICITED alike: see decisions). */
	if (pushed && q->armed) {
		q->armed = 0;
		vq_signal(q->vq);
	}
	if (cq->ring)
		rdma_device_cq_set_wanted(s->dev, cq->ring, true);
}

/* One pass over the guest's CQs for every entry the workers told of since the last. */
static int cq_pass(sd_event_source *src, void *userdata)
{
	struct vdev_session *s = userdata;

	/* The CQs whose virtqueues run. */
	for (unsigned i = 0; i < s->env.max_cqs; i++)
		if (s->rdmaq[VDEV_VQ_FIRST_CQ + i] && s->rdmaq[VDEV_VQ_FIRST_CQ + i]->vq)
			drain_cq(s, i, NULL);
	/* Completions make room: WQEs that waited for it go now. */
	for (unsigned i = VDEV_VQ_FIRST_CQ + s->env.max_cqs; i < VDEV_QUEUES_MAX; i++)
		if (s->rdmaq[i] && s->rdmaq[i]->waiting)
			vdev_rdma_serve(s, i);
	return 0;
}

/*
 * The workers wrote entries into some of the device's CQs.  They tell of
 * them one event at a time, many in one read of their queue: the pass runs
 * once after them, in the loop's next turn.
 */
static void on_cq_entries(struct rdma_device *dev, void *userdata)
{
	struct vdev_session *s = userdata;

	if (!s->cq_pass && sd_event_add_defer(s->env.event, &s->cq_pass, cq_pass, s) < 0) {
		cq_pass(NULL, s);
		return;
	}
	sd_event_source_set_enabled(s->cq_pass, SD_EVENT_ONESHOT);
}

void vdev_rdma_armed(struct vdev_session *s, uint32_t cqn, uint32_t flags)
{
	struct vdev_rdmaq *q = rdma_queue(s, VDEV_VQ_FIRST_CQ + cqn);

	if (!q)
		return;
	q->armed = flags;
	/* An entry there already is reported at once (REPORT_MISSED_EVENTS is the guest's own look). */
	drain_cq(s, cqn, NULL);
}

/* ---- work requests ---- */

/* The iova of the guest's MR of key (0 for a key of no MR): its SGEs' addresses are iovas. */
static uint64_t key_iova(void *data, uint32_t key)
{
	struct vdev_session *s = data;
	struct rdma_object *obj = object_table_find(&s->dev->tables[RDMA_OBJ_MR], key);

	return obj ? rdma_mr(obj)->iova : 0;
}

/* A WQE that completes at once, in error, in its CQ (its QP's send or receive CQ). */
static void complete_now(struct vdev_session *s, struct rdma_qp *qp, bool send, uint64_t wr_id,
			 uint8_t opcode, uint8_t status)
{
	struct dp_cqe e = {
		.wr_id = wr_id, .status = status, .opcode = opcode, .qp_num = qp->obj.handle,
	};

	drain_cq(s, (send ? qp->send_cq : qp->recv_cq)->handle, &e);
}

/* The completion opcode of each of the seed's WR opcodes. */
static const uint8_t wc_of_wr[] = {
	[DP_WR_RDMA_WRITE] = DP_WC_RDMA_WRITE, [DP_WR_RDMA_WRITE_WITH_IMM] = DP_WC_RDMA_WRITE,
	[DP_WR_SEND] = DP_WC_SEND, [DP_WR_SEND_WITH_IMM] = DP_WC_SEND,
	[DP_WR_RDMA_READ] = DP_WC_RDMA_READ,
};

/* Posts the send WQE of len bytes: 0, -ENOBUFS when the send queue is full, -EINVAL refused. */
static int post_send(struct vdev_session *s, struct rdma_qp *qp, const uint8_t *wqe, size_t len)
{
	struct rdma_dp_sge sges[VDEV_WQE_SGES_MAX];
	struct rdma_dp_send_wr wr;
	struct rdma_error err = { 0 };
	uint32_t bad;
	int r = vdev_wqe_send(wqe, len, qp->type == RDMA_QPT_UD, key_iova, s, sges, &wr);

	if (r == 0)
		r = rdma_device_post_send(s->dev, qp, &wr, 1, &bad, &err);
	if (r == 0 || r == -ENOBUFS)
		return r;
	log_debug("vdev %s: QP %u refused a send WQE: %s", s->env.name, qp->obj.handle,
		  err.reason[0] ? err.reason : "not the seed's");
	complete_now(s, qp, true, wr.wr_id, wc_of_wr[wr.opcode], DP_WC_LOC_QP_OP_ERR);
	return -EINVAL;
}

static int post_recv(struct vdev_session *s, struct rdma_qp *qp, const uint8_t *wqe, size_t len)
{
	struct rdma_dp_sge sges[VDEV_WQE_SGES_MAX];
	struct rdma_error err;
	uint64_t wr_id;
	uint32_t n;
	int r = vdev_wqe_recv(wqe, len, key_iova, s, &wr_id, sges, &n);

	if (r == 0)
		r = rdma_device_post_recv(s->dev, qp, wr_id, sges, n, &err);
	if (r == 0 || r == -ENOBUFS)
		return r;
	complete_now(s, qp, false, wr_id, DP_WC_RECV, DP_WC_LOC_QP_OP_ERR);
	return -EINVAL;
}

/*
 * Copies the held chain's WQE of len bytes out of the guest's buffer into
 * wqe: a receive WQE whole, of a send WQE only what vdev_wqe_send reads
 * (not the 512 bytes of inline data an RDMA WRITE leaves unused).
 */
static int read_wqe(struct vdev_rdmaq *q, enum rq_kind kind, uint8_t *wqe, size_t len)
{
	return kind == RQ_RQ ? vq_chain_read(q->vq, &q->chain, 0, wqe, len) :
			       vdev_wqe_read_send(q->vq, &q->chain, wqe, len);
}

/* Posts what the guest queued on the send or receive queue at index, while the QP takes it. */
static void feed(struct vdev_session *s, struct vdev_rdmaq *q, enum rq_kind kind, uint32_t qpn)
{
	struct rdma_object *obj = guest_object(s, RDMA_OBJ_QP, qpn);
	size_t max = kind == RQ_SQ ? VDEV_SQ_WQE_MAX : VDEV_RQ_WQE_MAX;
	uint8_t wqe[VDEV_SQ_WQE_MAX];

	q->waiting = false;
	for (;;) {
		size_t len;
		int r;

		if (!q->held && (r = vq_pop(q->vq, &q->chain)) <= 0) {
			if (r < 0)
				log_warning("vdev %s: QP %u's %s queue broke: %s", s->env.name, qpn,
					    kind == RQ_SQ ? "send" : "receive", vq_broken(q->vq));
			/* All taken: the guest kicks at its next WQE (or queued one meanwhile). */
			else if (vq_kick_enable(q->vq))
				continue;
			return;
		}
		q->held = true;
		len = q->chain.read_bytes < max ? (size_t)q->chain.read_bytes : max;
		if (!obj || read_wqe(q, kind, wqe, len) < 0) {
			/* No QP behind the queue, or a chain gone stale: given back unposted, counted. */
			q->errors++;
			r = -EINVAL;
		} else if (len < (kind == RQ_SQ ? sizeof(struct dp_sq_req) : sizeof(struct dp_rq_req))) {
			/* Not a whole WQE: it completes in error, as the worker completes one it takes. */
			complete_now(s, rdma_qp(obj), kind == RQ_SQ, vdev_wqe_wr_id(wqe, len),
				     kind == RQ_SQ ? DP_WC_SEND : DP_WC_RECV, DP_WC_LOC_QP_OP_ERR);
			r = -EINVAL;
		} else {
			r = (kind == RQ_SQ ? post_send : post_recv)(s, rdma_qp(obj), wqe, len);
		}
		if (r == -ENOBUFS) {
			/* The QP's queue is full: the WQE waits in its descriptor for completions. */
			q->waiting = true;
			return;
		}
		q->held = false;
		if (r == 0) {
			uint64_t wr_id;

			memcpy(&wr_id, wqe, sizeof(wr_id));   /* the first field of both WQEs */
			vdev_posted_add(q, q->chain.head, le64(wr_id));
			continue;
		}
		/* Not posted: it completed already (in error), its descriptor goes back now. */
		vq_push(q->vq, q->chain.head, 0);
		vq_signal(q->vq);
	}
}

void vdev_rdma_serve(struct vdev_session *s, unsigned index)
{
	struct vdev_rdmaq *q = rdma_queue(s, index);
	uint32_t handle = 0;
	enum rq_kind kind = kind_of(s, index, &handle);

	/* A send queue on its QP's worker is the worker's to serve. */
	if (!q || !q->vq || q->worker)
		return;
	if (kind == RQ_CQ)
		drain_cq(s, handle, NULL);
	else if (kind != RQ_NONE)
		feed(s, q, kind, handle);
}

/* ---- the queues' life ---- */

/*
 * A kick: a send or receive queue is fed until the guest, asked to kick at
 * its next WQE, queued none meanwhile; a CQ's buffers wait for completions,
 * a kick only says there are more.
 */
static int on_kick(sd_event_source *src, int fd, uint32_t revents, void *userdata)
{
	struct vdev_rdmaq *q = userdata;
	uint32_t handle;
	bool cq = kind_of(q->session, q->index, &handle) == RQ_CQ, more;

	vq_kick_read(q->vq);
	do {
		vdev_rdma_serve(q->session, q->index);
		more = q->vq && vq_kick_enable(q->vq);
	} while (more && !cq && !q->waiting);
	return 0;
}

/* The send queue at index goes to its QP's worker if it can (send_worker.c); its kicks go there too. */
static void to_worker(struct vdev_session *s, unsigned index)
{
	struct vdev_rdmaq *q = rdma_queue(s, index);
	uint32_t qpn = 0;
	struct rdma_object *obj;

	if (!q || !q->vq || q->worker || kind_of(s, index, &qpn) != RQ_SQ)
		return;
	obj = guest_object(s, RDMA_OBJ_QP, qpn);
	if (obj && vdev_send_attach(q, rdma_qp(obj)))
		sd_event_source_set_enabled(q->kick, SD_EVENT_OFF);
}

/* The send queue at index comes back from its QP's worker, and is served here from now on. */
static void to_main(struct vdev_session *s, unsigned index)
{
	struct vdev_rdmaq *q = rdma_queue(s, index);

	if (!q || !q->worker)
		return;
	vdev_send_detach(q);
	sd_event_source_set_enabled(q->kick, SD_EVENT_ON);
	vdev_rdma_serve(s, index);
}

void vdev_rdma_qp_changing(struct vdev_session *s, uint32_t qpn)
{
	if (qpn < s->env.max_qps)
		to_main(s, vdev_vq_sq(s->env.max_cqs, qpn));
}

void vdev_rdma_qp_changed(struct vdev_session *s, uint32_t qpn)
{
	if (qpn < s->env.max_qps)
		to_worker(s, vdev_vq_sq(s->env.max_cqs, qpn));
}

int vdev_rdma_queue_start(struct vdev_session *s, unsigned index, struct virtqueue *vq)
{
	struct vdev_rdmaq *q = rdma_queue(s, index);
	int r;

	if (vq_kick_fd(vq) < 0)
		return -EINVAL;
	if (!q) {
		q = calloc(1, sizeof(*q));
		if (!q)
			return -ENOMEM;
		q->session = s;
		q->index = index;
		s->rdmaq[index] = q;
	}
	if (q->posted_cap != vq->num) {
		struct vdev_posted *p = calloc(vq->num, sizeof(*p));

		if (!p)
			return -ENOMEM;
		free(q->posted);
		q->posted = p;
		q->posted_cap = vq->num;    /* a power of 2, as a split ring's size */
	}
	atomic_store(&q->posted_first, 0);
	atomic_store(&q->posted_end, 0);
	r = sd_event_add_io(s->env.event, &q->kick, vq_kick_fd(vq), EPOLLIN, on_kick, q);
	if (r < 0)
		return r;
	q->vq = vq;
	q->held = false;
	q->waiting = false;
	if (s->dev)
		rdma_device_set_cq_hook(s->dev, on_cq_entries, s);
	vdev_rdma_serve(s, index);
	vq_kick_enable(vq);
	to_worker(s, index);
	return 0;
}

void vdev_rdma_queue_stop(struct vdev_session *s, unsigned index)
{
	struct vdev_rdmaq *q = rdma_queue(s, index);

	if (!q)
		return;
	/* Back from the worker first: then only this thread touches the queue. */
	if (q->worker)
		vdev_send_detach(q);
	/* What was in flight is the guest's again (its driver resets the queue after). */
	vdev_posted_retire(q, 0, true);
	q->kick = sd_event_source_disable_unref(q->kick);
	q->vq = NULL;
	q->held = false;
	q->waiting = false;
	q->armed = 0;
}

void vdev_rdma_object_ready(struct vdev_session *s, enum rdma_object_kind kind, uint32_t handle)
{
	if (kind == RDMA_OBJ_CQ) {
		struct rdma_object *obj = guest_object(s, kind, handle);

		/* The workers tell of each of its entries: the guest's buffers take them. */
		if (obj && rdma_cq(obj)->ring)
			rdma_device_cq_set_wanted(s->dev, rdma_cq(obj)->ring, true);
		rdma_device_set_cq_hook(s->dev, on_cq_entries, s);
		vdev_rdma_serve(s, VDEV_VQ_FIRST_CQ + handle);
		return;
	}
	vdev_rdma_serve(s, vdev_vq_sq(s->env.max_cqs, handle));
	vdev_rdma_serve(s, vdev_vq_sq(s->env.max_cqs, handle) + 1);
}

void vdev_rdma_free(struct vdev_session *s)
{
	s->cq_pass = sd_event_source_disable_unref(s->cq_pass);
	for (unsigned i = 0; i < VDEV_QUEUES_MAX; i++) {
		vdev_rdma_queue_stop(s, i);
		if (s->rdmaq[i])
			free(s->rdmaq[i]->posted);
		free(s->rdmaq[i]);
		s->rdmaq[i] = NULL;
	}
}
