/* SPDX-License-Identifier: MIT */
#include "dataplane/roce/hdr.h"
#include "dataplane/bytes.h"

enum roce_reason roce_bth_build(const struct roce_bth *h, uint8_t *out)
{
	if (h->pad_cnt > 3 || h->tver > 0xf || h->resv6a > 0x3f || h->dest_qp > ROCE_QPN_MASK ||
	    h->resv7 > 0x7f || h->psn > DP_PSN_MASK)
		return ROCE_BAD_FIELD;
	out[0] = h->opcode;
	out[1] = h->se << 7 | h->mig_req << 6 | h->pad_cnt << 4 | h->tver;
	dp_put_be16(out + 2, h->pkey);
	out[4] = h->fecn << 7 | h->becn << 6 | h->resv6a;
	dp_put_be24(out + 5, h->dest_qp);
	out[8] = h->ack_req << 7 | h->resv7;
	dp_put_be24(out + 9, h->psn);
	return ROCE_OK;
}

void roce_bth_parse(const uint8_t *in, struct roce_bth *h)
{
	h->opcode = in[0];
	h->se = in[1] >> 7;
	h->mig_req = (in[1] >> 6) & 1;
	h->pad_cnt = (in[1] >> 4) & 3;
	h->tver = in[1] & 0xf;
	h->pkey = dp_get_be16(in + 2);
	h->fecn = in[4] >> 7;
	h->becn = (in[4] >> 6) & 1;
	h->resv6a = in[4] & 0x3f;
	h->dest_qp = dp_get_be24(in + 5);
	h->ack_req = in[8] >> 7;
	h->resv7 = in[8] & 0x7f;
	h->psn = dp_get_be24(in + 9);
}

void roce_reth_build(const struct roce_reth *h, uint8_t *out)
{
	dp_put_be64(out, h->va);
	dp_put_be32(out + 8, h->rkey);
	dp_put_be32(out + 12, h->dma_len);
}

void roce_reth_parse(const uint8_t *in, struct roce_reth *h)
{
	h->va = dp_get_be64(in);
	h->rkey = dp_get_be32(in + 8);
	h->dma_len = dp_get_be32(in + 12);
}

static bool syndrome_ok(uint8_t s)
{
	return !(s & 0x80) && roce_aeth_type(s) != ROCE_AETH_RESERVED;
}

enum roce_reason roce_aeth_build(const struct roce_aeth *h, uint8_t *out)
{
	if (h->msn > DP_PSN_MASK)
		return ROCE_BAD_FIELD;
	if (!syndrome_ok(h->syndrome))
		return ROCE_BAD_SYNDROME;
	out[0] = h->syndrome;
	dp_put_be24(out + 1, h->msn);
	return ROCE_OK;
}

enum roce_reason roce_aeth_parse(const uint8_t *in, struct roce_aeth *h)
{
	h->syndrome = in[0];
	h->msn = dp_get_be24(in + 1);
	return syndrome_ok(h->syndrome) ? ROCE_OK : ROCE_BAD_SYNDROME;
}

enum roce_reason roce_deth_build(const struct roce_deth *h, uint8_t *out)
{
	if (h->src_qp > ROCE_QPN_MASK)
		return ROCE_BAD_FIELD;
	dp_put_be32(out, h->qkey);
	out[4] = h->resv8;
	dp_put_be24(out + 5, h->src_qp);
	return ROCE_OK;
}

void roce_deth_parse(const uint8_t *in, struct roce_deth *h)
{
	h->qkey = dp_get_be32(in);
	h->resv8 = in[4];
	h->src_qp = dp_get_be24(in + 5);
}

void roce_atomic_eth_build(const struct roce_atomic_eth *h, uint8_t *out)
{
	dp_put_be64(out, h->va);
	dp_put_be32(out + 8, h->rkey);
	dp_put_be64(out + 12, h->swap_add);
	dp_put_be64(out + 20, h->compare);
}

void roce_atomic_eth_parse(const uint8_t *in, struct roce_atomic_eth *h)
{
	h->va = dp_get_be64(in);
	h->rkey = dp_get_be32(in + 8);
	h->swap_add = dp_get_be64(in + 12);
	h->compare = dp_get_be64(in + 20);
}
