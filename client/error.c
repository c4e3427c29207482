/* SPDX-License-Identifier: MIT */
/* The thread's last error message, and rdmad's errors as errno values. */
#include "client/internal.h"

#include <stdarg.h>
#include <stdio.h>

#define MESSAGE_MAX 512

/* Per thread, as errno: a context is for one thread at a time, rdmad_open has none yet. */
static __thread char message[MESSAGE_MAX];

const char *rdmad_last_error(void)
{
	return message;
}

void client_ok(void)
{
	message[0] = '\0';
}

int client_fail(int negative_errno, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	return negative_errno;
}

void *client_fail_null(int r)
{
	errno = -r;
	return NULL;
}
