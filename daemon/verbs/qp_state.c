/* SPDX-License-Identifier: MIT */
#include "daemon/verbs/qp_state.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

struct transition {
	bool legal;
	uint32_t required[RDMA_QPT_COUNT];
	uint32_t optional[RDMA_QPT_COUNT];
};

/* Short names for the table only. */
#define ACCESS     RDMA_QP_ACCESS_FLAGS
#define QKEY       RDMA_QP_QKEY
#define AV         RDMA_QP_AV
#define MTU        RDMA_QP_PATH_MTU
#define TIMEOUT    RDMA_QP_TIMEOUT
#define RETRY      RDMA_QP_RETRY_CNT
#define RNR_RETRY  RDMA_QP_RNR_RETRY
#define RQ_PSN     RDMA_QP_RQ_PSN
#define RD_ATOMIC  RDMA_QP_MAX_QP_RD_ATOMIC
#define RNR_TIMER  RDMA_QP_MIN_RNR_TIMER
#define SQ_PSN     RDMA_QP_SQ_PSN
#define DEST_RD    RDMA_QP_MAX_DEST_RD_ATOMIC
#define DEST_QPN   RDMA_QP_DEST_QPN
#define CUR        RDMA_QP_CUR_STATE
#define RC         RDMA_QPT_RC
#define UC         RDMA_QPT_UC
#define UD         RDMA_QPT_UD

/*
 * The kernel's qp_state_table, with the attributes the virtio command has no
 * bit for (PKEY_INDEX, PORT, ALT_PATH, PATH_MIG_STATE, EN_SQD_ASYNC_NOTIFY)
 * dropped, as the prototype's copy drops them.  Absent cells are illegal;
 * to RESET and to ERR need nothing and allow nothing.
 */
static const struct transition table[RDMA_QPS_COUNT][RDMA_QPS_COUNT] = {
	[RDMA_QPS_RESET] = {
		[RDMA_QPS_RESET] = { .legal = true },
		[RDMA_QPS_INIT] = {
			.legal = true,
			.required = { [RC] = ACCESS, [UC] = ACCESS, [UD] = QKEY },
		},
	},
	[RDMA_QPS_INIT] = {
		[RDMA_QPS_RESET] = { .legal = true },
		[RDMA_QPS_ERR] = { .legal = true },
		[RDMA_QPS_INIT] = {
			.legal = true,
			.optional = { [RC] = ACCESS, [UC] = ACCESS, [UD] = QKEY },
		},
		[RDMA_QPS_RTR] = {
			.legal = true,
			.required = {
				[RC] = AV | MTU | DEST_QPN | RQ_PSN | DEST_RD | RNR_TIMER,
				[UC] = AV | MTU | DEST_QPN | RQ_PSN,
			},
			.optional = { [RC] = ACCESS, [UC] = ACCESS, [UD] = QKEY },
		},
	},
	[RDMA_QPS_RTR] = {
		[RDMA_QPS_RESET] = { .legal = true },
		[RDMA_QPS_ERR] = { .legal = true },
		[RDMA_QPS_RTS] = {
			.legal = true,
			.required = {
				[RC] = TIMEOUT | RETRY | RNR_RETRY | SQ_PSN | RD_ATOMIC,
				[UC] = SQ_PSN,
				[UD] = SQ_PSN,
			},
			.optional = {
				[RC] = CUR | ACCESS | RNR_TIMER,
				[UC] = CUR | ACCESS,
				[UD] = CUR | QKEY,
			},
		},
	},
	[RDMA_QPS_RTS] = {
		[RDMA_QPS_RESET] = { .legal = true },
		[RDMA_QPS_ERR] = { .legal = true },
		[RDMA_QPS_RTS] = {
			.legal = true,
			.optional = {
				[RC] = CUR | ACCESS | RNR_TIMER,
				[UC] = CUR | ACCESS,
				[UD] = CUR | QKEY,
			},
		},
		[RDMA_QPS_SQD] = { .legal = true },
	},
	[RDMA_QPS_SQD] = {
		[RDMA_QPS_RESET] = { .legal = true },
		[RDMA_QPS_ERR] = { .legal = true },
		[RDMA_QPS_RTS] = {
			.legal = true,
			.optional = {
				[RC] = CUR | ACCESS | RNR_TIMER,
				[UC] = CUR | ACCESS,
				[UD] = CUR | QKEY,
			},
		},
		[RDMA_QPS_SQD] = {
			.legal = true,
			.optional = {
				[RC] = AV | TIMEOUT | RETRY | RNR_RETRY | RD_ATOMIC | DEST_RD | ACCESS |
				       RNR_TIMER,
				[UC] = AV | ACCESS,
				[UD] = QKEY,
			},
		},
	},
	[RDMA_QPS_SQE] = {
		[RDMA_QPS_RESET] = { .legal = true },
		[RDMA_QPS_ERR] = { .legal = true },
		/* RC never enters SQE; its cell is legal and empty, as in the kernel. */
		[RDMA_QPS_RTS] = {
			.legal = true,
			.optional = { [UC] = CUR | ACCESS, [UD] = CUR | QKEY },
		},
	},
	[RDMA_QPS_ERR] = {
		[RDMA_QPS_RESET] = { .legal = true },
		[RDMA_QPS_ERR] = { .legal = true },
	},
};

static const char *const state_names[RDMA_QPS_COUNT] = {
	"reset", "init", "rtr", "rts", "sqd", "sqe", "err",
};

static const char *const type_names[RDMA_QPT_COUNT] = { "rc", "uc", "ud" };

