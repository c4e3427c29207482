/* SPDX-License-Identifier: MIT */
/*
 * The RoCE v2 endpoint of a NIC (reference roce_virtio.md §2.1, §2.9): an
 * IPv4 and an IPv6 UDP socket on port 4791 in the RoCE worker's epoll set,
 * the NIC's remote transport (struct dp_transport below).  Received packets
 * are parsed, their ICRC checked against the headers rebuilt from the
 * addresses the kernel reports (the socket path), or against the headers
 * they came with where the packet path's ring takes them in instead
 * (packet_ring.h, frame_rx.h), and handed to the QP they name.  Everything
 * from the wire is hostile: the codec bounds it (packet.c), and a QP takes
 * only what its type, state and peer allow.  What leaves is tx.c's.
 */
#include "dataplane/roce/roce_int.h"
#include "dataplane/roce/icrc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/utsname.h>

/* Receive batches taken per readiness: bounded, so that timers and the QPs' pollers get their turn. */
#define RX_ROUNDS 8

struct rx_ctx {
	struct dp_worker *w;
	struct dp_roce *r;
};

/* Packets of this transport are for QPs of this type. */
static bool type_matches(const struct dp_qp *q, uint8_t opcode)
{
	static const uint8_t transport_of[] = {
		[DP_QPT_RC] = ROCE_TR_RC, [DP_QPT_UC] = ROCE_TR_UC, [DP_QPT_UD] = ROCE_TR_UD,
	};

	return roce_opcode_transport(opcode) == transport_of[q->type];
}

/*
 * A connected QP hears only from the GID of its address vector (the BTH
 * names no source QP): a QP connected inside the NIC hears nothing from the
 * wire.  A QP on another host whose address is that GID could still speak
 * for the peer: an address is what RoCE v2 tells apart.
 */
static bool from_peer(const struct dp_qp *q, const struct roce_ip_udp *hdr)
{
	return q->type == DP_QPT_UD || (roce_qp(q) && roce_qp(q)->path.remote &&
					!memcmp(roce_qp(q)->path.dgid, hdr->sgid, 16));
}

static void dispatch(struct dp_worker *w, struct dp_roce *r, const struct roce_pkt *p,
		     const struct roce_ip_udp *hdr)
{
	struct dp_qp *q = dp_nic_worker_qp(r->nic, w, p->bth.dest_qp);
	bool response = p->op->flags & ROCE_F_RESPONSE;

	if (!q || !type_matches(q, p->bth.opcode) || p->bth.pkey != ROCE_PKEY_DEFAULT) {
		DEVICE_COUNT(w, r->nic, rx_dropped);
		return;
	}
	/* Dropped, not NAKed: the answer would go to whoever's address was written there. */
	if (!from_peer(q, hdr)) {
		DP_COUNT(w, q, refused_not_peer, 1);
		return;
	}
	if (response ? !(q->state == DP_QPS_RTS || q->state == DP_QPS_SQD) :
		       !(q->state == DP_QPS_RTR || q->state == DP_QPS_RTS || q->state == DP_QPS_SQD)) {
		DP_COUNT(w, q, roce.rx_dropped, 1);
		return;
	}
	DP_COUNT(w, q, roce.rx_packets, 1);
	if (response)
		roce_comp_packet(w, q, p);
	else
		roce_resp_packet(w, q, p, hdr);
}

static void on_datagram(void *arg, const uint8_t *buf, size_t len, const struct dp_udp_addr *from,
			const struct dp_udp_addr *to)
{
	struct rx_ctx *x = arg;
	struct roce_ip_udp hdr = { .df = true, .dport = x->r->port };
	struct roce_pkt p;

	if (!to->len || roce_pkt_parse(buf, len, &p) != ROCE_OK || p.bth.opcode == ROCE_OP_CNP) {
		DEVICE_COUNT(x->w, x->r->nic, rx_dropped);
		return;
	}
	/* The headers the peer's kernel wrote, as far as a socket sees them (§2.9). */
	roce_addr_gid(from, hdr.sgid);
	roce_addr_gid(to, hdr.dgid);
	hdr.sport = dp_udp_addr_port(from);
	if (roce_icrc_check_payload(&hdr, buf, len) != ROCE_OK) {
		DEVICE_COUNT(x->w, x->r->nic, icrc_errors);
		return;
	}
	dispatch(x->w, x->r, &p, &hdr);
}

/* ---- the packet path: frames from the ring, with the headers they had on the wire ---- */

