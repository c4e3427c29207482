/* SPDX-License-Identifier: MIT */
/*
 * The RoCE v2 endpoint of a NIC (reference roce_virtio.md §2.1, §2.7, §2.9):
 * an IPv4 and an IPv6 UDP socket on port 4791 in the RoCE worker's epoll
 * set.  Packets leave from the address of their source GID, with DF and so
 * IPv4 ID 0, the only headers a receiver on a socket can rebuild to check
 * the ICRC; received ones are parsed, their ICRC checked against the
 * headers rebuilt from the addresses the kernel reports, and handed to the
 * QP they name.  Everything from the wire is hostile: the codec bounds it
 * (packet.c), and a QP takes only what its type, state and peer allow.
 */
#include "dataplane/roce/roce_int.h"
#include "dataplane/roce/icrc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

/* Receive batches taken per readiness: bounded, so that timers and the QPs' pollers get their turn. */
#define RX_ROUNDS 8

static struct dp_counters *device_counters(struct dp_worker *w, struct dp_nic *nic)
{
	return &nic->per_worker[w->index].counters;
}

#define DEVICE_COUNT(w, nic, field) dp_count_add(&device_counters(w, nic)->roce.field, 1)

void roce_addr_gid(const struct dp_udp_addr *a, uint8_t gid[16])
{
	static const uint8_t v4_prefix[12] = { [10] = 0xff, [11] = 0xff };

	if (a->sa.sa_family == AF_INET) {
		memcpy(gid, v4_prefix, sizeof(v4_prefix));
		memcpy(gid + 12, &a->in.sin_addr, 4);
	} else {
		memcpy(gid, &a->in6.sin6_addr, 16);
	}
}

void roce_gid_addr(const uint8_t gid[16], uint16_t port, struct dp_udp_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (roce_gid_is_ipv4(gid)) {
		a->in.sin_family = AF_INET;
		a->in.sin_port = htons(port);
		memcpy(&a->in.sin_addr, gid + 12, 4);
		a->len = sizeof(a->in);
	} else {
		a->in6.sin6_family = AF_INET6;
		a->in6.sin6_port = htons(port);
		memcpy(&a->in6.sin6_addr, gid, 16);
		a->len = sizeof(a->in6);
	}
}

/* ---- sending ---- */

static int open_socket(struct dp_udp *u, int family, uint16_t port, unsigned flags, bool gso);

void roce_route_bind(struct dp_roce *r, struct dp_roce_route *route)
{
	int family = route->to.sa.sa_family;
	uint16_t sport = route->hdr.sport;
	struct roce_sport **b = &r->sports[sport % ROCE_SPORT_BUCKETS], *s;

	for (s = *b; s; s = s->next)
		if (s->udp.local.sa.sa_family == family && dp_udp_addr_port(&s->udp.local) == sport)
			break;
	if (!s && (s = calloc(1, sizeof(*s)))) {
		/* Sends only: the peer answers to its port 4791, which the endpoint's sockets receive. */
		if (open_socket(&s->udp, family, sport, 0, r->segmentation) < 0) {
			free(s);
			s = NULL;
		} else {
			s->next = *b;
			*b = s;
		}
	}
	route->sock = s ? &s->udp : family == AF_INET ? &r->udp4 : &r->udp6;
	route->hdr.sport = dp_udp_addr_port(&route->sock->local);
}

/*
 * The kernel numbers the IPv4 IDs of a GSO run's packets 0, 1, 2... (an unconnected socket
 * with DF gives the run ID 0): each packet's ICRC covers its own (IPv6 has none), sealed
 * here once the runs are known.
 */
static void seal_runs(struct dp_roce *r, struct dp_udp *sock)
{
	dp_udp_tx_plan(sock, &r->tx);
	for (unsigned i = 0; i < r->tx.n; i++) {
		struct roce_ip_udp hdr = r->tx_hdr[i];

		if (roce_gid_is_ipv4(hdr.sgid))
			hdr.ip_id = r->tx.gpos[i];
		roce_icrc_seal_payload(&hdr, r->tx_bufs[i], r->tx.iov[i].iov_len);
	}
}

