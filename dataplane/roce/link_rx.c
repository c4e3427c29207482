/* SPDX-License-Identifier: MIT */
/*
 * A RoCE v2 link endpoint's way in (dp_roce_open_link): an IP datagram the
 * driver found on the link goes to the endpoint's worker by command and in
 * as the packet path's datagrams do, its header seen (net.c, roce_rx_ip).
 * The way out is link_tx.c.
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

static void on_link_datagram(struct dp_worker *w, void *arg)
{
	struct link_datagram *d = arg;

	/* The copy is all the worker trusts: checked again there, every ICRC against its header. */
	if (d->nic->remote_ep)
		roce_rx_ip(w, roce_ep(d->nic), d->ip, d->len);
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
