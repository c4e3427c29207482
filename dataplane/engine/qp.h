/* SPDX-License-Identifier: MIT */
/*
 * The NIC's context of a QP: its send and receive queues (dataplane/queue.h,
 * entries in the RFC's formats), what the driver keeps beside posted WRs,
 * the requester's copies of the WQEs it executes, and the state, attributes
 * and counters the worker that runs the QP owns.
 *
 * Life: the driver creates the context with the QP, attaches it to a worker
 * when the QP leaves INIT, tells the worker of each later state change by
 * command, and takes it back (release) for RESET or destroy once no request
 * of it is in flight.  From attach to release the worker is its only writer.
 */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "dataplane/counters.h"
#include "dataplane/mkey.h"
#include "dataplane/queue.h"
#include "dataplane/ring_mem.h"
#include "dataplane/timer.h"
#include "dataplane/transport.h"
#include "dataplane/wqe.h"

/* As the IBA numbers them, and the driver's model too. */
enum dp_qp_type { DP_QPT_RC, DP_QPT_UC, DP_QPT_UD };
enum dp_qp_state { DP_QPS_RESET, DP_QPS_INIT, DP_QPS_RTR, DP_QPS_RTS, DP_QPS_SQD, DP_QPS_SQE, DP_QPS_ERR };

/* SGEs of one WQE at most (the device's max_send_sge and max_recv_sge). */
#define DP_SEGS_MAX 32

/*
 * What the driver keeps beside a posted UD send WR, in a slot of the same
 * index: the AH's address vector, as mlx5 puts it in the WQE, which the
 * entry's format has no room for.  Written when the WR is posted.
 */
struct dp_sq_slot {
	bool ud_local;            /* the destination GID is the device's and the message fits the MTU */
	bool ud_remote;           /* the destination GID is another host's and the message fits the MTU */
	uint32_t ud_qkey;         /* the Q_Key the message carries */
	uint8_t grh[DP_GRH_LEN];  /* what the receive gets before the payload */
	/* RoCE: the address vector as the packet's IP header carries it. */
	uint8_t ud_sgid[16], ud_dgid[16];
	uint8_t ud_traffic_class, ud_hop_limit;
	uint32_t ud_flow_label;
	uint8_t ud_dmac[6];       /* the AH's next hop, for a transport that writes Ethernet frames */
	/*
	 * A configure WR: the MKEY's new key table entry, built and owned by the
	 * driver until the requester publishes it (every WR's post sets it,
	 * NULL for the others).  Never in the entry an application may write.
	 */
	struct dp_key *configure;
};

/* Bytes in memory a worker may touch. */
struct dp_seg {
	uint8_t *addr;
	uint32_t length;
};

/* Memory a WQE names, resolved: plain segments, or one MKEY span (mkey.mkey set). */
struct dp_wqe_mem {
	uint8_t status;           /* DP_WC_SUCCESS, or the error its entry or keys cause */
	uint32_t n_segs;
	uint64_t length;          /* bytes of the SGEs or of the inline data */
	struct dp_mkey_span mkey;
	uint32_t mkey_key;        /* the MKEY's key, for its signature-error reports */
	struct dp_seg segs[DP_SEGS_MAX];   /* last: most WQEs use the first only */
};

/*
 * A send WQE as the requester copied it out of the queue and checked it, and
 * what became of it.  While its request is in flight, the responder reads it
 * (the payload, or where a READ's data goes) and nobody writes it.
 */
struct dp_send_wqe {
	uint64_t wr_id;
	uint8_t opcode;
	uint8_t send_flags;
	bool canceled;            /* made a NOP (recovery) before it was sent */
	/* The completer's, beside what it reads to retire the WQE: one cache line for both. */
	bool done;                /* its response came (or it needed none) */
	uint8_t status;           /* of its completion */
	bool nop;                 /* canceled: executed as a NOP */
	bool sig_failed;          /* a signature check through an MKEY failed (the transfer went on) */
	uint32_t imm_data;        /* network byte order */
	uint64_t sig_found_ns;
	uint64_t remote_addr;
	uint32_t rkey;
	uint32_t remote_qpn;      /* UD */
	struct dp_wqe_mem mem;
	struct dp_sq_slot slot;   /* UD */
	struct dp_wire_msg msg;   /* its packets, when it travels to another host */
	uint8_t inline_data[DP_INLINE_MAX];
};

