/* SPDX-License-Identifier: MIT */
/* Threads beside the event loop. */
#pragma once

#include <pthread.h>

/*
 * Starts fn(arg) on a thread named name (at most 15 characters) with every
 * signal blocked: signals are the event loop's.  0, or a negative errno.
 */
int thread_start_quiet(pthread_t *thread, void *(*fn)(void *), void *arg, const char *name);
