/* SPDX-License-Identifier: MIT */
/*
 * The responder's side of RoCE v2 (reference roce_virtio.md §1.5
 * "Responder", §2.6, §4.2).  RC: a request packet after a gap gets one
 * PSN-sequence NAK (again for each that asks for an ACK meanwhile), and what
 * follows is kept until the gap fills, then run in order (kept.c); one before
 * the expected PSN is a duplicate, acknowledged again (a READ is answered
 * again) but never executed twice; a message's packets must come
 * FIRST, MIDDLE..., LAST, every one but the last a whole MTU.  A message is
 * gathered whole, then executed by the responder's shared code
 * (dataplane/engine/resp.c) as a loopback request would be: the same checks,
 * statuses, completions and MKEY transforms.  Its answer becomes an ACK
 * (coalesced over a receive batch), an RNR NAK or a NAK.  UC drops what is
 * out of order until the next FIRST or ONLY; UD takes single packets.
 */
#include "dataplane/roce/roce_int.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

/* The largest message gathered (what a peer may make us hold): as a transfer through an MKEY. */
#define ROCE_MSG_MAX DP_MKEY_TRANSFER_MAX

static void send_aeth(struct dp_worker *w, struct dp_qp *q, uint32_t psn, uint8_t syndrome)
{
	struct roce_pkt p = {
		.bth = { .opcode = ROCE_OPCODE(ROCE_TR_RC, ROCE_ACKNOWLEDGE), .pkey = ROCE_PKEY_DEFAULT,
			 .dest_qp = q->dest_qpn, .psn = psn },
		.aeth = { .syndrome = syndrome, .msn = roce_qp(q)->msn & 0xffffff },
	};

	roce_send_pkt(w, q, &roce_qp(q)->route, &p, NULL, 0);
}

/* A NAK now (it acknowledges what came before psn), and the ACK owed is no longer needed. */
static void nak(struct dp_worker *w, struct dp_qp *q, uint32_t psn, uint8_t type, uint8_t value)
{
	roce_qp(q)->ack_due = false;
	send_aeth(w, q, psn, ROCE_AETH_SYNDROME(type, value));
}

/* An ACK of psn goes out at the end of the receive batch, with any later one it covers. */
static void owe_ack(struct dp_qp *q, uint32_t psn)
{
	struct dp_roce_qp *c = roce_qp(q);
	struct dp_roce *r = roce_ep(q->nic);

	if (c->ack_due && dp_psn_diff(psn, c->ack_psn) < 0)
		return;
	c->ack_due = true;
	c->ack_psn = psn;
	if (!c->ack_listed && r->n_owe_ack < DP_UDP_BATCH) {
		c->ack_listed = true;
		r->owe_ack[r->n_owe_ack++] = q;
	}
}

void roce_resp_ack(struct dp_worker *w, struct dp_qp *q)
{
	struct dp_roce_qp *c = roce_qp(q);

	c->ack_listed = false;
	/* Responses go in order: the ACK of a later request waits for a READ's last response. */
	if (!c->ack_due || c->read_count)
		return;
	c->ack_due = false;
	send_aeth(w, q, c->ack_psn, ROCE_AETH_ACK_UNLIMITED);
}

static uint8_t nak_code(uint8_t status)
{
	switch (status) {
	case DP_WC_REM_INV_REQ_ERR:
		return ROCE_NAK_INVALID_REQ;
	case DP_WC_REM_ACCESS_ERR:
		return ROCE_NAK_REMOTE_ACCESS;
	default:
		return ROCE_NAK_REMOTE_OP;
	}
}

/* An invalid request (class C): NAK, and the QP goes to ERR. */
static void invalid_request(struct dp_worker *w, struct dp_qp *q, uint32_t psn)
{
	DP_COUNT(w, q, roce.rx_dropped, 1);
	roce_qp(q)->rx.active = false;
	roce_kept_forget(roce_qp(q));
	if (q->type == DP_QPT_RC) {
		nak(w, q, psn, ROCE_AETH_NAK, ROCE_NAK_INVALID_REQ);
		dp_enter_error(w, q);
	}
}

