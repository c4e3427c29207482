/* SPDX-License-Identifier: MIT */
/*
 * What the packet path's ring can hand rdmad (dataplane/roce/frame_rx.c): any bytes as a
 * frame, with any virtio-net header and ring status before it.  The input is
 *
 *   vnet header (10) | flags (1: bit 0 VLAN tag taken off, bit 1 checksum vouched for,
 *                        bit 2 the frame was longer on the link) | the frame
 *
 * The frame is copied into a buffer of exactly its size (ASan watches the edges).  Every
 * datagram handed on must lie inside the frame with room for BTH and ICRC, the datagrams
 * must cover the UDP payload exactly, a frame that is one datagram must come with its own
 * header unchanged, and the header must parse as the ICRC check and the codec read it.
 */
#include "tests/fuzz/fuzz.h"
#include "dataplane/roce/frame_rx.h"
#include "dataplane/roce/icrc.h"
#include "dataplane/roce/packet.h"

#include <stdlib.h>
#include <string.h>

#define INFO_LEN (ROCE_FRAME_VNET_LEN + 1)

struct walk {
	const uint8_t *frame;
	size_t len;
	size_t covered;
	unsigned n;
	struct roce_frame_seg first;
};

static void on_seg(void *arg, const struct roce_frame_seg *s)
{
	struct walk *w = arg;
	struct roce_ip_udp hdr;
	struct roce_pkt p;

	if (s->ip_udp_len > ROCE_IP_UDP_MAX || s->ip_udp_len < 20 + 8 ||
	    s->transport < w->frame || s->transport_len < ROCE_BTH_LEN + ROCE_ICRC_LEN ||
	    s->transport_len > w->len || s->transport > w->frame + w->len - s->transport_len)
		abort();
	if (roce_ip_udp_parse(s->ip_udp, s->ip_udp_len, &hdr) != ROCE_OK)
		abort();
	(void)roce_icrc_check_wire(s->ip_udp, s->ip_udp_len, s->transport, s->transport_len);
	(void)roce_pkt_parse(s->transport, s->transport_len, &p);
	if (!w->n)
		w->first = *s;
	w->covered += s->transport_len;
	w->n++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct roce_frame_info info = { 0 };
	struct roce_ip_view v;
	struct walk w = { 0 };
	uint8_t *frame;
	size_t len;

	if (size < INFO_LEN)
		return 0;
	len = size - INFO_LEN;
	frame = malloc(len ? len : 1);
	if (!frame)
		return 0;
	memcpy(frame, data + INFO_LEN, len);
	memcpy(info.vnet, data, ROCE_FRAME_VNET_LEN);
	info.vlan_tagged = data[ROCE_FRAME_VNET_LEN] & 1;
	info.csum_trusted = data[ROCE_FRAME_VNET_LEN] & 2;
	info.wire_len = len + !!(data[ROCE_FRAME_VNET_LEN] & 4);
	w.frame = frame;
	w.len = len;
	if (roce_frame_rx(frame, len, &info, ROCE_UDP_PORT, on_seg, &w) == ROCE_OK) {
		if (!w.n || roce_ip_locate(frame + ROCE_FRAME_ETH_LEN, len - ROCE_FRAME_ETH_LEN, &v) != ROCE_OK ||
		    w.covered != v.transport_len)
			abort();
		if (w.n == 1 && memcmp(w.first.ip_udp, frame + ROCE_FRAME_ETH_LEN, w.first.ip_udp_len))
			abort();
	} else if (w.n) {
		abort();
	}
	free(frame);
	return 0;
}
