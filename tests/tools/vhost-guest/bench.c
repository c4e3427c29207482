/* SPDX-License-Identifier: MIT */
/*
 * bench.c - bench_send and bench_write for make bench: n WQEs of size
 * bytes, every 16th signaled (as rdmad_perftest signals), kept in flight on
 * a QP's send queue as completions come back,
 * timed from the first post to the last completion.  The payload is inline
 * (up to 512 bytes) or from buf=NAME with lkey=.  bench_send with
 * recv_qpn= recv_buf= recv_lkey= keeps that QP's receive queue full as its
 * receives complete (both QPs completing into the one CQ cqn); otherwise the
 * peer's receives are the caller's affair.
 */
#include "guest.h"

#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define BENCH_TIMEOUT_MS	10000
#define SIGNAL_EVERY		16

struct bench {
	uint32_t qpn, cqn, lkey;
	uint64_t n, size;
	struct gbuf *buf;
	/* bench_send: the receiving QP whose receives are posted again as they complete. */
	uint32_t recv_qpn, recv_lkey;
	struct gbuf *recv_buf;
	/* wait=event: an interrupt-driven driver, which arms the CQ and sleeps on its interrupt. */
	bool wait_event;
};

/* Fills the receiving QP's receive queue; its WQEs are posted, not kicked. */
static int refill(struct guest *g, const struct bench *b, struct vq *rq)
{
	struct virtio_rdma_sge sge = { .addr = b->recv_buf->va, .length = (uint32_t)b->size,
				       .lkey = b->recv_lkey };
	int r;

	while ((r = wqe_post_recv(g, rq, 0, &sge, 1)) >= 0)
		;
	vq_kick_if_needed(rq);
	return r == -ENOSPC ? 0 : r;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The send queue has a free descriptor once the used ones are taken back. */
static bool can_post(struct vq *sq)
{
	vq_reap(sq);
	return vring_peek_head(&sq->ring) >= 0;
}

static int bench_loop(struct guest *g, const struct bench *b, struct virtio_rdma_sq_req *wr)
{
	struct vq *sq = qp_vq(g, b->qpn, VQ_KIND_SQ);
	struct vq *cq = vq_get(g, vq_cq_index(g, b->cqn), VQ_KIND_CQ);
	struct virtio_rdma_sge sge = { 0 };
	struct vq *rq = b->recv_buf ? qp_vq(g, b->recv_qpn, VQ_KIND_RQ) : NULL;
	struct virtio_rdma_cq_req cqe;
	uint64_t posted = 0, done = 0;
	double start, secs;
	int r;

	if (b->recv_buf && !rq)
		return reply_fail(g, "recv_qpn=%u: no receive queue set up here (create_qp)", b->recv_qpn);
	if (rq && (r = refill(g, b, rq)) < 0)
		return reply_errno(g, "bench: post_recv", r);
	if (!sq)
		return reply_fail(g, "qpn=%u: no send queue set up here (create_qp)", b->qpn);
	if (!g->started || b->cqn >= g->config.max_rdma_cqs || !cq)
		return reply_fail(g, "cqn=%u: no CQ set up here (create_cq)", b->cqn);
	if (b->buf) {
		sge.addr = b->buf->va;
		sge.length = (uint32_t)b->size;
		sge.lkey = b->lkey;
		wr->num_sge = 1;
	} else {
		wr->send_flags |= VIRTIO_IB_SEND_INLINE;
		wr->inline_len = (uint16_t)b->size;
	}
	start = now_s();
	while (done < b->n) {
		while (posted < b->n) {
			wr->wr_id = posted;
			/* Every SIGNAL_EVERY-th signaled, as rdmad_perftest does: the rest retire with it. */
			if ((posted + 1) % SIGNAL_EVERY == 0 || posted + 1 == b->n)
				wr->send_flags |= VIRTIO_IB_SEND_SIGNALED;
			else
				wr->send_flags &= ~VIRTIO_IB_SEND_SIGNALED;
			r = wqe_post_send(g, sq, wr, &sge, b->buf ? 1 : 0);
			if (r == -ENOSPC)
				break;
			if (r < 0)
				return reply_errno(g, "bench: post", r);
			posted++;
		}
		vq_kick_if_needed(sq);
		while ((r = cq_take(g, cq, &cqe, NULL)) == 0) {
			if (cqe.status)
				return reply_fail(g, "bench: wr_id=%" PRIu64 " completed with status %u",
						  cqe.wr_id, cqe.status);
			/* The receiver's completions make room for its next receives. */
			if (rq && cqe.qp_num == b->recv_qpn && cqe.opcode == VIRTIO_IB_WC_RECV)
				continue;
			done = cqe.wr_id + 1;
		}
		if (rq && (r = refill(g, b, rq)) < 0)
			return reply_errno(g, "bench: post_recv", r);
		vq_kick_if_needed(cq);
		if (r == -EIO)
			return reply_fail(g, "bench: the CQ's used ring named a buffer not posted");
		/* Completions gave descriptors back: post before waiting (nothing may be in flight). */
		if (posted < b->n && can_post(sq))
			continue;
		if (done < b->n && b->wait_event && !vring_has_used(&cq->ring)) {
			/* Armed, then looked at again: a completion between the two is not missed. */
			if (roce_req_notify_cq(g, b->cqn, VIRTIO_IB_NOTIFY_NEXT_COMPLETION) < 0)
				return -1;
			if (!vring_has_used(&cq->ring) &&
			    (r = vq_wait_call(g, cq, BENCH_TIMEOUT_MS)) < 0)
				return reply_fail(g, "bench: no interrupt after %" PRIu64 " of %" PRIu64
						  " completions: %s", done, b->n, strerror(-r));
		}
		/* A polling driver: it spins on the used ring rather than sleep between looks. */
		if (done < b->n && !vring_has_used(&cq->ring)) {
			double deadline = now_s() + BENCH_TIMEOUT_MS / 1000.0;

			while (!vring_has_used(&cq->ring) && now_s() < deadline)
				sched_yield();
			if (!vring_has_used(&cq->ring))
				return reply_fail(g, "bench: timeout after %" PRIu64 " of %" PRIu64
						  " completions", done, b->n);
		}
	}
	secs = now_s() - start;
	return reply_ok("msgs=%" PRIu64 " secs=%.6f msgs_per_s=%.1f bytes_per_s=%.1f", b->n, secs,
			(double)b->n / secs, (double)(b->n * b->size) / secs);
}

/*
 * The send and receive queues' used buffers are taken as the driver posts,
 * with no call wanted (a polling driver's queues), the CQ's too unless the
 * driver sleeps on it: the device is asked for no interrupt it would not use.
 */
static void quiet(struct guest *g, const struct bench *b, bool on)
{
	struct vq *sq = qp_vq(g, b->qpn, VQ_KIND_SQ);
	struct vq *rq = b->recv_buf ? qp_vq(g, b->recv_qpn, VQ_KIND_RQ) : NULL;
	struct vq *cq = vq_get(g, vq_cq_index(g, b->cqn), VQ_KIND_CQ);

	if (sq)
		sq->ring.quiet = on;
	if (rq)
		rq->ring.quiet = on;
	if (cq)
		cq->ring.quiet = on && !b->wait_event;
}

static int bench_run(struct guest *g, const struct bench *b, struct virtio_rdma_sq_req *wr)
{
	int r;

	quiet(g, b, true);
	r = bench_loop(g, b, wr);
	quiet(g, b, false);
	return r;
}

/* The words both benches take. */
static int bench_words(struct guest *g, struct args *a, struct bench *b)
{
	const char *name = NULL, *mode = NULL;

	memset(b, 0, sizeof(*b));
	if (args_str(a, "wait", false, &mode) < 0)
		return reply_fail(g, "%s", a->err);
	if (mode && strcmp(mode, "event") != 0 && strcmp(mode, "poll") != 0)
		return reply_fail(g, "field wait: '%s' is not one of poll, event", mode);
	b->wait_event = mode && strcmp(mode, "event") == 0;
	if (args_u32(a, "qpn", true, UINT32_MAX, &b->qpn) < 0 ||
	    args_u32(a, "cqn", true, UINT32_MAX, &b->cqn) < 0 ||
	    args_num(a, "n", true, UINT32_MAX, &b->n) < 0 ||
	    args_num(a, "size", true, UINT32_MAX, &b->size) < 0 ||
	    args_str(a, "buf", false, &name) < 0 ||
	    args_u32(a, "lkey", name != NULL, UINT32_MAX, &b->lkey) < 0)
		return reply_fail(g, "%s", a->err);
	if (name) {
		b->buf = gbuf_find(g, name);
		if (!b->buf)
			return reply_fail(g, "field buf: no buffer named '%s' (see alloc)", name);
		if (b->size > b->buf->bytes)
			return reply_fail(g, "field size: %" PRIu64 " is more than %s holds", b->size,
					  name);
	} else if (b->size > VIRTIO_RDMA_INLINE_MAX) {
		return reply_fail(g, "field size: above %d needs buf=NAME lkey=", VIRTIO_RDMA_INLINE_MAX);
	}
	return 0;
}

static int cmd_bench_send(struct guest *g, struct args *a)
{
	struct virtio_rdma_sq_req wr = { .opcode = VIRTIO_IB_WR_SEND };
	const char *recv = NULL;
	struct bench b;

	if (bench_words(g, a, &b) < 0)
		return -1;
	if (args_str(a, "recv_buf", false, &recv) < 0 ||
	    args_u32(a, "recv_qpn", recv != NULL, UINT32_MAX, &b.recv_qpn) < 0 ||
	    args_u32(a, "recv_lkey", recv != NULL, UINT32_MAX, &b.recv_lkey) < 0 || args_done(a, 0) < 0)
		return reply_fail(g, "%s", a->err);
	if (recv && !(b.recv_buf = gbuf_find(g, recv)))
		return reply_fail(g, "field recv_buf: no buffer named '%s' (see alloc)", recv);
	if (recv && b.size > b.recv_buf->bytes)
		return reply_fail(g, "field size: %" PRIu64 " is more than %s holds", b.size, recv);
	return bench_run(g, &b, &wr);
}

static int cmd_bench_write(struct guest *g, struct args *a)
{
	struct virtio_rdma_sq_req wr = { .opcode = VIRTIO_IB_WR_RDMA_WRITE };
	const char *remote = NULL;
	struct bench b;

	if (bench_words(g, a, &b) < 0)
		return -1;
	if (args_str(a, "remote_addr", true, &remote) < 0 ||
	    args_u32(a, "rkey", true, UINT32_MAX, &wr.rdma.rkey) < 0 || args_done(a, 0) < 0)
		return reply_fail(g, "%s", a->err);
	if (gbuf_addr(g, remote, &wr.rdma.remote_addr) < 0)
		return reply_fail(g, "field remote_addr: '%s' is not a number or NAME[+OFFSET]", remote);
	return bench_run(g, &b, &wr);
}

const struct command bench_commands[] = {
	{ "bench_send", cmd_bench_send },
	{ "bench_write", cmd_bench_write },
	{ NULL, NULL },
};
