/* SPDX-License-Identifier: MIT */
/*
 * The requester's side of RoCE v2 (reference roce_virtio.md §2.5, §2.6):
 * a message becomes packets of the path MTU with the opcodes and headers of
 * its place in the message; RC keeps at most its window of packets
 * unacknowledged (window.c) and goes back to the oldest one when asked (a
 * NAK, a timeout).  The bytes come from the WQE's memory, which stays the
 * application's until its completion, or from a copy in the wire domain
 * when an MKEY transforms them (so that a retransmission does not run the
 * transform twice).
 */
#include "dataplane/roce/roce_int.h"
#include "dataplane/roce/sport.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

uint32_t roce_psns(const struct dp_qp *q, const struct dp_send_wqe *wqe)
{
	uint64_t len = wqe->mem.length, mtu = roce_qp(q)->path.mtu;

	if (q->type == DP_QPT_UD || !len || !mtu)
		return 1;
	return (uint32_t)((len + mtu - 1) / mtu);
}

struct dp_wire_msg *roce_msg_at(struct dp_qp *q, uint32_t index)
{
	struct dp_send_wqe *wqe = &q->wqes[index & q->sq.mask];

	return wqe->msg.npsn ? &wqe->msg : NULL;
}

void roce_msg_answer(struct dp_worker *w, struct dp_qp *q, uint32_t index, uint8_t status)
{
	struct dp_send_wqe *wqe = &q->wqes[index & q->sq.mask];
	struct dp_packet answer = wqe->msg.answer;

	if (!answer.rnr && !answer.dropped)
		answer.status = status;
	free(wqe->msg.wire);
	wqe->msg.wire = NULL;
	wqe->msg.npsn = 0;
	dp_comp_response(w, q->nic, &answer);
}

/* The requester's own transfer, for its MKEY's transform on the way out or in. */
static struct dp_xfer own_xfer(struct dp_worker *w, struct dp_qp *q, struct dp_send_wqe *wqe)
{
	return (struct dp_xfer){
		.w = w, .nic = q->nic, .wqe = wqe, .type = q->type, .requester_qpn = q->qpn,
		.requester = q, .resp = &wqe->msg.answer,
	};
}

/*
 * What goes on the wire when it is not the WQE's memory as it stands: SEND
 * and WRITE through an MKEY leave in the wire domain; a READ into an MKEY
 * or into several segments lands in a buffer first.
 */
static int stage(struct dp_worker *w, struct dp_qp *q, struct dp_send_wqe *wqe)
{
	struct dp_wire_msg *m = &wqe->msg;
	uint64_t len = wqe->mem.length;
	struct dp_xfer x;

	if (!len)
		return 0;
	if (wqe->opcode == DP_WR_RDMA_READ) {
		if (!wqe->mem.mkey.mkey && wqe->mem.n_segs == 1)
			return 0;
		m->wire = malloc(len);
		return m->wire ? 0 : -ENOMEM;
	}
	if (!wqe->mem.mkey.mkey)
		return 0;
	m->wire = malloc(len);
	if (!m->wire)
		return -ENOMEM;
	x = own_xfer(w, q, wqe);
	return dp_move_out(&x, &wqe->mem, m->wire, len);
}

/* n bytes of the message's wire bytes from off, contiguous (gathered when they span segments). */
static const uint8_t *payload_at(struct dp_roce *r, const struct dp_send_wqe *wqe, uint64_t off, uint32_t n)
{
	uint32_t s = 0, got = 0;

	if (wqe->msg.wire)
		return wqe->msg.wire + off;
	while (s < wqe->mem.n_segs && off >= wqe->mem.segs[s].length)
		off -= wqe->mem.segs[s++].length;
	if (s < wqe->mem.n_segs && wqe->mem.segs[s].length - off >= n)
		return wqe->mem.segs[s].addr + off;
	for (; s < wqe->mem.n_segs && got < n; s++, off = 0) {
		uint32_t take = wqe->mem.segs[s].length - (uint32_t)off;

		if (take > n - got)
			take = n - got;
		memcpy(r->gather + got, wqe->mem.segs[s].addr + off, take);
		got += take;
	}
	return r->gather;
}

