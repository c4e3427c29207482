/* SPDX-License-Identifier: MIT */
#include "lib/thread.h"

#include <signal.h>

int thread_start_quiet(pthread_t *thread, void *(*fn)(void *), void *arg, const char *name)
{
	sigset_t all, old;
	int r;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = -pthread_create(thread, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r == 0)
		pthread_setname_np(*thread, name);
	return r;
}