static void on_frame_datagram(void *arg, const struct roce_frame_seg *s)
{
	struct rx_ctx *x = arg;
	struct roce_ip_udp hdr;
	struct roce_pkt p;
	enum roce_reason why;

	if (roce_pkt_parse(s->transport, s->transport_len, &p) != ROCE_OK ||
	    p.bth.opcode == ROCE_OP_CNP || roce_ip_udp_parse(s->ip_udp, s->ip_udp_len, &hdr) != ROCE_OK) {
		DEVICE_COUNT(x->w, x->r->nic, rx_dropped);
		return;
	}
	/* Every bit of the header, the IPv4 ID with it: nothing solved, nothing given up. */
	why = roce_icrc_check_wire(s->ip_udp, s->ip_udp_len, s->transport, s->transport_len);
	if (why == ROCE_ICRC_OTHER_ID) {
		DEVICE_COUNT(x->w, x->r->nic, icrc_other_id);
		return;
	}
	if (why != ROCE_OK) {
		DEVICE_COUNT(x->w, x->r->nic, icrc_errors);
		return;
	}
	dispatch(x->w, x->r, &p, &hdr);
}

static void on_frame(void *arg, const uint8_t *frame, size_t len, const struct roce_frame_info *info)
{
	struct rx_ctx *x = arg;

	if (roce_frame_rx(frame, len, info, x->r->port, on_frame_datagram, x) != ROCE_OK)
		DEVICE_COUNT(x->w, x->r->nic, rx_dropped);
}

/* The end of a receive batch: the ACKs owed (one acknowledges every request before it), then what is queued. */
static void end_of_batch(struct dp_worker *w, struct dp_roce *r)
{
	for (unsigned i = 0; i < r->n_owe_ack; i++)
		roce_resp_ack(w, r->owe_ack[i]);
	r->n_owe_ack = 0;
	roce_tx_flush(w, r);
}

static void on_readable(struct dp_worker *w, int fd, uint32_t revents, void *arg)
{
	struct dp_roce *r = arg;
	struct dp_udp *u = fd == r->udp4.fd ? &r->udp4 : &r->udp6;
	struct rx_ctx x = { w, r };

	(void)revents;
	for (unsigned round = 0; round < RX_ROUNDS; round++) {
		int got = dp_udp_recv(u, &r->rx, r->rx_bufs, DP_UDP_GRO_BUF_SIZE, DP_UDP_BATCH, on_datagram, &x);

		end_of_batch(w, r);
		if (got <= 0 || r->rx.msgs_got < DP_UDP_BATCH)
			break;
	}
}

static void on_ring_readable(struct dp_worker *w, int fd, uint32_t revents, void *arg)
{
	struct dp_roce *r = arg;
	struct rx_ctx x = { w, r };

	/* The interface went away: the error cleared (or the worker would not sleep), bound again if it is back. */
	if (revents & (EPOLLERR | EPOLLHUP))
		(void)roce_ring_rebind(&r->ring);
	for (unsigned round = 0; round < RX_ROUNDS; round++) {
		unsigned got = roce_ring_take(&r->ring, DP_UDP_BATCH, on_frame, &x);

		end_of_batch(w, r);
		if (got < DP_UDP_BATCH)
			break;
		/*
		 * Behind: the kernel drops what the ring has no room for, and a full ring
		 * always leaves a whole batch to take, so this is where any drop is found
		 * (one system call per batch only while the reader is behind).
		 */
		if (round == 0)
			DEVICE_COUNT_N(w, r->nic, rx_dropped, roce_ring_drops(&r->ring));
	}
}

void roce_rx_ip(struct dp_worker *w, struct dp_roce *r, const uint8_t *ip, size_t len)
{
	/* The driver's queue took UDP to the port; its checksum may be the kernel's to write still. */
	const struct roce_frame_info info = { .csum_trusted = true };
	struct rx_ctx x = { w, r };

	if (!len || roce_ip_rx(ip, len, &info, r->port, on_frame_datagram, &x) != ROCE_OK)
		DEVICE_COUNT(w, r->nic, rx_dropped);
	end_of_batch(w, r);
}

void dp_roce_input(struct dp_worker *w, struct dp_nic *nic, const uint8_t *buf, size_t len,
		   const struct dp_udp_addr *from, const struct dp_udp_addr *to)
{
	struct rx_ctx x = { w, roce_ep(nic) };

	on_datagram(&x, buf, len, from, to);
	end_of_batch(w, roce_ep(nic));
}

/* ---- life ---- */

