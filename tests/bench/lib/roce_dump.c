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

static void print_worker(FILE *f, const char *name, const char *when, struct dp_worker *w)
{
	const struct dp_worker_stats *st = &w->stats;

	fprintf(f, "%s: worker %u (%s): sleeping %u loops %llu sleeps %llu timers %llu fd_events %llu "
		"commands %llu work %llu\n", name, w->index, when,
		atomic_load_explicit(&w->commands.hdr->sleeping, memory_order_relaxed),
		(unsigned long long)atomic_load(&st->loops), (unsigned long long)atomic_load(&st->sleeps),
		(unsigned long long)atomic_load(&st->timers), (unsigned long long)atomic_load(&st->fd_events),
		(unsigned long long)atomic_load(&st->commands), (unsigned long long)atomic_load(&st->work));
}

void bench_roce_print_counters(FILE *f, const char *whose, const struct dp_roce_counters *c)
{
	fprintf(f, "  %s counters: tx %llu rx %llu retransmits %llu timeouts %llu naks_sent %llu naks_received %llu "
		"rnr_naks_sent %llu duplicates %llu out_of_sequence %llu rx_dropped %llu icrc_errors %llu "
		"tx_errors %llu faults %llu\n", whose,
		(unsigned long long)atomic_load(&c->tx_packets), (unsigned long long)atomic_load(&c->rx_packets),
		(unsigned long long)atomic_load(&c->retransmits), (unsigned long long)atomic_load(&c->timeouts),
		(unsigned long long)atomic_load(&c->naks_sent), (unsigned long long)atomic_load(&c->naks_received),
		(unsigned long long)atomic_load(&c->rnr_naks_sent), (unsigned long long)atomic_load(&c->duplicates),
		(unsigned long long)atomic_load(&c->out_of_sequence), (unsigned long long)atomic_load(&c->rx_dropped),
		(unsigned long long)atomic_load(&c->icrc_errors), (unsigned long long)atomic_load(&c->tx_errors),
		(unsigned long long)atomic_load(&c->faults));
}

/* The snapshot of q, taken on its worker; false when the worker does not take the command in time. */
static bool take_snapshot(struct dp_qp *q, struct dp_roce_qp_snapshot *out)
{
	struct probe *p = calloc(1, sizeof(*p));
	double deadline = bench_now() + ANSWER_SECONDS;

	if (!p)
		return false;
	p->q = q;
	if (dp_worker_submit(q->worker, on_probe, p) < 0) {
		free(p);
		return false;
	}
	while (!atomic_load_explicit(&p->done, memory_order_acquire) && bench_now() < deadline)
		sched_yield();
	if (!atomic_load_explicit(&p->done, memory_order_acquire))
		return false;
	*out = p->s;
	free(p);
	return true;
}

void bench_roce_dump(FILE *f, struct rdma_qp *const *qps, const char *const *names, unsigned n)
{
	struct dp_roce_qp_snapshot s[BENCH_ROCE_DUMP_MAX];
	bool taken[BENCH_ROCE_DUMP_MAX];
	char text[1024];

	n = n < BENCH_ROCE_DUMP_MAX ? n : BENCH_ROCE_DUMP_MAX;
	for (unsigned i = 0; i < n; i++)
		print_worker(f, names[i], "as found", soft_qp(qps[i])->worker);
	nanosleep(&(struct timespec){ .tv_nsec = 100 * 1000 * 1000 }, NULL);
	for (unsigned i = 0; i < n; i++)
		print_worker(f, names[i], "100 ms later", soft_qp(qps[i])->worker);
	/* One right after the other, so that the two ends of a connection are seen at one time. */
	for (unsigned i = 0; i < n; i++)
		taken[i] = take_snapshot(soft_qp(qps[i]), &s[i]);
	for (unsigned i = 0; i < n; i++) {
		struct dp_qp *q = soft_qp(qps[i]);

		fprintf(f, "%s:\n", names[i]);
		if (!taken[i]) {
			fprintf(f, "  the worker did not take a command in %.0f s: stuck inside a turn\n",
				ANSWER_SECONDS);
			continue;
		}
		dp_roce_qp_snapshot_format(&s[i], text, sizeof(text));
		fputs(text, f);
		bench_roce_print_counters(f, "QP", &q->counters.roce);
	}
}
