/* SPDX-License-Identifier: MIT */
/*
 * What a QP, or a worker's share of a device, counts on the data path.  Each
 * counter has one writer (the worker that owns the QP, or that worker's
 * share); readers on other threads sum them.
 */
#pragma once

#include <stdatomic.h>
#include <stdint.h>

#include "dataplane/offload/sig.h"
#include "dataplane/wqe.h"

/* RoCE v2 on the wire (dataplane/roce/): a QP's packets, and the device's drops before any QP. */
struct dp_roce_counters {
	_Atomic uint64_t tx_packets;
	_Atomic uint64_t rx_packets;                   /* taken by a QP */
	_Atomic uint64_t retransmits;                  /* request packets sent again */
	_Atomic uint64_t timeouts;                     /* the retransmission timer ran out */
	_Atomic uint64_t naks_sent;                    /* PSN sequence errors seen as responder */
	_Atomic uint64_t naks_received;                /* every NAK type but RNR */
	_Atomic uint64_t rnr_naks_sent;
	_Atomic uint64_t duplicates;                   /* requests seen again, answered without executing */
	_Atomic uint64_t out_of_sequence;              /* request packets after a gap */
	_Atomic uint64_t kept;                         /* of those, kept until the gap filled (kept.c) */
	_Atomic uint64_t go_backs;                     /* a lost packet sent alone, then back N: the
							* responder kept nothing after the gap */
	_Atomic uint64_t icrc_errors;                  /* device: dropped for a wrong ICRC */
	_Atomic uint64_t icrc_other_id;                /* device, packet path or a VM's link: dropped,
							* the ICRC right only for another IPv4 ID */
	_Atomic uint64_t rx_dropped;                   /* malformed, no such QP, wrong type or state, P_Key */
	_Atomic uint64_t faults;                       /* outgoing packets dropped, doubled or held back for tests */
	_Atomic uint64_t tx_errors;                    /* device: packets the kernel would not send */
};

struct dp_counters {
	_Atomic uint64_t wrs[DP_WR_OPCODE_COUNT];      /* send WRs executed, by opcode */
	_Atomic uint64_t recvs;                        /* receive WRs consumed by a transfer */
	_Atomic uint64_t bytes_sent;                   /* by the requester: SEND and WRITE payload */
	_Atomic uint64_t bytes_read;                   /* by the requester: RDMA READ payload */
	_Atomic uint64_t completions[DP_WC_STATUS_COUNT];
	_Atomic uint64_t rnr_naks;                     /* SEND or WRITE_IMM met an empty receive queue */
	_Atomic uint64_t cq_overflows;                 /* a completion found its CQ full */
	_Atomic uint64_t lost;                         /* UC/UD messages sent that no receiver took */
	/*
	 * Responder: RC/UC requests not from the QP (loopback) or address (RoCE)
	 * the QP is connected to, NAKed or dropped unexecuted.
	 */
	_Atomic uint64_t refused_not_peer;
	_Atomic uint64_t sig_errors[DP_SIG_ERR_APPTAG + 1];  /* by enum dp_sig_err_type (0 unused) */
	_Atomic uint64_t sig_stops;                    /* sig_pipelining: the SQ stopped in SQD */
	_Atomic uint64_t nops;                         /* canceled WRs executed as NOPs */
	struct dp_roce_counters roce;
};

/*
 * Adds to a counter only the calling thread writes: a plain add, no locked
 * instruction.  The atomic type keeps readers from seeing a torn value.
 */
static inline void dp_count_add(_Atomic uint64_t *c, uint64_t n)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n, memory_order_relaxed);
}

/* to += from, counter by counter (a reader's sum). */
static inline void dp_counters_add(struct dp_counters *to, struct dp_counters *from)
{
	_Atomic uint64_t *t = (_Atomic uint64_t *)to, *f = (_Atomic uint64_t *)from;

	for (unsigned i = 0; i < sizeof(*to) / sizeof(uint64_t); i++)
		atomic_fetch_add_explicit(&t[i], atomic_load_explicit(&f[i], memory_order_relaxed),
					  memory_order_relaxed);
}
