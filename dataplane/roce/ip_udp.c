/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "dataplane/roce/ip_udp.h"
#include "dataplane/bytes.h"
#include "dataplane/roce/icrc.h"
#include "dataplane/offload/crc.h"

#define IPPROTO_UDP_NUM	17
#define IPV4_DF		0x4000

static const uint8_t v4_mapped_prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

bool roce_gid_is_ipv4(const uint8_t gid[16])
{
	return !memcmp(gid, v4_mapped_prefix, sizeof(v4_mapped_prefix));
}

size_t roce_ip_udp_len(const struct roce_ip_udp *a)
{
	bool v4 = roce_gid_is_ipv4(a->sgid);

	if (v4 != roce_gid_is_ipv4(a->dgid))
		return 0;
	return (v4 ? ROCE_IPV4_HDR_LEN : ROCE_IPV6_HDR_LEN) + ROCE_UDP_HDR_LEN;
}

static void ipv4_build(const struct roce_ip_udp *a, size_t udp_len, uint8_t *out)
{
	out[0] = 0x45;
	out[1] = a->tclass;
	dp_put_be16(out + 2, ROCE_IPV4_HDR_LEN + udp_len);
	dp_put_be16(out + 4, a->ip_id);
	dp_put_be16(out + 6, a->df ? IPV4_DF : 0);
	out[8] = a->hop_limit;
	out[9] = IPPROTO_UDP_NUM;
	dp_put_be16(out + 10, 0);
	memcpy(out + 12, a->sgid + 12, 4);
	memcpy(out + 16, a->dgid + 12, 4);
	dp_put_be16(out + 10, dp_ip_csum(0, out, ROCE_IPV4_HDR_LEN));
}

static void ipv6_build(const struct roce_ip_udp *a, size_t udp_len, uint8_t *out)
{
	dp_put_be32(out, 6u << 28 | (uint32_t)a->tclass << 20 | a->flow_label);
	dp_put_be16(out + 4, udp_len);
	out[6] = IPPROTO_UDP_NUM;
	out[7] = a->hop_limit;
	memcpy(out + 8, a->sgid, 16);
	memcpy(out + 24, a->dgid, 16);
}

enum roce_reason roce_ip_udp_build(const struct roce_ip_udp *a, size_t transport_len, uint8_t *out)
{
	size_t hdr_len = roce_ip_udp_len(a), udp_len = ROCE_UDP_HDR_LEN + transport_len;
	uint8_t *udp;

	if (!hdr_len || a->flow_label > 0xfffff)
		return ROCE_BAD_FIELD;
	if (transport_len > ROCE_MAX_PKT ||
	    (hdr_len == ROCE_IPV4_HDR_LEN + ROCE_UDP_HDR_LEN && transport_len > ROCE_MAX_PKT - 20))
		return ROCE_TOO_LONG;
	if (hdr_len == ROCE_IPV4_HDR_LEN + ROCE_UDP_HDR_LEN)
		ipv4_build(a, udp_len, out);
	else
		ipv6_build(a, udp_len, out);
	udp = out + hdr_len - ROCE_UDP_HDR_LEN;
	dp_put_be16(udp, a->sport);
	dp_put_be16(udp + 2, a->dport);
	dp_put_be16(udp + 4, udp_len);
	dp_put_be16(udp + 6, 0);
	return ROCE_OK;
}

enum roce_reason roce_ip_locate(const uint8_t *ip, size_t len, struct roce_ip_view *v)
{
	size_t ip_hdr, ip_total;
	const uint8_t *udp;

	if (len < 1)
		return ROCE_SHORT;
	if (ip[0] >> 4 == 4) {
		ip_hdr = (size_t)(ip[0] & 0xf) * 4;
		if (ip_hdr < ROCE_IPV4_HDR_LEN)
			return ROCE_BAD_IP;
		if (len < ip_hdr)
			return ROCE_SHORT;
		if (ip[9] != IPPROTO_UDP_NUM)
			return ROCE_BAD_IP;
		ip_total = dp_get_be16(ip + 2);
	} else if (ip[0] >> 4 == 6) {
		ip_hdr = ROCE_IPV6_HDR_LEN;
		if (len < ip_hdr)
			return ROCE_SHORT;
		if (ip[6] != IPPROTO_UDP_NUM)
			return ROCE_BAD_IP;
		ip_total = ROCE_IPV6_HDR_LEN + dp_get_be16(ip + 4);
	} else {
		return ROCE_BAD_IP;
	}
	if (ip_total > len || ip_total < ip_hdr + ROCE_UDP_HDR_LEN)
		return ROCE_BAD_LENGTH;
	udp = ip + ip_hdr;
	if (dp_get_be16(udp + 4) != ip_total - ip_hdr)
		return ROCE_BAD_LENGTH;
	v->ip_udp_len = ip_hdr + ROCE_UDP_HDR_LEN;
	v->transport = udp + ROCE_UDP_HDR_LEN;
	v->transport_len = ip_total - v->ip_udp_len;
	if (v->transport_len < ROCE_BTH_LEN + ROCE_ICRC_LEN)
		return ROCE_SHORT;
	return ROCE_OK;
}

