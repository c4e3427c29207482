/* SPDX-License-Identifier: MIT */
/*
 * Logging to stderr with sd-daemon "<N>" priority prefixes, which journald
 * turns into priorities (SyslogLevelPrefix=yes) and a terminal still reads.
 */
#pragma once

#include <stdbool.h>
#include <syslog.h>

void log_set_max_level(int priority);
/* A detached daemon has no stderr: send lines to the journal instead. */
void log_to_journal(bool on);
int log_get_max_level(void);
/* Accepts the syslog names (emerg … debug) and numbers 0-7; -EINVAL otherwise. */
int log_level_from_string(const char *s);
const char *log_level_to_string(int priority);

void log_full(int priority, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Logs "fmt: strerror(-err)" and returns err, so callers can "return log_errno(...)". */
int log_full_errno(int priority, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#define log_error(...)   log_full(LOG_ERR, __VA_ARGS__)
#define log_warning(...) log_full(LOG_WARNING, __VA_ARGS__)
#define log_notice(...)  log_full(LOG_NOTICE, __VA_ARGS__)
#define log_info(...)    log_full(LOG_INFO, __VA_ARGS__)
#define log_debug(...)   log_full(LOG_DEBUG, __VA_ARGS__)
#define log_error_errno(err, ...)   log_full_errno(LOG_ERR, err, __VA_ARGS__)
#define log_warning_errno(err, ...) log_full_errno(LOG_WARNING, err, __VA_ARGS__)
