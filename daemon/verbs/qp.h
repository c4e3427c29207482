/* SPDX-License-Identifier: MIT */
/*
 * Queue pairs (virtio-net RoCE CREATE_QP, MODIFY_QP, QUERY_QP, DESTROY_QP).
 *
 * A QP is named by its number, the handle of the QP table; 0 and 1 are the
 * special QPs (SMI, GSI) and never handed out.  It references its PD, its
 * send and receive CQs and, once an address vector is set, the GID entry it
 * sends from, so none of them can be destroyed under it.  MODIFY_QP follows
 * daemon/verbs/qp_state.c; the values of the attributes are checked here against
 * their widths and the device's limits.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/verbs/ah.h"
#include "daemon/verbs/device.h"
#include "daemon/verbs/qp_state.h"
#include "daemon/verbs/qp_recovery.h"


#define RDMA_QPN_FIRST 2
/* PSNs and QP numbers are 24-bit on the wire (BTH). */
#define RDMA_QP_24BIT_MAX 0xffffffu
/* The port a QP sends from: MODIFY_QP of the RFC has no PORT attribute. */
#define RDMA_QP_PORT 1

/* CREATE_QP capabilities (struct virtio_rdma_qp_cap). */
struct rdma_qp_cap {
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline_data;
};

struct rdma_qp_init {
	enum rdma_qp_type type;
	uint32_t pd, send_cq, recv_cq;
	struct rdma_qp_cap cap;
	bool sq_sig_all;          /* every send WR completes with a CQE */
	bool sig_pipelining;      /* MLX5DV_QP_CREATE_SIG_PIPELINING: stop in SQD on a signature error */
	bool has_recovery;        /* false: the device's default_recovery */
	enum rdma_recovery_policy recovery;
	bool has_cpu;             /* false: the daemon places it */
	uint32_t cpu;             /* the CPU of the worker to run it (rdmad --cpus) */
	bool rings;               /* its application posts through shared memory (librdmad) */
};

/*
 * The MODIFY_QP attributes (struct virtio_rdma_cmd_modify_qp); which are
 * meaningful is said by a mask of enum rdma_qp_attr_bit.  Numbers are kept
 * wide so that a value out of its field's range is refused, not truncated.
 */
struct rdma_qp_attr {
	enum rdma_qp_state state, cur_state;
	uint32_t access_flags;    /* RDMA_ACCESS_* of daemon/verbs/mr.h */
	uint32_t qkey;
	struct rdma_ah_attr av;   /* port is always RDMA_QP_PORT */
	uint32_t path_mtu;        /* bytes: 256, 512, 1024, 2048 or 4096 */
	uint32_t timeout;         /* 4.096 us * 2^timeout; 0 = none */
	uint32_t retry_cnt;
	uint32_t rnr_retry;
	uint32_t rq_psn;
	uint32_t max_rd_atomic;
	uint32_t min_rnr_timer;
	uint32_t sq_psn;
	uint32_t max_dest_rd_atomic;
	uint32_t dest_qp_num;
};

/*
 * The attributes held in one number of struct rdma_qp_attr, with the width or
 * the device limit that bounds them (path_mtu: see rdma_qp_mtu_enum), for the
 * code that checks, copies, reads and prints them.  Ends with bit 0.
 */
struct rdma_qp_number_attr {
	uint32_t bit;
	size_t offset;
	uint32_t max;
	const char *width;        /* what max is, for errors */
	uint32_t (*device_limit)(const struct rdma_device *dev);   /* instead of max */
	bool pow2;                /* kept rounded up to a power of two, as rxe and mlx5 keep it */
};

extern const struct rdma_qp_number_attr rdma_qp_number_attrs[];

static inline uint32_t rdma_qp_attr_get(const struct rdma_qp_attr *attr,
					const struct rdma_qp_number_attr *n)
{
	return *(const uint32_t *)((const char *)attr + n->offset);
}

static inline void rdma_qp_attr_set(struct rdma_qp_attr *attr, const struct rdma_qp_number_attr *n,
				    uint32_t value)
{
	*(uint32_t *)((char *)attr + n->offset) = value;
}

struct rdma_qp {
	struct rdma_object obj;   /* handle = QP number; refs: PD, send CQ, receive CQ, source GID */
	struct rdma_object *pd, *send_cq, *recv_cq;
	struct rdma_gid_entry *sgid;   /* of the address vector, once one is set */
	enum rdma_qp_type type;
	struct rdma_qp_cap cap;
	bool sq_sig_all;
	bool sig_pipelining;
	bool rings;               /* posted to by its application through shared memory, not by rdmad */
	enum rdma_qp_state state;
	uint32_t attr_mask;       /* the attributes MODIFY_QP has set since RESET */
	struct rdma_qp_attr attr;
	/*
	 * Data path: the worker the QP runs on owns its send and receive
	 * queues, its requests in flight and the SQD drain; the main thread
	 * changes them only through that worker's command queue, and learns
	 * what it must know from its events.
	 */
	int cpu;                      /* the CPU its creator placed it on, -1: the daemon's choice */
	void *ctx;                    /* the backend's context of the QP; NULL without a data path */
	bool sq_draining;             /* in SQD with send WRs still in flight (an event) */
	uint32_t sig_stops_seen;      /* the data path's signature stops this thread has been told of */
	struct rdma_qp_recovery recovery;
	struct rdma_sqd_stats sqd_stats;
};

static inline struct rdma_qp *rdma_qp(struct rdma_object *obj)
{
	return (struct rdma_qp *)obj;
}

/* CREATE_QP: a QP in RESET. */
int rdma_qp_create(struct rdma_device *dev, const struct rdma_qp_init *init, struct rdma_qp **out,
		   struct rdma_error *err);

/*
 * MODIFY_QP with the attributes in mask (RDMA_QP_STATE among them): the
 * transition is checked against the table, each value against its range,
 * and only then applied; on an error nothing has changed.
 */
int rdma_qp_modify(struct rdma_device *dev, struct rdma_qp *qp, const struct rdma_qp_attr *attr,
		   uint32_t mask, struct rdma_error *err);

/*
 * The data path found a fatal error (reference roce_virtio.md §4.2): the QP
 * goes to ERR as a MODIFY_QP to ERR would take it, with its event (by_device:
 * an application hears IBV_EVENT_QP_FATAL).
 */
int rdma_qp_enter_error(struct rdma_device *dev, struct rdma_qp *qp, struct rdma_error *err);

/*
 * The data path stopped the QP's send queue in SQD after a signature error
 * found at found_ns (its stops-th stop): the QP is in SQD and SQ_DRAINED is
 * raised.  True when it moved from RTS now, so that the driver's handler
 * starts the recovery (rdma_recovery_stopped(), daemon/verbs/recovery.h).
 */
bool rdma_qp_sig_stopped(struct rdma_device *dev, struct rdma_qp *qp, uint32_t stops, uint64_t found_ns);
/* The device took the QP to ERR on its own: the model follows, unless a user moved it meanwhile. */
void rdma_qp_async_error(struct rdma_device *dev, struct rdma_qp *qp);

/* The MTU enum of the RFC (1..5) for a path MTU in bytes, 0 if there is none. */
unsigned rdma_qp_mtu_enum(uint32_t bytes);
