/* SPDX-License-Identifier: MIT */
/*
 * A vdev's Ethernet: the guest's transmitq1 to its TAP, the TAP to its
 * receiveq1.  Every frame travels behind the 12-byte virtio-net header,
 * which the TAP takes and gives as well (IFF_VNET_HDR of that size).  No
 * offload was offered, so the header of a frame the guest sends is cleared
 * before the host sees it (a guest's flags could ask for what was not
 * agreed), and the TAP hands over only whole, checksummed frames.  Without a
 * TAP the guest's frames are dropped and counted.
 */
#include "daemon/vdev/session_int.h"
#include "daemon/vdev/virtio_net.h"
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

/* The frame held goes into the next receive buffer: 1 when it went (or was dropped), 0 when none waits. */
static int deliver(struct vdev_session *s, struct virtqueue *vq)
{
	static const uint16_t one_buffer = 1;   /* num_buffers, little-endian: no MRG_RXBUF */
	struct vq_chain c;
	int r = vq_pop(vq, &c);

	if (r <= 0) {
		if (r < 0)
			log_warning("vdev %s: receiveq1 broke: %s", s->env.name, vq_broken(vq));
		return 0;
	}
	memcpy(s->rx_frame + 10, &one_buffer, sizeof(one_buffer));
	if (c.write_bytes < s->rx_len || vq_chain_write(vq, &c, 0, s->rx_frame, s->rx_len) < 0) {
		s->net.rx_dropped++;
		vq_push(vq, c.head, 0);
	} else {
		s->net.rx_frames++;
		vq_push(vq, c.head, (uint32_t)s->rx_len);
	}
	s->rx_len = 0;
	return 1;
}

void vdev_net_rx(struct vdev_session *s)
{
	struct virtqueue *vq = s->rx.vq;
	bool delivered = false;

	if (!vq || tap_fd(s) < 0 || (!s->rx_frame && !(s->rx_frame = malloc(FRAME_MAX))))
		return;
	for (;;) {
		if (!s->rx_len) {
			ssize_t n = read(tap_fd(s), s->rx_frame, FRAME_MAX);

			if (n <= VIRTIO_NET_HDR_LEN) {
				if (n >= 0)
					s->net.rx_dropped++;
				if (n >= 0 || errno == EINTR)
					continue;
				break;
			}
			s->rx_len = (size_t)n;
		}
		if (!deliver(s, vq)) {
			/* No buffer: the TAP waits until the guest gives some (its kick serves us again). */
			sd_event_source_set_enabled(s->tap_source, SD_EVENT_OFF);
			break;
		}
		delivered = true;
	}
	if (delivered)
		vq_signal(vq);
	if (s->rx_len == 0 || delivered)
		sd_event_source_set_enabled(s->tap_source, s->rx_len ? SD_EVENT_OFF : SD_EVENT_ON);
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
