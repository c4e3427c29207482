/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "dataplane/roce/packet.h"
#include "dataplane/bytes.h"

static size_t pad_of(size_t payload_len)
{
	return -payload_len & 3;
}

size_t roce_pkt_len(uint8_t opcode, size_t payload_len)
{
	const struct roce_opcode_info *op = roce_opcode_info(opcode);

	if (!op)
		return 0;
	return op->hdr_len + payload_len + pad_of(payload_len) + ROCE_ICRC_LEN;
}

/* The extension headers after the BTH, in the order of enum roce_op_flag.  One walk for both
 * directions: out != NULL builds from p, otherwise in is parsed into p. */
static enum roce_reason walk_ext(uint16_t flags, struct roce_pkt *p, const uint8_t *in, uint8_t *out)
{
	size_t off = ROCE_BTH_LEN;
	enum roce_reason r = ROCE_OK;

	if (flags & ROCE_F_DETH) {
		if (out)
			r = roce_deth_build(&p->deth, out + off);
		else
			roce_deth_parse(in + off, &p->deth);
		if (r != ROCE_OK)
			return r;
		off += ROCE_DETH_LEN;
	}
	if (flags & ROCE_F_RETH) {
		if (out)
			roce_reth_build(&p->reth, out + off);
		else
			roce_reth_parse(in + off, &p->reth);
		off += ROCE_RETH_LEN;
	}
	if (flags & ROCE_F_ATOMIC_ETH) {
		if (out)
			roce_atomic_eth_build(&p->atomic, out + off);
		else
			roce_atomic_eth_parse(in + off, &p->atomic);
		off += ROCE_ATOMIC_ETH_LEN;
	}
	if (flags & ROCE_F_AETH) {
		r = out ? roce_aeth_build(&p->aeth, out + off) : roce_aeth_parse(in + off, &p->aeth);
		if (r != ROCE_OK)
			return r;
		off += ROCE_AETH_LEN;
	}
	if (flags & ROCE_F_ATOMIC_ACK) {
		if (out)
			dp_put_be64(out + off, p->atomic_orig);
		else
			p->atomic_orig = dp_get_be64(in + off);
		off += ROCE_ATOMIC_ACK_LEN;
	}
	if (flags & ROCE_F_IMMDT) {
		if (out)
			dp_put_be32(out + off, p->imm);
		else
			p->imm = dp_get_be32(in + off);
		off += ROCE_IMMDT_LEN;
	}
	if (flags & ROCE_F_IETH) {
		if (out)
			dp_put_be32(out + off, p->inv_rkey);
		else
			p->inv_rkey = dp_get_be32(in + off);
		off += ROCE_IETH_LEN;
	}
	/* CNP: the reserved bytes are written as zero and not checked on receive. */
	if (flags & ROCE_F_CNP_RSVD && out)
		memset(out + off, 0, ROCE_CNP_RSVD_LEN);
	return ROCE_OK;
}

enum roce_reason roce_pkt_parse(const uint8_t *buf, size_t len, struct roce_pkt *p)
{
	const struct roce_opcode_info *op;
	size_t body;
	enum roce_reason r;

	if (len < ROCE_BTH_LEN + ROCE_ICRC_LEN)
		return ROCE_SHORT;
	if (len > ROCE_MAX_PKT)
		return ROCE_TOO_LONG;	/* no UDP datagram carries it: we could not rebuild it */
	roce_bth_parse(buf, &p->bth);
	if (p->bth.tver != 0)
		return ROCE_BAD_TVER;
	op = roce_opcode_info(p->bth.opcode);
	if (!op)
		return ROCE_BAD_OPCODE;
	if (len < (size_t)op->hdr_len + ROCE_ICRC_LEN)
		return ROCE_SHORT;
	/* Payload + pad fill whole dwords, so BTH .. ICRC does too (§2.6). */
	if (len & 3)
		return ROCE_BAD_LENGTH;
	body = len - op->hdr_len - ROCE_ICRC_LEN;
	if (!(op->flags & ROCE_F_PAYLOAD) && body)
		return ROCE_UNEXPECTED_PAYLOAD;
	/* Dword alignment makes PadCnt = -payload & 3 whenever PadCnt <= body; a larger one
	 * would claim pad beyond the payload. */
	if (p->bth.pad_cnt > body)
		return ROCE_BAD_PAD;
	r = walk_ext(op->flags, p, buf, NULL);
	if (r != ROCE_OK)
		return r;
	p->op = op;
	p->payload = buf + op->hdr_len;
	p->payload_len = body - p->bth.pad_cnt;
	p->icrc = buf + len - ROCE_ICRC_LEN;
	return ROCE_OK;
}

enum roce_reason roce_pkt_build(const struct roce_pkt *p, const void *payload, size_t payload_len,
				uint8_t *out, size_t out_size, size_t *out_len)
{
	const struct roce_opcode_info *op = roce_opcode_info(p->bth.opcode);
	struct roce_bth bth = p->bth;
	size_t total;
	enum roce_reason r;

	if (!op)
		return ROCE_BAD_OPCODE;
	if (p->bth.tver != 0)
		return ROCE_BAD_TVER;
	if (payload_len && !(op->flags & ROCE_F_PAYLOAD))
		return ROCE_UNEXPECTED_PAYLOAD;
	if (payload_len > ROCE_MAX_PKT)
		return ROCE_TOO_LONG;
	total = roce_pkt_len(bth.opcode, payload_len);
	if (total > ROCE_MAX_PKT)
		return ROCE_TOO_LONG;
	if (out_size < total)
		return ROCE_NO_ROOM;
	bth.pad_cnt = pad_of(payload_len);
	r = roce_bth_build(&bth, out);
	if (r != ROCE_OK)
		return r;
	/* walk_ext() reads p only when building; the cast keeps one walker for both ways. */
	r = walk_ext(op->flags, (struct roce_pkt *)p, NULL, out);
	if (r != ROCE_OK)
		return r;
	if (payload_len)
		memcpy(out + op->hdr_len, payload, payload_len);
	memset(out + op->hdr_len + payload_len, 0, bth.pad_cnt + ROCE_ICRC_LEN);
	*out_len = total;
	return ROCE_OK;
}
