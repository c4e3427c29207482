/* SPDX-License-Identifier: MIT */
#include "dataplane/roce/opcode.h"
#include "dataplane/roce/hdr.h"

/* Header bytes of each flag, in enum roce_op_flag order. */
#define LEN_OF(f)						\
	(((f) & ROCE_F_DETH ? ROCE_DETH_LEN : 0) +		\
	 ((f) & ROCE_F_RETH ? ROCE_RETH_LEN : 0) +		\
	 ((f) & ROCE_F_ATOMIC_ETH ? ROCE_ATOMIC_ETH_LEN : 0) +	\
	 ((f) & ROCE_F_AETH ? ROCE_AETH_LEN : 0) +		\
	 ((f) & ROCE_F_ATOMIC_ACK ? ROCE_ATOMIC_ACK_LEN : 0) +	\
	 ((f) & ROCE_F_IMMDT ? ROCE_IMMDT_LEN : 0) +		\
	 ((f) & ROCE_F_IETH ? ROCE_IETH_LEN : 0) +		\
	 ((f) & ROCE_F_CNP_RSVD ? ROCE_CNP_RSVD_LEN : 0))

#define OP(tr, op, f) [ROCE_OPCODE(ROCE_TR_##tr, ROCE_##op)] = \
	{ #tr "_" #op, (f), ROCE_BTH_LEN + LEN_OF(f) }

/* The flags of each operation, shared by the transports that have it. */
#define REQ	ROCE_F_REQUEST
#define RSP	ROCE_F_RESPONSE
#define PAY	ROCE_F_PAYLOAD
#define S_FIRST		(REQ | PAY | ROCE_F_FIRST)
#define S_MIDDLE	(REQ | PAY | ROCE_F_MIDDLE)
#define S_LAST		(REQ | PAY | ROCE_F_LAST)
#define S_LAST_IMM	(S_LAST | ROCE_F_IMMDT)
#define S_ONLY		(REQ | PAY | ROCE_F_ONLY)
#define S_ONLY_IMM	(S_ONLY | ROCE_F_IMMDT)
#define W_FIRST		(S_FIRST | ROCE_F_RETH)
#define W_ONLY		(S_ONLY | ROCE_F_RETH)
#define W_ONLY_IMM	(W_ONLY | ROCE_F_IMMDT)

#define CONNECTED(tr)							\
	OP(tr, SEND_FIRST, S_FIRST),					\
	OP(tr, SEND_MIDDLE, S_MIDDLE),					\
	OP(tr, SEND_LAST, S_LAST),					\
	OP(tr, SEND_LAST_IMM, S_LAST_IMM),				\
	OP(tr, SEND_ONLY, S_ONLY),					\
	OP(tr, SEND_ONLY_IMM, S_ONLY_IMM),				\
	OP(tr, WRITE_FIRST, W_FIRST),					\
	OP(tr, WRITE_MIDDLE, S_MIDDLE),					\
	OP(tr, WRITE_LAST, S_LAST),					\
	OP(tr, WRITE_LAST_IMM, S_LAST_IMM),				\
	OP(tr, WRITE_ONLY, W_ONLY),					\
	OP(tr, WRITE_ONLY_IMM, W_ONLY_IMM)

static const struct roce_opcode_info table[256] = {
	CONNECTED(RC),
	OP(RC, READ_REQUEST, REQ | ROCE_F_RETH | ROCE_F_ONLY),
	OP(RC, READ_RESPONSE_FIRST, RSP | PAY | ROCE_F_AETH | ROCE_F_FIRST),
	OP(RC, READ_RESPONSE_MIDDLE, RSP | PAY | ROCE_F_MIDDLE),
	OP(RC, READ_RESPONSE_LAST, RSP | PAY | ROCE_F_AETH | ROCE_F_LAST),
	OP(RC, READ_RESPONSE_ONLY, RSP | PAY | ROCE_F_AETH | ROCE_F_ONLY),
	OP(RC, ACKNOWLEDGE, RSP | ROCE_F_AETH | ROCE_F_ONLY),
	OP(RC, ATOMIC_ACKNOWLEDGE, RSP | ROCE_F_AETH | ROCE_F_ATOMIC_ACK | ROCE_F_ONLY),
	OP(RC, COMPARE_SWAP, REQ | ROCE_F_ATOMIC_ETH | ROCE_F_ONLY),
	OP(RC, FETCH_ADD, REQ | ROCE_F_ATOMIC_ETH | ROCE_F_ONLY),
	OP(RC, SEND_LAST_INV, S_LAST | ROCE_F_IETH),
	OP(RC, SEND_ONLY_INV, S_ONLY | ROCE_F_IETH),
	CONNECTED(UC),
	OP(UD, SEND_ONLY, S_ONLY | ROCE_F_DETH),
	OP(UD, SEND_ONLY_IMM, S_ONLY_IMM | ROCE_F_DETH),
	[ROCE_OP_CNP] = { "CNP", ROCE_F_CNP_RSVD, ROCE_BTH_LEN + ROCE_CNP_RSVD_LEN },
};

const struct roce_opcode_info *roce_opcode_info(uint8_t opcode)
{
	return table[opcode].name ? &table[opcode] : NULL;
}