/* The operation of a packet at its place in the message (reference §2.3). */
static uint8_t operation(const struct dp_send_wqe *wqe, bool first, bool last)
{
	bool write = wqe->opcode == DP_WR_RDMA_WRITE || wqe->opcode == DP_WR_RDMA_WRITE_WITH_IMM;
	bool imm = wqe->opcode == DP_WR_SEND_WITH_IMM || wqe->opcode == DP_WR_RDMA_WRITE_WITH_IMM;
	bool inv = wqe->opcode == DP_WR_SEND_WITH_INV;

	if (first && last) {
		if (inv)
			return ROCE_SEND_ONLY_INV;
		if (write)
			return imm ? ROCE_WRITE_ONLY_IMM : ROCE_WRITE_ONLY;
		return imm ? ROCE_SEND_ONLY_IMM : ROCE_SEND_ONLY;
	}
	if (first)
		return write ? ROCE_WRITE_FIRST : ROCE_SEND_FIRST;
	if (!last)
		return write ? ROCE_WRITE_MIDDLE : ROCE_SEND_MIDDLE;
	if (inv)
		return ROCE_SEND_LAST_INV;
	if (write)
		return imm ? ROCE_WRITE_LAST_IMM : ROCE_WRITE_LAST;
	return imm ? ROCE_SEND_LAST_IMM : ROCE_SEND_LAST;
}

/* The packet at c->tx_psn of message m; c->tx_psn moves past what it covered.  ask_ack: it
 * asks for an ACK whatever its place (a packet sent again alone). */
static void send_request(struct dp_worker *w, struct dp_qp *q, struct dp_send_wqe *wqe, bool ask_ack)
{
	struct dp_roce_qp *c = roce_qp(q);
	struct dp_wire_msg *m = &wqe->msg;
	uint32_t mtu = c->path.mtu, k = (uint32_t)dp_psn_diff(c->tx_psn, m->psn);
	uint64_t len = wqe->mem.length, off = (uint64_t)k * mtu;
	uint8_t transport = q->type == DP_QPT_RC ? ROCE_TR_RC : ROCE_TR_UC;
	bool first = k == 0, last = k + 1 == m->npsn;
	struct roce_pkt p = { .bth = { .pkey = ROCE_PKEY_DEFAULT, .dest_qp = q->dest_qpn, .psn = c->tx_psn } };
	uint32_t n = 0, span = 1;
	const uint8_t *payload = NULL;

	if (dp_psn_diff(c->tx_psn, c->tx_high) < 0)
		DP_COUNT(w, q, roce.retransmits, 1);
	if (wqe->opcode == DP_WR_RDMA_READ) {
		/* One request for the responses from here on (a retry asks only for what is missing). */
		p.bth.opcode = ROCE_OPCODE(transport, ROCE_READ_REQUEST);
		p.reth = (struct roce_reth){ wqe->remote_addr + off, wqe->rkey, (uint32_t)(len - off) };
		span = m->npsn - k;
	} else {
		uint8_t op = operation(wqe, first, last);

		n = last ? (uint32_t)(len - off) : mtu;
		payload = n ? payload_at(roce_ep(q->nic), wqe, off, n) : NULL;
		p.bth.opcode = ROCE_OPCODE(transport, op);
		if (op == ROCE_WRITE_FIRST || op == ROCE_WRITE_ONLY || op == ROCE_WRITE_ONLY_IMM)
			p.reth = (struct roce_reth){ wqe->remote_addr, wqe->rkey, (uint32_t)len };
		p.imm = ntohl(wqe->imm_data);
		p.inv_rkey = wqe->imm_data;
		/* §4.3: SE on the last packet of a SEND or a WRITE with immediate. */
		p.bth.se = last && (wqe->send_flags & DP_SEND_SOLICITED) && wqe->opcode != DP_WR_RDMA_WRITE;
		p.bth.ack_req = q->type == DP_QPT_RC && (roce_window_asks_ack(c) || last || ask_ack);
	}
	roce_send_pkt(w, q, &c->route, &p, payload, n);
	c->tx_psn = dp_psn_add(c->tx_psn, span);
	if (dp_psn_diff(c->tx_psn, c->tx_high) > 0)
		c->tx_high = c->tx_psn;
}

