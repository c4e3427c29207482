/* SPDX-License-Identifier: MIT */
#include "dataplane/nic.h"
#include "dataplane/cq.h"
#include "dataplane/mkey.h"
#include "dataplane/transport.h"
#include "dataplane/worker.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void free_key_entry(struct dp_key *k)
{
	dp_mkey_free(k->mkey);
}

void dp_nic_defer_notify(struct dp_worker *w, struct dp_nic *nic, struct dp_cq *cq, bool solicited)
{
	struct dp_nic_worker *pw = &nic->per_worker[w->index];

	for (unsigned i = 0; i < pw->n_notify; i++)
		if (pw->notify[i] == cq) {
			pw->notify_solicited[i] |= solicited;
			return;
		}
	if (pw->n_notify == DP_NOTIFY_PENDING_MAX) {
		dp_cq_ring_notify(cq, solicited);
		return;
	}
	/* Held: a CQ the driver lets go of meanwhile is not freed under the turn's end. */
	pw->notify[pw->n_notify] = dp_cq_get(cq);
	pw->notify_solicited[pw->n_notify++] = solicited;
}

static void notify_turn(struct dp_worker *w, void *arg)
{
	struct dp_nic *nic = arg;
	struct dp_nic_worker *pw = &nic->per_worker[w->index];

	if (pw->cq_untold) {
		struct dp_event any = { .type = DP_EVENT_CQ_ENTRY, .cookie = (uint64_t)(uintptr_t)nic };

		pw->cq_untold = !dp_worker_emit(w, &any);
	}
	if (!pw->n_notify)
		return;
	atomic_thread_fence(memory_order_seq_cst);
	for (unsigned i = 0; i < pw->n_notify; i++) {
		dp_cq_ring_check(pw->notify[i], pw->notify_solicited[i]);
		dp_cq_put(pw->notify[i]);
	}
	pw->n_notify = 0;
}

static void on_add_turn_end(struct dp_worker *w, void *nic)
{
	(void)dp_worker_add_turn_end(w, notify_turn, nic);
}

/* Worker: the NIC leaves it; nothing of the NIC runs on it after this. */
static void on_leave(struct dp_worker *w, void *arg)
{
	struct dp_nic *nic = arg;

	if (nic->local && nic->local->leave)
		nic->local->leave(w, nic);
	dp_worker_remove_turn_end(w, notify_turn, nic);
}

/* Each worker's first buckets of QPs by number (they grow on the worker, dp_qp_attach). */
static int qp_buckets_init(struct dp_nic *nic)
{
	for (unsigned i = 0; i < nic->n_workers; i++) {
		nic->per_worker[i].qps = calloc(DP_QP_BUCKETS, sizeof(*nic->per_worker[i].qps));
		if (!nic->per_worker[i].qps)
			return -ENOMEM;
		nic->per_worker[i].n_buckets = DP_QP_BUCKETS;
	}
	return 0;
}

int dp_nic_init(struct dp_nic *nic, struct dp_worker **workers, unsigned n, uint32_t n_mr,
		uint32_t n_mkey, uint32_t n_qpn)
{
	int r;

	memset(nic, 0, sizeof(*nic));
	nic->workers = workers;
	nic->n_workers = n;
	nic->n_qpn = n_qpn;
	nic->per_worker = calloc(n, sizeof(*nic->per_worker));
	nic->qp_worker = calloc(n_qpn, sizeof(*nic->qp_worker));
	if (!nic->per_worker || !nic->qp_worker || qp_buckets_init(nic) < 0) {
		dp_nic_release(nic);
		return -ENOMEM;
	}
	r = dp_keytab_init(&nic->keytab, n_mr, n_mkey);
	if (r < 0) {
		dp_nic_release(nic);
		return r;
	}
	nic->keytab.free_entry = free_key_entry;
	dp_keytab_set_workers(&nic->keytab, workers, n);
	nic->running = true;
	for (unsigned i = 0; i < n; i++)
		dp_worker_submit_wait(workers[i], on_add_turn_end, nic);
	return 0;
}

void dp_nic_workers_stopped(struct dp_nic *nic)
{
	nic->running = false;
	/* No worker reads the key table any more: entries go at once. */
	dp_keytab_set_workers(&nic->keytab, NULL, 0);
}

void dp_nic_leave(struct dp_nic *nic)
{
	for (unsigned i = 0; nic->running && i < nic->n_workers; i++)
		dp_worker_run(nic->workers[i], on_leave, nic);
	dp_nic_workers_stopped(nic);
}

void dp_nic_release(struct dp_nic *nic)
{
	struct dp_report *r = nic->per_worker ? dp_nic_take_reports(nic) : NULL;

	while (r) {
		struct dp_report *next = r->next;

		free(r);
		r = next;
	}
	if (nic->running)
		dp_nic_leave(nic);
	if (nic->local && nic->local->release)
		nic->local->release(nic);
	for (unsigned i = 0; nic->per_worker && i < nic->n_workers; i++) {
		free(nic->per_worker[i].scratch[0]);
		free(nic->per_worker[i].scratch[1]);
		free(nic->per_worker[i].qps);
		/* A worker stopped before its turn ended (a test's): what it held goes. */
		for (unsigned k = 0; k < nic->per_worker[i].n_notify; k++)
			dp_cq_put(nic->per_worker[i].notify[k]);
	}
	if (nic->keytab.slots)
		dp_keytab_release(&nic->keytab);
	free(nic->per_worker);
	free(nic->qp_worker);
	memset(nic, 0, sizeof(*nic));
}

struct dp_report *dp_nic_take_reports(struct dp_nic *nic)
{
	struct dp_report *all = NULL, **tail = &all;

	for (unsigned i = 0; i < nic->n_workers; i++) {
		struct dp_report *r = atomic_exchange_explicit(&nic->per_worker[i].reports, NULL,
							      memory_order_acquire);
		struct dp_report *fifo = NULL;

		/* Pushed newest first: turned around, oldest first. */
		while (r) {
			struct dp_report *next = r->next;

			r->next = fifo;
			fifo = r;
			r = next;
		}
		*tail = fifo;
		while (*tail)
			tail = &(*tail)->next;
	}
	return all;
}

void dp_nic_counters(struct dp_nic *nic, struct dp_counters *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned i = 0; i < nic->n_workers; i++)
		dp_counters_add(out, &nic->per_worker[i].counters);
}

struct dp_worker *dp_nic_qp_worker(struct dp_nic *nic, uint32_t qpn)
{
	uint32_t i = qpn < nic->n_qpn ? atomic_load_explicit(&nic->qp_worker[qpn], memory_order_acquire) : 0;

	return i && i <= nic->n_workers ? nic->workers[i - 1] : NULL;
}
