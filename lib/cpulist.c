/* SPDX-License-Identifier: MIT */
#include "lib/cpulist.h"

#include <ctype.h>
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_number(const char **p, long *out)
{
	char *end;

	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	errno = 0;
	*out = strtol(*p, &end, 10);
	if (errno || *out >= CPULIST_MAX)
		return -EINVAL;
	*p = end;
	return 0;
}

int cpulist_parse(const char *text, int *cpus, size_t max, char *err, size_t err_size)
{
	bool set[CPULIST_MAX] = { false };
	const char *p = text;
	size_t n = 0;

	for (;;) {
		const char *start = p;
		long lo, hi;

		if (parse_number(&p, &lo) < 0)
			goto bad;
		hi = lo;
		if (*p == '-') {
			p++;
			if (parse_number(&p, &hi) < 0 || hi < lo)
				goto bad;
		}
		for (long c = lo; c <= hi; c++)
			set[c] = true;
		if (*p == '\0')
			break;
		if (*p != ',')
			goto bad;
		p++;
		continue;
bad:
		snprintf(err, err_size, "'%.*s' is not a CPU number or range below %d",
			 (int)strcspn(start, ","), start, CPULIST_MAX);
		return -EINVAL;
	}
	for (int c = 0; c < CPULIST_MAX; c++)
		if (set[c]) {
			if (n == max) {
				snprintf(err, err_size, "more than %zu CPUs", max);
				return -EINVAL;
			}
			cpus[n++] = c;
		}
	return (int)n;
}

int cpulist_allowed(int *cpus, size_t max)
{
	cpu_set_t set;
	size_t n = 0;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return -errno;
	for (int c = 0; c < CPU_SETSIZE && c < CPULIST_MAX && n < max; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	return (int)n;
}

void cpulist_format(const int *cpus, size_t n, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && used < size; ) {
		size_t j = i;

		while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
			j++;
		if (j > i)
			used += (size_t)snprintf(buf + used, size - used, "%s%d-%d", used ? "," : "",
						 cpus[i], cpus[j]);
		else
			used += (size_t)snprintf(buf + used, size - used, "%s%d", used ? "," : "", cpus[i]);
		i = j + 1;
	}
}
