/* SPDX-License-Identifier: MIT */
/*
 * The software NIC of one device on a set of dataplane workers: the key
 * table the workers resolve keys in, which worker runs which QP, what each
 * worker holds of the device (its QPs, staging memory, its share of the
 * counters, its signature-error reports, the loopback transport's queues
 * between workers), and the transports that carry its requests.
 *
 * The driver (rdmad's main thread) programs it by command and hears from it
 * through the workers' event queues: struct dp_event with a type below and
 * cookie = the NIC.
 */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "dataplane/counters.h"
#include "dataplane/keytab.h"
#include "dataplane/offload/transform.h"
#include "dataplane/queue.h"

/* Buckets of a worker's QPs by number to begin with; doubled as QPs come (one per QP at most). */
#define DP_QP_BUCKETS 256

/* The events a NIC's workers report (struct dp_event.type; 0 is none). */
enum dp_nic_event {
	/* The QP went to ERR on its own: object its qpn, ptr its context. */
	DP_EVENT_QP_ERROR = 1,
	/*
	 * A completion in a CQ waited on or armed: object its cqn, ptr the dp_cq,
	 * value solicited.  Object 0 and ptr NULL: some CQ's event found the event
	 * queue full, so every CQ waited on or armed is to be looked at.
	 */
	DP_EVENT_CQ_ENTRY,
	/* Signature-error reports wait on the NIC's lists (dp_nic_take_reports). */
	DP_EVENT_REPORTS,
	/* sig_pipelining stopped a QP's send queue in SQD: as QP_ERROR, value when (CLOCK_MONOTONIC ns). */
	DP_EVENT_QP_STOPPED,
	/* A LOCAL_INV or SEND_WITH_INV invalidated a key: object the key. */
	DP_EVENT_KEY_INVALIDATED,
	/* A configure WR published an MKEY's new context: object the key. */
	DP_EVENT_KEY_CONFIGURED,
	/*
	 * A completion overflowed the CQ, which is in error from now on: object
	 * its cqn, ptr the dp_cq.  Once per CQ, before the completing QP's QP_ERROR.
	 */
	DP_EVENT_CQ_ERROR,
	DP_EVENT_TYPES,
};

/*
 * A transfer of a QP's WR failed a signature check through an MKEY: pushed
 * before the completion that follows it is written, so that whoever has
 * seen the completion finds the report with the driver's next sync.
 */
struct dp_report {
	struct dp_report *next;
	const void *qp;           /* the QP's context: compared, never reached (it may be gone) */
	uint32_t qpn;
	uint64_t wr_id;
	uint32_t mkey;            /* by key: the MKEY may be gone or configured again */
	enum dp_dir dir;
	struct dp_sig_err err;
	uint64_t at_ns;           /* CLOCK_MONOTONIC */
};

struct dp_qp;
struct dp_transport;
struct dp_worker;

/* What one worker holds of one NIC. */
/* Ring CQs a worker completed into during a turn, told at its end (dp_nic_defer_notify). */
#define DP_NOTIFY_PENDING_MAX 16

struct dp_nic_worker {
	/* worker only: its QPs by number, a hash of n_buckets (a power of two) chains, n_qps in all */
	struct dp_qp **qps;
	uint32_t n_buckets, n_qps;
	uint8_t *scratch[2];                  /* worker only: staging for bytes not in one piece */
	size_t scratch_size[2];
	struct dp_counters counters;          /* written by the worker */
	_Atomic(struct dp_report *) reports;  /* newest first */
	/* Loopback: from worker j, requests[j] and responses[j] (each single producer, j). */
	struct dp_queue *requests, *responses;
	/* worker only: ring CQs with entries this turn (held), and whether one was solicited */
	struct dp_cq *notify[DP_NOTIFY_PENDING_MAX];
	bool notify_solicited[DP_NOTIFY_PENDING_MAX];
	unsigned n_notify;
	/* worker only: a CQ_ENTRY event found the event queue full; told at a turn's end */
	bool cq_untold;
};

struct dp_nic {
	struct dp_worker **workers;
	unsigned n_workers;
	struct dp_nic_worker *per_worker;
	struct dp_keytab keytab;
	/* Worker index + 1 of the worker running each QP number, 0: none (driver writes). */
	_Atomic uint32_t *qp_worker;
	uint32_t n_qpn;
	bool running;             /* false once the workers have stopped */
	/*
	 * What carries requests (dataplane/transport.h): local between QPs of
	 * the NIC (loopback, dp_loopback_open); remote to other hosts, and its
	 * endpoint (RoCE v2, dp_roce_open), NULL when the device speaks none.
	 */
	const struct dp_transport *local, *remote;
	void *remote_ep;
	void *owner;              /* the driver's; the NIC does not use it */
};

/*
 * A NIC on workers[0..n): key table of n_mr and n_mkey slots, QP numbers
 * below n_qpn, and no transport yet: the driver opens loopback
 * (dp_loopback_open) before any QP runs, and RoCE v2 if it speaks it.
 */
int dp_nic_init(struct dp_nic *nic, struct dp_worker **workers, unsigned n, uint32_t n_mr,
		uint32_t n_mkey, uint32_t n_qpn);

/*
 * Worker: an entry went into ring CQ cq; its application is told, if it
 * armed the CQ for it, at the end of the worker's turn, with one fence for
 * every ring CQ of the turn (dp_cq_ring_notify).
 */
void dp_nic_defer_notify(struct dp_worker *w, struct dp_nic *nic, struct dp_cq *cq, bool solicited);
/* The workers stopped: everything they held is the driver's now. */
void dp_nic_workers_stopped(struct dp_nic *nic);
/*
 * Driver: the NIC leaves its workers, which run on for other NICs (a VM's
 * device that goes): once no QP of it runs and its remote transport is
 * closed, its poller and turn end come off every worker, and on return no
 * worker touches it again (events it reported before may still wait in
 * the workers' event queues: the driver dispatches them before it frees).
 */
void dp_nic_leave(struct dp_nic *nic);
/* Leaves the workers first if they still run. */
void dp_nic_release(struct dp_nic *nic);

/* Driver: the reports of every worker so far, oldest first per worker (free each). */
struct dp_report *dp_nic_take_reports(struct dp_nic *nic);
/* Driver: the counters of all workers summed. */
void dp_nic_counters(struct dp_nic *nic, struct dp_counters *out);

/* Anyone: the worker running QP qpn, or NULL. */
struct dp_worker *dp_nic_qp_worker(struct dp_nic *nic, uint32_t qpn);
