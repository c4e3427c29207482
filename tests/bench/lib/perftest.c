/* SPDX-License-Identifier: MIT */
#include "tests/bench/lib/perftest.h"
#include "tests/bench/lib/verbs.h"
#include "lib/varlink/varlink.h"

#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void bench_call(const char *socket, const char *method, const char *params)
{
	struct json_object *p = json_tokener_parse(params), *reply = NULL;
	struct varlink_client *vc;
	char *error = NULL;

	if (varlink_client_connect(&vc, socket) < 0 ||
	    varlink_client_call(vc, method, p, &reply, &error) < 0 || error) {
		fprintf(stderr, "bench: %s: %s\n", method, error ? error : "connection failed");
		exit(1);
	}
	json_object_put(p);
	json_object_put(reply);
	varlink_client_free(vc);
}

/*
 * A tenant's registered bytes are held to max_registered_bytes_per_uid (the
 * bench's rdmad.conf), not to an RLIMIT_MEMLOCK that a machine may not let
 * root raise.
 */
static char as_tenant[128];

const char *bench_perftest_tenant(void)
{
	return as_tenant;
}

void bench_perftest_tenant_init(void)
{
	struct group *g = getgrnam("rdma");

	if (geteuid() == 0 && g)
		snprintf(as_tenant, sizeof(as_tenant),
			 "setpriv --reuid=65534 --regid=65534 --groups=%u ",
			 (unsigned)g->gr_gid);
	printf("# the two processes run as %s\n", as_tenant[0] ? "uid 65534 of group rdma (a tenant)" :
	       geteuid() == 0 ? "root (group rdma does not exist)" : "the bench's user");
}

struct json_object *bench_perftest(const char *socket, int cpu, const char *args)
{
	char cmd[1024], *text = NULL;
	size_t len = 0;
	struct json_object *o;
	FILE *f, *mem = open_memstream(&text, &len);
	int c;

	snprintf(cmd, sizeof(cmd), "%s%s/examples/rdmad_perftest -s %s -c %d -j %s", as_tenant,
		 getenv("BUILD") ? getenv("BUILD") : "build", socket, cpu, args);
	f = popen(cmd, "r");
	if (!f || !mem)
		bench_die("rdmad_perftest", NULL);
	while ((c = fgetc(f)) != EOF)
		fputc(c, mem);
	fclose(mem);
	if (pclose(f) != 0 || !(o = json_tokener_parse(text))) {
		fprintf(stderr, "bench: %s failed\n", cmd);
		exit(1);
	}
	free(text);
	return o;
}

double bench_perftest_field(struct json_object *results, unsigned i, const char *key)
{
	struct json_object *v = NULL;

	json_object_object_get_ex(json_object_array_get_idx(json_object_object_get(results, "results"), i),
				  key, &v);
	return json_object_get_double(v);
}