/* The request's WR as the shared responder reads it: opcode, flags, keys, immediate. */
static uint8_t wr_opcode(uint8_t operation)
{
	switch (operation) {
	case ROCE_SEND_LAST_IMM:
	case ROCE_SEND_ONLY_IMM:
		return DP_WR_SEND_WITH_IMM;
	case ROCE_SEND_LAST_INV:
	case ROCE_SEND_ONLY_INV:
		return DP_WR_SEND_WITH_INV;
	case ROCE_WRITE_FIRST:
	case ROCE_WRITE_MIDDLE:
	case ROCE_WRITE_LAST:
	case ROCE_WRITE_ONLY:
		return DP_WR_RDMA_WRITE;
	case ROCE_WRITE_LAST_IMM:
	case ROCE_WRITE_ONLY_IMM:
		return DP_WR_RDMA_WRITE_WITH_IMM;
	case ROCE_READ_REQUEST:
		return DP_WR_RDMA_READ;
	default:
		return DP_WR_SEND;
	}
}

/* Runs the whole message whose bytes are bytes[0..len) through the shared responder. */
static void execute(struct dp_worker *w, struct dp_qp *q, struct dp_send_wqe *rw, uint32_t src_qpn,
		    uint8_t *bytes, uint64_t len, struct dp_packet *resp)
{
	struct dp_xfer x = {
		.w = w, .nic = q->nic, .wqe = rw, .type = q->type, .requester_qpn = src_qpn,
		.resp = resp, .responder = q,
	};

	*resp = (struct dp_packet){ .kind = DP_PKT_RESPONSE, .status = DP_WC_SUCCESS };
	rw->mem.status = DP_WC_SUCCESS;
	rw->mem.n_segs = 1;
	rw->mem.length = len;
	rw->mem.segs[0] = (struct dp_seg){ bytes, (uint32_t)len };
	dp_resp_execute(&x);
}

/* The request p, the last of its message, names this WR (the first packet's RETH for a WRITE). */
static void describe(struct dp_send_wqe *rw, const struct roce_pkt *p, const struct roce_reth *reth)
{
	uint8_t operation = p->bth.opcode & 0x1f;

	memset(rw, 0, offsetof(struct dp_send_wqe, inline_data));
	rw->opcode = wr_opcode(operation);
	rw->send_flags = p->bth.se ? DP_SEND_SOLICITED : 0;
	rw->imm_data = rw->opcode == DP_WR_SEND_WITH_INV ? p->inv_rkey : htonl(p->imm);
	rw->remote_addr = reth->va;
	rw->rkey = reth->rkey;
}

/* ---- READ ---- */

static unsigned read_burst(struct dp_worker *w, struct dp_qp *q, struct dp_roce_read *rd)
{
	uint32_t mtu = roce_qp(q)->path.mtu;
	unsigned sent = 0;

	while (sent < DP_ROCE_READ_BURST && dp_psn_diff(rd->psn, rd->last_psn) <= 0) {
		bool first = rd->psn == rd->first_psn, last = rd->psn == rd->last_psn;
		uint32_t n = rd->len - rd->sent < mtu ? rd->len - rd->sent : mtu;
		uint8_t op = first && last ? ROCE_READ_RESPONSE_ONLY : first ? ROCE_READ_RESPONSE_FIRST :
			     last ? ROCE_READ_RESPONSE_LAST : ROCE_READ_RESPONSE_MIDDLE;
		struct roce_pkt p = {
			.bth = { .opcode = ROCE_OPCODE(ROCE_TR_RC, op), .pkey = ROCE_PKEY_DEFAULT,
				 .dest_qp = q->dest_qpn, .psn = rd->psn },
			.aeth = { .syndrome = ROCE_AETH_ACK_UNLIMITED, .msn = roce_qp(q)->msn & 0xffffff },
		};

		roce_send_pkt(w, q, &roce_qp(q)->route, &p, n ? rd->bytes + rd->sent : NULL, n);
		rd->sent += n;
		rd->psn = dp_psn_add(rd->psn, 1);
		sent++;
	}
	return sent;
}

unsigned roce_resp_reads(struct dp_worker *w, struct dp_qp *q)
{
	struct dp_roce_qp *c = roce_qp(q);
	unsigned sent = 0;

	while (c->read_count && sent < DP_ROCE_READ_BURST) {
		struct dp_roce_read *rd = &c->reads[c->read_head];

		sent += read_burst(w, q, rd);
		if (dp_psn_diff(rd->psn, rd->last_psn) <= 0)
			break;
		free(rd->bytes);
		*rd = (struct dp_roce_read){ 0 };
		c->read_head = (c->read_head + 1) % c->n_reads;
		c->read_count--;
	}
	if (!c->read_count && c->ack_due)
		roce_resp_ack(w, q);
	return sent;
}

/*
 * A READ request (again, when dup): the bytes are read now, through the
 * MKEY the rkey names, and sent a burst per turn.  A duplicate is read
 * again: the request says which part is missing.
 */
