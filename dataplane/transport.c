/* SPDX-License-Identifier: MIT */
/* Which transport carries a request: RoCE v2 to another host, loopback inside the NIC. */
#include "dataplane/engine.h"

int dp_transport_request(struct dp_worker *w, struct dp_nic *nic, const struct dp_packet *p)
{
	if (dp_roce_carries(nic, p))
		return dp_roce_request(w, nic, p);
	return dp_loopback_request(w, nic, p);
}

void dp_transport_flush(struct dp_worker *w, struct dp_nic *nic)
{
	if (nic->roce)
		dp_roce_flush(w, nic);
}

uint32_t dp_transport_psns(const struct dp_qp *q, const struct dp_send_wqe *wqe)
{
	return q->roce && q->roce->path.remote ? dp_roce_psns(q, wqe) : 1;
}