static void on_attach(struct dp_worker *w, void *arg)
{
	struct dp_roce *r = arg;

	if (r->ring.fd >= 0) {
		(void)dp_worker_add_fd(w, r->ring.fd, EPOLLIN, on_ring_readable, r);
		return;
	}
	if (r->udp4.fd >= 0)
		(void)dp_worker_add_fd(w, r->udp4.fd, EPOLLIN, on_readable, r);
	if (r->udp6.fd >= 0)
		(void)dp_worker_add_fd(w, r->udp6.fd, EPOLLIN, on_readable, r);
}

static void on_detach(struct dp_worker *w, void *arg)
{
	struct dp_roce *r = arg;

	if (r->ring.fd >= 0) {
		(void)dp_worker_remove_fd(w, r->ring.fd);
		return;
	}
	if (r->udp4.fd >= 0)
		(void)dp_worker_remove_fd(w, r->udp4.fd);
	if (r->udp6.fd >= 0)
		(void)dp_worker_remove_fd(w, r->udp6.fd);
}

static void endpoint_free(struct dp_roce *r)
{
	for (unsigned i = 0; i < DP_UDP_BATCH; i++) {
		free(r->tx_bufs[i]);
		free(r->rx_bufs[i]);
	}
	free(r->held);
	for (unsigned i = 0; i < ROCE_SPORT_BUCKETS; i++)
		while (r->sports[i]) {
			struct roce_sport *s = r->sports[i];

			r->sports[i] = s->next;
			dp_udp_close(&s->udp);
			free(s);
		}
	dp_udp_close(&r->udp4);
	dp_udp_close(&r->udp6);
	roce_ring_close(&r->ring);
	free(r->frame);
	free(r);
}

static const struct dp_transport roce_transport = {
	.name = "roce",
	.request = roce_request,
	.flush = roce_flush,
	.psns = roce_psns,
	.poll = roce_qp_poll,
	.qp_new = roce_qp_new,
	.qp_connect = roce_qp_connect,
	.qp_stop = roce_qp_stop,
	.qp_free = roce_qp_free,
};

/* An endpoint of nic on worker w with its buffers, no socket yet. */
static struct dp_roce *endpoint_new(struct dp_nic *nic, struct dp_worker *w,
				    const struct dp_roce_config *cfg)
{
	struct dp_roce *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->nic = nic;
	r->worker = w;
	r->port = cfg->port;
	r->segmentation = cfg->segmentation;
	r->faults = cfg->faults;
	r->rng = 0x9e3779b97f4a7c15ull ^ cfg->port;
	r->udp4.fd = r->udp6.fd = r->ring.fd = -1;
	for (unsigned i = 0; i < DP_UDP_BATCH; i++) {
		r->tx_bufs[i] = malloc(DP_ROCE_PKT_MAX);
		r->rx_bufs[i] = malloc(DP_UDP_GRO_BUF_SIZE);
		if (!r->tx_bufs[i] || !r->rx_bufs[i]) {
			endpoint_free(r);
			return NULL;
		}
	}
	return r;
}

/*
 * The packet path for r: the ring on cfg->netdev, and r's sockets kept (they send, and hold
 * the port, so the kernel answers no packet with an ICMP error) but deaf: a filter that keeps
 * nothing, GRO on so that a GSO buffer is dropped whole (roce_ring_deafen).  0 or -errno, r's
 * sockets hearing as before then.
 */
static int packet_path_open(struct dp_roce *r, const struct dp_roce_config *cfg)
{
	int err;

	if (!cfg->netdev[0])
		return -ENODEV;
	err = roce_ring_open(&r->ring, cfg->netdev, cfg->port);
	if (!err && r->udp4.fd >= 0)
		err = roce_ring_deafen(&r->udp4);
	if (!err && r->udp6.fd >= 0)
		err = roce_ring_deafen(&r->udp6);
	if (err) {
		/* Back to the socket path: a socket deafened already hears again. */
		if (r->ring.fd >= 0) {
			if (r->udp4.fd >= 0)
				roce_ring_hear(&r->udp4);
			if (r->udp6.fd >= 0)
				roce_ring_hear(&r->udp6);
		}
		roce_ring_close(&r->ring);
	}
	return err;
}

/* r is nic's remote transport from now on, on its worker. */
static void endpoint_start(struct dp_nic *nic, struct dp_roce *r)
{
	nic->remote = &roce_transport;
	nic->remote_ep = r;
	dp_worker_submit_wait(r->worker, on_attach, r);
}

