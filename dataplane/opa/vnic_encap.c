/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "dataplane/opa/vnic_encap.h"
#include "dataplane/bytes.h"

static size_t frame_len_on_wire(size_t eth_len)
{
	return eth_len < OPA_VNIC_MIN_FRAME ? OPA_VNIC_MIN_FRAME : eth_len;
}

static size_t pad_of(size_t eth_len)
{
	return -(OPA_VNIC_HDR_LEN + eth_len + OPA_VNIC_ICRC_TAIL_LEN) & (OPA16B_FLIT - 1);
}

size_t opa_vnic_wire_len(size_t eth_len)
{
	size_t l = frame_len_on_wire(eth_len);

	return OPA_VNIC_HDR_LEN + l + pad_of(l) + OPA_VNIC_ICRC_TAIL_LEN;
}

enum opa_reason opa_vnic_encap(const struct opa_vnic_tx *tx, const uint8_t *frame, size_t len,
			       uint8_t *out, size_t out_size, size_t *out_len)
{
	struct opa16b_hdr h = {
		.slid = tx->slid, .dlid = tx->dlid, .sc = tx->sc, .rc = tx->rc,
		.l2 = OPA16B_L2_16B, .lt = 1, .l4 = OPA_VNIC_L4_ETHR, .pkey = tx->pkey,
		.entropy = tx->entropy,
	};
	size_t total;
	enum opa_reason r;

	if (!tx->dlid)
		return OPA_DLID_ZERO;
	if (tx->vesw_id > OPA_VNIC_VESW_MASK)
		return OPA_BAD_FIELD;
	if (len > OPA_VNIC_MAX_PKT)	/* keeps the sum below from wrapping */
		return OPA_TOO_LONG;
	total = opa_vnic_wire_len(len);
	if (total > OPA_VNIC_MAX_PKT)
		return OPA_TOO_LONG;
	if (out_size < total)
		return OPA_NO_ROOM;
	h.length = total / OPA16B_FLIT;
	r = opa16b_build(&h, out);
	if (r)
		return r;
	dp_put_le16(out + OPA16B_HDR_LEN, 0);
	dp_put_le16(out + OPA16B_HDR_LEN + 2, tx->vesw_id);
	memcpy(out + OPA_VNIC_HDR_LEN, frame, len);
	/* Short-frame padding, flit pad and ICRC are all zero; the kernel left them unset. */
	memset(out + OPA_VNIC_HDR_LEN + len, 0, total - OPA_VNIC_HDR_LEN - len - 1);
	out[total - 1] = pad_of(frame_len_on_wire(len));
	*out_len = total;
	return OPA_OK;
}

enum opa_reason opa_vnic_decap(const uint8_t *pkt, size_t len, uint16_t vesw_id, uint32_t mtu,
			       struct opa_vnic_rx *rx)
{
	enum opa_reason r = opa16b_parse(pkt, len, &rx->hdr);
	size_t pad;

	if (r)
		return r;
	if (len < OPA_VNIC_HDR_LEN + OPA_VNIC_ICRC_TAIL_LEN)
		return OPA_SHORT;
	if (rx->hdr.l4 != OPA_VNIC_L4_ETHR)
		return OPA_BAD_L4;
	/* All 12 bits: the newest hfi1 keyed on 8 only (reference §4.8), older ones on 12. */
	rx->vesw_id = dp_get_le16(pkt + OPA16B_HDR_LEN + 2) & OPA_VNIC_VESW_MASK;
	if (vesw_id != OPA_VNIC_ANY_VESW && rx->vesw_id != vesw_id)
		return OPA_BAD_VESW;
	/*
	 * The tail's upper bits may carry LT (0x40 in the documentation); only the pad counts.
	 * Length * 8 == len >= 32 leaves at least 7 bytes past the headers, so any pad fits, and
	 * any pad is consistent with the flit alignment; a lying pad shows up as a runt.
	 */
	pad = pkt[len - 1] & 7;
	rx->frame = pkt + OPA_VNIC_HDR_LEN;
	rx->frame_len = len - OPA_VNIC_HDR_LEN - OPA_VNIC_ICRC_TAIL_LEN - pad;
	if (rx->frame_len < OPA_VNIC_MIN_FRAME)
		return OPA_RUNT;
	if (rx->frame_len > (size_t)mtu + OPA_VNIC_VLAN_ETH_HLEN)
		return OPA_OVERSIZE;
	return OPA_OK;
}
