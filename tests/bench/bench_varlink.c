/* SPDX-License-Identifier: MIT */
/*
 * Control-plane throughput: io.rdmad.Device.List calls per second against a
 * real rdmad, from 1 and from 16 concurrent clients (one connection each,
 * one call at a time, as rdmactl and scripts call).
 */
#include "lib/varlink/varlink.h"
#include "tests/bench/lib/rdmad.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RUN_SECONDS 2.0

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

int main(void)
{
	struct bench_rdmad d;
	int r = 0;

	if (bench_rdmad_start(&d, bench_rdmad_parent()) < 0)
		return 1;
	if (measure(d.socket, 1) < 0 || measure(d.socket, 16) < 0)
		r = 1;
	if (bench_rdmad_stop(&d) < 0)
		r = 1;
	return r;
}
