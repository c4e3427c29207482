/* SPDX-License-Identifier: MIT */
/*
 * A vdev's Ethernet: the guest's transmitq1 to its TAP, the TAP to its
 * receiveq1.  Every frame travels behind the 12-byte virtio-net header,
 * which the TAP takes and gives as well (IFF_VNET_HDR of that size).  No
 * offload was offered, so the header of a frame the guest sends is cleared
 * before the host sees it (a guest's flags could ask for what was not
 * agreed), and the TAP hands over only whole, checksummed frames.  Without a
 * TAP the guest's frames are dropped and counted.  A frame of UDP to the RoCE
 * port is the guest's RDMA traffic: it goes to its device's RoCE endpoint,
 * not to the guest's receive queue (as the prototype classifies them).
 */
#include "daemon/vdev/session_int.h"
#include "daemon/vdev/virtio_net.h"
#include "daemon/soft/datapath.h"
#include "dataplane/roce/ip_udp.h"
#include "lib/log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

/* The longest frame with its header: a TAP's largest MTU and the Ethernet header. */
#define FRAME_MAX (VIRTIO_NET_HDR_LEN + 14u + 65535u)

static int tap_fd(const struct vdev_session *s)
{
	return s->env.tap_fd;
}

void vdev_net_tx(struct vdev_session *s)
{
	struct virtqueue *vq = s->tx.vq;
	uint8_t *frame = malloc(FRAME_MAX);
	struct vq_chain c;
	int r;

	if (!vq || !frame) {
		free(frame);
		return;
	}
	while ((r = vq_pop(vq, &c)) > 0) {
		size_t len = (size_t)c.read_bytes;

		if (len <= VIRTIO_NET_HDR_LEN || len > FRAME_MAX || vq_chain_read(vq, &c, 0, frame, len) < 0 ||
		    tap_fd(s) < 0) {
			s->net.tx_dropped++;
		} else {
			memset(frame, 0, VIRTIO_NET_HDR_LEN);
			/* A full TAP queue drops the frame, as a NIC's full ring would. */
			if (write(tap_fd(s), frame, len) == (ssize_t)len)
				s->net.tx_frames++;
			else
				s->net.tx_dropped++;
		}
		vq_push(vq, c.head, 0);
	}
	if (r < 0)
		log_warning("vdev %s: transmitq1 broke: %s", s->env.name, vq_broken(vq));
	vq_signal(vq);
	free(frame);
}

/* The frame read goes into the guest's next receive buffer, or is dropped when there is none. */
static void deliver(struct vdev_session *s, struct virtqueue *vq, uint8_t *frame, size_t len)
{
	static const uint16_t one_buffer = 1;   /* num_buffers, little-endian: no MRG_RXBUF */
	struct vq_chain c;
	int r = vq ? vq_pop(vq, &c) : 0;

	if (r <= 0) {
		if (r < 0)
			log_warning("vdev %s: receiveq1 broke: %s", s->env.name, vq_broken(vq));
		/* No buffer: lost, as on a NIC whose ring is empty (nothing waits behind it). */
		s->net.rx_dropped++;
		return;
	}
	memcpy(frame + 10, &one_buffer, sizeof(one_buffer));
	if (c.write_bytes < len || vq_chain_write(vq, &c, 0, frame, len) < 0) {
		s->net.rx_dropped++;
		vq_push(vq, c.head, 0);
	} else {
		s->net.rx_frames++;
		vq_push(vq, c.head, (uint32_t)len);
	}
}

/* Whether the frame is RoCE v2 (IPv4 or IPv6, UDP to port 4791): then it went to the device. */
static bool roce_frame(struct vdev_session *s, const uint8_t *frame, size_t frame_len)
{
	const uint8_t *eth = frame + VIRTIO_NET_HDR_LEN, *ip = eth + 14;
	size_t len = frame_len - VIRTIO_NET_HDR_LEN;
	struct roce_ip_view v;
	uint16_t type, dport;

	if (len < 14 || !s->dev)
		return false;
	type = (uint16_t)(eth[12] << 8 | eth[13]);
	if ((type != 0x0800 && type != 0x86dd) || roce_ip_locate(ip, len - 14, &v) != ROCE_OK)
		return false;
	dport = (uint16_t)(ip[v.ip_udp_len - 6] << 8 | ip[v.ip_udp_len - 5]);
	if (dport != ROCE_UDP_PORT)
		return false;
	if (rdma_datapath_roce_link_input(s->dev, ip, len - 14) < 0)
		s->net.rx_dropped++;
	return true;
}

/*
 * Every frame the TAP holds: the guest's RDMA to its device, the rest into
 * its receive buffers (a frame of a full or stopped receive queue is lost,
 * and never holds back the RDMA behind it).
 */
void vdev_net_rx(struct vdev_session *s)
{
	struct virtqueue *vq = s->rx.vq;
	bool delivered = false;

	if (tap_fd(s) < 0 || (!s->rx_frame && !(s->rx_frame = malloc(FRAME_MAX))))
		return;
	for (;;) {
		ssize_t n = read(tap_fd(s), s->rx_frame, FRAME_MAX);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		if (n <= VIRTIO_NET_HDR_LEN) {
			s->net.rx_dropped++;
			continue;
		}
		if (roce_frame(s, s->rx_frame, (size_t)n))
			continue;
		deliver(s, vq, s->rx_frame, (size_t)n);
		delivered = true;
	}
	if (delivered && vq)
		vq_signal(vq);
}

static int on_tap(sd_event_source *src, int fd, uint32_t revents, void *userdata)
{
	vdev_net_rx(userdata);
	return 0;
}

int vdev_net_watch(struct vdev_session *s, bool on)
{
	if (!on || tap_fd(s) < 0) {
		s->tap_source = sd_event_source_disable_unref(s->tap_source);
		return 0;
	}
	if (s->tap_source)
		return 0;
	return sd_event_add_io(s->env.event, &s->tap_source, tap_fd(s), EPOLLIN, on_tap, s);
}
