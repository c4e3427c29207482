/* SPDX-License-Identifier: MIT */
/*
 * Two software devices speaking RoCE v2 to each other in-process, each in
 * its own network namespace, the two joined by a veth pair (bench_roce,
 * test_roce_load):
 *
 *   namespace A: veth 10.233.0.1/24, devices on it GID ::ffff:10.233.0.1
 *   namespace B: veth 10.233.0.2/24, devices on it GID ::ffff:10.233.0.2
 *
 * The namespaces are named after the process (ip(8); root needed) and go
 * when it exits, on SIGINT and SIGTERM too.  A connection is one RC QP on
 * each of two devices, connected to the other, with its send and receive
 * CQs and an MR: RDMA area (sources, WRITE and READ targets) first, receive
 * buffers after.  The main thread posts and reaps both ends.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "daemon/verbs/gid.h"
#include "dataplane/roce/transport.h"
#include "dataplane/wqe.h"
#include "tests/bench/lib/verbs.h"

#define PAIR_N_SLOTS   16u      /* WRs rotate over this many buffers of the largest size */
#define PAIR_MSG_MAX   65536u
#define PAIR_AREA      (PAIR_N_SLOTS * PAIR_MSG_MAX)
#define PAIR_MR_SIZE   (2 * PAIR_AREA)
#define PAIR_SQ_DEPTH  128u
#define PAIR_RQ_DEPTH  256u
#define PAIR_START_PSN 0xfff000u  /* the PSNs wrap in the first few thousand packets */

/* The veth addresses of namespaces A and B; descriptors of the two and of the one the process began in. */
extern const char *const pair_addr[2];
extern int pair_ns_fd[2], pair_root_ns;

/* Makes the namespaces and the veth pair (MTU veth_mtu); dies when it cannot. */
void pair_net_setup(unsigned veth_mtu);
/* The calling thread's network namespace from now on (one of the descriptors above). */
void pair_enter_ns(int fd);

/* A software device in one namespace, with its worker and its RoCE endpoint. */
struct pair_side {
	struct bench_soft soft;
	uint8_t gid[RDMA_GID_LEN];
};

/* Starts s as softINDEX in namespace ns (0: A, 1: B), its worker on cpu, its endpoint as cfg says. */
void pair_side_start(struct pair_side *s, unsigned index, unsigned ns, int cpu, const struct dp_roce_config *cfg);

/* One end of a connection: a QP with its send and receive CQs and an MR. */
struct pair_end {
	struct pair_side *s;
	struct rdma_cq *scq, *rcq;
	struct rdma_qp *qp;
	struct rdma_mr *mr;
	uint64_t posted, done;    /* send WRs (wr_id = posted); known complete */
	uint64_t recv_posted, recv_done;
};

struct pair_conn {
	struct pair_end e[2];     /* e[0] on side a, e[1] on side b */
};

/*
 * Connects a QP on a's device to one on b's (path MTU, RC timeout, sq_psn
 * PAIR_START_PSN + 0 and + 1), receive queues full; both on their device's
 * RoCE worker.
 */
void pair_conn_new(struct pair_conn *c, struct pair_side *a, struct pair_side *b, uint32_t path_mtu,
		   uint32_t timeout);
/* Keeps e's receive queue full. */
void pair_post_recvs(struct pair_end *e);
/*
 * Takes e's completions (dies at one that failed): send CQEs move done on
 * (RC completes in order: a signaled WR's CQE covers those before it),
 * receive CQEs must carry len bytes and are replaced at once.  Returns how
 * many were taken.
 */
unsigned pair_reap(struct pair_end *e, uint32_t len);
/*
 * Posts e's next send WR of len bytes: a WRITE into the peer's slot, a READ
 * from it into e's, or a SEND; false when the queue had no room.
 */
bool pair_post_one(struct pair_end *e, const struct pair_end *peer, enum dp_wr_opcode op, uint32_t len,
		   bool signaled);
