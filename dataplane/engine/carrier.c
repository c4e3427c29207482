/* SPDX-License-Identifier: MIT */
/*
 * Which transport carries a request: the QP's connection's when its path
 * leads off the NIC, the NIC's remote one for a UD WR to another host, else
 * the NIC's own (loopback).  Called per message and per turn, never per
 * packet.
 */
#include "dataplane/engine/engine.h"

#include <errno.h>

static const struct dp_transport *carrier(const struct dp_nic *nic, const struct dp_packet *p)
{
	const struct dp_qp *q = p->requester;

	if (!nic->remote)
		return nic->local;
	if (q->type == DP_QPT_UD)
		return q->wqes[p->index & q->sq.mask].slot.ud_remote ? nic->remote : nic->local;
	return q->transport ? q->transport : nic->local;
}

int dp_transport_request(struct dp_worker *w, struct dp_nic *nic, const struct dp_packet *p)
{
	const struct dp_transport *t = carrier(nic, p);

	/* A NIC the driver opened no loopback on reaches no QP of its own. */
	return t ? t->request(w, nic, p) : -EHOSTUNREACH;
}

void dp_transport_flush(struct dp_worker *w, struct dp_nic *nic)
{
	if (nic->local && nic->local->flush)
		nic->local->flush(w, nic);
	if (nic->remote && nic->remote->flush)
		nic->remote->flush(w, nic);
}

uint32_t dp_transport_psns(const struct dp_qp *q, const struct dp_send_wqe *wqe)
{
	return q->transport ? q->transport->psns(q, wqe) : 1;
}
