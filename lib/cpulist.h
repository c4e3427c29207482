/* SPDX-License-Identifier: MIT */
/* CPU lists as Linux writes them ("0-3,8,10-11"), for rdmad --cpus. */
#pragma once

#include <stddef.h>

#define CPULIST_MAX 1024

/*
 * Parses text into ascending, distinct CPU numbers.  Returns how many, or
 * -EINVAL (bad syntax, a range backwards, a number ≥ CPULIST_MAX) with the
 * offending part in err.
 */
int cpulist_parse(const char *text, int *cpus, size_t max, char *err, size_t err_size);
/* The CPUs this process may run on. */
int cpulist_allowed(int *cpus, size_t max);
/* "0-3,8" from a sorted list. */
void cpulist_format(const int *cpus, size_t n, char *buf, size_t size);
