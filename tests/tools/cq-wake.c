/* SPDX-License-Identifier: MIT */
/*
 * NAME
 *	cq-wake - does io.rdmad.Cq.Poll with a wait answer when the completion comes?
 *
 * SYNOPSIS
 *	cq-wake SOCKET ROUNDS WAIT_MS CQ:POSTSEND_JSON...
 *
 * DESCRIPTION
 *	For tests/bats/cq-wake.bats.  One thread and connection per CQ:POSTSEND_JSON,
 *	each running its share of ROUNDS rounds: it writes the call
 *	io.rdmad.Qp.PostSend with the parameters POSTSEND_JSON (a signaled WR whose
 *	completion lands in CQ) and, without waiting for its reply, after a pause
 *	that sweeps 0 to SWEEP_US microseconds from round to round, the call
 *	io.rdmad.Cq.Poll of CQ with max 1 and wait WAIT_MS: the server takes the
 *	Poll at every moment of the worker's writing the completion, among them
 *	the one where a wait armed after its last look would miss its wake-up.
 *	Then it reads both replies.  A round is lost when its Poll came back without the completion or
 *	only at the wait's deadline; late when it came more than LATE_MS after the
 *	PostSend's reply (the completion follows a PostSend within microseconds on
 *	one host, within a round trip over RoCE; what is late but not lost is the
 *	scheduler's doing as much as the daemon's).  Prints one line:
 *	"rounds R late L lost X max_ms M p999_us P".
 *
 * EXIT STATUS
 *	0 the rounds ran (whatever they found); 1 a call failed; 2 usage.
 */
#include "lib/varlink/varlink.h"

#include <json-c/json.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LATE_MS     10
#define THREADS_MAX 16
#define SWEEP_US    61   /* prime: the pauses of the threads drift apart */

struct runner {
	pthread_t thread;
	const char *socket;
	struct json_object *post, *poll;
	unsigned long rounds, late, lost;
	long wait_ms;
	double *took;      /* microseconds from PostSend's reply to Poll's, per round */
	int failed;
};

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Reads one reply; its parameters, or NULL after saying why on stderr. */
static struct json_object *read_reply(struct varlink_client *c, const char *what)
{
	struct json_object *params = NULL;
	char *error = NULL;
	bool more;
	int r = varlink_client_read(c, &params, &error, &more, -1);

	if (r < 0 || error) {
		fprintf(stderr, "cq-wake: %s: %s %s\n", what, error ? error : strerror(-r),
			params ? json_object_to_json_string(params) : "");
		free(error);
		json_object_put(params);
		return NULL;
	}
	return params;
}

/* Spins for us microseconds: a sleep would be far longer than asked. */
static void pause_us(double us)
{
	double until = now_us() + us;

	while (now_us() < until)
		;
}

/* One round: 0, or -1 after saying why. */
static int round_trip(struct runner *rn, struct varlink_client *c, unsigned long i, double *took,
		      bool *got)
{
	struct json_object *reply, *list;
	double posted;

	if (varlink_client_send(c, "io.rdmad.Qp.PostSend", rn->post, 0) < 0 ||
	    (pause_us(i % SWEEP_US), varlink_client_send(c, "io.rdmad.Cq.Poll", rn->poll, 0)) < 0) {
		fprintf(stderr, "cq-wake: the connection failed\n");
		return -1;
	}
	if (!(reply = read_reply(c, "PostSend")))
		return -1;
	json_object_put(reply);
	posted = now_us();
	if (!(reply = read_reply(c, "Poll")))
		return -1;
	*took = now_us() - posted;
	*got = json_object_object_get_ex(reply, "completions", &list) &&
	       json_object_array_length(list) == 1;
	json_object_put(reply);
	return 0;
}

static void *run(void *arg)
{
	struct runner *rn = arg;
	struct varlink_client *c;
	int r = varlink_client_connect(&c, rn->socket);

	if (r < 0) {
		fprintf(stderr, "cq-wake: %s: %s\n", rn->socket, strerror(-r));
		rn->failed = 1;
		return NULL;
	}
	for (unsigned long i = 0; i < rn->rounds; i++) {
		bool got;

		if (round_trip(rn, c, i, &rn->took[i], &got) < 0) {
			rn->failed = 1;
			break;
		}
		rn->late += rn->took[i] > LATE_MS * 1000.0;
		if (!got || rn->took[i] >= rn->wait_ms * 1000.0) {
			rn->lost++;
			if (getenv("CQ_WAKE_DEBUG"))
				fprintf(stderr, "lost: round %lu took %.0f us, %s\n", i, rn->took[i],
					got ? "with its completion" : "empty");
		}
	}
	varlink_client_free(c);
	return NULL;
}

/* "CQ:JSON" into a runner's two calls; false when malformed. */
static bool parse_spec(struct runner *rn, const char *spec)
{
	char *end;
	long long cq = strtoll(spec, &end, 0);

	if (end == spec || *end != ':' || !(rn->post = json_tokener_parse(end + 1)))
		return false;
	rn->poll = json_object_new_object();
	json_object_object_add(rn->poll, "handle", json_object_new_int64(cq));
	json_object_object_add(rn->poll, "max", json_object_new_int(1));
	json_object_object_add(rn->poll, "wait", json_object_new_int64(rn->wait_ms));
	return true;
}

int main(int argc, char **argv)
{
	struct runner rn[THREADS_MAX] = { 0 };
	unsigned long rounds, late = 0, lost = 0, at = 0;
	unsigned n = argc - 4;
	long wait_ms;
	double *took;
	int failed = 0;

	if (argc < 5 || n > THREADS_MAX) {
		fprintf(stderr, "usage: cq-wake SOCKET ROUNDS WAIT_MS CQ:POSTSEND_JSON... (at most %d)\n",
			THREADS_MAX);
		return 2;
	}
	rounds = strtoul(argv[2], NULL, 0);
	wait_ms = strtol(argv[3], NULL, 0);
	if (rounds < n || wait_ms <= 0 || !(took = calloc(rounds, sizeof(*took)))) {
		fprintf(stderr, "cq-wake: bad ROUNDS or WAIT_MS\n");
		return 2;
	}
	for (unsigned i = 0; i < n; i++) {
		rn[i].socket = argv[1];
		rn[i].wait_ms = wait_ms;
		rn[i].rounds = rounds / n + (i < rounds % n);
		rn[i].took = took + at;
		at += rn[i].rounds;
		if (!parse_spec(&rn[i], argv[4 + i])) {
			fprintf(stderr, "cq-wake: bad CQ:POSTSEND_JSON '%s'\n", argv[4 + i]);
			return 2;
		}
	}
	for (unsigned i = 0; i < n; i++)
		if (pthread_create(&rn[i].thread, NULL, run, &rn[i]) != 0)
			return 1;
	for (unsigned i = 0; i < n; i++) {
		pthread_join(rn[i].thread, NULL);
		failed |= rn[i].failed;
		late += rn[i].late;
		lost += rn[i].lost;
		json_object_put(rn[i].post);
		json_object_put(rn[i].poll);
	}
	if (failed)
		return 1;
	qsort(took, rounds, sizeof(*took), cmp_double);
	printf("rounds %lu late %lu lost %lu max_ms %.1f p999_us %.0f\n", rounds, late, lost,
	       took[rounds - 1] / 1000, took[rounds * 999 / 1000]);
	free(took);
	return 0;
}
