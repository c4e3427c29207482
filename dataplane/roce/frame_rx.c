/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "dataplane/roce/frame_rx.h"
#include "dataplane/bytes.h"
#include "dataplane/offload/crc.h"

#define ETHERTYPE_IPV4		0x0800
#define ETHERTYPE_IPV6		0x86dd
#define IPV4_MF_AND_OFFSET	0x3fff
#define IPPROTO_UDP_NUM		17
/* virtio_net_hdr.gso_type (virtio 1.2 §5.1.6): no segments, UDP segments, the ECN bit. */
#define VNET_GSO_NONE		0
#define VNET_GSO_UDP_L4		5
#define VNET_GSO_ECN		0x80

static uint16_t get_le16(const uint8_t *p)
{
	return p[0] | p[1] << 8;
}

/*
 * The UDP checksum of udp[0 .. udp_len) behind ip: right, or absent where IPv4 allows it
 * (IPv6 requires one, RFC 8200 §8.1).  The pseudo-header's protocol and length sum the same
 * for both families as {0, 17, length} while the length fits 16 bits.
 */
static bool udp_csum_ok(const uint8_t *ip, const uint8_t *udp, size_t udp_len)
{
	bool v4 = ip[0] >> 4 == 4;
	const uint8_t pseudo[4] = { 0, IPPROTO_UDP_NUM, udp_len >> 8, udp_len & 0xff };
	uint32_t sum;

	if (dp_get_be16(udp + 6) == 0)
		return v4;
	sum = dp_ip_csum_update(0, v4 ? ip + 12 : ip + 8, v4 ? 8 : 32);
	sum = dp_ip_csum_update(sum, pseudo, sizeof(pseudo));
	sum = dp_ip_csum_update(sum, udp, udp_len);
	return dp_ip_csum_final(0, sum) == 0;
}

/* Checks of the IP and UDP headers that roce_ip_locate leaves (it checked the lengths). */
static enum roce_reason ip_udp_check(const uint8_t *ip, const struct roce_ip_view *v, uint16_t port)
{
	size_t ip_hdr = v->ip_udp_len - ROCE_UDP_HDR_LEN;
	bool v4 = ip[0] >> 4 == 4;

	if (v4 && (dp_get_be16(ip + 6) & IPV4_MF_AND_OFFSET))
		return ROCE_FRAGMENT;
	if (v4 && dp_ip_csum(0, ip, ip_hdr))
		return ROCE_BAD_CSUM;
	if (dp_get_be16(ip + ip_hdr + 2) != port)
		return ROCE_BAD_IP;
	return ROCE_OK;
}

/*
 * s's headers: those of ip as they came, or for a segment of a GSO buffer, the ones the kernel
 * would write: the lengths of a datagram of s->transport_len and the index'th next IPv4 ID.
 */
static void seg_headers(struct roce_frame_seg *s, const uint8_t *ip, size_t ip_udp_len,
			bool segment, size_t index)
{
	size_t ip_hdr = ip_udp_len - ROCE_UDP_HDR_LEN, udp_len = ROCE_UDP_HDR_LEN + s->transport_len;
	uint8_t *h = s->ip_udp;

	memcpy(h, ip, ip_udp_len);
	s->ip_udp_len = ip_udp_len;
	if (!segment)
		return;
	if (h[0] >> 4 == 4) {
		dp_put_be16(h + 2, ip_hdr + udp_len);
		dp_put_be16(h + 4, (uint16_t)(dp_get_be16(ip + 4) + index));
		dp_put_be16(h + 10, 0);
		dp_put_be16(h + 10, dp_ip_csum(0, h, ip_hdr));
	} else {
		dp_put_be16(h + 4, udp_len);
	}
	dp_put_be16(h + ip_hdr + 4, udp_len);
}

enum roce_reason roce_frame_rx(const uint8_t *frame, size_t len, const struct roce_frame_info *info,
			       uint16_t port, roce_frame_seg_fn fn, void *arg)
{
	const uint8_t *ip = frame + ROCE_FRAME_ETH_LEN;
	uint16_t ethertype;

	/* Truncated by the ring (or a snap length), or a VLAN's. */
	if (len != info->wire_len || len <= ROCE_FRAME_ETH_LEN || len > ROCE_FRAME_MAX ||
	    info->vlan_tagged)
		return ROCE_BAD_LINK;
	ethertype = dp_get_be16(frame + 12);
	if ((ethertype != ETHERTYPE_IPV4 || ip[0] >> 4 != 4) &&
	    (ethertype != ETHERTYPE_IPV6 || ip[0] >> 4 != 6))
		return ROCE_BAD_LINK;
	return roce_ip_rx(ip, len - ROCE_FRAME_ETH_LEN, info, port, fn, arg);
}

enum roce_reason roce_ip_rx(const uint8_t *ip, size_t len, const struct roce_frame_info *info,
			    uint16_t port, roce_frame_seg_fn fn, void *arg)
{
	uint8_t gso = info->vnet[1] & ~VNET_GSO_ECN;
	struct roce_ip_view v;
	struct roce_frame_seg s;
	size_t seg_size, last, off, i;
	enum roce_reason r;

	r = roce_ip_locate(ip, len, &v);
	if (r == ROCE_OK)
		r = ip_udp_check(ip, &v, port);
	if (r != ROCE_OK)
		return r;
	if (gso == VNET_GSO_NONE) {
		if (!info->csum_trusted &&
		    !udp_csum_ok(ip, ip + v.ip_udp_len - ROCE_UDP_HDR_LEN, ROCE_UDP_HDR_LEN + v.transport_len))
			return ROCE_BAD_CSUM;
		seg_size = v.transport_len;
	} else if (gso == VNET_GSO_UDP_L4) {
		/* Its checksums are to be written (NEEDS_CSUM): the ICRC covers the payload. */
		seg_size = get_le16(info->vnet + 4);
		if (seg_size < ROCE_BTH_LEN + ROCE_ICRC_LEN)
			return ROCE_BAD_LINK;
	} else {
		return ROCE_BAD_LINK;
	}
	last = v.transport_len % seg_size;
	if (last && last < ROCE_BTH_LEN + ROCE_ICRC_LEN)
		return ROCE_SHORT;
	for (off = 0, i = 0; off < v.transport_len; off += seg_size, i++) {
		s.transport = v.transport + off;
		s.transport_len = v.transport_len - off < seg_size ? v.transport_len - off : seg_size;
		seg_headers(&s, ip, v.ip_udp_len, gso != VNET_GSO_NONE, i);
		fn(arg, &s);
	}
	return ROCE_OK;
}
