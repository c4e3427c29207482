/* SPDX-License-Identifier: MIT */
/*
 * The RoCE v2 transport (reference roce_virtio.md §2-§4): requests and
 * responses of QPs whose peer is on another host, as packets over UDP 4791.
 * dp_roce_open makes it the NIC's remote transport (dataplane/transport.h).
 *
 * Above it nothing changes: the requester hands a request descriptor over
 * (struct dp_transport's request) and the completer gets exactly one
 * response for it, as over loopback.  Below the descriptors this transport keeps what
 * the wire needs:
 *
 *   req.c   a message's packets: segmentation at the path MTU, opcodes,
 *           RETH/ImmDt/IETH/DETH, AckReq; go-back-N retransmission from
 *           the oldest unacknowledged PSN, on a timer or a PSN-sequence NAK;
 *           the one response per message the completer expects;
 *   comp.c  ACKs, NAKs and READ responses: cumulative acknowledgement;
 *   resp.c  requests: PSN checks, duplicates answered without executing
 *           again, reassembly of a message, then the responder's shared
 *           code (dataplane/engine/resp.c) on the whole message; ACK/NAK, READ
 *           responses;
 *   qp.c    a QP's connection: made, connected, stopped, and its turn;
 *   tx.c    what leaves: packets built and ICRC sealed, the batch sent
 *           together, fault injection, a socket per UDP source port;
 *   link.c  an endpoint on a link instead (a VM's TAP): its own Ethernet, IP
 *           and UDP headers written with each packet, datagrams taken in;
 *   net.c   the endpoint: sockets on the RoCE worker's epoll set, ICRC
 *           checked, packets dispatched to QPs, the transport's table.
 *
 * Every RoCE QP runs on the endpoint's worker, so one thread owns its
 * state; no lock.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "dataplane/roce/ip_udp.h"
#include "dataplane/timer.h"
#include "dataplane/transport.h"
#include "dataplane/udp.h"

/* Request packets sent and not acknowledged, at most (as rxe), and the least the window falls to. */
#define DP_ROCE_WINDOW 128
#define DP_ROCE_WINDOW_MIN 4
/* A long message asks for an ACK at least this often, and at least twice per window (window.c). */
#define DP_ROCE_ACK_EVERY 64
_Static_assert(DP_ROCE_ACK_EVERY <= DP_ROCE_WINDOW, "an ACK asked for within every window");
/* The largest path MTU (IBV_MTU_4096). */
#define DP_ROCE_MTU_MAX 4096
/* Room for one packet: headers (BTH + RETH + ImmDt), payload, pad, ICRC. */
#define DP_ROCE_PKT_MAX (DP_ROCE_MTU_MAX + 64)
/* Packets of READ responses one QP sends per turn (a READ of 1 MiB does not hold the worker). */
#define DP_ROCE_READ_BURST 64

/*
 * Where a QP's packets go, the socket they leave by (bound to the flow's
 * UDP source port), and what their ICRC covers of the IP and UDP headers
 * the kernel writes.
 */
struct dp_roce_route {
	struct roce_ip_udp hdr;
	struct dp_udp_addr to, from;
	struct dp_udp *sock;
	uint8_t dmac[6];          /* a link endpoint's: the next hop's MAC (dp_roce_open_link) */
};

/* For tests: what the endpoint does to its outgoing packets, each a fraction in millionths. */
struct dp_roce_faults {
	uint32_t drop, duplicate, reorder;
};

/* Which way a NIC's RoCE endpoint takes packets in (rdmad.conf roce_receive). */
enum dp_roce_receive {
	DP_ROCE_RECEIVE_AUTO,     /* the packet path where it can be had, else the socket path */
	DP_ROCE_RECEIVE_PACKET,   /* an AF_PACKET ring on netdev (packet_ring.h): the IP header seen,
				   * every ICRC checked against it; needs CAP_NET_RAW */
	DP_ROCE_RECEIVE_SOCKET,   /* the UDP sockets: the IPv4 ID found from the ICRC (icrc_id.c) */
};

/* "auto", "packet", "socket". */
const char *dp_roce_receive_name(enum dp_roce_receive how);
/*
 * Whether a kernel of this release ("6.1.0-18-amd64") hands a packet ring a UDP GSO buffer
 * (a sender's run that crossed a veth whole) with its virtio-net header: 6.2 on.  An older
 * one drops such a buffer before the ring, and on a veth every run of a sender with
 * segmentation offload would be lost: roce_receive = auto takes the socket path there.
 */
