/* SPDX-License-Identifier: MIT */
/* Inside the RoCE v2 transport: what its requester, completer, responder and endpoint share. */
#pragma once

#include "dataplane/engine/engine.h"
#include "dataplane/roce/packet.h"
#include "dataplane/roce/packet_ring.h"
#include "dataplane/engine/psn.h"
#include "dataplane/roce/transport.h"

#define ROCE_PKEY_DEFAULT 0xffff

/* A socket that sends from one UDP source port (the flows' entropy, reference §2.8). */
struct roce_sport {
	struct roce_sport *next;
	struct dp_udp udp;
};

#define ROCE_SPORT_BUCKETS 64

/* The endpoint of one NIC: its sockets, its worker, and the batch of packets being built. */
struct dp_roce {
	struct roce_sport *sports[ROCE_SPORT_BUCKETS];
	struct dp_nic *nic;
	struct dp_worker *worker;
	struct dp_udp udp4, udp6;         /* fd -1: that family is not served */
	/* A link endpoint's (dp_roce_open_link): frames written to link.fd, no socket at all. */
	bool is_link;
	struct dp_roce_link link;
	uint8_t tx_dmac[DP_UDP_BATCH][6];
	uint8_t *frame;                   /* a frame being built: vnet header, Ethernet, IP, UDP */
	uint16_t port;
	bool segmentation;                /* dp_roce_config's */
	struct dp_roce_faults faults;
	uint64_t rng;
	/* TX: packets built in place, sent together at the end of what the worker is doing. */
	struct dp_udp_tx_batch tx;
	struct dp_udp *tx_sock[DP_UDP_BATCH];
	struct dp_udp_addr tx_to[DP_UDP_BATCH], tx_from[DP_UDP_BATCH];
	struct roce_ip_udp tx_hdr[DP_UDP_BATCH];  /* what each ICRC covers, to seal it again in a run */
	uint8_t *tx_bufs[DP_UDP_BATCH];
	uint8_t *held;                    /* reorder fault: a packet sent after the next one */
	size_t held_len;
	struct dp_udp *held_sock;
	struct dp_udp_addr held_to, held_from;
	struct roce_ip_udp held_hdr;
	uint8_t held_dmac[6];
	uint8_t gather[DP_ROCE_MTU_MAX];  /* a payload gathered from several segments */
	/* RX: the sockets' batch, or the packet path's ring (ring.fd >= 0). */
	struct roce_ring ring;
	int ring_error;                   /* why the packet path was not had (-errno), or 0 */
	struct dp_udp_rx_batch rx;
	uint8_t *rx_bufs[DP_UDP_BATCH];
	struct dp_qp *owe_ack[DP_UDP_BATCH];
	unsigned n_owe_ack;
};

/* The NIC's RoCE endpoint (the NIC's remote transport's), or NULL. */
static inline struct dp_roce *roce_ep(const struct dp_nic *of)
{
	return of->remote_ep;
}

/* A QP's connection, for a QP this transport carries (dp_qp.transport). */
static inline struct dp_roce_qp *roce_qp(const struct dp_qp *q)
{
	return q->conn;
}

/* The device's RoCE counters, the worker's share. */
#define DEVICE_COUNT_N(w, nic, field, n) dp_count_add(&(nic)->per_worker[(w)->index].counters.roce.field, (n))
#define DEVICE_COUNT(w, nic, field) DEVICE_COUNT_N(w, nic, field, 1)

/*
 * net.c: an IP datagram (a link endpoint's, link_rx.c) checked as the packet path's frames
 * are, its ICRC against its own header, handed to its QP; then what it makes us send.
 */
void roce_rx_ip(struct dp_worker *w, struct dp_roce *r, const uint8_t *ip, size_t len);

/* ---- the transport's operations (struct dp_transport, net.c's table) ---- */

/* qp.c: a QP's connection, and its turn. */
void *roce_qp_new(const struct dp_path *path, uint32_t max_dest_rd_atomic);
void roce_qp_free(void *conn);
void roce_qp_connect(struct dp_worker *w, struct dp_qp *q, const struct dp_path *path, bool rts);
void roce_qp_stop(struct dp_worker *w, struct dp_qp *q);
unsigned roce_qp_poll(struct dp_worker *w, struct dp_qp *q);
/* req.c: a request, and the PSNs the message of wqe takes. */
int roce_request(struct dp_worker *w, struct dp_nic *nic, const struct dp_packet *p);
uint32_t roce_psns(const struct dp_qp *q, const struct dp_send_wqe *wqe);
/* tx.c: sends what the endpoint's batch holds. */
void roce_flush(struct dp_worker *w, struct dp_nic *nic);

/* ---- tx.c ---- */

/*
 * Builds p with its payload, seals its ICRC for route and queues it (the
 * faults set for tests apply here); q counts it.
 */
void roce_send_pkt(struct dp_worker *w, struct dp_qp *q, const struct dp_roce_route *route,
		   const struct roce_pkt *p, const void *payload, size_t len);