/* The message c->tx_psn is in, from c->tx_index on; NULL when none is. */
static struct dp_send_wqe *message_of_tx_psn(struct dp_qp *q)
{
	struct dp_roce_qp *c = roce_qp(q);
	uint32_t cons = dp_queue_cons(&q->sq), end = atomic_load_explicit(&q->req_next, memory_order_relaxed);

	if (c->tx_index - cons > end - cons)
		c->tx_index = cons;
	for (; c->tx_index != end; c->tx_index++) {
		struct dp_wire_msg *m = roce_msg_at(q, c->tx_index);

		if (m && dp_psn_in_window(c->tx_psn, m->psn, m->npsn))
			return &q->wqes[c->tx_index & q->sq.mask];
	}
	return NULL;
}

unsigned roce_req_pump(struct dp_worker *w, struct dp_qp *q)
{
	struct dp_roce_qp *c = roce_qp(q);
	unsigned sent = 0;

	/* UC sends each message whole when it is requested (roce_request): no window, no timer. */
	if (q->type != DP_QPT_RC)
		return 0;
	/*
	 * An ACK can overtake a go-back: a timeout sent the oldest packets again,
	 * then the ACK of the first copies came (late, not lost: a worker that did
	 * not get its CPU for the timeout) and acknowledged past tx_psn.  Those
	 * PSNs are in messages answered already, which message_of_tx_psn() no
	 * longer finds, so sending stopped there for good: with nothing in flight
	 * the timer was not running either, and the next message waited for ever
	 * (bench_roce beside a busy loop).  Sending goes on from the first PSN not
	 * acknowledged, looked for from the oldest message.
	 */
	if (dp_psn_diff(c->tx_psn, c->una) < 0) {
		c->tx_psn = c->una;
		c->tx_index = dp_queue_cons(&q->sq);
	}
	while (dp_psn_diff(c->tx_psn, q->psn_next) < 0 && dp_psn_diff(c->tx_psn, c->una) < (int32_t)c->window) {
		struct dp_send_wqe *wqe = message_of_tx_psn(q);

		if (!wqe)
			break;
		send_request(w, q, wqe, false);
		sent++;
	}
	roce_window_sent(c, sent);
	/*
	 * The timer runs whenever a PSN is owed an acknowledgement, whether or
	 * not this turn sent one: whatever else keeps a packet from leaving, the
	 * timeout goes back to una and sends it.
	 */
	if (c->rto_ns && !dp_timer_armed(&c->rto) && c->una != q->psn_next)
		dp_worker_timer_arm(w, &c->rto, dp_worker_now_ns() + c->rto_ns);
	return sent;
}

void roce_req_rewind(struct dp_worker *w, struct dp_qp *q, uint32_t psn)
{
	struct dp_roce_qp *c = roce_qp(q);

	c->tx_psn = psn;
	c->tx_index = dp_queue_cons(&q->sq);
	roce_req_pump(w, q);
}

/* The packet at psn of wqe's message sent again alone: where the requester is stays. */
static void send_again(struct dp_worker *w, struct dp_qp *q, struct dp_send_wqe *wqe, uint32_t psn)
{
	struct dp_roce_qp *c = roce_qp(q);
	uint32_t tx_psn = c->tx_psn;

	c->tx_psn = psn;
	send_request(w, q, wqe, true);
	c->tx_psn = tx_psn;
	roce_window_sent(c, 1);
}

void roce_req_read_again(struct dp_worker *w, struct dp_qp *q, struct dp_send_wqe *wqe)
{
	/* Only this READ's missing part: the messages sent after it were not lost. */
	send_again(w, q, wqe, wqe->msg.read_next);
}

