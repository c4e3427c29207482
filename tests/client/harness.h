/* SPDX-License-Identifier: MIT */
/*
 * What the client library's tests share: one real rdmad for a test group
 * (tests/bench/lib/rdmad.c starts it in a new directory), with GID 0 of port
 * 1 filled, and calls to it over a plain varlink connection, as rdmactl
 * makes them: a connection that never attaches, so it sees every object.
 */
#pragma once

#include <json-c/json.h>
#include <rdmad/rdmad.h>

/* cmocka group setup and teardown: start and stop rdmad. */
int harness_start(void **state);
int harness_stop(void **state);
/* The socket of the group's rdmad. */
const char *harness_socket(void);
/* A context on it; fails the test when it cannot open. */
struct rdmad_context *harness_open(void);
/* Calls method with params (a JSON text, NULL for none) and fails the test on an error. */
struct json_object *harness_call(const char *method, const char *params);
/* Calls method with params and returns the error it fails with (free it); fails the test when it succeeds. */
char *harness_call_error(const char *method, const char *params);
/* How many objects List of iface gives (key: its reply's list). */
size_t harness_count(const char *iface, const char *key);
/* The attached applications now. */
size_t harness_applications(void);
/*
 * Waits (up to 5 s) until n applications are attached: rdmad reclaims a
 * closed connection's objects when its loop sees the hang-up, which another
 * connection's call may overtake.
 */
void harness_wait_applications(size_t n);
