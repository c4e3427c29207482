/* SPDX-License-Identifier: MIT */
/*
 * net.c - the virtio-net half: net_tx puts a frame behind a zeroed
 * virtio_net_hdr_v1 on transmitq1 and waits until the device has used it;
 * net_rx takes the next frame the device wrote into receiveq1 and posts the
 * buffer again.
 */
#include "guest.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define FRAME_MAX	(NET_BUF_SIZE - sizeof(struct virtio_net_hdr_v1))

static int cmd_net_tx(struct guest *g, struct args *a)
{
	const char *hex = args_pos(a, 1);
	struct vq *tx = vq_get(g, VQ_TX, VQ_KIND_TX);
	uint8_t *slot;
	long len;
	int head, r;

	if (!hex)
		return reply_fail(g, "usage: net_tx HEX");
	if (args_done(a, 1) < 0)
		return reply_fail(g, "%s", a->err);
	if (!tx)
		return reply_fail(g, "start first");
	vq_reap(tx);
	head = vring_peek_head(&tx->ring);
	if (head < 0)
		return reply_fail(g, "net_tx: transmitq1 full");
	slot = vq_slot(g, tx, (unsigned)head);
	memset(slot, 0, sizeof(struct virtio_net_hdr_v1));
	len = parse_hex(hex, slot + sizeof(struct virtio_net_hdr_v1), FRAME_MAX);
	if (len < 14)
		return reply_fail(g, "net_tx: HEX is a frame of 14..%zu bytes in hex digits", FRAME_MAX);
	vq_post_slot(g, tx, (uint32_t)(sizeof(struct virtio_net_hdr_v1) + (size_t)len), false);
	vq_kick_if_needed(tx);
	r = vq_wait_used(g, tx, POLL_TIMEOUT_MS, NULL);
	if (r == -ETIMEDOUT)
		return reply_fail(g, "timeout: transmitq1 buffer not used within %d ms", POLL_TIMEOUT_MS);
	if (r < 0)
		return reply_errno(g, "net_tx", r);
	return reply_ok("len=%ld", len);
}

static int cmd_net_rx(struct guest *g, struct args *a)
{
	struct vq *rx = vq_get(g, VQ_RX, VQ_KIND_RX);
	uint32_t timeout = POLL_TIMEOUT_MS, len = 0;
	const size_t hdr = sizeof(struct virtio_net_hdr_v1);
	int head;

	if (args_u32(a, "timeout_ms", false, 3600000, &timeout) < 0 || args_done(a, 0) < 0)
		return reply_fail(g, "%s", a->err);
	if (!rx)
		return reply_fail(g, "start first");
	head = vq_wait_used(g, rx, (int)timeout, &len);
	if (head == -ETIMEDOUT)
		return reply_fail(g, "timeout");
	if (head < 0)
		return reply_errno(g, "net_rx", head);
	if (len < hdr || len > NET_BUF_SIZE) {
		vq_post_slot(g, rx, NET_BUF_SIZE, true);
		vq_kick_if_needed(rx);
		return reply_fail(g, "net_rx: used length %u is not %zu..%u", len, hdr, NET_BUF_SIZE);
	}
	printf("ok len=%zu hex=", len - hdr);
	print_hex((uint8_t *)vq_slot(g, rx, (unsigned)head) + hdr, len - hdr);
	putchar('\n');
	fflush(stdout);
	vq_post_slot(g, rx, NET_BUF_SIZE, true);
	vq_kick_if_needed(rx);
	return 0;
}

const struct command net_commands[] = {
	{ "net_tx", cmd_net_tx },
	{ "net_rx", cmd_net_rx },
	{ NULL, NULL },
};
