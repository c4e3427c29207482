/* SPDX-License-Identifier: MIT */
/*
 * What the benches of applications share: a varlink call that must succeed,
 * and examples/rdmad_perftest run against a real rdmad (as a tenant of the
 * device when they can: bench_perftest_tenant_init), its JSON read back.
 */
#pragma once

#include <json-c/json.h>

/* method(params) on socket; the bench dies when it fails. */
void bench_call(const char *socket, const char *method, const char *params);
/*
 * The perftest runs as a tenant (user nobody, supplementary group rdma)
 * when the bench runs as root and group rdma exists, else as the bench's
 * own user; says which.  Without this call it runs as the bench's user.
 */
void bench_perftest_tenant_init(void);
/* The command prefix that makes the perftest a tenant, "" when it is not one. */
const char *bench_perftest_tenant(void);
/* One perftest run against socket, its processes on cpu: its JSON results (the caller's to put). */
struct json_object *bench_perftest(const char *socket, int cpu, const char *args);
/* Field key of result i. */
double bench_perftest_field(struct json_object *results, unsigned i, const char *key);