bool roce_req_resend(struct dp_worker *w, struct dp_qp *q, uint32_t psn)
{
	uint32_t cons = dp_queue_cons(&q->sq), end = atomic_load_explicit(&q->req_next, memory_order_relaxed);

	for (uint32_t i = cons; i != end; i++) {
		struct dp_wire_msg *m = roce_msg_at(q, i);

		if (m && dp_psn_in_window(psn, m->psn, m->npsn)) {
			struct dp_send_wqe *wqe = &q->wqes[i & q->sq.mask];

			/* A READ asks for what it has not had; anything else for the packet at psn. */
			send_again(w, q, wqe, wqe->opcode == DP_WR_RDMA_READ ? m->read_next : psn);
			return true;
		}
	}
	return false;
}

/* A UD datagram to the address vector of its WR (reference §2.5: BTH DETH [ImmDt] payload). */
static void send_datagram(struct dp_worker *w, struct dp_qp *q, struct dp_send_wqe *wqe)
{
	const struct dp_sq_slot *s = &wqe->slot;
	bool imm = wqe->opcode == DP_WR_SEND_WITH_IMM;
	uint16_t port = roce_ep(q->nic)->port;
	struct dp_roce_route rt = {
		.hdr = {
			.tclass = s->ud_traffic_class, .hop_limit = s->ud_hop_limit, .flow_label = s->ud_flow_label,
			.df = true, .sport = roce_udp_sport(s->ud_flow_label, q->qpn, wqe->remote_qpn), .dport = port,
		},
	};
	struct roce_pkt p = {
		.bth = {
			.opcode = ROCE_OPCODE(ROCE_TR_UD, imm ? ROCE_SEND_ONLY_IMM : ROCE_SEND_ONLY),
			.se = wqe->send_flags & DP_SEND_SOLICITED, .pkey = ROCE_PKEY_DEFAULT,
			.dest_qp = wqe->remote_qpn, .psn = wqe->msg.psn,
		},
		.deth = { .qkey = s->ud_qkey, .src_qp = q->qpn },
		.imm = ntohl(wqe->imm_data),
	};
	uint32_t n = (uint32_t)wqe->mem.length;

	memcpy(rt.hdr.sgid, s->ud_sgid, 16);
	memcpy(rt.hdr.dgid, s->ud_dgid, 16);
	memcpy(rt.dmac, s->ud_dmac, sizeof(rt.dmac));
	roce_gid_addr(s->ud_dgid, port, &rt.to);
	roce_gid_addr(s->ud_sgid, 0, &rt.from);
	roce_route_bind(roce_ep(q->nic), &rt);
	roce_send_pkt(w, q, &rt, &p, n ? payload_at(roce_ep(q->nic), wqe, 0, n) : NULL, n);
}

int roce_request(struct dp_worker *w, struct dp_nic *nic, const struct dp_packet *p)
{
	struct dp_qp *q = p->requester;
	struct dp_send_wqe *wqe = &q->wqes[p->index & q->sq.mask];
	struct dp_wire_msg *m = &wqe->msg;

	*m = (struct dp_wire_msg){
		.npsn = p->npsn, .psn = p->psn, .read_next = p->psn,
		.answer = {
			.kind = DP_PKT_RESPONSE, .status = DP_WC_SUCCESS, .qpn = q->qpn, .psn = p->psn,
			.index = p->index, .epoch = p->epoch, .requester = q,
		},
	};
	if (stage(w, q, wqe) < 0) {
		roce_msg_answer(w, q, p->index, DP_WC_GENERAL_ERR);
		return 0;
	}
	/* UD and UC hear nothing back: done once their packets are on their way. */
	if (q->type == DP_QPT_UD || q->type == DP_QPT_UC) {
		if (q->type == DP_QPT_UD) {
			send_datagram(w, q, wqe);
		} else {
			roce_qp(q)->tx_psn = m->psn;
			for (uint32_t k = 0; k < m->npsn; k++)
				send_request(w, q, wqe, false);
		}
		roce_msg_answer(w, q, p->index, DP_WC_SUCCESS);
		return 0;
	}
	roce_req_pump(w, q);
	return 0;
}
