/* SPDX-License-Identifier: MIT */
/*
 * The transport between a requester and a responder: request and response
 * descriptors, and where they travel.  Two transports sit behind them:
 * loopback (dataplane/loopback.c), between QPs of one NIC, on the same
 * worker (a call) or on two workers (a queue each way between every pair of
 * workers); and RoCE v2 (dataplane/roce/), between NICs over UDP, whose
 * packets, acknowledgements and retransmissions stay below the descriptors.
 *
 * Every request gets exactly one response.  After an RNR NAK an RC responder
 * drops the requests that follow the NAKed one until the requester sends it
 * again, and says so (dropped), as a NIC discards packets out of sequence.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "dataplane/offload/sig.h"

enum dp_packet_kind { DP_PKT_REQUEST = 1, DP_PKT_RESPONSE };

struct dp_qp;

struct dp_packet {
	uint8_t kind;
	/* Response: the requester's completion status; rnr: no receive WQE, retry later. */
	uint8_t status;
	bool rnr;
	uint8_t rnr_timer;        /* the responder's min_rnr_timer code */
	bool lost;                /* UC/UD: no receiver took the message */
	bool dropped;             /* not the request expected: sent again after the NAKed one */
	bool sig_failed;          /* a signature check of the requester's MKEY failed */
	uint16_t sig_errors[DP_SIG_ERR_APPTAG + 1];   /* of the requester's MKEY, by type */
	uint32_t qpn;             /* request: the responder's QP; response: the requester's */
	uint32_t psn;             /* the request's first sequence number (RC: the responder expects them in order) */
	uint32_t npsn;            /* request: the sequence numbers it takes (RoCE: its packets; READ: its responses) */
	uint32_t index;           /* the requester's SQ index of the WQE */
	uint32_t epoch;           /* the requester's connection (dp_qp.epoch) */
	uint64_t sig_found_ns;
	/* Loopback: the requester's context; its WQE at psn holds what the request carries. */
	struct dp_qp *requester;
};

struct dp_nic;
struct dp_worker;

struct dp_send_wqe;

/*
 * Requester on worker w: sends the request of p->requester, to another host
 * when the QP (or a UD WR's address) says so, else to the worker that runs
 * QP p->qpn.  0 sent (a response may have come already); -EAGAIN no room
 * now, try again later; -EHOSTUNREACH no QP of that number runs.
 */
int dp_transport_request(struct dp_worker *w, struct dp_nic *nic, const struct dp_packet *p);
/*
 * The end of a QP's turn: what its requests queued leaves now, together (runs of packets
 * to one peer as one send, one system call for many requests).
 */
void dp_transport_flush(struct dp_worker *w, struct dp_nic *nic);
/* The sequence numbers the request of wqe takes on the transport that carries it. */
uint32_t dp_transport_psns(const struct dp_qp *q, const struct dp_send_wqe *wqe);

/* ---- loopback ---- */

int dp_loopback_request(struct dp_worker *w, struct dp_nic *nic, const struct dp_packet *p);
/* Responder on worker w: answers a request that came from worker to. */
void dp_loopback_response(struct dp_worker *w, struct dp_nic *nic, unsigned to, const struct dp_packet *p);

/* Worker: takes what other workers sent it (the NIC's poller on every worker). */
unsigned dp_loopback_poll(struct dp_worker *w, void *nic);

/* Queues between two workers: their size, and setting them up and down. */
int dp_loopback_init(struct dp_nic *nic);
void dp_loopback_release(struct dp_nic *nic);
