/* SPDX-License-Identifier: MIT */
#include "dataplane/wqe.h"

#include <string.h>

/* rdmactl's words: the seed's names in lower case, the short forms for the WR opcodes. */
static const char *const wr_opcodes[DP_WR_OPCODE_COUNT] = {
	[DP_WR_RDMA_WRITE] = "write",
	[DP_WR_RDMA_WRITE_WITH_IMM] = "write_imm",
	[DP_WR_SEND] = "send",
	[DP_WR_SEND_WITH_IMM] = "send_imm",
	[DP_WR_RDMA_READ] = "read",
};

static const char *const wc_opcodes[DP_WC_OPCODE_COUNT] = {
	[DP_WC_SEND] = "send",
	[DP_WC_RDMA_WRITE] = "rdma_write",
	[DP_WC_RDMA_READ] = "rdma_read",
	[DP_WC_RECV] = "recv",
	[DP_WC_RECV_RDMA_WITH_IMM] = "recv_rdma_with_imm",
};

static const char *const wc_statuses[DP_WC_STATUS_COUNT] = {
	[DP_WC_SUCCESS] = "success",
	[DP_WC_LOC_LEN_ERR] = "loc_len_err",
	[DP_WC_LOC_QP_OP_ERR] = "loc_qp_op_err",
	[DP_WC_LOC_PROT_ERR] = "loc_prot_err",
	[DP_WC_WR_FLUSH_ERR] = "wr_flush_err",
	[DP_WC_BAD_RESP_ERR] = "bad_resp_err",
	[DP_WC_LOC_ACCESS_ERR] = "loc_access_err",
	[DP_WC_REM_INV_REQ_ERR] = "rem_inv_req_err",
	[DP_WC_REM_ACCESS_ERR] = "rem_access_err",
	[DP_WC_REM_OP_ERR] = "rem_op_err",
	[DP_WC_RETRY_EXC_ERR] = "retry_exc_err",
	[DP_WC_RNR_RETRY_EXC_ERR] = "rnr_retry_exc_err",
	[DP_WC_REM_ABORT_ERR] = "rem_abort_err",
	[DP_WC_FATAL_ERR] = "fatal_err",
	[DP_WC_RESP_TIMEOUT_ERR] = "resp_timeout_err",
	[DP_WC_GENERAL_ERR] = "general_err",
};

const char *dp_wr_opcode_name(unsigned opcode)
{
	return opcode < DP_WR_OPCODE_COUNT ? wr_opcodes[opcode] : NULL;
}

const char *dp_wc_opcode_name(unsigned opcode)
{
	return opcode < DP_WC_OPCODE_COUNT ? wc_opcodes[opcode] : NULL;
}

const char *dp_wc_status_name(unsigned status)
{
	return status < DP_WC_STATUS_COUNT ? wc_statuses[status] : NULL;
}

int dp_wr_opcode_from_name(const char *name)
{
	for (int i = 0; name && i < DP_WR_OPCODE_COUNT; i++)
		if (strcmp(wr_opcodes[i], name) == 0)
			return i;
	return -1;
}