/* What the driver fixes when it creates the context. */
struct dp_qp_config {
	uint32_t qpn;
	uint32_t pd;
	enum dp_qp_type type;
	uint32_t max_send_wr, max_recv_wr;
	uint32_t max_send_sge, max_recv_sge, max_inline;
	bool sq_sig_all;
	bool sig_pipelining;      /* a signature error stops the send queue in SQD */
	/*
	 * An application produces the send and receive queues itself, in memory
	 * it shares (q->ring), and rings q->sq.doorbell (an eventfd the QP's
	 * worker watches) when the worker announced a sleep in the SQ's header.
	 */
	bool rings;
};

/* What the driver tells the worker at each state change. */
struct dp_qp_attr {
	enum dp_qp_state state;
	uint32_t access_flags, dest_qpn, rnr_retry, min_rnr_timer, max_dest_rd_atomic, qkey;
	uint32_t stops_seen;      /* the signature stops the driver has been told of */
	struct dp_path path;      /* RC/UC: where the peer is (path.remote: on another host) */
};

struct dp_nic;
struct dp_cq;
struct dp_worker;

struct dp_qp {
	struct dp_nic *nic;
	uint32_t qpn;
	uint32_t pd;                      /* keys of its WRs resolve against it */
	enum dp_qp_type type;
	struct dp_worker *worker;         /* set by the driver when it attaches the QP */
	struct dp_queue sq, rq;           /* entries: struct dp_sq_req / dp_rq_req + SGEs */
	struct dp_ring_mem ring;          /* rings: where sq and rq are (fd -1: the driver posts) */
	struct dp_sq_slot *sq_slots;      /* UD, configure WRs */
	/* By SQ slot: canceled by the driver (in SQD), cleared by the completer that retires it. */
	_Atomic bool *sq_canceled;
	struct dp_send_wqe *wqes;         /* by SQ slot */
	uint32_t max_send_wr, max_recv_wr;
	uint32_t max_send_sge, max_recv_sge, max_inline;
	struct dp_cq *send_cq, *recv_cq;
	/*
	 * The worker's: what carries its messages to another host (the NIC's
	 * remote transport, from the first path that leads there), and that
	 * transport's state of its connection; NULL: it has none.
	 */
	const struct dp_transport *transport;
	void *conn;
	bool sq_sig_all;
	bool sig_pipelining;
	/*
	 * Written by the worker at every WR; on lines of their own, so that the
	 * driver's reads of the fields above at every post do not bounce.
	 */
	_Alignas(64) struct dp_counters counters;
	/* The worker's once attached. */
	_Alignas(64) enum dp_qp_state state;
	uint32_t access_flags, dest_qpn, rnr_retry, min_rnr_timer, max_dest_rd_atomic, qkey;
	bool error_pending;               /* went to ERR; the driver has not been told yet */
	bool stop_pending;                /* stopped in SQD; the driver has not been told yet */
	/* Its completion overflowed its send CQ (bit 0), recv CQ (bit 1); not told yet. */
	uint8_t cq_error_pending;
	uint64_t stopped_at_ns;           /* when the signature error that stopped it was found */
	_Atomic uint32_t stops;           /* times a signature error stopped the SQ in SQD */
	/* Requester: the next SQ index to send (from the consumer index on: in flight or done). */
	_Atomic uint32_t req_next;
	/*
	 * Requests sent whose response has not come: changed by the requester and
	 * the completer, both on the QP's worker (no locked instruction); the
	 * driver only reads it.
	 */
	_Atomic uint32_t in_flight;
	uint32_t psn_next;                /* the sequence number of the next request */
	uint32_t epoch;                   /* attachments so far: a responder tells a new connection */
	uint32_t rnr_index;               /* the SQ index the RNR retries below are for */
	bool rnr_active;
	uint32_t rnr_left;
	uint64_t rnr_until_ns;
	struct dp_timer rnr_timer;        /* wakes a sleeping worker for the retry */
	/* Responder: the next request expected from the connected requester (RC after an RNR NAK). */
	uint32_t resp_epoch;
	uint32_t resp_epsn;
	bool resp_epsn_valid;
	struct dp_qp *hash_next;
};

