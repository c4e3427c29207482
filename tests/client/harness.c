/* SPDX-License-Identifier: MIT */
#include "tests/client/harness.h"
#include "lib/varlink/varlink.h"
#include "tests/bench/lib/rdmad.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

static struct bench_rdmad rdmad;
static struct varlink_client *plain;

int harness_start(void **state)
{
	if (bench_rdmad_start(&rdmad, bench_rdmad_parent()) < 0 ||
	    varlink_client_connect(&plain, rdmad.socket) < 0)
		return -1;
	json_object_put(harness_call("io.rdmad.Gid.Add", "{\"index\": 0, \"gid\": \"fe80::1\"}"));
	return 0;
}

int harness_stop(void **state)
{
	varlink_client_free(plain);
	return bench_rdmad_stop(&rdmad);
}

const char *harness_socket(void)
{
	return rdmad.socket;
}

struct rdmad_context *harness_open(void)
{
	struct rdmad_context *ctx = rdmad_open(rdmad.socket, NULL);

	if (!ctx)
		fail_msg("rdmad_open: %s", rdmad_last_error());
	return ctx;
}

struct json_object *harness_call(const char *method, const char *params)
{
	struct json_object *p = params ? json_tokener_parse(params) : NULL;
	struct json_object *reply = NULL;
	char *error = NULL;
	int r;

	if (params && !p)
		fail_msg("%s: bad test parameters %s", method, params);
	r = varlink_client_call(plain, method, p, &reply, &error);
	json_object_put(p);
	if (r < 0 || error)
		fail_msg("%s: %d %s %s", method, r, error ? error : "",
			 reply ? json_object_to_json_string(reply) : "");
	return reply;
}

char *harness_call_error(const char *method, const char *params)
{
	struct json_object *p = json_tokener_parse(params);
	struct json_object *reply = NULL;
	char *error = NULL;

	if (varlink_client_call(plain, method, p, &reply, &error) < 0 || !error)
		fail_msg("%s %s: no error", method, params);
	json_object_put(p);
	json_object_put(reply);
	return error;
}

size_t harness_count(const char *iface, const char *key)
{
	char method[64];
	struct json_object *reply, *list;
	size_t n;

	snprintf(method, sizeof(method), "io.rdmad.%s.List", iface);
	reply = harness_call(method, NULL);
	n = json_object_object_get_ex(reply, key, &list) ? json_object_array_length(list) : 0;
	json_object_put(reply);
	return n;
}

size_t harness_applications(void)
{
	struct json_object *reply = harness_call("io.rdmad.Daemon.ListApplications", NULL);
	size_t n = json_object_array_length(json_object_object_get(reply, "applications"));

	json_object_put(reply);
	return n;
}

void harness_wait_applications(size_t n)
{
	for (int i = 0; i < 500; i++) {
		if (harness_applications() == n)
			return;
		usleep(10000);
	}
	fail_msg("%zu applications still attached, wanted %zu", harness_applications(), n);
}
