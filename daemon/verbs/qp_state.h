/* SPDX-License-Identifier: MIT */
/*
 * The QP state machine of MODIFY_QP: which transitions are legal and which
 * attributes each transition requires or allows, per QP type.  It is the
 * kernel's qp_state_table (drivers/infiniband/core/verbs.c) restricted to the
 * attributes the virtio-net RoCE command carries (reference roce_virtio.md
 * §3.1-3.2); nothing here knows of a device or of JSON.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "daemon/verbs/error.h"

/* The values of enum virtio_ib_qp_state. */
enum rdma_qp_state {
	RDMA_QPS_RESET,
	RDMA_QPS_INIT,
	RDMA_QPS_RTR,
	RDMA_QPS_RTS,
	RDMA_QPS_SQD,
	RDMA_QPS_SQE,
	RDMA_QPS_ERR,
	RDMA_QPS_COUNT,
};

/* The QP types a user may create (virtio's SMI 0 and GSI 1 are the device's own). */
enum rdma_qp_type {
	RDMA_QPT_RC,
	RDMA_QPT_UC,
	RDMA_QPT_UD,
	RDMA_QPT_COUNT,
};

/*
 * MODIFY_QP attributes, with the bits of enum virtio_ib_qp_attr_mask.  CAP
 * (1 << 14) and RATE_LIMIT (1 << 16) are left out: no transition of an RC,
 * UC or UD QP allows them.
 */
enum rdma_qp_attr_bit {
	RDMA_QP_STATE              = 1u << 0,
	RDMA_QP_CUR_STATE          = 1u << 1,
	RDMA_QP_ACCESS_FLAGS       = 1u << 2,
	RDMA_QP_QKEY               = 1u << 3,
	RDMA_QP_AV                 = 1u << 4,
	RDMA_QP_PATH_MTU           = 1u << 5,
	RDMA_QP_TIMEOUT            = 1u << 6,
	RDMA_QP_RETRY_CNT          = 1u << 7,
	RDMA_QP_RNR_RETRY          = 1u << 8,
	RDMA_QP_RQ_PSN             = 1u << 9,
	RDMA_QP_MAX_QP_RD_ATOMIC   = 1u << 10,
	RDMA_QP_MIN_RNR_TIMER      = 1u << 11,
	RDMA_QP_SQ_PSN             = 1u << 12,
	RDMA_QP_MAX_DEST_RD_ATOMIC = 1u << 13,
	RDMA_QP_DEST_QPN           = 1u << 15,
};

#define RDMA_QP_ATTR_ALL (RDMA_QP_STATE | RDMA_QP_CUR_STATE | RDMA_QP_ACCESS_FLAGS | \
			  RDMA_QP_QKEY | RDMA_QP_AV | RDMA_QP_PATH_MTU | RDMA_QP_TIMEOUT | \
			  RDMA_QP_RETRY_CNT | RDMA_QP_RNR_RETRY | RDMA_QP_RQ_PSN | \
			  RDMA_QP_MAX_QP_RD_ATOMIC | RDMA_QP_MIN_RNR_TIMER | RDMA_QP_SQ_PSN | \
			  RDMA_QP_MAX_DEST_RD_ATOMIC | RDMA_QP_DEST_QPN)

/* "reset" ... "err", in lower case as every object's states (decisions.md). */
const char *rdma_qp_state_name(enum rdma_qp_state state);
/* The state of that name (any case), or -1. */
int rdma_qp_state_from_name(const char *name);
/* "rc", "uc", "ud", as rdmactl qp create --type takes them. */
const char *rdma_qp_type_name(enum rdma_qp_type type);
int rdma_qp_type_from_name(const char *name);
/* The attribute's key in requests, replies and errors ("dest_qp_num"), or NULL. */
const char *rdma_qp_attr_name(uint32_t bit);

/* Whether cur -> next is in the table at all. */
bool rdma_qp_transition_legal(enum rdma_qp_state cur, enum rdma_qp_state next);
/* The attributes cur -> next needs / may have besides STATE (0 for an illegal transition). */
uint32_t rdma_qp_attrs_required(enum rdma_qp_type type, enum rdma_qp_state cur,
				enum rdma_qp_state next);
uint32_t rdma_qp_attrs_optional(enum rdma_qp_type type, enum rdma_qp_state cur,
				enum rdma_qp_state next);

/*
 * Checks a MODIFY_QP of a QP of type from cur to next carrying the attributes
 * in mask.  Refuses an illegal transition (InvalidState, field "state"), a
 * missing required attribute or one the transition does not allow
 * (InvalidArgument naming it, with the required and allowed sets).
 */
int rdma_qp_transition_check(enum rdma_qp_type type, enum rdma_qp_state cur,
			     enum rdma_qp_state next, uint32_t mask, struct rdma_error *err);
