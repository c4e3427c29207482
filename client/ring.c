/* SPDX-License-Identifier: MIT */
/*
 * The fast path: work requests written straight into a QP's rings and
 * completions read straight out of a CQ's, in memory shared with rdmad
 * (dataplane/queue.h; entries in the virtio-net RoCE formats of
 * dataplane/wqe.h).  No system call per WR: the send queue's doorbell is
 * written only when its header says the worker went to sleep.  rdmad checks
 * every entry it copies out; what is checked here only gives the program
 * its error at once, as ibv_post_send does.
 */
#include "client/internal.h"
#include "dataplane/wqe.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* One numbering with rdmad's entries: the library's ABI is the RFC's. */
_Static_assert(sizeof(struct rdmad_wc) == sizeof(struct dp_cqe), "a completion is one entry");
_Static_assert(sizeof(struct rdmad_sge) == sizeof(struct dp_sge), "an SGE is one entry's");
_Static_assert((int)RDMAD_WR_RDMA_READ == (int)DP_WR_RDMA_READ &&
	       (int)RDMAD_WC_RECV_RDMA_WITH_IMM == (int)DP_WC_RECV_RDMA_WITH_IMM,
	       "the RFC's opcodes keep their numbers; rdmad's additions are renumbered below");
_Static_assert((int)RDMAD_SEND_INLINE == (int)DP_SEND_INLINE &&
	       (int)RDMAD_SEND_SIGNALED == (int)DP_SEND_SIGNALED &&
	       (int)RDMAD_SEND_SOLICITED == (int)DP_SEND_SOLICITED &&
	       (int)RDMAD_SEND_FENCE == (int)DP_SEND_FENCE, "one numbering of send flags");
_Static_assert((int)RDMAD_WC_GENERAL_ERR == (int)DP_WC_GENERAL_ERR, "one numbering of statuses");

/* The ABI numbers rdmad's additions from 16 (room for the RFC's to grow); the entries follow on. */
static uint8_t wr_opcode(uint8_t opcode)
{
	switch (opcode) {
	case RDMAD_WR_LOCAL_INV: return DP_WR_LOCAL_INV;
	case RDMAD_WR_SEND_WITH_INV: return DP_WR_SEND_WITH_INV;
	}
	return opcode;
}

static uint8_t wc_opcode(uint8_t opcode)
{
	switch (opcode) {
	case DP_WC_LOCAL_INV: return RDMAD_WC_LOCAL_INV;
	case DP_WC_CONFIGURE: return RDMAD_WC_CONFIGURE;
	}
	return opcode;
}

void *client_alloc_aligned(size_t size)
{
	size_t rounded = (size + DP_QUEUE_CACHELINE - 1) & ~(size_t)(DP_QUEUE_CACHELINE - 1);
	void *p = aligned_alloc(DP_QUEUE_CACHELINE, rounded);

	if (p)
		memset(p, 0, rounded);
	return p;
}

static int geometry(struct json_object *q, uint32_t *entries, uint32_t *entry_size, uint64_t *offset)
{
	*entries = (uint32_t)client_get_u64(q, "slots");
	*entry_size = (uint32_t)client_get_u64(q, "slot_size");
	*offset = client_get_u64(q, "offset");
	return *entries && *entry_size ? 0 : -EPROTO;
}

int client_rings_map(struct client_rings *rings, struct json_object *reply, const int fds[2],
		     struct dp_queue *queues, unsigned n)
{
	struct json_object *desc = client_get(reply, "ring_layout"), *list = client_get(desc, "queues");
	int r = 0;

