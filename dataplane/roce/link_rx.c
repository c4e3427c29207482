/* SPDX-License-Identifier: MIT */
/*
 * A RoCE v2 link endpoint's way in (dp_roce_open_link): an IP datagram the
 * driver found on the link goes to the endpoint's worker by command and in
 * as a socket's datagram would.  The way out is link_tx.c.
 */
#include "dataplane/roce/roce_int.h"
#include "dataplane/worker.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A datagram on its way to the endpoint's worker. */
struct link_datagram {
	struct dp_nic *nic;
	size_t len;
	uint8_t ip[];
};

/* The socket address of an IPv4 or IPv6 header's source or destination, with port. */
static void ip_addr(const uint8_t *ip, bool dst, uint16_t port, struct dp_udp_addr *a)
{
	memset(a, 0, sizeof(*a));
	if ((ip[0] >> 4) == 4) {
		a->in.sin_family = AF_INET;
		memcpy(&a->in.sin_addr, ip + (dst ? 16 : 12), 4);
		a->in.sin_port = port;
		a->len = sizeof(a->in);
	} else {
		a->in6.sin6_family = AF_INET6;
		memcpy(&a->in6.sin6_addr, ip + (dst ? 24 : 8), 16);
		a->in6.sin6_port = port;
		a->len = sizeof(a->in6);
	}
}

static void on_link_datagram(struct dp_worker *w, void *arg)
{
	struct link_datagram *d = arg;
	struct dp_udp_addr from, to;
	struct roce_ip_view v;
	uint16_t ports[2];

	/* Checked again here: the copy is all the worker trusts. */
	if (roce_ip_locate(d->ip, d->len, &v) == ROCE_OK && d->nic->remote_ep) {
		memcpy(ports, d->ip + v.ip_udp_len - ROCE_UDP_HDR_LEN, sizeof(ports));
		ip_addr(d->ip, false, ports[0], &from);
		ip_addr(d->ip, true, ports[1], &to);
		dp_roce_input(w, d->nic, v.transport, v.transport_len, &from, &to);
	}
	free(d);
}

int dp_roce_link_input(struct dp_nic *nic, const uint8_t *ip, size_t len)
{
	struct dp_roce *r = roce_ep(nic);
	struct link_datagram *d;
	int err;

	if (!r || !r->is_link || len > ROCE_IP_UDP_MAX + DP_ROCE_PKT_MAX)
		return -EINVAL;
	d = malloc(sizeof(*d) + len);
	if (!d)
		return -ENOMEM;
	d->nic = nic;
	d->len = len;
	memcpy(d->ip, ip, len);
	err = dp_worker_submit(r->worker, on_link_datagram, d);
	if (err < 0)
		free(d);
	return err;
}
