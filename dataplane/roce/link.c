/* SPDX-License-Identifier: MIT */
/*
 * A RoCE v2 endpoint on a link (dp_roce_open_link): what a virtual machine's
 * device does on its TAP, as the guest's own NIC would, with the guest's
 * addresses.  Out: each packet of the batch as a frame, the link's vnet
 * header (zero: no offload asked), Ethernet to its route's next hop, the IP
 * and UDP headers its ICRC was sealed for (IPv4 ID 0 and DF), written at
 * once; a frame the link does not take is lost, as on a full NIC ring (RC
 * sends it again).  In: an IP datagram the driver found on the link goes
 * to the endpoint's worker by command and in as a socket's datagram would.
 */
#include "dataplane/roce/roce_int.h"
#include "dataplane/worker.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define ETH_HDR_LEN 14

void roce_link_send(struct dp_worker *w, struct dp_roce *r)
{
	for (unsigned i = 0; i < r->tx.n; i++) {
		const struct roce_ip_udp *hdr = &r->tx_hdr[i];
		uint8_t *eth = r->frame + r->link.vnet_hdr;
		size_t len = r->tx.iov[i].iov_len, ip_len = roce_ip_udp_len(hdr);
		uint16_t type = htons(roce_gid_is_ipv4(hdr->sgid) ? 0x0800 : 0x86dd);
		struct iovec iov[2] = {
			{ r->frame, r->link.vnet_hdr + ETH_HDR_LEN + ip_len }, { r->tx.iov[i].iov_base, len },
		};

		memset(r->frame, 0, r->link.vnet_hdr);
		memcpy(eth, r->tx_dmac[i], 6);
		memcpy(eth + 6, r->link.mac, 6);
		memcpy(eth + 12, &type, 2);
		if (!ip_len || roce_ip_udp_build(hdr, len, eth + ETH_HDR_LEN) != ROCE_OK ||
		    writev(r->link.fd, iov, 2) != (ssize_t)(iov[0].iov_len + len))
			DEVICE_COUNT(w, r->nic, tx_errors);
	}
}

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