bool dp_roce_ring_carries_udp_gso(const char *release);

/* How a NIC's RoCE endpoint is opened. */
struct dp_roce_config {
	uint16_t port;            /* UDP, 4791 (0 in tests: any) */
	enum dp_roce_receive receive;
	char netdev[16];          /* IF_NAMESIZE: the interface the packet path listens on */
	/*
	 * Runs of equal packets to one peer leave as one send (UDP GSO), the kernel
	 * numbering their IPv4 IDs 0, 1, 2...: each packet's ICRC is sealed for its
	 * own.  Off, every packet leaves alone with ID 0 (docs/decisions.md).
	 */
	bool segmentation;
	struct dp_roce_faults faults;
};

/* A READ the responder answers: its responses go out a burst per turn. */
struct dp_roce_read {
	uint32_t psn;             /* of the next response */
	uint32_t first_psn, last_psn;
	uint32_t sent, len;       /* bytes */
	uint8_t *bytes;
};

/* What a QP keeps of its connection (RC, UC) or its datagrams (UD). */
struct dp_roce_qp {
	struct dp_path path;
	struct dp_roce_route route;
	uint64_t rto_ns;          /* 0: no retransmission timer */
	/* Requester. */
	uint32_t una;             /* every PSN before it is acknowledged (or, for a READ, answered) */
	uint32_t acked;           /* every PSN before it is acknowledged by an ACK or implied by a NAK */
	uint32_t tx_psn;          /* the next PSN to send */
	uint32_t tx_high;         /* the next PSN never sent: below it, a send is a retransmission */
	uint32_t tx_index;        /* the SQ index of the message tx_psn is in */
	uint32_t retry_left;
	struct dp_timer rto;
	uint32_t window;          /* packets unacknowledged at most now (window.c) */
	uint32_t window_credit;   /* packets acknowledged towards the next growth */
	uint32_t slow_start_to;   /* after a timeout, one more per packet acknowledged up to this */
	uint32_t loss_sent;       /* request packets sent, and losses (x 256) among them, both */
	uint32_t loss_seen;       /*   halved as they grow: the loss rate of late (window.c) */
	uint32_t since_ack_req;   /* request packets since the last that asked for an ACK */
	/* Responder. */
	uint32_t epsn;            /* the next request PSN expected */
	uint32_t msn;             /* messages completed */
	bool nak_sent;            /* a NAK for epsn went out: what follows is kept (kept.c), not NAKed */
	uint32_t nak_high;        /* the latest PSN seen since (a repeat of one: the requester went back) */
	bool ack_due;             /* an ACK for ack_psn goes out at the end of the receive batch */
	uint32_t ack_psn;
	bool ack_listed;          /* in the endpoint's list of QPs that owe an ACK */
	struct {
		bool active;          /* between a FIRST and its LAST */
		uint8_t operation;    /* ROCE_SEND_FIRST or ROCE_WRITE_FIRST */
		uint32_t first_psn;
		struct roce_reth reth;
		uint8_t *bytes;
		size_t len, cap;
	} rx;
	struct dp_roce_read *reads;   /* ring of max_dest_rd_atomic (at least 1) */
	uint32_t n_reads, read_head, read_count;
	struct roce_kept *kept;       /* request packets after a gap (kept.c); NULL when none */
	/* Requester: a PSN-sequence NAK's packet sent again alone; until resend_until is
	 * acknowledged, an ACK that stops short of it says the responder kept nothing after
	 * the gap, and the requester goes back N from there (comp.c). */
	bool resending;
	uint32_t resend_psn, resend_until;
};

struct dp_nic;
struct dp_qp;
struct dp_worker;
struct dp_send_wqe;

/* ---- driver ---- */

/*
 * Opens the NIC's RoCE endpoint on UDP port (IPv4 and IPv6 sockets, any
 * address), the NIC's remote transport from now on, and hands it to worker
 * w, which runs every RoCE QP.  It receives as cfg->receive says: with
 * DP_ROCE_RECEIVE_AUTO, through the packet path where the ring opens, else
 * through the sockets; with DP_ROCE_RECEIVE_PACKET, the ring's error if it
 * does not open.
 */