void roce_tx_flush(struct dp_worker *w, struct dp_roce *r)
{
	struct dp_udp *sock = r->tx.n ? r->tx_sock[0] : NULL;

	if (r->held && r->tx.n && r->held_sock == sock && !dp_udp_tx_full(&r->tx)) {
		/* The packet held back goes after the one that came next: reordered. */
		unsigned i = r->tx.n;

		memcpy(r->tx_bufs[i], r->held, r->held_len);
		r->tx_to[i] = r->held_to;
		r->tx_from[i] = r->held_from;
		r->tx_hdr[i] = r->held_hdr;
		r->tx_sock[i] = sock;
		dp_udp_tx_add_from(&r->tx, &r->tx_to[i], &r->tx_from[i], r->tx_bufs[i], r->held_len, 0);
		free(r->held);
		r->held = NULL;
	}
	if (r->segmentation && sock)
		seal_runs(r, sock);
	/*
	 * A packet the kernel would not take is a packet lost: RC sends it
	 * again, UC/UD lose it.  Counted: EMSGSIZE says the path MTU is more
	 * than the link carries.
	 */
	if (sock && sock->fd >= 0 && dp_udp_send_batch(sock, &r->tx) < r->tx.n)
		for (unsigned i = 0; i < r->tx.n; i++)
			if (r->tx.err[i])
				DEVICE_COUNT(w, r->nic, tx_errors);
	dp_udp_tx_reset(&r->tx);
}

void roce_flush(struct dp_worker *w, struct dp_nic *nic)
{
	if (roce_ep(nic)->tx.n)
		roce_tx_flush(w, roce_ep(nic));
}

/* A buffer for the next packet to sock: the batch goes first when full or another socket's. */
static unsigned tx_slot(struct dp_worker *w, struct dp_roce *r, struct dp_udp *sock)
{
	if (dp_udp_tx_full(&r->tx) || (r->tx.n && r->tx_sock[0] != sock))
		roce_tx_flush(w, r);
	return r->tx.n;
}

static uint32_t fault_roll(struct dp_roce *r)
{
	/* xorshift64: the draws of a test, not of an adversary. */
	r->rng ^= r->rng << 13;
	r->rng ^= r->rng >> 7;
	r->rng ^= r->rng << 17;
	return (uint32_t)(r->rng % 1000000u);
}

/* For tests: whether the packet in slot i is dropped, sent twice, or held back to go later. */
static bool inject_fault(struct dp_worker *w, struct dp_roce *r, unsigned i, size_t len)
{
	uint32_t roll;

	if (!r->faults.drop && !r->faults.duplicate && !r->faults.reorder)
		return false;
	roll = fault_roll(r);
	if (roll < r->faults.drop) {
		DEVICE_COUNT(w, r->nic, faults);
		return true;
	}
	roll -= r->faults.drop;
	if (roll < r->faults.duplicate && i + 1 < DP_UDP_BATCH) {
		DEVICE_COUNT(w, r->nic, faults);
		memcpy(r->tx_bufs[i + 1], r->tx_bufs[i], len);
		r->tx_to[i + 1] = r->tx_to[i];
		r->tx_from[i + 1] = r->tx_from[i];
		r->tx_hdr[i + 1] = r->tx_hdr[i];
		r->tx_sock[i + 1] = r->tx_sock[i];
		dp_udp_tx_add_from(&r->tx, &r->tx_to[i + 1], &r->tx_from[i + 1], r->tx_bufs[i + 1], len, 0);
		return false;
	}
	roll -= r->faults.duplicate;
	if (roll < r->faults.reorder && !r->held) {
		r->held = malloc(len);
		if (!r->held)
			return false;
		DEVICE_COUNT(w, r->nic, faults);
		memcpy(r->held, r->tx_bufs[i], len);
		r->held_len = len;
		r->held_to = r->tx_to[i];
		r->held_from = r->tx_from[i];
		r->held_hdr = r->tx_hdr[i];
		r->held_sock = r->tx_sock[i];
		return true;
	}
	return false;
}

