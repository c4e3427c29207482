/* SPDX-License-Identifier: MIT */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "dataplane/opa/vnic_gso.h"
#include "dataplane/bytes.h"

#define ETHERTYPE_IP_	0x0800
#define ETHERTYPE_IPV6_	0x86dd
#define ETHERTYPE_VLAN_	0x8100
#define IPPROTO_TCP_	6
#define TCP_FIN		0x01
#define TCP_PSH		0x08
#define TCP_CWR		0x80

/*
 * The sum of native 32-bit words: a one's complement sum is the same folded to 16 bits, and
 * summing in the host's byte order gives the byte-swapped sum on a little-endian host, which
 * is what storing the folded value with memcpy undoes (RFC 1071 §2 (B)).
 */
uint64_t opa_csum_add(uint64_t sum, const uint8_t *buf, size_t len)
{
	uint32_t w;
	uint16_t h;

	while (len >= 4) {
		memcpy(&w, buf, 4);
		sum += w;
		buf += 4;
		len -= 4;
	}
	if (len >= 2) {
		memcpy(&h, buf, 2);
		sum += h;
		buf += 2;
		len -= 2;
	}
	if (len) {
		uint8_t last[2] = { buf[0], 0 };

		memcpy(&h, last, 2);
		sum += h;
	}
	return sum;
}

uint16_t opa_csum_fold(uint64_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void put16(uint8_t *p, uint16_t native)
{
	memcpy(p, &native, 2);
}

int opa_vnet_csum(const struct virtio_net_hdr *h, uint8_t *frame, size_t len)
{
	size_t start = h->csum_start, at = start + h->csum_offset;
	uint16_t c;

	if (h->gso_type != VIRTIO_NET_HDR_GSO_NONE)
		return -EINVAL;
	if (!(h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM))
		return 0;
	if (start >= len || at + 2 > len)
		return -EINVAL;
	/* The field holds the pseudo-header's sum: it is summed in with the rest. */
	c = opa_csum_fold(opa_csum_add(0, frame + start, len - start));
	put16(frame + at, c ? c : 0xffff);	/* as skb_checksum_help() */
	return 0;
}

int opa_gso_parse(const struct virtio_net_hdr *h, const uint8_t *frame, size_t len,
		  struct opa_gso *g)
{
	unsigned type = h->gso_type & ~VIRTIO_NET_HDR_GSO_ECN;
	size_t l3 = 14, doff;
	uint16_t proto;

	if (type != VIRTIO_NET_HDR_GSO_TCPV4 && type != VIRTIO_NET_HDR_GSO_TCPV6)
		return -EINVAL;
	if (len < l3)
		return -EINVAL;
	proto = dp_get_be16(frame + 12);
	if (proto == ETHERTYPE_VLAN_) {
		l3 += 4;
		if (len < l3)
			return -EINVAL;
		proto = dp_get_be16(frame + 16);
	}
	g->l3 = l3;
	g->v6 = type == VIRTIO_NET_HDR_GSO_TCPV6;
	if (!g->v6) {
		if (proto != ETHERTYPE_IP_ || len < l3 + 20 || frame[l3] >> 4 != 4 ||
		    (frame[l3] & 15) < 5 || frame[l3 + 9] != IPPROTO_TCP_)
			return -EINVAL;
		g->l4 = l3 + (size_t)(frame[l3] & 15) * 4;
	} else {
		if (proto != ETHERTYPE_IPV6_ || len < l3 + 40 || frame[l3] >> 4 != 6 ||
		    frame[l3 + 6] != IPPROTO_TCP_)
			return -EINVAL;
		g->l4 = l3 + 40;
	}
	if (len < g->l4 + 20)
		return -EINVAL;
	doff = (size_t)(frame[g->l4 + 12] >> 4) * 4;
	if (doff < 20 || len < g->l4 + doff)
		return -EINVAL;
	g->hlen = g->l4 + doff;
	g->mss = h->gso_size;
	if (!g->mss)
		return -EINVAL;
	g->payload = len - g->hlen;
	g->nseg = g->payload ? (unsigned)((g->payload + g->mss - 1) / g->mss) : 1;
	return 0;
}

size_t opa_gso_segment(const struct opa_gso *g, const uint8_t *frame, unsigned i, uint8_t *out)
{
	size_t off = (size_t)i * g->mss;
	size_t n = g->payload - off < g->mss ? g->payload - off : g->mss;
	size_t seg_len = g->hlen + n, tcp_len = seg_len - g->l4;
	uint8_t *ip = out + g->l3, *th = out + g->l4;
	bool last = i + 1 == g->nseg;
	uint64_t sum;

	memcpy(out, frame, g->hlen);
	memcpy(out + g->hlen, frame + g->hlen + off, n);
	dp_put_be32(th + 4, dp_get_be32(frame + g->l4 + 4) + (uint32_t)off);
	if (!last)
		th[13] &= ~(TCP_FIN | TCP_PSH);
	if (i)
		th[13] &= ~TCP_CWR;
	th[16] = th[17] = 0;
	if (!g->v6) {
		size_t ihl = g->l4 - g->l3;

		dp_put_be16(ip + 2, (uint16_t)(seg_len - g->l3));
		dp_put_be16(ip + 4, (uint16_t)(dp_get_be16(frame + g->l3 + 4) + i));
		ip[10] = ip[11] = 0;
		put16(ip + 10, opa_csum_fold(opa_csum_add(0, ip, ihl)));
		sum = opa_csum_add(0, ip + 12, 8);
	} else {
		dp_put_be16(ip + 4, (uint16_t)(seg_len - g->l4));
		sum = opa_csum_add(0, ip + 8, 32);
	}
	/* The pseudo-header's protocol and TCP length, as big-endian words. */
	sum += htons(IPPROTO_TCP_) + htons((uint16_t)tcp_len);
	put16(th + 16, opa_csum_fold(opa_csum_add(sum, th, tcp_len)));
	return seg_len;
}
