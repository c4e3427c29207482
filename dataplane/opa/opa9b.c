/* SPDX-License-Identifier: MIT */
/*
 * 9B MAD packets.  The reference gives the layout but leaves the ICRC open ("any value",
 * §6.2); we compute it the InfiniBand way (docs/decisions.md, "Omni-Path packets") so a
 * corrupted MAD is caught and a real peer would agree.
 */
#include <string.h>
#include <isa-l/crc.h>

#include "dataplane/opa/opa9b.h"
#include "dataplane/bytes.h"

#define BTH_OFF		OPA9B_LRH_LEN
#define DETH_OFF	(OPA9B_LRH_LEN + OPA9B_BTH_LEN)

static size_t pad_of(size_t mad_len)
{
	return -mad_len & 3;
}

size_t opa9b_mad_pkt_len(size_t mad_len)
{
	return OPA9B_HDRS_LEN + mad_len + pad_of(mad_len) + OPA9B_ICRC_LEN;
}

uint32_t opa9b_icrc(const uint8_t *pkt, size_t len)
{
	uint8_t hdr[OPA9B_LRH_LEN + OPA9B_BTH_LEN];
	size_t body = len - OPA9B_ICRC_LEN;
	uint32_t crc;

	/* Fields a switch may rewrite are ones in the CRC: the SC/VL nibble of the LRH and the
	 * BTH reserved byte (IBA ICRC rule; OPA 9B carries SC where IB has VL). */
	memcpy(hdr, pkt, sizeof(hdr));
	hdr[0] |= 0xf0;
	hdr[BTH_OFF + 4] = 0xff;
	crc = crc32_gzip_refl(0, hdr, sizeof(hdr));
	return crc32_gzip_refl(crc, pkt + sizeof(hdr), body - sizeof(hdr));
}

enum opa_reason opa9b_mad_build(const struct opa9b_mad_addr *a, const uint8_t *mad, size_t mad_len,
				uint8_t *out, size_t out_size, size_t *out_len)
{
	size_t pad = pad_of(mad_len), total;

	if (mad_len < OPA9B_MAD_MIN || mad_len > OPA9B_MAD_MAX)
		return OPA_BAD_MAD_LEN;
	if (a->sc > 0xf || a->sl > 0xf || a->src_qp > 0xffffff || a->psn > 0xffffff)
		return OPA_BAD_FIELD;
	total = opa9b_mad_pkt_len(mad_len);
	if (out_size < total)
		return OPA_NO_ROOM;
	memset(out, 0, total);
	out[0] = a->sc << 4;				/* LVer 0 */
	out[1] = a->sl << 4 | OPA9B_LNH_LOCAL;
	dp_put_be16(out + 2, a->dlid);
	dp_put_be16(out + 4, total / 4);		/* 11 bits: total <= 2088 bytes */
	dp_put_be16(out + 6, a->slid);
	out[BTH_OFF] = OPA9B_OP_UD_SEND_ONLY;
	out[BTH_OFF + 1] = pad << 4;			/* SE 0, M 0, TVer 0 */
	dp_put_be16(out + BTH_OFF + 2, a->pkey);
	dp_put_be24(out + BTH_OFF + 5, OPA9B_GSI_QP);
	dp_put_be24(out + BTH_OFF + 9, a->psn);
	dp_put_be32(out + DETH_OFF, OPA9B_GSI_QKEY);
	dp_put_be24(out + DETH_OFF + 5, a->src_qp);
	memcpy(out + OPA9B_HDRS_LEN, mad, mad_len);
	/* The ICRC goes out least significant byte first, as the Ethernet FCS does. */
	dp_put_le32(out + total - OPA9B_ICRC_LEN, opa9b_icrc(out, total));
	*out_len = total;
	return OPA_OK;
}

enum opa_reason opa9b_mad_parse(const uint8_t *pkt, size_t len, struct opa9b_mad_pkt *p)
{
	size_t pad, mad_len;

	if (len < OPA9B_HDRS_LEN + OPA9B_ICRC_LEN)
		return OPA_SHORT;
	if ((pkt[1] & 3) != OPA9B_LNH_LOCAL)
		return OPA_BAD_LNH;
	if (pkt[0] & 0xf)
		return OPA_BAD_LVER;
	if ((size_t)(dp_get_be16(pkt + 4) & 0x7ff) * 4 != len)
		return OPA_BAD_LENGTH;
	if (pkt[BTH_OFF] != OPA9B_OP_UD_SEND_ONLY)
		return OPA_BAD_OPCODE;
	if (pkt[BTH_OFF + 1] & 0xf)
		return OPA_BAD_TVER;
	if (dp_get_be24(pkt + BTH_OFF + 5) != OPA9B_GSI_QP)
		return OPA_BAD_QP;
	if (dp_get_be32(pkt + DETH_OFF) != OPA9B_GSI_QKEY)
		return OPA_BAD_QKEY;
	pad = (pkt[BTH_OFF + 1] >> 4) & 3;
	mad_len = len - OPA9B_HDRS_LEN - OPA9B_ICRC_LEN;
	if (mad_len < OPA9B_MAD_MIN + pad || mad_len - pad > OPA9B_MAD_MAX)
		return OPA_BAD_MAD_LEN;
	if (dp_get_le32(pkt + len - OPA9B_ICRC_LEN) != opa9b_icrc(pkt, len))
		return OPA_BAD_ICRC;
	p->addr.sc = pkt[0] >> 4;
	p->addr.sl = pkt[1] >> 4;
	p->addr.dlid = dp_get_be16(pkt + 2);
	p->addr.slid = dp_get_be16(pkt + 6);
	p->addr.pkey = dp_get_be16(pkt + BTH_OFF + 2);
	p->addr.psn = dp_get_be24(pkt + BTH_OFF + 9);
	p->addr.src_qp = dp_get_be24(pkt + DETH_OFF + 5);
	p->mad = pkt + OPA9B_HDRS_LEN;
	p->mad_len = mad_len - pad;
	return OPA_OK;
}
