/* SPDX-License-Identifier: MIT */
#include "dataplane/opa/opa16b.h"
#include "dataplane/bytes.h"

enum opa_reason opa16b_build(const struct opa16b_hdr *h, uint8_t out[OPA16B_HDR_LEN])
{
	uint32_t w0, w1, w2, w3;

	/* The kernel ORs SC in unmasked (reference §8); refuse instead of corrupting RC. */
	if (h->slid > OPA16B_LID_MAX || h->dlid > OPA16B_LID_MAX || h->length > OPA16B_MAX_FLITS ||
	    h->becn > 1 || h->fecn > 1 || h->sc > 0x1f || h->rc > 7 || h->l2 > 3 || h->lt > 1)
		return OPA_BAD_FIELD;
	w0 = (h->slid & 0xfffff) | (uint32_t)h->length << 20 | (uint32_t)h->becn << 31;
	w1 = (h->dlid & 0xfffff) | (uint32_t)h->sc << 20 | (uint32_t)h->rc << 25 |
	     (uint32_t)h->fecn << 28 | (uint32_t)h->l2 << 29 | (uint32_t)h->lt << 31;
	w2 = h->l4 | (h->slid >> 20) << 8 | (h->dlid >> 20) << 12 | (uint32_t)h->pkey << 16;
	w3 = h->entropy | (uint32_t)h->age << 16;
	dp_put_le32(out, w0);
	dp_put_le32(out + 4, w1);
	dp_put_le32(out + 8, w2);
	dp_put_le32(out + 12, w3);
	return OPA_OK;
}

void opa16b_decode(const uint8_t *buf, struct opa16b_hdr *h)
{
	uint32_t w0 = dp_get_le32(buf), w1 = dp_get_le32(buf + 4);
	uint32_t w2 = dp_get_le32(buf + 8), w3 = dp_get_le32(buf + 12);

	h->slid = (w0 & 0xfffff) | ((w2 >> 8) & 0xf) << 20;
	h->dlid = (w1 & 0xfffff) | ((w2 >> 12) & 0xf) << 20;
	h->length = (w0 >> 20) & 0x7ff;
	h->becn = w0 >> 31;
	h->sc = (w1 >> 20) & 0x1f;
	h->rc = (w1 >> 25) & 7;
	h->fecn = (w1 >> 28) & 1;
	h->l2 = (w1 >> 29) & 3;
	h->lt = w1 >> 31;
	h->l4 = w2 & 0xff;
	h->pkey = w2 >> 16;
	h->entropy = w3 & 0xffff;
	h->age = (w3 >> 16) & 0xff;
}

enum opa_reason opa16b_parse(const uint8_t *pkt, size_t pkt_len, struct opa16b_hdr *h)
{
	if (pkt_len < OPA16B_HDR_LEN)
		return OPA_SHORT;
	opa16b_decode(pkt, h);
	if (h->l2 != OPA16B_L2_16B)
		return OPA_BAD_L2;
	if (!h->lt)
		return OPA_BAD_LT;
	if ((size_t)h->length * OPA16B_FLIT != pkt_len)
		return OPA_BAD_LENGTH;
	return OPA_OK;
}