/* Sends what is queued. */
void roce_tx_flush(struct dp_worker *w, struct dp_roce *r);
/* link.c: a link endpoint's batch, each packet as an Ethernet frame on its link. */
void roce_link_send(struct dp_worker *w, struct dp_roce *r);
/*
 * Points route at the socket of its source port (route->hdr.sport), opened
 * the first time; where that port cannot be had, the endpoint's own socket,
 * and hdr.sport says so.
 */
void roce_route_bind(struct dp_roce *r, struct dp_roce_route *route);
/* The GID of an address received (IPv4-mapped for IPv4). */
void roce_addr_gid(const struct dp_udp_addr *a, uint8_t gid[16]);
/* The socket address of a GID on port. */
void roce_gid_addr(const uint8_t gid[16], uint16_t port, struct dp_udp_addr *a);
/*
 * A socket of family on port: an endpoint socket (DP_UDP_BIG_BUFFERS)
 * receives, with the local address of each datagram and GRO; any socket
 * sends, runs as one GSO send only with gso.
 */
int roce_open_socket(struct dp_udp *u, int family, uint16_t port, unsigned flags, bool gso);

/* ---- req.c ---- */

/* Sends request packets of q's messages while the window allows; how many. */
unsigned roce_req_pump(struct dp_worker *w, struct dp_qp *q);
/* Go back N: sends again from psn on (a PSN-sequence NAK, a timeout, a READ response missing). */
void roce_req_rewind(struct dp_worker *w, struct dp_qp *q, uint32_t psn);
/* Asks for the responses of a READ in flight again from its first missing one, and for
 * nothing else (the READs after it are not asked again). */
void roce_req_read_again(struct dp_worker *w, struct dp_qp *q, struct dp_send_wqe *wqe);
/* Sends the packet at psn again alone, asking for an ACK (a PSN-sequence NAK named it);
 * false when no message in flight holds psn. */
bool roce_req_resend(struct dp_worker *w, struct dp_qp *q, uint32_t psn);
/* The message the SQ index holds, if it is one of q's RoCE messages in flight. */
struct dp_wire_msg *roce_msg_at(struct dp_qp *q, uint32_t index);
/* Gives the message at index its response (status, or rnr / dropped already in the answer). */
void roce_msg_answer(struct dp_worker *w, struct dp_qp *q, uint32_t index, uint8_t status);

/* ---- kept.c: request packets after a gap, kept by the responder ---- */

#define ROCE_KEPT_MAX DP_ROCE_WINDOW

struct roce_kept_pkt {
	struct roce_pkt pkt;          /* its payload is bytes */
	uint8_t bytes[];
};

/* Keeps a copy of p, which came after a gap of c's (at most ROCE_KEPT_MAX past c->epsn);
 * true when it is kept now (false: not kept, or a copy of it kept already). */
bool roce_kept_add(struct dp_roce_qp *c, const struct roce_pkt *p);
/* The packet kept for psn, now the caller's to free; NULL when none is. */
struct roce_kept_pkt *roce_kept_take(struct dp_roce_qp *c, uint32_t psn);
/* Whether any packet is kept. */
bool roce_kept_beyond(const struct dp_roce_qp *c);
/* Drops every packet kept (the QP left RTR/RTS, or what came after the gap must come again). */
void roce_kept_forget(struct dp_roce_qp *c);

/* ---- window.c: the requester's window of unacknowledged packets ---- */

void roce_window_init(struct dp_roce_qp *c);
/* packets more request packets left (first copies and retransmissions alike). */
void roce_window_sent(struct dp_roce_qp *c, uint32_t packets);
/* una moved past packets more PSNs. */
void roce_window_acked(struct dp_roce_qp *c, uint32_t packets);
/* A PSN-sequence NAK: a packet was lost (each NAK of an episode is one more). */
void roce_window_loss(struct dp_roce_qp *c);
/* The retransmission timer ran out. */
void roce_window_timeout(struct dp_roce_qp *c);
/* The request packet about to go asks for an ACK (besides a message's last). */
bool roce_window_asks_ack(struct dp_roce_qp *c);

/* ---- comp.c ---- */

/* An ACK, NAK or READ response for q. */
void roce_comp_packet(struct dp_worker *w, struct dp_qp *q, const struct roce_pkt *p);
/* The retransmission timer of q's connection ran out. */
void roce_comp_timeout(struct dp_worker *w, struct dp_qp *q);
/* The QP went to ERR: every message in flight is answered (flushed), none waits for the peer. */
void roce_comp_flush(struct dp_worker *w, struct dp_qp *q);

/* ---- resp.c ---- */

/* A request packet for q from the address whose headers hdr rebuilds. */
void roce_resp_packet(struct dp_worker *w, struct dp_qp *q, const struct roce_pkt *p,
		      const struct roce_ip_udp *hdr);
/* Sends the ACK q owes (coalesced over a receive batch). */
void roce_resp_ack(struct dp_worker *w, struct dp_qp *q);
/* Sends the next READ responses q owes; how many packets. */
unsigned roce_resp_reads(struct dp_worker *w, struct dp_qp *q);