	*rings = (struct client_rings){ .bytes = client_get_u64(desc, "bytes"), .eventfd = fds[1] };
	if (!list || !json_object_is_type(list, json_type_array) || json_object_array_length(list) != n ||
	    !rings->bytes) {
		close(fds[0]);
		client_rings_unmap(rings);
		return client_fail(-EPROTO, "rdmad described rings this library cannot use");
	}
	rings->addr = mmap(NULL, rings->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
	close(fds[0]);
	if (rings->addr == MAP_FAILED) {
		rings->addr = NULL;
		r = client_fail(-errno, "mapping rdmad's rings: %s", strerror(errno));
		client_rings_unmap(rings);
		return r;
	}
	for (unsigned i = 0; i < n && r == 0; i++) {
		uint32_t entries, entry_size;
		uint64_t offset;

		r = geometry(json_object_array_get_idx(list, i), &entries, &entry_size, &offset);
		if (r == 0 && offset >= rings->bytes)
			r = -EPROTO;
		if (r == 0)
			r = dp_queue_attach(&queues[i], (uint8_t *)rings->addr + offset, rings->bytes - offset,
					    entries, entry_size);
	}
	if (r < 0) {
		client_rings_unmap(rings);
		return client_fail(-EPROTO, "rdmad's rings do not fit their memory");
	}
	return 0;
}

void client_rings_unmap(struct client_rings *rings)
{
	if (rings->addr)
		munmap(rings->addr, rings->bytes);
	if (rings->eventfd >= 0)
		close(rings->eventfd);
	*rings = (struct client_rings){ .eventfd = -1 };
}

/* ---- posting ---- */

static int check_send(const struct client_qp *qp, const struct rdmad_send_wr *wr)
{
	if (wr->opcode > RDMAD_WR_RDMA_READ && wr->opcode != RDMAD_WR_LOCAL_INV &&
	    wr->opcode != RDMAD_WR_SEND_WITH_INV)
		return client_fail(-EINVAL, "opcode: %u is no work request opcode", wr->opcode);
	if (wr->num_sge && !wr->sg_list)
		return client_fail(-EINVAL, "sg_list: NULL with num_sge %u", wr->num_sge);
	if (wr->send_flags & RDMAD_SEND_INLINE) {
		size_t total = 0;

		for (uint32_t i = 0; i < wr->num_sge; i++)
			total += wr->sg_list[i].length;
		if (total > qp->max_inline)
			return client_fail(-EINVAL, "inline: %zu bytes; the QP takes at most %u "
					   "(max_inline_data)", total, qp->max_inline);
	} else if (wr->num_sge > qp->max_send_sge) {
		return client_fail(-EINVAL, "num_sge: %u; the QP takes at most %u (max_send_sge)",
				   wr->num_sge, qp->max_send_sge);
	}
	return wr->send_flags & RDMAD_SEND_INLINE ? 0 : client_check_sges(qp->pub.context, wr->sg_list,
									   wr->num_sge);
}

/* The entry of wr in slot, as rdmad's driver writes one (daemon/soft/post.c). */
static void fill_send(struct dp_sq_req *e, const struct rdmad_send_wr *wr)
{
	/* The inline area only when it is used: 512 bytes a WR need not write. */
	memset(e, 0, offsetof(struct dp_sq_req, inline_data));
	memset((uint8_t *)e + offsetof(struct dp_sq_req, num_sge), 0,
	       sizeof(*e) - offsetof(struct dp_sq_req, num_sge));
	e->wr_id = wr->wr_id;
	e->opcode = wr_opcode(wr->opcode);
	e->send_flags = wr->send_flags;
	/* ibv_send_wr's invalidate_rkey shares imm_data, in host order. */
	e->imm_data = wr->opcode == RDMAD_WR_LOCAL_INV || wr->opcode == RDMAD_WR_SEND_WITH_INV ?
		      wr->invalidate_rkey : htonl(wr->imm_data);
	if (dp_wr_has_remote(e->opcode)) {
		e->rdma.remote_addr = wr->wr.rdma.remote_addr;
		e->rdma.rkey = wr->wr.rdma.rkey;
	}
	if (wr->send_flags & RDMAD_SEND_INLINE) {
		uint16_t at = 0;

		for (uint32_t i = 0; i < wr->num_sge; i++) {
			memcpy(e->inline_data + at, (const void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			at = (uint16_t)(at + wr->sg_list[i].length);
		}
		e->inline_len = at;
		return;
	}
	e->num_sge = wr->num_sge;
	memcpy(e->sg_list, wr->sg_list, wr->num_sge * sizeof(e->sg_list[0]));
}

/* A free slot for one more WR (at most max not retired), or NULL. */
static void *reserve(struct dp_queue *q, uint32_t max, uint32_t pending, uint32_t *index)
{
	uint32_t outstanding = dp_queue_capacity(q) - dp_queue_room(q) + pending;

	if (outstanding >= max)
		return NULL;
	*index = dp_queue_prod(q) + pending;
	return dp_queue_slot(q, *index);
}

int client_ring_post_send(struct client_qp *qp, struct rdmad_send_wr *wr, struct rdmad_send_wr **bad_wr)
{
	uint32_t n = 0, index;
	int r = 0;

	for (; wr; wr = wr->next, n++) {
		struct dp_sq_req *e;

		r = check_send(qp, wr);
		if (r < 0)
			break;
		e = reserve(&qp->sq, qp->max_send_wr, n, &index);
		if (!e) {
			r = client_fail(-ENOMEM, "the send queue holds %u WRs not yet completed (max_send_wr)",
					qp->max_send_wr);
			break;
		}
		fill_send(e, wr);
	}
	if (r < 0 && bad_wr)
		*bad_wr = wr;
	/* Those before a refused one are posted, as ibv_post_send does. */
	if (n) {
		dp_queue_publish(&qp->sq, n);
		dp_queue_kick(&qp->sq);
	}
	return r;
}

int client_ring_post_recv(struct client_qp *qp, struct rdmad_recv_wr *wr, struct rdmad_recv_wr **bad_wr)
{
	uint32_t n = 0, index;
	int r = 0;

	for (; wr; wr = wr->next, n++) {
		struct dp_rq_req *e;

		if (wr->num_sge && !wr->sg_list) {
			r = client_fail(-EINVAL, "sg_list: NULL with num_sge %u", wr->num_sge);
			break;
		}
		if (wr->num_sge > qp->max_recv_sge) {
			r = client_fail(-EINVAL, "num_sge: %u; the QP takes at most %u (max_recv_sge)",
					wr->num_sge, qp->max_recv_sge);
			break;
		}
		r = client_check_sges(qp->pub.context, wr->sg_list, wr->num_sge);
		if (r < 0)
			break;
		e = reserve(&qp->rq, qp->max_recv_wr, n, &index);
		if (!e) {
			r = client_fail(-ENOMEM, "the receive queue holds %u WRs (max_recv_wr)", qp->max_recv_wr);
			break;
		}
		memset(e, 0, sizeof(*e));
		e->wr_id = wr->wr_id;
		e->num_sge = wr->num_sge;
		memcpy(e->sg_list, wr->sg_list, wr->num_sge * sizeof(e->sg_list[0]));
	}
	if (r < 0 && bad_wr)
		*bad_wr = wr;
	/* A receive needs no kick: the worker looks when a message comes (and retries after an RNR NAK). */
	if (n)
		dp_queue_publish(&qp->rq, n);
	return r;
}

/* ---- polling ---- */

int client_ring_poll(struct client_cq *cq, int n, struct rdmad_wc *wc)
{
	int got = 0;

	/* One entry per lane in turn, as rdmad's own poller does: each QP's stay in order. */
	for (unsigned tried = 0; got < n && tried < cq->n_lanes; ) {
		struct dp_queue *lane = &cq->lanes[cq->next_lane];
		uint32_t cons = dp_queue_cons(lane);

		cq->next_lane = (cq->next_lane + 1) % cq->n_lanes;
		if (!dp_queue_ready(lane, cons)) {
			tried++;
			continue;
		}
		dp_queue_copy(lane, cons, &wc[got]);
		dp_queue_consume(lane, 1);
		/* The entry carries the immediate (or invalidated key) as the wire does: host order here. */
		wc[got].imm_data = ntohl(wc[got].imm_data);
		wc[got].opcode = wc_opcode(wc[got].opcode);
		got++;
		tried = 0;
	}
	return got;
}