int dp_roce_open(struct dp_nic *nic, struct dp_worker *w, const struct dp_roce_config *cfg);
/*
 * The way the NIC's endpoint receives (PACKET or SOCKET; AUTO: no socket
 * endpoint), and, for SOCKET where the packet path was tried, why it was
 * not had (-errno in *packet_error, else 0).
 */
enum dp_roce_receive dp_roce_receive_in_use(const struct dp_nic *nic, int *packet_error);
/*
 * Driver: the interface the packet path listens on (cfg->netdev) appeared, maybe under a
 * new index: its ring binds to it again, on the endpoint's worker.  Nothing without a ring.
 */
void dp_roce_netdev_changed(struct dp_nic *nic);
/*
 * A link: an Ethernet the endpoint writes its own frames to and reads them
 * from, as a virtual machine's RoCE does on its TAP (issue #28): no socket,
 * the IP and UDP headers its own (IPv4 ID 0 and DF, as a socket's would be),
 * the next hop's MAC each route's (dp_path.dmac, an AH's).
 */
struct dp_roce_link {
	int fd;                   /* a TAP's: frames written behind vnet_hdr zero bytes */
	size_t vnet_hdr;
	uint8_t mac[6];           /* the frames' source */
};
/*
 * The same endpoint on a link instead of sockets (cfg->segmentation and
 * faults apply as for sockets; port is the destination port).  What the link
 * brings in goes to dp_roce_link_input.
 */
int dp_roce_open_link(struct dp_nic *nic, struct dp_worker *w, const struct dp_roce_config *cfg,
		      const struct dp_roce_link *link);
/*
 * Driver: an IP datagram of len bytes that came on the link (UDP to the
 * RoCE port, as the caller found it): a copy goes to the endpoint's worker,
 * which takes it as a socket's datagram.  -EAGAIN when its command queue is
 * full (the datagram is lost, as a full ring would lose it).
 */
int dp_roce_link_input(struct dp_nic *nic, const uint8_t *ip, size_t len);
/* The workers stopped: closes the sockets (before dp_nic_release). */
void dp_roce_close(struct dp_nic *nic);
/* The worker the endpoint is on, or NULL without one. */
struct dp_worker *dp_roce_worker(const struct dp_nic *nic);

/* ---- the QP's worker ---- */

/*
 * The endpoint's worker: one datagram as its socket hands it over (from the
 * peer's address to ours), then whatever it makes us send.  For tests and
 * fuzzing: the sockets' own path is the same.
 */
void dp_roce_input(struct dp_worker *w, struct dp_nic *nic, const uint8_t *buf, size_t len,
		   const struct dp_udp_addr *from, const struct dp_udp_addr *to);

/*
 * What a QP's connection is doing, for a test or bench that finds a transfer
 * stuck: where the requester, completer and responder are, the timers, the
 * window, and the worker's own timers.  Taken on the QP's worker, as a
 * command (snapshot.c): the hot path pays nothing for it.
 */
struct dp_roce_qp_snapshot {
	uint32_t qpn, state;
	/* Send queue and requester. */
	uint32_t sq_cons, sq_prod, req_next, in_flight, psn_next;
	uint32_t una, acked, tx_psn, tx_high, tx_index, retry_left;
	uint32_t window, window_credit, slow_start_to, loss_sent, loss_seen;
	bool remote;
	bool rto_armed, rnr_active;
	uint64_t rto_ns;
	int64_t rto_in_ns, rnr_in_ns;    /* until the timer runs out (negative: overdue) */
	uint32_t rnr_index;
	/* Responder. */
	uint32_t epsn, msn, nak_high, ack_psn, read_count;
	bool nak_sent, ack_due, ack_listed, rx_active;
	/* The worker. */
	uint32_t timers_armed;
	int64_t next_timer_in_ns;        /* INT64_MAX: none armed */
};

/* On q's worker: s is what q's connection is doing now (q without one: only the queue's fields). */
void dp_roce_qp_snapshot(struct dp_worker *w, struct dp_qp *q, struct dp_roce_qp_snapshot *s);
/* s as a few lines of "name value" for a person (snprintf's return). */
int dp_roce_qp_snapshot_format(const struct dp_roce_qp_snapshot *s, char *buf, size_t len);
