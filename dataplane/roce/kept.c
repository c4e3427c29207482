/* SPDX-License-Identifier: MIT */
/*
 * Request packets that came after a gap, kept by an RC responder until the
 * gap fills (selective retransmission, docs/decisions.md "RoCE v2
 * transport").  The responder still NAKs the gap once, as the standard
 * asks; what it keeps runs, in order, as soon as the missing packet comes,
 * and the ACK that follows covers it, so a requester that sends the NAKed
 * packet alone again has nothing else to send twice.  A requester that goes
 * back N anyway finds the packets it sends again already acknowledged, and
 * they are answered as duplicates: what the two ends end up with is what
 * in-order delivery gives.  At most ROCE_KEPT_MAX packets past the expected
 * PSN, each a copy of its own (the receive buffer they came in is reused);
 * nothing is held while nothing is missing.
 */
#include <stdlib.h>
#include <string.h>

#include "dataplane/roce/roce_int.h"

struct roce_kept {
	unsigned n;
	struct roce_kept_pkt *slot[ROCE_KEPT_MAX];   /* by PSN modulo ROCE_KEPT_MAX */
};

bool roce_kept_add(struct dp_roce_qp *c, const struct roce_pkt *p)
{
	uint32_t ahead = (uint32_t)dp_psn_diff(p->bth.psn, c->epsn);
	struct roce_kept_pkt **slot, *k;

	if (ahead == 0 || ahead >= ROCE_KEPT_MAX)
		return false;
	if (!c->kept) {
		c->kept = calloc(1, sizeof(*c->kept));
		if (!c->kept)
			return false;
	}
	slot = &c->kept->slot[p->bth.psn % ROCE_KEPT_MAX];
	if (*slot && (*slot)->pkt.bth.psn == p->bth.psn)
		return false;                 /* kept already: a copy the requester sent again */
	k = malloc(sizeof(*k) + p->payload_len);
	if (!k)
		return false;
	k->pkt = *p;
	memcpy(k->bytes, p->payload, p->payload_len);
	k->pkt.payload = k->bytes;
	k->pkt.icrc = NULL;
	if (*slot) {                          /* a stale one, from before the expected PSN */
		free(*slot);
		c->kept->n--;
	}
	*slot = k;
	c->kept->n++;
	return true;
}

struct roce_kept_pkt *roce_kept_take(struct dp_roce_qp *c, uint32_t psn)
{
	struct roce_kept_pkt **slot, *k;

	if (!c->kept)
		return NULL;
	slot = &c->kept->slot[psn % ROCE_KEPT_MAX];
	k = *slot;
	if (!k || k->pkt.bth.psn != psn)
		return NULL;
	*slot = NULL;
	c->kept->n--;
	return k;
}

bool roce_kept_beyond(const struct dp_roce_qp *c)
{
	return c->kept && c->kept->n;
}

void roce_kept_forget(struct dp_roce_qp *c)
{
	if (!c->kept)
		return;
	for (unsigned i = 0; i < ROCE_KEPT_MAX; i++)
		free(c->kept->slot[i]);
	free(c->kept);
	c->kept = NULL;
}
