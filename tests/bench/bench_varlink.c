/* SPDX-License-Identifier: MIT */
/*
 * Control-plane throughput: io.rdmad.Device.List calls per second against a
 * real rdmad, from 1 and from 16 concurrent clients (one connection each,
 * one call at a time, as rdmactl and scripts call).  Then whether a large
 * Mr.Create holds up the others: the longest Device.List call of a client
 * that calls all the while rdmad makes a 1 GiB MR ready, over ROUNDS
 * creates (each MR destroyed before the next).
 */
#include "lib/varlink/varlink.h"
#include "tests/bench/lib/call.h"
#include "tests/bench/lib/rdmad.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RUN_SECONDS 2.0
#define LARGE_MR    (1ull << 30)
#define ROUNDS      3

struct client {
	pthread_t thread;
	const char *socket;
	double seconds;
	unsigned long calls;
	int error;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *run_client(void *arg)
{
	struct client *c = arg;
	struct varlink_client *vc;
	double end;

	c->error = varlink_client_connect(&vc, c->socket);
	if (c->error < 0)
		return NULL;
	end = now() + c->seconds;
	while (now() < end) {
		struct json_object *reply;
		char *error = NULL;

		c->error = varlink_client_call(vc, "io.rdmad.Device.List", NULL, &reply, &error);
		if (c->error < 0 || error) {
			free(error);
			c->error = c->error < 0 ? c->error : -EPROTO;
			break;
		}
		json_object_put(reply);
		c->calls++;
	}
	varlink_client_free(vc);
	return NULL;
}

static int measure(const char *socket, unsigned n)
{
	struct client *clients = calloc(n, sizeof(*clients));
	unsigned long total = 0;
	double start, elapsed;

	if (!clients)
		return -ENOMEM;
	start = now();
	for (unsigned i = 0; i < n; i++) {
		clients[i] = (struct client) { .socket = socket, .seconds = RUN_SECONDS };
		pthread_create(&clients[i].thread, NULL, run_client, &clients[i]);
	}
	for (unsigned i = 0; i < n; i++) {
		pthread_join(clients[i].thread, NULL);
		if (clients[i].error < 0) {
			int err = clients[i].error;

			fprintf(stderr, "client %u: %s\n", i, strerror(-err));
			free(clients);
			return err;
		}
		total += clients[i].calls;
	}
	elapsed = now() - start;
	printf("varlink io.rdmad.Device.List, %2u client(s): %9.0f calls/s\n", n, total / elapsed);
	free(clients);
	return 0;
}

/* The reader beside a large create: calls until told to stop, its longest call. */
struct beside {
	pthread_t thread;
	const char *socket;
	volatile int stop;
	unsigned long calls;
	double longest;
	int error;
};

static void *run_beside(void *arg)
{
	struct beside *b = arg;
	struct varlink_client *vc;

	b->error = varlink_client_connect(&vc, b->socket);
	if (b->error < 0)
		return NULL;
	while (!__atomic_load_n(&b->stop, __ATOMIC_ACQUIRE)) {
		struct json_object *reply;
		char *error = NULL;
		double start = now(), took;

		b->error = varlink_client_call(vc, "io.rdmad.Device.List", NULL, &reply, &error);
		if (b->error < 0 || error) {
			free(error);
			b->error = b->error < 0 ? b->error : -EPROTO;
			break;
		}
		took = now() - start;
		if (took > b->longest)
			b->longest = took;
		json_object_put(reply);
		__atomic_add_fetch(&b->calls, 1, __ATOMIC_RELAXED);
	}
	varlink_client_free(vc);
	return NULL;
}

static int measure_large_create(const char *socket)
{
	double create_s[ROUNDS], longest = 0, slowest = 0;
	unsigned long calls = 0;
	struct varlink_client *vc;
	char params[128];
	long long pd, mr;

	if (varlink_client_connect(&vc, socket) < 0)
		return -1;
	pd = bench_call_handle(vc, "io.rdmad.Pd.Create", "pd", "{}");
	for (unsigned i = 0; pd >= 0 && i < ROUNDS; i++) {
		struct beside b = { .socket = socket };
		double start;

		pthread_create(&b.thread, NULL, run_beside, &b);
		/* The reader is calling before the create starts. */
		while (__atomic_load_n(&b.calls, __ATOMIC_RELAXED) < 100 && !b.error)
			usleep(1000);
		snprintf(params, sizeof(params), "{\"pd\":%lld,\"size\":%llu,\"access\":"
			 "[\"local_write\"]}", pd, LARGE_MR);
		start = now();
		mr = bench_call_handle(vc, "io.rdmad.Mr.Create", "mr", params);
		create_s[i] = now() - start;
		__atomic_store_n(&b.stop, 1, __ATOMIC_RELEASE);
		pthread_join(b.thread, NULL);
		if (mr < 0 || b.error < 0) {
			varlink_client_free(vc);
			return -1;
		}
		calls += b.calls;
		longest = b.longest > longest ? b.longest : longest;
		slowest = create_s[i] > slowest ? create_s[i] : slowest;
		snprintf(params, sizeof(params), "{\"handle\":%lld}", mr);
		if (bench_call_handle(vc, "io.rdmad.Mr.Destroy", NULL, params) < 0) {
			varlink_client_free(vc);
			return -1;
		}
	}
	varlink_client_free(vc);
	if (pd < 0)
		return -1;
	printf("varlink Mr.Create 1 GiB (%u rounds): slowest create %6.0f ms; Device.List beside it: "
	       "%lu calls, longest %6.1f ms\n", ROUNDS, slowest * 1e3, calls, longest * 1e3);
	return 0;
}

int main(void)
{
	struct bench_rdmad d;
	int r = 0;

	if (bench_rdmad_start(&d, bench_rdmad_parent()) < 0)
		return 1;
	if (measure(d.socket, 1) < 0 || measure(d.socket, 16) < 0 || measure_large_create(d.socket) < 0)
		r = 1;
	if (bench_rdmad_stop(&d) < 0)
		r = 1;
	return r;
}
