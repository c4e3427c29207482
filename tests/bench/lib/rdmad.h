/* SPDX-License-Identifier: MIT */
/*
 * A real rdmad for the control-plane benches: started from $BUILD/rdmad in a
 * new directory (socket, state/, an empty rdmad.conf, rdmad.log), waited for
 * until it answers, stopped with SIGTERM and its directory removed.
 */
#pragma once

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/un.h>

struct bench_rdmad {
	char dir[PATH_MAX];
	char socket[sizeof(((struct sockaddr_un *)0)->sun_path)];
	pid_t pid;
	char cpus[64];            /* rdmad --cpus (empty: its default, every CPU) */
};

/*
 * Where the benches put rdmad's directory: $BENCH_DIR, else $BUILD (default
 * build).  Not /tmp, which may be a tmpfs: state files are fsync'ed, and
 * what that costs is part of the figures.
 */
const char *bench_rdmad_parent(void);
/* Starts rdmad in a new directory under parent; 0 once it answers a call. */
int bench_rdmad_start(struct bench_rdmad *d, const char *parent);
/* The same with its workers on cpus (rdmad --cpus LIST). */
int bench_rdmad_start_on(struct bench_rdmad *d, const char *parent, const char *cpus);
/*
 * SIGTERM; 0 when rdmad exited with status 0 (else its log goes to stderr).
 * Removes its directory.
 */
int bench_rdmad_stop(struct bench_rdmad *d);
/*
 * Stops rdmad with sig (SIGTERM, SIGKILL) and starts it again in the same
 * directory, its state kept; seconds: from the start until it answered
 * (polled every 2 ms).  0 once it answers.
 */
int bench_rdmad_restart(struct bench_rdmad *d, int sig, double *seconds);
/* DIR/name of rdmad's directory into out (its rdmad.conf, its state/), or NULL when too long. */
const char *bench_rdmad_path(const struct bench_rdmad *d, const char *name, char *out, size_t size);
/* A field of rdmad's /proc/PID/status in kB (VmRSS, VmHWM), or -errno. */
long bench_rdmad_status_kb(const struct bench_rdmad *d, const char *field);