/* Driver: a context for cfg completing into the two CQs (which it holds). */
int dp_qp_new(struct dp_nic *nic, const struct dp_qp_config *cfg, struct dp_cq *send_cq,
	      struct dp_cq *recv_cq, struct dp_qp **out);
/* Where a ring QP's send and receive queues are in q->ring. */
void dp_qp_ring_geometry(const struct dp_qp *q, struct dp_ring_geometry *sq, struct dp_ring_geometry *rq);

/* Driver: frees a context no worker holds. */
void dp_qp_free(struct dp_qp *q);

/* Worker w: its QP qpn of the NIC, or NULL. */
struct dp_qp *dp_nic_worker_qp(struct dp_nic *nic, struct dp_worker *w, uint32_t qpn);

/*
 * Driver: what the QP needs to run besides its queues, the requester's state
 * of each send queue slot (sized by the depth asked), made when the QP first
 * leaves INIT rather than when it is created, so that idle QPs cost their
 * queues and little more.  Nothing when made already; -ENOMEM.
 */
int dp_qp_reserve(struct dp_qp *q);
/* Driver: w runs the QP from now on (reserved first: -ENOMEM, and it is not attached). */
int dp_qp_attach(struct dp_qp *q, struct dp_worker *w);
/*
 * Driver: the QP's new state and attributes.  A state the worker went to on
 * its own (ERR; SQD after a signature error the driver has not been told of)
 * stands.  Entering RTR, returns once the worker has it (a peer's requests
 * find the QP ready); entering SQD, once no WQE is in flight or half done.
 */
int dp_qp_update(struct dp_qp *q, const struct dp_qp_attr *attr);
/*
 * Driver: takes the QP back from its worker once none of its requests is in
 * flight; what it had posted stays until dp_qp_drop_posted.
 */
void dp_qp_release(struct dp_qp *q);
/* Driver, the QP released: RESET discards every posted WR without a completion. */
void dp_qp_drop_posted(struct dp_qp *q);

/*
 * Driver, the QP in SQD (its worker starts no WQE): posted send WRs with
 * wr_id not yet executed become NOPs; -EALREADY, nothing changed, when one
 * of them is a NOP already.
 */
int dp_qp_cancel(struct dp_qp *q, uint64_t wr_id, uint32_t *count);
/* Driver: fn(q, index, entry) for each posted send WR not yet retired, oldest first; false stops. */
void dp_qp_each_posted_send(struct dp_qp *q,
			    bool (*fn)(struct dp_qp *q, uint32_t index, const struct dp_sq_req *req, void *data),
			    void *data);
/*
 * Driver: fn(key, iova, length) for each key a posted WR not yet retired names
 * (SGEs, a remote key, receive SGEs; not a canceled WR's); true from fn stops
 * and is returned.
 */
bool dp_qp_each_posted_key(struct dp_qp *q, bool (*fn)(uint32_t key, uint64_t iova, uint64_t length,
						       void *data), void *data);

/* The SQ side data of index. */
static inline struct dp_sq_slot *dp_qp_sq_slot(struct dp_qp *q, uint32_t index)
{
	return &q->sq_slots[index & q->sq.mask];
}

/* Whether the send WR at index was made a NOP. */
static inline bool dp_qp_canceled(const struct dp_qp *q, uint32_t index)
{
	return atomic_load_explicit(&q->sq_canceled[index & q->sq.mask], memory_order_relaxed);
}
