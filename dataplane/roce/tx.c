/* SPDX-License-Identifier: MIT */
/*
 * What leaves the RoCE v2 endpoint (reference roce_virtio.md §2.1, §2.7,
 * §2.9): packets built in place with their ICRC sealed for the headers the
 * kernel writes, queued in the endpoint's batch with the faults a test asked
 * for, and sent together, runs to one peer as one send; the sockets they
 * leave by, one per UDP source port.  Packets leave from the address of
 * their source GID, with DF and so IPv4 ID 0, the only headers a receiver
 * on a socket can rebuild to check the ICRC.
 */
#include "dataplane/roce/roce_int.h"
#include "dataplane/roce/icrc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

void roce_route_bind(struct dp_roce *r, struct dp_roce_route *route)
{
	int family = route->to.sa.sa_family;
	uint16_t sport = route->hdr.sport;
	struct roce_sport **b = &r->sports[sport % ROCE_SPORT_BUCKETS], *s;

	/* A link endpoint writes its own headers: any source port, no socket. */
	if (r->is_link) {
		route->sock = NULL;
		return;
	}

	for (s = *b; s; s = s->next)
		if (s->udp.local.sa.sa_family == family && dp_udp_addr_port(&s->udp.local) == sport)
			break;
	if (!s && (s = calloc(1, sizeof(*s)))) {
		/* Sends only: the peer answers to its port 4791, which the endpoint's sockets receive. */
		if (roce_open_socket(&s->udp, family, sport, 0, r->segmentation) < 0) {
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
		memcpy(r->tx_dmac[i], r->held_dmac, sizeof(r->held_dmac));
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
	if (r->is_link)
		roce_link_send(w, r);
	else if (sock && sock->fd >= 0 && dp_udp_send_batch(sock, &r->tx) < r->tx.n)
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
		memcpy(r->tx_dmac[i + 1], r->tx_dmac[i], sizeof(r->tx_dmac[i]));
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
		memcpy(r->held_dmac, r->tx_dmac[i], sizeof(r->held_dmac));
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
	memcpy(r->tx_dmac[i], route->dmac, sizeof(r->tx_dmac[i]));
	dp_udp_tx_add_from(&r->tx, &r->tx_to[i], &r->tx_from[i], r->tx_bufs[i], n, 0);
	if (inject_fault(w, r, i, n))
		r->tx.n--;
}

/* ---- receiving ---- */

/*
 * An endpoint socket (DP_UDP_BIG_BUFFERS) receives, with the local address of each datagram
 * and GRO; any socket sends, runs as one GSO send only with gso.
 */
int roce_open_socket(struct dp_udp *u, int family, uint16_t port, unsigned flags, bool gso)
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
