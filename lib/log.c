/* SPDX-License-Identifier: MIT */
#include "lib/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <systemd/sd-journal.h>

static int max_level = LOG_INFO;
static bool journal;

static const char *const level_names[] = {
	"emerg", "alert", "crit", "err", "warning", "notice", "info", "debug",
};

void log_to_journal(bool on)
{
	journal = on;
}

void log_set_max_level(int priority)
{
	if (priority >= LOG_EMERG && priority <= LOG_DEBUG)
		max_level = priority;
}

int log_get_max_level(void)
{
	return max_level;
}

int log_level_from_string(const char *s)
{
	char *end;
	long n;

	for (int i = 0; i <= LOG_DEBUG; i++)
		if (strcasecmp(s, level_names[i]) == 0)
			return i;
	if (strcasecmp(s, "error") == 0)
		return LOG_ERR;
	errno = 0;
	n = strtol(s, &end, 10);
	if (errno || end == s || *end || n < LOG_EMERG || n > LOG_DEBUG)
		return -EINVAL;
	return (int)n;
}

const char *log_level_to_string(int priority)
{
	return priority >= LOG_EMERG && priority <= LOG_DEBUG ? level_names[priority] : NULL;
}

static void log_write(int priority, const char *suffix, const char *fmt, va_list ap)
{
	char line[2048];
	int n;

	n = vsnprintf(line, sizeof(line), fmt, ap);
	if (n < 0)
		return;
	if (journal) {
		if (suffix)
			sd_journal_print(priority, "%s: %s", line, suffix);
		else
			sd_journal_print(priority, "%s", line);
		return;
	}
	/* One write per line, so lines from several threads do not interleave. */
	if (suffix)
		fprintf(stderr, "<%d>%s: %s\n", priority, line, suffix);
	else
		fprintf(stderr, "<%d>%s\n", priority, line);
}

void log_full(int priority, const char *fmt, ...)
{
	va_list ap;

	if (priority > max_level)
		return;
	va_start(ap, fmt);
	log_write(priority, NULL, fmt, ap);
	va_end(ap);
}

int log_full_errno(int priority, int err, const char *fmt, ...)
{
	va_list ap;

	if (err > 0)
		err = -err;
	if (priority > max_level)
		return err;
	va_start(ap, fmt);
	log_write(priority, strerror(-err), fmt, ap);
	va_end(ap);
	return err;
}
