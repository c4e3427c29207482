/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "daemon/vnic/mad_fabric.h"
#include "dataplane/opa/fabric.h"

struct mad_fabric {
	struct mad_transport t;		/* first: the ops get this pointer */
	struct opa_fabric *fab;
};

static struct mad_fabric *mad_fabric(struct mad_transport *t)
{
	return (struct mad_fabric *)t;
}

static int fabric_send(struct mad_transport *t, const struct mad_addr *to, const uint8_t *mad,
		       size_t len)
{
	struct opa9b_mad_addr a = {
		/* One VL per SL on the software fabric: SC = SL. */
		.sc = to->sl, .sl = to->sl, .dlid = to->lid, .pkey = to->pkey,
		.src_qp = OPA9B_GSI_QP,
	};

	/* A 9B packet carries 16-bit LIDs and always goes to QP1 here. */
	if (to->lid > 0xffff || to->sl > 0xf)
		return -EINVAL;
	if (to->qpn != OPA9B_GSI_QP)
		return -EINVAL;
	return opa_fabric_send_mad(mad_fabric(t)->fab, &a, mad, len);
}

static uint32_t fabric_lid(struct mad_transport *t)
{
	return opa_fabric_lid(mad_fabric(t)->fab);
}

static void fabric_free(struct mad_transport *t)
{
	free(mad_fabric(t));
}

static const struct mad_transport_ops fabric_ops = {
	.name = "fabric",
	.send = fabric_send,
	.lid = fabric_lid,
	.free = fabric_free,
};

int mad_fabric_open(struct mad_transport **out, struct opa_fabric *fab, mad_recv_fn recv,
		    void *userdata)
{
	struct mad_fabric *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	m->t = (struct mad_transport){ .ops = &fabric_ops, .recv = recv, .userdata = userdata };
	m->fab = fab;
	*out = &m->t;
	return 0;
}

static void deliver(void *arg, const struct opa9b_mad_addr *from, const uint8_t *mad, size_t len)
{
	struct mad_transport *t = arg;
	struct mad_addr a = {
		.lid = from->slid, .sl = from->sl, .pkey = from->pkey, .qpn = from->src_qp,
	};

	if (t->recv)
		t->recv(t->userdata, &a, mad, len);
}

unsigned mad_fabric_dispatch(struct mad_transport *t)
{
	return opa_fabric_mad_drain(mad_fabric(t)->fab, deliver, t, 0);
}

struct opa_fabric *mad_fabric_of(struct mad_transport *t)
{
	return mad_fabric(t)->fab;
}