static void read_request(struct dp_worker *w, struct dp_qp *q, const struct roce_pkt *p, bool dup)
{
	struct dp_roce_qp *c = roce_qp(q);
	uint32_t len = p->reth.dma_len, mtu = c->path.mtu, npsn = len ? (len + mtu - 1) / mtu : 1;
	struct dp_roce_read *rd;
	struct dp_send_wqe rw;
	struct dp_packet resp;
	uint8_t *bytes;

	/* A duplicate that finds no room waits for the requester's next try. */
	if (dup && c->read_count == c->n_reads)
		return;
	if (len > ROCE_MSG_MAX || c->read_count == c->n_reads) {
		invalid_request(w, q, p->bth.psn);
		return;
	}
	bytes = malloc(len ? len : 1);
	if (!bytes) {
		nak(w, q, p->bth.psn, ROCE_AETH_NAK, ROCE_NAK_REMOTE_OP);
		dp_enter_error(w, q);
		return;
	}
	describe(&rw, p, &p->reth);
	execute(w, q, &rw, q->dest_qpn, bytes, len, &resp);
	if (resp.status != DP_WC_SUCCESS) {
		free(bytes);
		nak(w, q, p->bth.psn, ROCE_AETH_NAK, nak_code(resp.status));
		return;
	}
	rd = &c->reads[(c->read_head + c->read_count++) % c->n_reads];
	*rd = (struct dp_roce_read){
		.psn = p->bth.psn, .first_psn = p->bth.psn, .last_psn = dp_psn_add(p->bth.psn, npsn - 1),
		.len = len, .bytes = bytes,
	};
	if (!dup) {
		c->epsn = dp_psn_add(c->epsn, npsn);
		c->msn++;
	}
	roce_resp_reads(w, q);
}

/* ---- SEND and WRITE ---- */

/* Whether a packet of this place may come now: FIRST/ONLY between messages, MIDDLE/LAST inside one of its kind. */
static bool in_order(const struct dp_roce_qp *c, const struct roce_pkt *p)
{
	uint16_t flags = p->op->flags;
	uint8_t operation = p->bth.opcode & 0x1f;
	bool write = operation >= ROCE_WRITE_FIRST && operation <= ROCE_WRITE_ONLY_IMM;

	if (flags & (ROCE_F_FIRST | ROCE_F_ONLY))
		return !c->rx.active;
	return c->rx.active && write == (c->rx.operation == ROCE_WRITE_FIRST);
}

/* Whether the message this packet starts consumes a receive WR (and so waits for one). */
static bool needs_receive(uint8_t operation)
{
	return operation <= ROCE_SEND_ONLY_IMM || operation == ROCE_WRITE_ONLY_IMM ||
	       operation == ROCE_SEND_ONLY_INV;
}

static bool gather(struct dp_roce_qp *c, const struct roce_pkt *p)
{
	size_t need = c->rx.len + p->payload_len;

	if (need > ROCE_MSG_MAX)
		return false;
	if (need > c->rx.cap) {
		size_t cap = c->rx.cap ? c->rx.cap : DP_ROCE_MTU_MAX;
		uint8_t *b;

		while (cap < need)
			cap *= 2;
		b = realloc(c->rx.bytes, cap);
		if (!b)
			return false;
		c->rx.bytes = b;
		c->rx.cap = cap;
	}
	memcpy(c->rx.bytes + c->rx.len, p->payload, p->payload_len);
	c->rx.len = need;
	return true;
}

/* The last packet of a message came: it is executed, then acknowledged (or NAKed). */
static void complete_message(struct dp_worker *w, struct dp_qp *q, const struct roce_pkt *p)
{
	struct dp_roce_qp *c = roce_qp(q);
	struct dp_send_wqe rw;
	struct dp_packet resp;

	c->rx.active = false;
	if (c->rx.operation == ROCE_WRITE_FIRST && c->rx.len != c->rx.reth.dma_len) {
		invalid_request(w, q, p->bth.psn);
		return;
	}
	describe(&rw, p, &c->rx.reth);
	execute(w, q, &rw, q->dest_qpn, c->rx.bytes, c->rx.len, &resp);
	if (q->type == DP_QPT_UC)
		return;
	if (resp.rnr) {
		/* Sent again from its first packet once the receiver has a WR, and all after it. */
		roce_kept_forget(c);
		c->epsn = c->rx.first_psn;
		c->nak_sent = true;
		c->nak_high = p->bth.psn;
		DP_COUNT(w, q, roce.rnr_naks_sent, 1);
		nak(w, q, c->rx.first_psn, ROCE_AETH_RNR_NAK, resp.rnr_timer);
	} else if (resp.status != DP_WC_SUCCESS) {
		nak(w, q, p->bth.psn, ROCE_AETH_NAK, nak_code(resp.status));
	} else {
		c->msn++;
	}
}

