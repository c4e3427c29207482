/* SPDX-License-Identifier: MIT */
#include "tests/bench/lib/roce_dump.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "daemon/soft/datapath.h"
#include "dataplane/worker.h"
#include "tests/bench/lib/verbs.h"

/* How long the worker has to take the snapshot command: a worker that runs its turns takes it at once. */
#define ANSWER_SECONDS 2.0

/* Handed to the worker; left to it (never freed) when it does not answer in time. */
struct probe {
	struct dp_qp *q;
	struct dp_roce_qp_snapshot s;
	_Atomic bool done;
};

static void on_probe(struct dp_worker *w, void *arg)
{
	struct probe *p = arg;

	dp_roce_qp_snapshot(w, p->q, &p->s);
	atomic_store_explicit(&p->done, true, memory_order_release);
}

static void print_worker(FILE *f, const char *when, struct dp_worker *w)
{
	const struct dp_worker_stats *st = &w->stats;

	fprintf(f, "  worker %u (%s): sleeping %u loops %llu sleeps %llu timers %llu fd_events %llu "
		"commands %llu work %llu\n", w->index, when,
		atomic_load_explicit(&w->commands.hdr->sleeping, memory_order_relaxed),
		(unsigned long long)atomic_load(&st->loops), (unsigned long long)atomic_load(&st->sleeps),
		(unsigned long long)atomic_load(&st->timers), (unsigned long long)atomic_load(&st->fd_events),
		(unsigned long long)atomic_load(&st->commands), (unsigned long long)atomic_load(&st->work));
}

static void print_counters(FILE *f, const struct dp_roce_counters *c)
{
	fprintf(f, "  counters: tx %llu rx %llu retransmits %llu timeouts %llu naks_sent %llu naks_received %llu "
		"rnr_naks_sent %llu duplicates %llu out_of_sequence %llu rx_dropped %llu\n",
		(unsigned long long)atomic_load(&c->tx_packets), (unsigned long long)atomic_load(&c->rx_packets),
		(unsigned long long)atomic_load(&c->retransmits), (unsigned long long)atomic_load(&c->timeouts),
		(unsigned long long)atomic_load(&c->naks_sent), (unsigned long long)atomic_load(&c->naks_received),
		(unsigned long long)atomic_load(&c->rnr_naks_sent), (unsigned long long)atomic_load(&c->duplicates),
		(unsigned long long)atomic_load(&c->out_of_sequence), (unsigned long long)atomic_load(&c->rx_dropped));
}

void bench_roce_dump(FILE *f, const char *name, struct rdma_qp *qp)
{
	struct dp_qp *q = soft_qp(qp);
	struct dp_worker *w = q->worker;
	struct probe *p = calloc(1, sizeof(*p));
	char text[1024];
	double deadline;

	fprintf(f, "%s:\n", name);
	if (!w || !p) {
		fprintf(f, "  no worker runs the QP\n");
		free(p);
		return;
	}
	print_worker(f, "as found", w);
	nanosleep(&(struct timespec){ .tv_nsec = 100 * 1000 * 1000 }, NULL);
	print_worker(f, "100 ms later", w);
	p->q = q;
	deadline = bench_now() + ANSWER_SECONDS;
	if (dp_worker_submit(w, on_probe, p) < 0) {
		fprintf(f, "  the worker's command queue is full\n");
		free(p);
		return;
	}
	while (!atomic_load_explicit(&p->done, memory_order_acquire) && bench_now() < deadline)
		sched_yield();
	if (!atomic_load_explicit(&p->done, memory_order_acquire)) {
		fprintf(f, "  the worker did not take a command in %.0f s: stuck inside a turn\n", ANSWER_SECONDS);
		return;
	}
	dp_roce_qp_snapshot_format(&p->s, text, sizeof(text));
	fputs(text, f);
	print_counters(f, &q->counters.roce);
	free(p);
}