const char *rdma_qp_state_name(enum rdma_qp_state state)
{
	return state < RDMA_QPS_COUNT ? state_names[state] : "UNKNOWN";
}

static int index_of(const char *const *names, int n, const char *name)
{
	for (int i = 0; name && i < n; i++)
		if (strcasecmp(names[i], name) == 0)
			return i;
	return -1;
}

int rdma_qp_state_from_name(const char *name)
{
	return index_of(state_names, RDMA_QPS_COUNT, name);
}

const char *rdma_qp_type_name(enum rdma_qp_type type)
{
	return type < RDMA_QPT_COUNT ? type_names[type] : "UNKNOWN";
}

int rdma_qp_type_from_name(const char *name)
{
	return index_of(type_names, RDMA_QPT_COUNT, name);
}

const char *rdma_qp_attr_name(uint32_t bit)
{
	switch (bit) {
	case RDMA_QP_STATE:              return "state";
	case RDMA_QP_CUR_STATE:          return "cur_state";
	case RDMA_QP_ACCESS_FLAGS:       return "access";
	case RDMA_QP_QKEY:               return "qkey";
	case RDMA_QP_AV:                 return "av";
	case RDMA_QP_PATH_MTU:           return "path_mtu";
	case RDMA_QP_TIMEOUT:            return "timeout";
	case RDMA_QP_RETRY_CNT:          return "retry_cnt";
	case RDMA_QP_RNR_RETRY:          return "rnr_retry";
	case RDMA_QP_RQ_PSN:             return "rq_psn";
	case RDMA_QP_MAX_QP_RD_ATOMIC:   return "max_rd_atomic";
	case RDMA_QP_MIN_RNR_TIMER:      return "min_rnr_timer";
	case RDMA_QP_SQ_PSN:             return "sq_psn";
	case RDMA_QP_MAX_DEST_RD_ATOMIC: return "max_dest_rd_atomic";
	case RDMA_QP_DEST_QPN:           return "dest_qp_num";
	}
	return NULL;
}

static const struct transition *cell(enum rdma_qp_state cur, enum rdma_qp_state next)
{
	if (cur >= RDMA_QPS_COUNT || next >= RDMA_QPS_COUNT)
		return NULL;
	return table[cur][next].legal ? &table[cur][next] : NULL;
}

bool rdma_qp_transition_legal(enum rdma_qp_state cur, enum rdma_qp_state next)
{
	return cell(cur, next) != NULL;
}

uint32_t rdma_qp_attrs_required(enum rdma_qp_type type, enum rdma_qp_state cur,
				enum rdma_qp_state next)
{
	const struct transition *t = cell(cur, next);

	return t && type < RDMA_QPT_COUNT ? t->required[type] : 0;
}

uint32_t rdma_qp_attrs_optional(enum rdma_qp_type type, enum rdma_qp_state cur,
				enum rdma_qp_state next)
{
	const struct transition *t = cell(cur, next);

	return t && type < RDMA_QPT_COUNT ? t->optional[type] : 0;
}

/* "a, b, c" (or "none") into buf. */
static const char *attr_list(uint32_t mask, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (uint32_t bit = 1; bit && used < size; bit <<= 1)
		if (mask & bit)
			used += snprintf(buf + used, size - used, "%s%s", used ? ", " : "",
					 rdma_qp_attr_name(bit));
	return used ? buf : "none";
}

static int illegal(struct rdma_error *err, enum rdma_qp_state cur, enum rdma_qp_state next)
{
	char targets[64] = "";
	size_t used = 0;

	for (int s = 0; s < RDMA_QPS_COUNT && used < sizeof(targets); s++)
		if (rdma_qp_transition_legal(cur, s))
			used += snprintf(targets + used, sizeof(targets) - used, "%s%s",
					 used ? ", " : "", state_names[s]);
	return rdma_error_state(err, "state", "%s -> %s is not a legal transition; from %s: %s",
				state_names[cur], state_names[next], state_names[cur], targets);
}

int rdma_qp_transition_check(enum rdma_qp_type type, enum rdma_qp_state cur,
			     enum rdma_qp_state next, uint32_t mask, struct rdma_error *err)
{
	uint32_t required, optional, missing, extra;
	char req[256], opt[256];

	if (type >= RDMA_QPT_COUNT || cur >= RDMA_QPS_COUNT)
		return rdma_error_invalid(err, "type", "not a QP type of this device");
	if (next >= RDMA_QPS_COUNT)
		return rdma_error_invalid(err, "state", "one of reset, init, rtr, rts, sqd, sqe, err");
	if (!rdma_qp_transition_legal(cur, next))
		return illegal(err, cur, next);
	required = rdma_qp_attrs_required(type, cur, next);
	optional = rdma_qp_attrs_optional(type, cur, next);
	missing = required & ~mask;
	extra = mask & ~(required | optional | RDMA_QP_STATE);
	if (!missing && !extra)
		return 0;
	if (missing)
		return rdma_error_invalid(err, rdma_qp_attr_name(missing & -missing),
					  "required for %s %s -> %s; required: %s; optional: %s",
					  type_names[type], state_names[cur], state_names[next],
					  attr_list(required, req, sizeof(req)),
					  attr_list(optional, opt, sizeof(opt)));
	return rdma_error_invalid(err, rdma_qp_attr_name(extra & -extra) ?: "attr_mask",
				  "not allowed for %s %s -> %s; required: %s; optional: %s",
				  type_names[type], state_names[cur], state_names[next],
				  attr_list(required, req, sizeof(req)),
				  attr_list(optional, opt, sizeof(opt)));
}