/* A packet of a SEND or WRITE at the expected PSN. */
static void send_or_write(struct dp_worker *w, struct dp_qp *q, const struct roce_pkt *p)
{
	struct dp_roce_qp *c = roce_qp(q);
	uint16_t flags = p->op->flags;
	uint8_t operation = p->bth.opcode & 0x1f;
	bool last = flags & (ROCE_F_LAST | ROCE_F_ONLY);

	if (!in_order(c, p) || (!last && p->payload_len != c->path.mtu) ||
	    (last && p->payload_len > c->path.mtu)) {
		invalid_request(w, q, p->bth.psn);
		return;
	}
	if (flags & (ROCE_F_FIRST | ROCE_F_ONLY)) {
		if (needs_receive(operation) && !dp_queue_ready(&q->rq, dp_queue_cons(&q->rq))) {
			if (q->type == DP_QPT_UC)
				return;   /* UC: the message is lost */
			c->nak_sent = true;
			c->nak_high = p->bth.psn;
			DP_COUNT(w, q, roce.rnr_naks_sent, 1);
			nak(w, q, p->bth.psn, ROCE_AETH_RNR_NAK, (uint8_t)(q->min_rnr_timer & 31));
			return;
		}
		c->rx.active = true;
		c->rx.operation = operation >= ROCE_WRITE_FIRST && operation <= ROCE_WRITE_ONLY_IMM ?
				  ROCE_WRITE_FIRST : ROCE_SEND_FIRST;
		c->rx.first_psn = p->bth.psn;
		c->rx.reth = p->reth;
		c->rx.len = 0;
		if (c->rx.operation == ROCE_WRITE_FIRST && c->rx.reth.dma_len > ROCE_MSG_MAX) {
			invalid_request(w, q, p->bth.psn);
			return;
		}
	}
	if (!gather(c, p)) {
		invalid_request(w, q, p->bth.psn);
		return;
	}
	c->epsn = dp_psn_add(p->bth.psn, 1);
	if (last)
		complete_message(w, q, p);
	if (q->type == DP_QPT_RC && p->bth.ack_req && !c->nak_sent && q->state != DP_QPS_ERR)
		owe_ack(q, p->bth.psn);
}

/* ---- per transport ---- */

/* A gap before p: one NAK per gap (and one more when the requester went back), p kept. */
static void after_gap(struct dp_worker *w, struct dp_qp *q, const struct roce_pkt *p)
{
	struct dp_roce_qp *c = roce_qp(q);

	DP_COUNT(w, q, roce.out_of_sequence, 1);
	/*
	 * One NAK per gap, but a packet seen again since says the requester
	 * went back: if the gap is still there (the packet that fills it was
	 * lost again), it hears so now rather than at its timeout.
	 */
	if (c->nak_sent && dp_psn_diff(p->bth.psn, c->nak_high) <= 0)
		c->nak_sent = false;
	if (dp_psn_diff(p->bth.psn, c->nak_high) > 0)
		c->nak_high = p->bth.psn;
	/*
	 * While packets are kept, one that asks for an ACK is answered with the
	 * NAK again: a requester that sent the missing packet alone (comp.c) and
	 * lost it once more hears so within half a window, not at its timeout.
	 */
	if (!c->nak_sent || (p->bth.ack_req && roce_kept_beyond(c))) {
		if (!c->nak_sent)
			c->nak_high = p->bth.psn;
		c->nak_sent = true;
		DP_COUNT(w, q, roce.naks_sent, 1);
		nak(w, q, c->epsn, ROCE_AETH_NAK, ROCE_NAK_PSN_SEQ);
	}
	if (roce_kept_add(c, p))
		DP_COUNT(w, q, roce.kept, 1);
}