bool dp_roce_ring_carries_udp_gso(const char *release)
{
	unsigned major = 0, minor = 0;

	if (!release || sscanf(release, "%u.%u", &major, &minor) != 2)
		return false;
	return major > 6 || (major == 6 && minor >= 2);
}

static bool kernel_rings_carry_udp_gso(void)
{
	struct utsname u;

	return uname(&u) == 0 && dp_roce_ring_carries_udp_gso(u.release);
}

int dp_roce_open(struct dp_nic *nic, struct dp_worker *w, const struct dp_roce_config *cfg)
{
	struct dp_roce *r = endpoint_new(nic, w, cfg);
	int r4, r6;

	if (!r)
		return -ENOMEM;
	r4 = roce_open_socket(&r->udp4, AF_INET, cfg->port, DP_UDP_BIG_BUFFERS, cfg->segmentation);
	r6 = roce_open_socket(&r->udp6, AF_INET6, cfg->port, DP_UDP_BIG_BUFFERS, cfg->segmentation);
	/* A host without IPv6 (or without IPv4) still serves the other family. */
	if (r4 < 0 && r6 < 0) {
		endpoint_free(r);
		return r4;
	}
	if (cfg->receive == DP_ROCE_RECEIVE_AUTO && !kernel_rings_carry_udp_gso())
		r->ring_error = -EPROTONOSUPPORT;
	else if (cfg->receive != DP_ROCE_RECEIVE_SOCKET) {
		r->ring_error = packet_path_open(r, cfg);
		if (r->ring_error < 0 && cfg->receive == DP_ROCE_RECEIVE_PACKET) {
			int err = r->ring_error;

			endpoint_free(r);
			return err;
		}
	}
	endpoint_start(nic, r);
	return 0;
}

static void on_netdev_changed(struct dp_worker *w, void *arg)
{
	struct dp_roce *r = arg;

	(void)w;
	if (r->ring.fd >= 0)
		(void)roce_ring_rebind(&r->ring);
}

void dp_roce_netdev_changed(struct dp_nic *nic)
{
	struct dp_roce *r = roce_ep(nic);

	if (r && r->ring.fd >= 0)
		(void)dp_worker_submit(r->worker, on_netdev_changed, r);
}

enum dp_roce_receive dp_roce_receive_in_use(const struct dp_nic *nic, int *packet_error)
{
	const struct dp_roce *r = roce_ep(nic);

	*packet_error = r ? r->ring_error : 0;
	if (!r || r->is_link)
		return DP_ROCE_RECEIVE_AUTO;
	return r->ring.fd >= 0 ? DP_ROCE_RECEIVE_PACKET : DP_ROCE_RECEIVE_SOCKET;
}

const char *dp_roce_receive_name(enum dp_roce_receive how)
{
	static const char *const names[] = {
		[DP_ROCE_RECEIVE_AUTO] = "auto",
		[DP_ROCE_RECEIVE_PACKET] = "packet",
		[DP_ROCE_RECEIVE_SOCKET] = "socket",
	};

	return (unsigned)how < sizeof(names) / sizeof(names[0]) ? names[how] : "unknown";
}

int dp_roce_open_link(struct dp_nic *nic, struct dp_worker *w, const struct dp_roce_config *cfg,
		      const struct dp_roce_link *link)
{
	/* Its own frames: one packet each, with the ID 0 its ICRC was sealed for. */
	struct dp_roce_config one = { .port = cfg->port, .faults = cfg->faults };
	struct dp_roce *r = endpoint_new(nic, w, &one);

	if (!r)
		return -ENOMEM;
	r->frame = malloc(link->vnet_hdr + 14 + ROCE_IP_UDP_MAX);
	if (!r->frame) {
		endpoint_free(r);
		return -ENOMEM;
	}
	r->is_link = true;
	r->link = *link;
	endpoint_start(nic, r);
	return 0;
}

struct dp_worker *dp_roce_worker(const struct dp_nic *nic)
{
	return roce_ep(nic) ? roce_ep(nic)->worker : NULL;
}

void dp_roce_close(struct dp_nic *nic)
{
	struct dp_roce *r = roce_ep(nic);

	if (!r)
		return;
	/* Workers stopped (and maybe freed already, as rdmad frees them first): nothing to detach from. */
	if (nic->running && r->worker->started)
		dp_worker_run(r->worker, on_detach, r);
	nic->remote = NULL;
	nic->remote_ep = NULL;
	endpoint_free(r);
}