void roce_send_pkt(struct dp_worker *w, struct dp_qp *q, const struct dp_roce_route *route,
		   const struct roce_pkt *p, const void *payload, size_t len)
{
	struct dp_roce *r = roce_ep(q->nic);
	struct dp_udp *sock = route->sock;
	unsigned i = tx_slot(w, r, sock);
	size_t n;

	/* With segmentation, the ICRC waits for the packet's place in its run (seal_runs). */
	if (roce_pkt_build(p, payload, len, r->tx_bufs[i], DP_ROCE_PKT_MAX, &n) != ROCE_OK ||
	    (!r->segmentation && roce_icrc_seal_payload(&route->hdr, r->tx_bufs[i], n) != ROCE_OK))
		return;   /* our own headers: cannot happen for what the requester and responder build */
	DP_COUNT(w, q, roce.tx_packets, 1);
	r->tx_to[i] = route->to;
	r->tx_from[i] = route->from;
	r->tx_hdr[i] = route->hdr;
	r->tx_sock[i] = sock;
	dp_udp_tx_add_from(&r->tx, &r->tx_to[i], &r->tx_from[i], r->tx_bufs[i], n, 0);
	if (inject_fault(w, r, i, n))
		r->tx.n--;
}

/* ---- receiving ---- */

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

	if (r->udp4.fd >= 0)
		(void)dp_worker_add_fd(w, r->udp4.fd, EPOLLIN, on_readable, r);
	if (r->udp6.fd >= 0)
		(void)dp_worker_add_fd(w, r->udp6.fd, EPOLLIN, on_readable, r);
}

static void on_detach(struct dp_worker *w, void *arg)
{
	struct dp_roce *r = arg;

	if (r->udp4.fd >= 0)
		(void)dp_worker_remove_fd(w, r->udp4.fd);
	if (r->udp6.fd >= 0)
		(void)dp_worker_remove_fd(w, r->udp6.fd);
}

/*
 * An endpoint socket (DP_UDP_BIG_BUFFERS) receives, with the local address of each datagram
 * and GRO; any socket sends, runs as one GSO send only with gso.
 */
static int open_socket(struct dp_udp *u, int family, uint16_t port, unsigned flags, bool gso)
{
	struct dp_udp_addr any = { .len = family == AF_INET ? sizeof(any.in) : sizeof(any.in6) };
	int r;

	if (family == AF_INET) {
		any.in.sin_family = AF_INET;
		any.in.sin_port = htons(port);
	} else {
		any.in6.sin6_family = AF_INET6;
		any.in6.sin6_port = htons(port);
	}
	r = dp_udp_open_flags(u, &any, DP_UDP_V6ONLY | DP_UDP_DONT_FRAGMENT | flags);
	if (r == 0 && (flags & DP_UDP_BIG_BUFFERS))
		r = dp_udp_enable_pktinfo(u);
	if (r == 0 && (flags & DP_UDP_BIG_BUFFERS))
		r = dp_udp_enable_gro(u);
	atomic_store_explicit(&u->gso_off, !gso, memory_order_relaxed);
	if (r < 0) {
		dp_udp_close(u);
		u->fd = -1;
	}
	return r;
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

int dp_roce_open(struct dp_nic *nic, struct dp_worker *w, const struct dp_roce_config *cfg)
{
	uint16_t port = cfg->port;
	struct dp_roce *r = calloc(1, sizeof(*r));
	int r4, r6;

	if (!r)
		return -ENOMEM;
	r->nic = nic;
	r->worker = w;
	r->port = port;
	r->segmentation = cfg->segmentation;
	r->faults = cfg->faults;
	r->rng = 0x9e3779b97f4a7c15ull ^ port;
	r->udp4.fd = r->udp6.fd = -1;
	for (unsigned i = 0; i < DP_UDP_BATCH; i++) {
		r->tx_bufs[i] = malloc(DP_ROCE_PKT_MAX);
		r->rx_bufs[i] = malloc(DP_UDP_GRO_BUF_SIZE);
		if (!r->tx_bufs[i] || !r->rx_bufs[i]) {
			endpoint_free(r);
			return -ENOMEM;
		}
	}
	r4 = open_socket(&r->udp4, AF_INET, port, DP_UDP_BIG_BUFFERS, cfg->segmentation);
	r6 = open_socket(&r->udp6, AF_INET6, port, DP_UDP_BIG_BUFFERS, cfg->segmentation);
	/* A host without IPv6 (or without IPv4) still serves the other family. */
	if (r4 < 0 && r6 < 0) {
		endpoint_free(r);
		return r4;
	}
	nic->remote = &roce_transport;
	nic->remote_ep = r;
	dp_worker_submit_wait(w, on_attach, r);
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
	if (r->worker->started && nic->running)
		dp_worker_submit_wait(r->worker, on_detach, r);
	nic->remote = NULL;
	nic->remote_ep = NULL;
	endpoint_free(r);
}
