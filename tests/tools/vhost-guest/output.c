/* SPDX-License-Identifier: MIT */
/* output.c - vhost-guest's answer lines: "ok ...", "fail ...", and lines before them. */
#include "guest.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void vline(const char *prefix, const char *fmt, va_list ap)
{
	fputs(prefix, stdout);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
}

int reply_ok(const char *fmt, ...)
{
	char fields[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(fields, sizeof(fields), fmt, ap);
	va_end(ap);
	printf(*fields ? "ok %s\n" : "ok\n", fields);
	fflush(stdout);
	return 0;
}

int reply_fail(struct guest *g, const char *fmt, ...)
{
	va_list ap;

	if (g && g->vu.closed) {
		puts("fail closed");
		fflush(stdout);
		return -1;
	}
	va_start(ap, fmt);
	vline("fail ", fmt, ap);
	va_end(ap);
	return -1;
}

void reply_line(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline("", fmt, ap);
	va_end(ap);
}

int reply_errno(struct guest *g, const char *what, int err)
{
	return reply_fail(g, "%s: %s", what, strerror(err < 0 ? -err : err));
}

void print_hex(const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		printf("%02x", p[i]);
}
