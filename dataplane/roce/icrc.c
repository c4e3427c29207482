/* SPDX-License-Identifier: MIT */
#include <string.h>
#include <isa-l/crc.h>

#include "dataplane/roce/icrc.h"
#include "dataplane/bytes.h"

/* The masked IB LRH stand-in: RoCE v2 has no LRH, the CRC starts as if 8 bytes of ones
 * preceded the IP header (§2.7 step 3). */
#define LRH_STANDIN	8

uint32_t roce_icrc(const uint8_t *ip_udp, size_t ip_udp_len, const uint8_t *transport,
		   size_t transport_len)
{
	uint8_t hdr[LRH_STANDIN + ROCE_IP_UDP_MAX + ROCE_BTH_LEN];
	uint8_t *ip = hdr + LRH_STANDIN, *udp = ip + ip_udp_len - ROCE_UDP_HDR_LEN;
	uint8_t *bth = ip + ip_udp_len;
	size_t hdr_len = LRH_STANDIN + ip_udp_len + ROCE_BTH_LEN;
	uint32_t crc;

	memset(hdr, 0xff, LRH_STANDIN);
	memcpy(ip, ip_udp, ip_udp_len);
	memcpy(bth, transport, ROCE_BTH_LEN);
	if (ip[0] >> 4 == 4) {
		ip[1] = 0xff;			/* TOS (DSCP + ECN) */
		ip[8] = 0xff;			/* TTL */
		ip[10] = ip[11] = 0xff;		/* header checksum */
	} else {
		ip[0] |= 0x0f;			/* traffic class high nibble; version 6 stays */
		ip[1] = ip[2] = ip[3] = 0xff;	/* traffic class low nibble, flow label */
		ip[7] = 0xff;			/* hop limit */
	}
	udp[6] = udp[7] = 0xff;			/* UDP checksum */
	bth[4] = 0xff;				/* FECN, BECN, Resv6a */
	crc = crc32_gzip_refl(0, hdr, hdr_len);
	return crc32_gzip_refl(crc, transport + ROCE_BTH_LEN,
			       transport_len - ROCE_BTH_LEN - ROCE_ICRC_LEN);
}

/* Little-endian, as the Ethernet FCS (§2.7 step 4). */
static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static uint32_t get_le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The ICRC carried xor the one computed: 0 when it is right. */
static uint32_t icrc_delta(const uint8_t *ip_udp, size_t ip_udp_len, const uint8_t *transport,
			   size_t transport_len)
{
	return get_le32(transport + transport_len - ROCE_ICRC_LEN) ^
	       roce_icrc(ip_udp, ip_udp_len, transport, transport_len);
}

/* A 20-byte IPv4 header, the one whose ID the solver places (icrc_id.c). */
static bool plain_ipv4(const uint8_t *ip_udp, size_t ip_udp_len)
{
	return ip_udp_len == ROCE_IPV4_HDR_LEN + ROCE_UDP_HDR_LEN && ip_udp[0] >> 4 == 4;
}

void roce_icrc_seal(const uint8_t *ip_udp, size_t ip_udp_len, uint8_t *transport,
		    size_t transport_len)
{
	put_le32(transport + transport_len - ROCE_ICRC_LEN,
		 roce_icrc(ip_udp, ip_udp_len, transport, transport_len));
}

enum roce_reason roce_icrc_check_ip(const uint8_t *ip, size_t len)
{
	struct roce_ip_view v;
	enum roce_reason r = roce_ip_locate(ip, len, &v);

	if (r != ROCE_OK)
		return r;
	return icrc_delta(ip, v.ip_udp_len, v.transport, v.transport_len) ? ROCE_BAD_ICRC : ROCE_OK;
}

enum roce_reason roce_icrc_check_wire(const uint8_t *ip_udp, size_t ip_udp_len,
				      const uint8_t *transport, size_t transport_len)
{
	uint32_t delta = icrc_delta(ip_udp, ip_udp_len, transport, transport_len);
	uint16_t id;

	if (!delta)
		return ROCE_OK;
	if (plain_ipv4(ip_udp, ip_udp_len) && roce_icrc_solve_ipv4_id(delta, transport_len, &id))
		return ROCE_ICRC_OTHER_ID;
	return ROCE_BAD_ICRC;
}

/* The IP and UDP headers a transport payload travels behind, rebuilt from a. */
static enum roce_reason payload_headers(const struct roce_ip_udp *a, size_t transport_len,
					uint8_t hdr[ROCE_IP_UDP_MAX])
{
	if (transport_len < ROCE_BTH_LEN + ROCE_ICRC_LEN)
		return ROCE_SHORT;
	return roce_ip_udp_build(a, transport_len, hdr);
}

enum roce_reason roce_icrc_check_payload(const struct roce_ip_udp *a, const uint8_t *transport,
					 size_t transport_len)
{
	uint8_t hdr[ROCE_IP_UDP_MAX];
	enum roce_reason r = payload_headers(a, transport_len, hdr);
	size_t hdr_len = roce_ip_udp_len(a);
	uint32_t delta;
	uint16_t id;

	if (r != ROCE_OK)
		return r;
	delta = icrc_delta(hdr, hdr_len, transport, transport_len);
	if (!delta)
		return ROCE_OK;
	/*
	 * The Identification is the one field a socket cannot see: delta is what a different
	 * one makes (solvable: the ID xor a->ip_id), or damage.
	 */
	if (plain_ipv4(hdr, hdr_len) && roce_icrc_solve_ipv4_id(delta, transport_len, &id))
		return ROCE_OK;
	return ROCE_BAD_ICRC;
}

enum roce_reason roce_icrc_seal_payload(const struct roce_ip_udp *a, uint8_t *transport,
					size_t transport_len)
{
	uint8_t hdr[ROCE_IP_UDP_MAX];
	enum roce_reason r = payload_headers(a, transport_len, hdr);

	if (r != ROCE_OK)
		return r;
	roce_icrc_seal(hdr, roce_ip_udp_len(a), transport, transport_len);
	return ROCE_OK;
}