/* A request packet at the expected PSN, or one before it (a duplicate). */
static void in_sequence(struct dp_worker *w, struct dp_qp *q, const struct roce_pkt *p)
{
	struct dp_roce_qp *c = roce_qp(q);
	uint8_t operation = p->bth.opcode & 0x1f;

	if (dp_psn_diff(p->bth.psn, c->epsn) < 0) {
		/* Seen before (its ACK was lost): acknowledged again, not executed again (C9-105). */
		DP_COUNT(w, q, roce.duplicates, 1);
		if (operation == ROCE_READ_REQUEST)
			read_request(w, q, p, true);
		else
			owe_ack(q, dp_psn_add(c->epsn, DP_PSN_SPACE - 1));
		return;
	}
	c->nak_sent = false;
	if (operation == ROCE_READ_REQUEST) {
		if (c->rx.active)
			invalid_request(w, q, p->bth.psn);
		else
			read_request(w, q, p, false);
		return;
	}
	send_or_write(w, q, p);
}

/*
 * The packets kept after a gap that the gap's filling made next run now, in
 * order, as if they came now; the ACK owed then covers them.  A new gap
 * among them is NAKed at once, so the requester sends that packet alone too.
 */
static void run_kept(struct dp_worker *w, struct dp_qp *q)
{
	struct dp_roce_qp *c = roce_qp(q);
	struct roce_kept_pkt *k;
	bool ran = false;

	while (q->state != DP_QPS_ERR && (k = roce_kept_take(c, c->epsn))) {
		in_sequence(w, q, &k->pkt);
		free(k);
		ran = true;
	}
	if (!ran || q->state == DP_QPS_ERR || c->nak_sent)
		return;
	owe_ack(q, dp_psn_add(c->epsn, DP_PSN_SPACE - 1));
	if (roce_kept_beyond(c)) {
		c->nak_sent = true;
		DP_COUNT(w, q, roce.naks_sent, 1);
		nak(w, q, c->epsn, ROCE_AETH_NAK, ROCE_NAK_PSN_SEQ);
	} else {
		roce_kept_forget(c);          /* an idle QP holds no table */
	}
}

static void reliable(struct dp_worker *w, struct dp_qp *q, const struct roce_pkt *p)
{
	struct dp_roce_qp *c = roce_qp(q);

	if (dp_psn_diff(p->bth.psn, c->epsn) > 0) {
		after_gap(w, q, p);
		return;
	}
	if (roce_kept_beyond(c))
		free(roce_kept_take(c, p->bth.psn));   /* this copy, sent again, runs instead */
	in_sequence(w, q, p);
	if (roce_kept_beyond(c))
		run_kept(w, q);
}

/* UC: no answers; what is out of order is dropped until the next message starts. */
static void unreliable(struct dp_worker *w, struct dp_qp *q, const struct roce_pkt *p)
{
	struct dp_roce_qp *c = roce_qp(q);
	bool starts = p->op->flags & (ROCE_F_FIRST | ROCE_F_ONLY);

	if (p->bth.psn != c->epsn && c->rx.active) {
		DP_COUNT(w, q, roce.out_of_sequence, 1);
		c->rx.active = false;
	}
	if (!starts && !c->rx.active) {
		DP_COUNT(w, q, roce.out_of_sequence, 1);
		c->epsn = dp_psn_add(p->bth.psn, 1);
		return;
	}
	send_or_write(w, q, p);
	c->epsn = dp_psn_add(p->bth.psn, 1);
}

/* UD: one packet, one message, to the QP whose Q_Key it carries; GRH area from the IP header. */
static void datagram(struct dp_worker *w, struct dp_qp *q, const struct roce_pkt *p,
		     const struct roce_ip_udp *hdr)
{
	uint8_t operation = p->bth.opcode & 0x1f;
	struct dp_send_wqe rw;
	struct dp_packet resp;

	if (operation != ROCE_SEND_ONLY && operation != ROCE_SEND_ONLY_IMM) {
		DP_COUNT(w, q, roce.rx_dropped, 1);
		return;
	}
	describe(&rw, p, &(struct roce_reth){ 0 });
	rw.slot.ud_qkey = p->deth.qkey;
	/* A socket does not see the sender's TTL and traffic class: 0 in the GRH area. */
	dp_grh_build(rw.slot.grh, hdr->sgid, hdr->dgid, 0, 0, 0, (uint32_t)p->payload_len,
		     operation == ROCE_SEND_ONLY_IMM);
	execute(w, q, &rw, p->deth.src_qp, (uint8_t *)p->payload, p->payload_len, &resp);
}

void roce_resp_packet(struct dp_worker *w, struct dp_qp *q, const struct roce_pkt *p,
		      const struct roce_ip_udp *hdr)
{
	switch (q->type) {
	case DP_QPT_RC:
		reliable(w, q, p);
		break;
	case DP_QPT_UC:
		unreliable(w, q, p);
		break;
	case DP_QPT_UD:
		datagram(w, q, p, hdr);
		break;
	}
}
