/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "dataplane/opa/flow_hash.h"
#include "dataplane/bytes.h"

#define ETH_HLEN	14
#define ETH_P_8021Q	0x8100
#define ETH_P_8021AD	0x88a8
#define ETH_P_IP	0x0800
#define ETH_P_IPV6	0x86dd
#define IPV4_MIN_HLEN	20
#define IPV6_HLEN	40
#define MAX_VLAN_TAGS	2

static uint32_t rotl32(uint32_t x, unsigned r)
{
	return x << r | x >> (32 - r);
}

static uint32_t mix(uint32_t h, uint32_t word)
{
	return rotl32(h ^ (word * 0xcc9e2d51u), 15) * 0x1b873593u;
}

/* murmur3's finaliser: every input bit flips about half the output bits. */
static uint32_t fmix32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

static uint32_t mix_bytes(uint32_t h, const uint8_t *p, size_t n)
{
	for (; n >= 4; p += 4, n -= 4)
		h = mix(h, dp_get_be32(p));
	if (n) {
		uint32_t last = 0;

		memcpy(&last, p, n);
		h = mix(h, last);
	}
	return h;
}

static int has_ports(uint8_t proto)
{
	/* TCP, UDP, SCTP, UDP-Lite: the two ports are the first four L4 bytes. */
	return proto == 6 || proto == 17 || proto == 132 || proto == 136;
}

static uint32_t ipv4_hash(const uint8_t *ip, size_t len)
{
	size_t ihl = (size_t)(ip[0] & 0xf) * 4;
	uint32_t h = mix(0x4, ip[9]);
	/* More-fragments bit or a fragment offset: not the whole datagram. */
	int fragment = dp_get_be16(ip + 6) & 0x3fff;

	h = mix_bytes(h, ip + 12, 8);
	if (!fragment && has_ports(ip[9]) && ihl >= IPV4_MIN_HLEN && len >= ihl + 4)
		h = mix(h, dp_get_be32(ip + ihl));
	return h;
}

static uint32_t ipv6_hash(const uint8_t *ip, size_t len)
{
	uint32_t h = mix(0x6, ip[6]);

	h = mix(h, dp_get_be32(ip) & 0xfffff);		/* flow label */
	h = mix_bytes(h, ip + 8, 32);
	if (has_ports(ip[6]) && len >= IPV6_HLEN + 4)
		h = mix(h, dp_get_be32(ip + IPV6_HLEN));
	return h;
}

uint32_t opa_vnic_flow_hash(const uint8_t *frame, size_t len)
{
	size_t off = 12;
	uint16_t proto = 0;
	int tags;

	if (len < ETH_HLEN)
		return fmix32(mix_bytes(0, frame, len));
	for (tags = 0; tags <= MAX_VLAN_TAGS && off + 2 <= len; tags++) {
		proto = dp_get_be16(frame + off);
		off += 2;
		if (proto != ETH_P_8021Q && proto != ETH_P_8021AD)
			break;
		off += 2;	/* the TCI; the next EtherType follows */
	}
	if (proto == ETH_P_IP && off + IPV4_MIN_HLEN <= len)
		return fmix32(ipv4_hash(frame + off, len - off));
	if (proto == ETH_P_IPV6 && off + IPV6_HLEN <= len)
		return fmix32(ipv6_hash(frame + off, len - off));
	return fmix32(mix(mix_bytes(0, frame, 12), proto));
}
