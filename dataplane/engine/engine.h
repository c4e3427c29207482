/* SPDX-License-Identifier: MIT */
/*
 * Inside the NIC: what the requester (req.c), the responder (resp.c) and the
 * completer (comp.c) share.  Each runs on the worker of the QP it acts for:
 * the requester and completer on the requester QP's, the responder on the
 * responder QP's, so each QP's state has one writer.
 *
 * Statuses follow reference roce_virtio.md §4.1-4.2 (RC); UC loses a message
 * the responder cannot take; UD drops silently.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "dataplane/cq.h"
#include "dataplane/nic.h"
#include "dataplane/engine/qp.h"
#include "dataplane/transport.h"
#include "dataplane/worker.h"

/* WRs one QP sends per turn of its worker, so that one busy QP does not starve the others. */
#define DP_SQ_BUDGET 64
/* rnr_retry 7: retry for ever. */
#define DP_RNR_RETRY_INFINITE 7

/* The QP's counter and its NIC's (the worker's share of it). */
#define DP_COUNT(w, q, field, n) do { \
	dp_count_add(&(q)->counters.field, (n)); \
	dp_count_add(&(q)->nic->per_worker[(w)->index].counters.field, (n)); \
} while (0)

/* A count only the calling thread changes, read by others: no locked instruction. */
static inline void dp_count_step(_Atomic uint32_t *c, int32_t n)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + (uint32_t)n,
			      memory_order_release);
}

/* The RNR NAK timer code (5 bits) in nanoseconds (reference §3.4). */
uint64_t dp_rnr_timer_ns(uint32_t code);

/* ---- the QP's worker ---- */

/* A fatal error: the QP goes to ERR; the driver is told before the completion that says why. */
void dp_enter_error(struct dp_worker *w, struct dp_qp *q);
/* sig_pipelining: the send queue stops in SQD, the driver told before the WQE's completion. */
void dp_stop_in_sqd(struct dp_worker *w, struct dp_qp *q, uint64_t found_at_ns);
/* Tells the driver again what it could not be told (a full event queue). */
void dp_tell_pending(struct dp_worker *w, struct dp_qp *q);
/* Writes e into cq through w's lane; a full CQ is a fatal error of q (IBA class G). */
void dp_complete(struct dp_worker *w, struct dp_qp *q, struct dp_cq *cq, const struct dp_cqe *e,
		 bool solicited);
/*
 * A receive completion of q's head receive WQE (given back to its queue
 * first: whoever sees the completion may post into its slot); from is the
 * sending QP of a UD message, req the send WQE the message came from.
 */
void dp_complete_recv(struct dp_worker *w, struct dp_qp *q, uint64_t wr_id, uint8_t status,
		      uint8_t opcode, uint32_t byte_len, const struct dp_send_wqe *req, uint32_t from_qpn);

/*
 * Key key was invalidated on worker w (LOCAL_INV, SEND_WITH_INV): the driver
 * hears of it, so that the MKEY or MR it named shows free.
 */
void dp_tell_invalidated(struct dp_worker *w, struct dp_nic *nic, uint32_t key);
/* A configure WR published the MKEY key's new context on worker w: the model follows. */
void dp_tell_configured(struct dp_worker *w, struct dp_nic *nic, uint32_t key);

/* ---- entries out of the queues (wqe_read.c) ---- */

/* Copies the send WQE at index out of q's queue, checks it and resolves its local keys. */
void dp_read_send(struct dp_qp *q, uint32_t index, struct dp_send_wqe *out);
/* A receive WQE as the responder copied it out and resolved it. */
struct dp_recv_wqe {
	uint64_t wr_id;
	struct dp_wqe_mem mem;
};
/* The head receive WQE of q copied out and resolved, or false when there is none. */
bool dp_read_recv(struct dp_qp *q, struct dp_recv_wqe *out);
/* The remote memory of a WRITE or READ, its rkey resolved against pd; false when it does not. */
bool dp_resolve_remote(const struct dp_keytab *kt, unsigned worker, const struct dp_send_wqe *wqe,
		       uint32_t pd, uint32_t access, struct dp_wqe_mem *m);