enum roce_reason roce_ip_udp_parse(const uint8_t *ip_udp, size_t ip_udp_len, struct roce_ip_udp *a)
{
	const uint8_t *udp = ip_udp + ip_udp_len - ROCE_UDP_HDR_LEN;

	memset(a, 0, sizeof(*a));
	if (ip_udp_len >= ROCE_IPV4_HDR_LEN + ROCE_UDP_HDR_LEN && ip_udp[0] >> 4 == 4) {
		memcpy(a->sgid, v4_mapped_prefix, sizeof(v4_mapped_prefix));
		memcpy(a->dgid, v4_mapped_prefix, sizeof(v4_mapped_prefix));
		memcpy(a->sgid + 12, ip_udp + 12, 4);
		memcpy(a->dgid + 12, ip_udp + 16, 4);
		a->tclass = ip_udp[1];
		a->hop_limit = ip_udp[8];
		a->ip_id = dp_get_be16(ip_udp + 4);
		a->df = dp_get_be16(ip_udp + 6) & IPV4_DF;
	} else if (ip_udp_len == ROCE_IPV6_HDR_LEN + ROCE_UDP_HDR_LEN && ip_udp[0] >> 4 == 6) {
		uint32_t first = dp_get_be32(ip_udp);

		memcpy(a->sgid, ip_udp + 8, 16);
		memcpy(a->dgid, ip_udp + 24, 16);
		a->tclass = (first >> 20) & 0xff;
		a->flow_label = first & 0xfffff;
		a->hop_limit = ip_udp[7];
	} else {
		return ROCE_BAD_IP;
	}
	a->sport = dp_get_be16(udp);
	a->dport = dp_get_be16(udp + 2);
	return ROCE_OK;
}

/* RFC 8200 §8.1: IPv6 UDP checksum over the pseudo-header and the datagram; 0 is sent as
 * 0xffff.  A zero checksum is dropped by Linux IPv6 receivers (§2.1). */
static uint16_t udp6_csum(const uint8_t *ip6, size_t udp_len)
{
	uint8_t pseudo[8] = { 0 };
	uint32_t sum;
	uint16_t c;

	dp_put_be32(pseudo, udp_len);
	pseudo[7] = IPPROTO_UDP_NUM;
	sum = dp_ip_csum_update(0, ip6 + 8, 32);
	sum = dp_ip_csum_update(sum, pseudo, sizeof(pseudo));
	sum = dp_ip_csum_update(sum, ip6 + ROCE_IPV6_HDR_LEN, udp_len);
	c = dp_ip_csum_final(0, sum);
	return c ? c : 0xffff;
}

enum roce_reason roce_frame_build(const struct roce_ip_udp *a, const struct roce_pkt *p,
				  const void *payload, size_t payload_len,
				  uint8_t *out, size_t out_size, size_t *out_len)
{
	size_t hdr_len = roce_ip_udp_len(a), t_len;
	enum roce_reason r;

	if (!hdr_len)
		return ROCE_BAD_FIELD;
	if (out_size < hdr_len)
		return ROCE_NO_ROOM;
	r = roce_pkt_build(p, payload, payload_len, out + hdr_len, out_size - hdr_len, &t_len);
	if (r != ROCE_OK)
		return r;
	r = roce_ip_udp_build(a, t_len, out);
	if (r != ROCE_OK)
		return r;
	roce_icrc_seal(out, hdr_len, out + hdr_len, t_len);
	if (hdr_len == ROCE_IPV6_HDR_LEN + ROCE_UDP_HDR_LEN)
		dp_put_be16(out + ROCE_IPV6_HDR_LEN + 6,
			      udp6_csum(out, ROCE_UDP_HDR_LEN + t_len));
	*out_len = hdr_len + t_len;
	return ROCE_OK;
}
