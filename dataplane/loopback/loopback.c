/* SPDX-License-Identifier: MIT */
/*
 * The loopback transport: requests and responses between QPs of one NIC.
 * On one worker they are calls (the responder runs inside the requester's
 * send, the completer inside the responder's answer), so a pair of QPs on
 * one worker costs no queue at all.  Between two workers each direction has
 * a request queue and a response queue; a worker takes requests from another
 * only while it has room for their responses, and always takes responses, so
 * the queues never wait on each other in a circle.
 */
#include "dataplane/loopback/loopback.h"
#include "dataplane/engine/engine.h"

#include <errno.h>
#include <stdlib.h>

/* Entries of each queue between two workers. */
#define LOOPBACK_QUEUE_ENTRIES 512
/* Packets one worker takes from one other per turn. */
#define LOOPBACK_BUDGET 64

/* The queue w sends kind through to worker to (its inbound queue from w). */
static struct dp_queue *queue_to(struct dp_nic *nic, unsigned to, unsigned from, enum dp_packet_kind kind)
{
	struct dp_nic_worker *nw = &nic->per_worker[to];

	return kind == DP_PKT_REQUEST ? &nw->requests[from] : &nw->responses[from];
}

/* Responder on worker w: a request that came from worker from is executed and answered. */
static void respond(struct dp_worker *w, struct dp_nic *nic, unsigned from, const struct dp_packet *req)
{
	struct dp_packet resp;

	dp_resp_request(w, nic, req, &resp);
	if (from == w->index) {
		dp_comp_response(w, nic, &resp);
		return;
	}
	/* Room was there before the request was taken (loopback_poll), and only w produces here. */
	dp_queue_push(queue_to(nic, from, w->index, DP_PKT_RESPONSE), &resp);
	dp_worker_wake(nic->workers[from]);
}

static int loopback_request(struct dp_worker *w, struct dp_nic *nic, const struct dp_packet *p)
{
	struct dp_worker *to = dp_nic_qp_worker(nic, p->qpn);

	if (!to)
		return -EHOSTUNREACH;
	if (to == w) {
		respond(w, nic, w->index, p);
		return 0;
	}
	if (!dp_queue_push(queue_to(nic, to->index, w->index, DP_PKT_REQUEST), p))
		return -EAGAIN;
	dp_worker_wake(to);
	return 0;
}

/* Worker: takes what other workers sent it (the NIC's poller on every worker). */
static unsigned loopback_poll(struct dp_worker *w, void *arg)
{
	struct dp_nic *nic = arg;
	struct dp_nic_worker *nw = &nic->per_worker[w->index];
	struct dp_packet p;
	unsigned n = 0;

	for (unsigned from = 0; from < nic->n_workers; from++) {
		struct dp_queue *responses_out = queue_to(nic, from, w->index, DP_PKT_RESPONSE);

		if (from == w->index)
			continue;
		for (unsigned k = 0; k < LOOPBACK_BUDGET && dp_queue_pop(&nw->responses[from], &p); k++, n++)
			if (p.kind == DP_PKT_RESPONSE)
				dp_comp_response(w, nic, &p);
		for (unsigned k = 0; k < LOOPBACK_BUDGET && dp_queue_room(responses_out) &&
				     dp_queue_pop(&nw->requests[from], &p); k++, n++)
			if (p.kind == DP_PKT_REQUEST)
				respond(w, nic, from, &p);
	}
	return n;
}

/* Queues between two workers, each way. */
static int queues_init(struct dp_nic *nic)
{
	unsigned n = nic->n_workers;

	for (unsigned i = 0; i < n; i++) {
		struct dp_nic_worker *nw = &nic->per_worker[i];

		nw->requests = calloc(n, sizeof(*nw->requests));
		nw->responses = calloc(n, sizeof(*nw->responses));
		if (!nw->requests || !nw->responses)
			return -ENOMEM;
		for (unsigned j = 0; j < n; j++) {
			nw->requests[j].doorbell = nw->responses[j].doorbell = -1;
			/* A worker calls its own responder: no queue to itself. */
			if (i == j)
				continue;
			if (dp_queue_init(&nw->requests[j], LOOPBACK_QUEUE_ENTRIES, sizeof(struct dp_packet), 0) < 0 ||
			    dp_queue_init(&nw->responses[j], LOOPBACK_QUEUE_ENTRIES, sizeof(struct dp_packet), 0) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

static void loopback_leave(struct dp_worker *w, struct dp_nic *nic)
{
	dp_worker_remove_poller(w, loopback_poll, nic);
}

static void loopback_release(struct dp_nic *nic)
{
	for (unsigned i = 0; nic->per_worker && i < nic->n_workers; i++) {
		struct dp_nic_worker *nw = &nic->per_worker[i];

		for (unsigned j = 0; j < nic->n_workers; j++) {
			if (nw->requests && nw->requests[j].hdr)
				dp_queue_release(&nw->requests[j]);
			if (nw->responses && nw->responses[j].hdr)
				dp_queue_release(&nw->responses[j]);
		}
		free(nw->requests);
		free(nw->responses);
	}
}

static const struct dp_transport loopback = {
	.name = "loopback",
	.request = loopback_request,
	.leave = loopback_leave,
	.release = loopback_release,
};

/* The NIC's poller comes before any QP's: the worker's table has room for it. */
static void on_add_poller(struct dp_worker *w, void *nic)
{
	(void)dp_worker_add_poller(w, loopback_poll, nic);
}

int dp_loopback_open(struct dp_nic *nic)
{
	int r = queues_init(nic);

	if (r < 0) {
		loopback_release(nic);
		return r;
	}
	nic->local = &loopback;
	for (unsigned i = 0; i < nic->n_workers; i++)
		dp_worker_submit_wait(nic->workers[i], on_add_poller, nic);
	return 0;
}
