/* SPDX-License-Identifier: MIT */
/*
 * bench_load: the control plane under load, against a real rdmad whose state
 * directory is on disk (tests/bench/lib/rdmad.h: $BENCH_DIR, else $BUILD), so
 * that every change pays its fsyncs.  A client is a process with its own
 * connection making one call at a time, as rdmactl and scripts are; every
 * call's latency (CLOCK_MONOTONIC) is a sample, and a row's percentiles are
 * over all its clients' samples.  Not threads of one process: they would share
 * its locks (json-c takes glibc's locale lock, a process-wide one, twice per
 * parse), and readers would wait for writers inside the bench, not in rdmad.
 *
 *   reads:   Device.List, Device.Show and Dek.Show of a DEK made beforehand,
 *            in turn: replies whose size does not depend on what the writers
 *            add, so that a row beside writers differs from one without them
 *            only by the writers' load (not Pool.Show: a device holds at most
 *            64 pools, and the 64 writers hold one each);
 *   changes: per client, on a pool and a DEK of its own, Pool.Create (4
 *            signature MKEYs), Dek.Create (AES-128-XTS from a key file),
 *            Pool.Resize to 8, Dek.Destroy, Pool.Destroy in turn: each a
 *            change rdmad saves in its state directory before replying.
 *
 * Rows, PHASE_SECONDS each ($BENCH_SECONDS to change): 64 readers; 64
 * writers.  Then the readers' latency under a write load: 8 readers alone,
 * and 64 writers with 8 readers at once, in ROUNDS interleaved rounds of
 * half a phase each (alone first, then beside first in the next round), as
 * bench_datapath and bench_roce take interleaved samples: a stall of the
 * machine (another tenant, the disk, a kernel worker) falls in one round
 * rather than on one side of the comparison.  Those rows print each figure's
 * median over the rounds, and the ratio is the median of the rounds' own
 * ratios, printed with every round's.  rdmad's VmRSS before and after each
 * phase (the clients gone), and its VmHWM after it.  A writer stopped in
 * mid-cycle finishes the cycle untimed, so that every phase starts from the
 * same objects.
 */
#include "lib/json-util.h"
#include "lib/varlink/varlink.h"
#include "tests/bench/lib/rdmad.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PHASE_SECONDS   3.0
#define ROUNDS          5
#define SETTLE_US       300000
#define CLIENTS         64
#define READERS_BESIDE  8
#define POOL_SIZE       4
#define DEK_BITS        128
#define FIXTURE         "reads"
#define MAX_STEPS       5
#define N(a)            (sizeof(a) / sizeof((a)[0]))

/* One call of a client's cycle; its parameters are made once per client. */
struct step {
	const char *method;
	bool name;		/* the client's pool or DEK name */
	const char *type;	/* Pool.Create's */
	int size;		/* 0: none */
	bool key_file;
};

struct workload {
	const struct step *steps;
	unsigned n_steps;
};

static const struct step read_steps[] = {
	{ .method = "io.rdmad.Device.List" },
	{ .method = "io.rdmad.Device.Show" },
	{ .method = "io.rdmad.Dek.Show", .name = true },
};

static const struct step change_steps[] = {
	{ .method = "io.rdmad.Pool.Create", .name = true, .type = "signature", .size = POOL_SIZE },
	{ .method = "io.rdmad.Dek.Create", .name = true, .size = DEK_BITS, .key_file = true },
	{ .method = "io.rdmad.Pool.Resize", .name = true, .size = 2 * POOL_SIZE },
	{ .method = "io.rdmad.Dek.Destroy", .name = true },
	{ .method = "io.rdmad.Pool.Destroy", .name = true },
};

static const struct workload reads = { read_steps, N(read_steps) };
static const struct workload changes = { change_steps, N(change_steps) };
/* What the readers show: a Dek.Create as the writers' (FIXTURE the name). */
static const struct workload fixture = { &change_steps[1], 1 };
_Static_assert(N(read_steps) <= MAX_STEPS && N(change_steps) <= MAX_STEPS, "MAX_STEPS");

/*
 * What a client process reports, in memory shared with the bench: room for
 * more samples than rdmad could answer calls (bench_varlink's figures), so
 * that a full log is a failure.
 */
#define CALLS_PER_S_MAX 200000

struct client_log {
	char failure[512];
	size_t n, cap;
	uint64_t ns[];
};

struct result {
	double calls_per_s, p50_ms, p99_ms;
};

/* A row: clients doing one workload; the rows of a phase run at once. */
struct row {
	const char *name;
	const struct workload *work;
	unsigned clients;
	struct result res;
};

