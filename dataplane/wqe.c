/* SPDX-License-Identifier: MIT */
#include "dataplane/wqe.h"

#include <arpa/inet.h>
#include <string.h>

/* rdmactl's words: the seed's names in lower case, the short forms for the WR opcodes. */
static const char *const wr_opcodes[DP_WR_OPCODE_COUNT] = {
	[DP_WR_RDMA_WRITE] = "write",
	[DP_WR_RDMA_WRITE_WITH_IMM] = "write_imm",
	[DP_WR_SEND] = "send",
	[DP_WR_SEND_WITH_IMM] = "send_imm",
	[DP_WR_RDMA_READ] = "read",
	[DP_WR_LOCAL_INV] = "local_inv",
	[DP_WR_SEND_WITH_INV] = "send_inv",
	[DP_WR_CONFIGURE] = "configure",
};

static const char *const wc_opcodes[DP_WC_OPCODE_COUNT] = {
	[DP_WC_SEND] = "send",
	[DP_WC_RDMA_WRITE] = "rdma_write",
	[DP_WC_RDMA_READ] = "rdma_read",
	[DP_WC_RECV] = "recv",
	[DP_WC_RECV_RDMA_WITH_IMM] = "recv_rdma_with_imm",
	[DP_WC_LOCAL_INV] = "local_inv",
	[DP_WC_CONFIGURE] = "configure",
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

/* RoCEv2 headers after IP (UDP 8, BTH 12, DETH 8), and the ICRC after the payload. */
#define UDP_LEN   8
#define BTH_LEN   12
#define DETH_LEN  8
#define IMMDT_LEN 4
#define ICRC_LEN  4
#define IPV4_LEN  20
#define PROTO_UDP 17

static bool ipv4_mapped(const uint8_t gid[16])
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return memcmp(gid, prefix, sizeof(prefix)) == 0;
}

static uint16_t ipv4_checksum(const uint8_t *h)
{
	uint32_t sum = 0;

	for (int i = 0; i < IPV4_LEN; i += 2)
		sum += (uint32_t)(h[i] << 8 | h[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

void dp_grh_build(uint8_t out[DP_GRH_LEN], const uint8_t sgid[16], const uint8_t dgid[16],
		  uint8_t traffic_class, uint32_t flow_label, uint8_t hop_limit, uint32_t payload_len,
		  bool imm)
{
	uint32_t pad = (4 - payload_len % 4) % 4;
	uint32_t udp_len = UDP_LEN + BTH_LEN + DETH_LEN + (imm ? IMMDT_LEN : 0) + payload_len + pad +
			   ICRC_LEN;

	memset(out, 0, DP_GRH_LEN);
	if (ipv4_mapped(sgid) && ipv4_mapped(dgid)) {
		uint8_t *h = out + DP_GRH_LEN - IPV4_LEN;
		uint16_t total = htons((uint16_t)(IPV4_LEN + udp_len)), df = htons(0x4000), sum;

		h[0] = 0x45;
		h[1] = traffic_class;
		memcpy(h + 2, &total, 2);
		memcpy(h + 6, &df, 2);
		h[8] = hop_limit;
		h[9] = PROTO_UDP;
		memcpy(h + 12, sgid + 12, 4);
		memcpy(h + 16, dgid + 12, 4);
		sum = htons(ipv4_checksum(h));
		memcpy(h + 10, &sum, 2);
	} else {
		uint32_t first = htonl(6u << 28 | (uint32_t)traffic_class << 20 | (flow_label & 0xfffff));
		uint16_t len = htons((uint16_t)udp_len);

		memcpy(out, &first, 4);
		memcpy(out + 4, &len, 2);
		out[6] = PROTO_UDP;
		out[7] = hop_limit;
		memcpy(out + 8, sgid, 16);
		memcpy(out + 24, dgid, 16);
	}
}
