/* SPDX-License-Identifier: MIT */
/*
 * The transport between a requester and a responder, as the engine
 * (requester, responder, completer) sees it: request and response
 * descriptors, and struct dp_transport, the operations every transport
 * provides.  The engine calls a transport only through them and names none:
 * loopback (dataplane/loopback/), between QPs of one NIC, and RoCE v2
 * (dataplane/roce/), between NICs over UDP, each fill one in their own
 * files, and a third joins the same way (docs/architecture.md).
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

/*
 * The path of a connected QP, as MODIFY_QP set it (driver → worker): where
 * its peer is, when that is off the NIC (remote), and how its connection
 * runs there.
 */
struct dp_path {
	bool remote;              /* the destination is another host: the NIC's remote transport carries the QP */
	uint8_t sgid[16], dgid[16];
	uint8_t traffic_class, hop_limit;
	uint32_t flow_label;
	uint32_t mtu;             /* bytes */
	uint32_t timeout;         /* retransmission after 4.096 us << timeout; 0: never */
	uint32_t retry_cnt;       /* 7: for ever */
	uint32_t sq_psn, rq_psn;
	uint8_t dmac[6];          /* the next hop's MAC, for a transport that writes Ethernet frames */
};

/*
 * What a transport to another host keeps of a message of the requester in
 * its WQE, from its request until its response went to the completer.
 */
struct dp_wire_msg {
	uint32_t npsn;            /* 0: not such a message (or finished) */
	uint32_t psn;             /* its first */
	uint32_t read_next;       /* READ: the next response expected */
	uint8_t *wire;            /* the bytes on the wire when they are not the WQE's memory */
	struct dp_packet answer;  /* the response it will get (signature errors gathered on the way) */
};

struct dp_nic;
struct dp_worker;
struct dp_send_wqe;

/*
 * A transport: a table of operations, const, in the transport's own files.
 * The NIC holds two (dp_nic.local, dp_nic.remote); a QP whose path leads off
 * the NIC holds its connection's (dp_qp.transport, dp_qp.conn).  The engine
 * calls them per message (request, psns), per turn of a QP (poll, flush) or
 * per change of a QP's state (qp_*): never per packet or per byte.
 *
 * Responses come back the other way, by name: the transport hands each
 * request to the responder (dp_resp_request, or dp_resp_execute on a whole
 * message it put together), whose answer it carries back, and each response
 * to the completer (dp_comp_response).
 */
struct dp_transport {
	const char *name;
	/*
	 * Requester on worker w: sends the request p.  0 sent (a response may
	 * have come already); -EAGAIN no room now, try again later;
	 * -EHOSTUNREACH no QP of that number runs.
	 */
	int (*request)(struct dp_worker *w, struct dp_nic *nic, const struct dp_packet *p);
	/*
	 * The end of a QP's turn: what its requests queued leaves now, together
	 * (runs of packets to one peer as one send).  NULL: nothing is queued.
	 */
	void (*flush)(struct dp_worker *w, struct dp_nic *nic);
	/* The sequence numbers the request of wqe takes. */
	uint32_t (*psns)(const struct dp_qp *q, const struct dp_send_wqe *wqe);
	/* The QP's poller, at each turn of a QP it carries: what it owes the wire now. NULL: nothing. */
	unsigned (*poll)(struct dp_worker *w, struct dp_qp *q);

	/* ---- a QP's connection (NULL for a transport that has none) ---- */

	/* Driver: a connection state for path (freed by qp_free, which takes NULL). */
	void *(*qp_new)(const struct dp_path *path, uint32_t max_dest_rd_atomic);
	/*
	 * The QP's worker: q enters RTR (the responder's side of path) or RTS
	 * from RTR (the requester's).
	 */
	void (*qp_connect)(struct dp_worker *w, struct dp_qp *q, const struct dp_path *path, bool rts);
	/* The QP's worker: q is taken back (RESET, destroy); what it had in flight is forgotten. */
	void (*qp_stop)(struct dp_worker *w, struct dp_qp *q);
	void (*qp_free)(void *conn);

	/*
	 * Worker w: the NIC leaves it while it runs on (dp_nic_leave): what the
	 * transport put on the worker for the NIC comes off.  NULL: nothing.
	 */
	void (*leave)(struct dp_worker *w, struct dp_nic *nic);
	/* The NIC goes (dp_nic_release): what the transport holds of it goes too.  NULL: nothing. */
	void (*release)(struct dp_nic *nic);
};