/* ---- moving bytes (move.c) ---- */

/*
 * One transfer, and who asked for it.  The responder executes one for a
 * request; over RoCE the requester runs one for its own MKEY too (the wire
 * domain leaves and arrives there).
 */
struct dp_xfer {
	struct dp_worker *w;
	struct dp_nic *nic;
	/*
	 * The request: opcode, keys, immediate, and its bytes (mem): the
	 * requester's memory over loopback, the wire bytes over RoCE.
	 */
	const struct dp_send_wqe *wqe;
	enum dp_qp_type type;     /* the requester's */
	uint32_t requester_qpn;
	/* The requester's context (loopback and its own transfers), NULL for a QP on another host. */
	const struct dp_qp *requester;
	struct dp_packet *resp;   /* the answer; signature errors of the requester's WR go here */
	struct dp_qp *responder;
};

/*
 * Moves len wire bytes from src to dst, each MKEY on the way running its
 * transform: TX on the side that reads memory, RX on the side that writes
 * it.  A signature error never fails the move: it is reported, and the
 * response tells the requester's completer.
 * -ENOMEM when bytes could not be staged.
 */
int dp_move(struct dp_xfer *x, const struct dp_wqe_mem *dst, const struct dp_wqe_mem *src, uint64_t len);
/* The two halves of a move across the wire: memory (through its MKEY) to wire bytes, and back. */
int dp_move_out(struct dp_xfer *x, const struct dp_wqe_mem *src, uint8_t *wire, uint64_t len);
int dp_move_in(struct dp_xfer *x, const struct dp_wqe_mem *dst, const uint8_t *wire, uint64_t len);
/* Copies length bytes from one list of segments to another (each long enough). */
void dp_copy_segs(const struct dp_seg *dst, uint32_t n_dst, const struct dp_seg *src, uint32_t n_src,
		  uint64_t length);

/* ---- the transport that carries a request (carrier.c) ---- */

/*
 * Requester on worker w: hands the request of p->requester to the transport
 * that carries it (dataplane/transport.h for what it returns).
 */
int dp_transport_request(struct dp_worker *w, struct dp_nic *nic, const struct dp_packet *p);
/* The end of a QP's turn: what the NIC's transports queued leaves now. */
void dp_transport_flush(struct dp_worker *w, struct dp_nic *nic);
/* The sequence numbers the request of wqe takes on the transport that carries it. */
uint32_t dp_transport_psns(const struct dp_qp *q, const struct dp_send_wqe *wqe);
/* The QP's turn on the transport of its connection (while the NIC has it open): what it owes the wire. */
static inline unsigned dp_transport_poll(struct dp_worker *w, struct dp_qp *q)
{
	return q->transport && q->nic->remote && q->transport->poll ? q->transport->poll(w, q) : 0;
}

/* ---- the three machines ---- */

/* Requester + completer of one QP: sends what its SQ holds, retires what is done, flushes in ERR. */
unsigned dp_qp_poll(struct dp_worker *w, void *qp);
/*
 * Responder: one request whose requester's context is in the NIC
 * (loopback), executed on worker w; *resp is the answer the transport
 * carries back to the requester.
 */
void dp_resp_request(struct dp_worker *w, struct dp_nic *nic, const struct dp_packet *req,
		     struct dp_packet *resp);
/*
 * Responder, whatever the transport: executes the whole message x names on
 * x->responder (UD: the QP the message reached, or NULL), filling x->resp.
 */
void dp_resp_execute(struct dp_xfer *x);
/* Completer: one response. */
void dp_comp_response(struct dp_worker *w, struct dp_nic *nic, const struct dp_packet *resp);
/* Completer: retires the done WQEs at the head of q's SQ, in order. */
unsigned dp_comp_retire(struct dp_worker *w, struct dp_qp *q);
