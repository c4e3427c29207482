/* SPDX-License-Identifier: MIT */
#include "lib/event_loop.h"

#include <sched.h>
#include <stdbool.h>
#include <time.h>

static uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

int event_loop_run(sd_event *event, const unsigned *busy_usec)
{
	uint64_t awake_until = 0;
	int code = 0, r;

	while (sd_event_get_state(event) != SD_EVENT_FINISHED) {
		bool awake = now_usec() < awake_until;

		r = sd_event_run(event, awake ? 0 : UINT64_MAX);
		if (r < 0)
			return r;
		if (r > 0 && *busy_usec)
			awake_until = now_usec() + *busy_usec;
		else if (awake)
			sched_yield(); /* the CPU is anyone's who has work */
	}
	r = sd_event_get_exit_code(event, &code);
	return r < 0 ? r : code;
}