struct phase {
	const char *socket;
	const char *key_file;
	double seconds;
	pthread_barrier_t *start;	/* process-shared */
};

struct client {
	pid_t pid;
	struct phase *phase;
	const struct workload *work;
	struct json_object *params[MAX_STEPS];
	unsigned step;
	struct client_log *log;
	size_t log_bytes;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Shared memory the bench and its client processes both see (zeroed, touched only as used). */
static void *map_shared(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static int log_add(struct client_log *log, uint64_t ns)
{
	if (log->n == log->cap)
		return -ENOBUFS;
	log->ns[log->n++] = ns;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The pct-th percentile (nearest rank), in ms, of n sorted samples. */
static double percentile_ms(const uint64_t *ns, size_t n, unsigned pct)
{
	size_t rank = (n * pct + 99) / 100;

	if (!n)
		return NAN;
	return (double)ns[rank ? rank - 1 : 0] / 1e6;
}

static struct json_object *step_params(const struct step *s, const char *name,
				       const char *key_file)
{
	struct json_object *o;

	if (!s->name)
		return NULL;
	o = json_object_new_object();
	json_add_string(o, "name", name);
	if (s->type)
		json_add_string(o, "type", s->type);
	if (s->size)
		json_add_int(o, "size", s->size);
	if (s->key_file)
		json_add_string(o, "key_file", key_file);
	return o;
}

static int client_init(struct client *c, struct phase *phase, const struct workload *work,
		       const char *name)
{
	size_t cap = (size_t)(phase->seconds * CALLS_PER_S_MAX) + 1024;

	c->phase = phase;
	c->work = work;
	c->log_bytes = sizeof(*c->log) + cap * sizeof(c->log->ns[0]);
	c->log = map_shared(c->log_bytes);
	if (!c->log)
		return -errno;
	c->log->cap = cap;
	for (unsigned i = 0; i < work->n_steps; i++)
		c->params[i] = step_params(&work->steps[i], name, phase->key_file);
	return 0;
}

static void client_free(struct client *c)
{
	for (unsigned i = 0; c->work && i < c->work->n_steps; i++)
		json_object_put(c->params[i]);
	if (c->log)
		munmap(c->log, c->log_bytes);
}

static int fail(struct client *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->log->failure, sizeof(c->log->failure), fmt, ap);
	va_end(ap);
	return -EPROTO;
}

/* The client's next call; its latency is a sample when timed. */
static int call_step(struct client *c, struct varlink_client *vc, bool timed)
{
	const char *method = c->work->steps[c->step].method;
	struct json_object *reply;
	char *error = NULL;
	uint64_t t0 = now_ns();
	int r;

	r = varlink_client_call(vc, method, c->params[c->step], &reply, &error);
	if (r < 0)
		return fail(c, "%s: %s", method, strerror(-r));
	if (error) {
		fail(c, "%s: %s %s", method, error, json_object_to_json_string(reply));
		free(error);
		json_object_put(reply);
		return -EPROTO;
	}
	json_object_put(reply);
	c->step = (c->step + 1) % c->work->n_steps;
	if (timed && log_add(c->log, now_ns() - t0) < 0)
		return fail(c, "more than %u calls/s: raise CALLS_PER_S_MAX", CALLS_PER_S_MAX);
	return 0;
}

/* A client process's life: it connects, waits for the others, calls until the phase ends. */
static void run_client(struct client *c)
{
	struct varlink_client *vc = NULL;
	uint64_t end;
	int r;

	r = varlink_client_connect(&vc, c->phase->socket);
	if (r < 0)
		fail(c, "connect %s: %s", c->phase->socket, strerror(-r));
	pthread_barrier_wait(c->phase->start);
	if (r < 0)
		return;
	end = now_ns() + (uint64_t)(c->phase->seconds * 1e9);
	while (now_ns() < end && call_step(c, vc, true) == 0)
		;
	while (!c->log->failure[0] && c->step != 0)
		call_step(c, vc, false);
	varlink_client_free(vc);
}

/* The row's figures from all samples of its clients, sorted together. */
static int summarize(struct row *row, const struct client *clients, double seconds)
{
	size_t n = 0, total = 0;
	uint64_t *all;

	for (unsigned i = 0; i < row->clients; i++)
		total += clients[i].log->n;
	all = malloc((total ? total : 1) * sizeof(*all));
	if (!all)
		return -ENOMEM;
	for (unsigned i = 0; i < row->clients; i++) {
		const struct client_log *log = clients[i].log;

		memcpy(all + n, log->ns, log->n * sizeof(*log->ns));
		n += log->n;
	}
	qsort(all, n, sizeof(*all), cmp_u64);
	row->res = (struct result) {
		.calls_per_s = (double)n / seconds,
		.p50_ms = percentile_ms(all, n, 50),
		.p99_ms = percentile_ms(all, n, 99),
	};
	free(all);
	return 0;
}

static unsigned total_clients(const struct row *rows, unsigned n_rows)
{
	unsigned n = 0;

	for (unsigned i = 0; i < n_rows; i++)
		n += rows[i].clients;
	return n;
}

/* Each client's pool and DEK name: unique across the rows of a phase. */
static void start_clients(struct phase *phase, struct row *rows, unsigned n_rows,
			  struct client *clients)
{
	unsigned k = 0;

	for (unsigned i = 0; i < n_rows; i++) {
		for (unsigned j = 0; j < rows[i].clients; j++, k++) {
			char name[32];

			snprintf(name, sizeof(name), "load%u", k);
			if (client_init(&clients[k], phase, rows[i].work,
					rows[i].work == &reads ? FIXTURE : name) < 0 ||
			    (clients[k].pid = fork()) < 0) {
				/* The others wait at the barrier for it: give up (rdmad follows). */
				fprintf(stderr, "bench_load: cannot start client %u: %m\n", k);
				exit(1);
			}
			if (clients[k].pid == 0) {
				run_client(&clients[k]);
				_exit(0);
			}
		}
	}
}

static int finish_clients(struct row *rows, unsigned n_rows, struct client *clients,
			  unsigned n, double seconds)
{
	int r = 0;

	for (unsigned k = 0; k < n; k++) {
		int status;

		while (waitpid(clients[k].pid, &status, 0) < 0 && errno == EINTR)
			;
		if (clients[k].log->failure[0] && r == 0) {
			fprintf(stderr, "bench_load: client %u: %s\n", k, clients[k].log->failure);
			r = -EPROTO;
		}
	}
	for (unsigned i = 0, k = 0; r == 0 && i < n_rows; k += rows[i].clients, i++)
		r = summarize(&rows[i], &clients[k], seconds);
	for (unsigned k = 0; k < n; k++)
		client_free(&clients[k]);
	return r;
}

static int run_rows(struct phase *phase, struct row *rows, unsigned n_rows)
{
	unsigned n = total_clients(rows, n_rows);
	struct client *clients = calloc(n, sizeof(*clients));
	pthread_barrierattr_t shared;
	int r;

	phase->start = map_shared(sizeof(*phase->start));
	if (!clients || !phase->start) {
		free(clients);
		return -ENOMEM;
	}
	pthread_barrierattr_init(&shared);
	pthread_barrierattr_setpshared(&shared, PTHREAD_PROCESS_SHARED);
	pthread_barrier_init(phase->start, &shared, n);
	pthread_barrierattr_destroy(&shared);
	start_clients(phase, rows, n_rows, clients);
	r = finish_clients(rows, n_rows, clients, n, phase->seconds);
	pthread_barrier_destroy(phase->start);
	munmap(phase->start, sizeof(*phase->start));
	free(clients);
	return r;
}

static void print_mib(long kb)
{
	if (kb < 0)
		printf(" %10s", "?");
	else
		printf(" %6.1f MiB", (double)kb / 1024.0);
}

static void print_header(void)
{
	printf("%-36s %7s %9s %9s %9s %10s %10s %10s\n", "row", "clients", "calls/s", "p50 ms",
	       "p99 ms", "RSS before", "RSS after", "VmHWM");
}

static void print_row(const struct row *row)
{
	printf("%-36s %7u %9.0f %9.3f %9.3f", row->name, row->clients, row->res.calls_per_s,
	       row->res.p50_ms, row->res.p99_ms);
}

/* Rows, printed with rdmad's memory around them (on the first row): before is VmRSS then. */
static void print_rows(const struct bench_rdmad *d, const struct row *rows, unsigned n_rows,
		       long before)
{
	for (unsigned i = 0; i < n_rows; i++) {
		print_row(&rows[i]);
		if (i == 0 && before >= 0) {
			print_mib(before);
			print_mib(bench_rdmad_status_kb(d, "VmRSS"));
			print_mib(bench_rdmad_status_kb(d, "VmHWM"));
		}
		printf("\n");
	}
	fflush(stdout);
}

/* A phase: its rows at once. */
static int run_phase(struct phase *phase, const struct bench_rdmad *d, struct row *rows,
		     unsigned n_rows)
{
	long before = bench_rdmad_status_kb(d, "VmRSS");
	int r = run_rows(phase, rows, n_rows);

	if (r == 0)
		print_rows(d, rows, n_rows, before);
	return r;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(const double *v, unsigned n)
{
	double sorted[ROUNDS];

	memcpy(sorted, v, n * sizeof(*v));
	qsort(sorted, n, sizeof(*sorted), cmp_double);
	return sorted[n / 2];
}

/* Each figure's median over the rounds, on its own. */
static struct result median_result(const struct result *rounds)
{
	double calls[ROUNDS], p50[ROUNDS], p99[ROUNDS];

	for (unsigned i = 0; i < ROUNDS; i++) {
		calls[i] = rounds[i].calls_per_s;
		p50[i] = rounds[i].p50_ms;
		p99[i] = rounds[i].p99_ms;
	}
	return (struct result){ median(calls, ROUNDS), median(p50, ROUNDS), median(p99, ROUNDS) };
}

/*
 * What the writers of the last phase left to the kernel (dirty pages, the
 * journal's commits) is written before a phase starts, and the disk given
 * a moment, so that it does not land in the readers' time alone.
 */
static void settle(void)
{
	sync();
	usleep(SETTLE_US);
}

/* The readers beside the writers against alone: each round's ratios, then their medians. */
struct comparison {
	double p50[ROUNDS], p99[ROUNDS];
};

static int run_comparison(struct phase *phase, const struct bench_rdmad *d, struct row *alone,
			  struct row both[2], struct comparison *cmp)
{
	struct phase round = *phase;
	struct result alone_res[ROUNDS], writers_res[ROUNDS], readers_res[ROUNDS];
	long before = bench_rdmad_status_kb(d, "VmRSS");
	int r = 0;

	round.seconds = phase->seconds / 2;
	for (unsigned i = 0; i < ROUNDS && r == 0; i++) {
		for (unsigned k = 0; k < 2 && r == 0; k++) {
			settle();
			if ((k == 0) == (i % 2 == 0)) {
				r = run_rows(&round, alone, 1);
				alone_res[i] = alone->res;
			} else {
				r = run_rows(&round, both, 2);
				writers_res[i] = both[0].res;
				readers_res[i] = both[1].res;
			}
		}
		if (r == 0) {
			cmp->p50[i] = readers_res[i].p50_ms / alone_res[i].p50_ms;
			cmp->p99[i] = readers_res[i].p99_ms / alone_res[i].p99_ms;
		}
	}
	if (r < 0)
		return r;
	alone->res = median_result(alone_res);
	both[0].res = median_result(writers_res);
	both[1].res = median_result(readers_res);
	print_rows(d, alone, 1, before);
	print_rows(d, both, 2, -1);
	return 0;
}

/* The DEK the readers show. */
static int make_fixture(struct phase *phase)
{
	struct varlink_client *vc;
	struct client c = { 0 };
	int r;

	r = varlink_client_connect(&vc, phase->socket);
	if (r < 0)
		return r;
	r = client_init(&c, phase, &fixture, FIXTURE);
	if (r == 0 && (r = call_step(&c, vc, false)) < 0)
		fprintf(stderr, "bench_load: %s\n", c.log->failure);
	client_free(&c);
	varlink_client_free(vc);
	return r;
}

/* A DEK's key (key1 || key2, random, so they differ): root's, mode 0600, as rdmad wants. */
static int make_key_file(const char *path)
{
	unsigned char key[2 * DEK_BITS / 8];
	ssize_t n = getrandom(key, sizeof(key), 0);
	int fd, r = 0;

	if (n != (ssize_t)sizeof(key))
		return -EIO;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (write(fd, key, sizeof(key)) != (ssize_t)sizeof(key))
		r = -EIO;
	close(fd);
	return r;
}

static const char *fs_name(const char *path)
{
	struct statfs st;

	if (statfs(path, &st) < 0)
		return "unknown";
	switch ((unsigned long)st.f_type) {
	case EXT4_SUPER_MAGIC:	return "ext2/3/4";
	case XFS_SUPER_MAGIC:	return "xfs";
	case BTRFS_SUPER_MAGIC:	return "btrfs";
	case OVERLAYFS_SUPER_MAGIC: return "overlay";
	case TMPFS_MAGIC:	return "tmpfs";
	case RAMFS_MAGIC:	return "ramfs";
	case NFS_SUPER_MAGIC:	return "nfs";
	default:		return "other";
	}
}

static void print_intro(const struct bench_rdmad *d, double seconds)
{
	const char *fs = fs_name(d->dir);
	double load = NAN;
	FILE *f = fopen("/proc/loadavg", "r");

	if (f) {
		if (fscanf(f, "%lf", &load) != 1)
			load = NAN;
		fclose(f);
	}
	printf("# bench_load: a real rdmad (pid %d), state in %s (%s%s); %ld CPUs online, "
	       "load average %.2f at start; %.1f s per phase\n", (int)d->pid, d->dir, fs,
	       strcmp(fs, "tmpfs") && strcmp(fs, "ramfs") ? "" :
	       ": NOT A DISK, fsyncs cost nothing; set BENCH_DIR", sysconf(_SC_NPROCESSORS_ONLN),
	       load, seconds);
	printf("# reads: Device.List, Device.Show, Dek.Show in turn; changes: each client's own "
	       "Pool.Create (%d MKEYs), Dek.Create (key file), Pool.Resize (%d), Dek.Destroy, "
	       "Pool.Destroy in turn\n", POOL_SIZE, 2 * POOL_SIZE);
	printf("# one connection per client, one call at a time; p50/p99 over every call of a row; "
	       "RSS: rdmad's, before and after the phase\n");
	printf("# the last three rows: %u interleaved rounds of %.1f s, the readers alone and "
	       "beside the writers in each; each figure the median over the rounds\n", ROUNDS,
	       seconds / 2);
}

static void print_summary(const struct row *alone, const struct comparison *cmp,
			  const struct row *mixed)
{
	printf("# readers beside %u changing clients: p50 x%.2f, p99 x%.2f of the same %u "
	       "readers alone, medians of the rounds' ratios (issue #11: p99 within x2); "
	       "p99 by round:", CLIENTS, median(cmp->p50, ROUNDS), median(cmp->p99, ROUNDS),
	       alone->clients);
	for (unsigned i = 0; i < ROUNDS; i++)
		printf(" x%.2f", cmp->p99[i]);
	printf("\n");
	printf("# changes, %u clients: %.0f calls/s, p99 %.1f ms (issue #11: at least x5 the "
	       "1,000 calls/s measured before it, p99 331 ms)\n", CLIENTS, mixed->res.calls_per_s,
	       mixed->res.p99_ms);
}

static int run_bench(struct bench_rdmad *d, struct phase *phase)
{
	struct row many = { .name = "reads", .work = &reads, .clients = CLIENTS };
	struct row mixed = { .name = "changes", .work = &changes, .clients = CLIENTS };
	struct row alone = { .name = "reads, alone", .work = &reads, .clients = READERS_BESIDE };
	struct row both[] = {
		{ .name = "changes, beside the readers below", .work = &changes, .clients = CLIENTS },
		{ .name = "reads, beside the changes above", .work = &reads,
		  .clients = READERS_BESIDE },
	};
	struct comparison cmp;
	int r;

	r = make_fixture(phase);
	if (r < 0)
		return r;
	print_intro(d, phase->seconds);
	print_header();
	if ((r = run_phase(phase, d, &many, 1)) < 0 ||
	    (r = run_phase(phase, d, &mixed, 1)) < 0 ||
	    (r = run_comparison(phase, d, &alone, both, &cmp)) < 0)
		return r;
	print_summary(&alone, &cmp, &mixed);
	return 0;
}

int main(void)
{
	struct phase phase = { .seconds = PHASE_SECONDS };
	const char *e = getenv("BENCH_SECONDS");
	uint64_t t0 = now_ns();
	struct bench_rdmad d;
	char key_file[PATH_MAX + 16];
	int r;

	if (geteuid() != 0) {
		printf("# bench_load: skipped: Pool and Dek changes need root\n");
		return 0;
	}
	if (e && atof(e) > 0)
		phase.seconds = atof(e);
	if (bench_rdmad_start(&d, bench_rdmad_parent()) < 0)
		return 1;
	phase.socket = d.socket;
	snprintf(key_file, sizeof(key_file), "%s/dek.key", d.dir);
	phase.key_file = key_file;
	r = make_key_file(key_file);
	if (r < 0)
		fprintf(stderr, "bench_load: %s: %s\n", key_file, strerror(-r));
	else
		r = run_bench(&d, &phase);
	if (r == 0)
		printf("# %.1f s\n", (double)(now_ns() - t0) / 1e9);
	if (bench_rdmad_stop(&d) < 0)
		r = -EIO;
	return r < 0;
}
