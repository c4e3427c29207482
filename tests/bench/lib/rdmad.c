/* SPDX-License-Identifier: MIT */
#include "tests/bench/lib/rdmad.h"
#include "lib/varlink/varlink.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WAIT_STEP_US 2000
#define WAIT_STEPS   5000	/* 10 s, to start and to stop */

static const char *build_dir(void)
{
	const char *dir = getenv("BUILD");

	return dir && *dir ? dir : "build";
}

const char *bench_rdmad_parent(void)
{
	const char *dir = getenv("BENCH_DIR");

	return dir && *dir ? dir : build_dir();
}

static int path_in(char *out, size_t size, const struct bench_rdmad *d, const char *name)
{
	if ((size_t)snprintf(out, size, "%s/%s", d->dir, name) >= size)
		return -ENAMETOOLONG;
	return 0;
}

static int make_dir(struct bench_rdmad *d, const char *parent)
{
	char tmpl[PATH_MAX];
	int fd;

	if ((size_t)snprintf(tmpl, sizeof(tmpl), "%s/rdmad-bench.XXXXXX", parent) >= sizeof(tmpl))
		return -ENAMETOOLONG;
	/* Absolute: key files given to rdmad must be. */
	if (!mkdtemp(tmpl) || !realpath(tmpl, d->dir))
		return -errno;
	if (path_in(d->socket, sizeof(d->socket), d, "io.rdmad") < 0 ||
	    path_in(tmpl, sizeof(tmpl), d, "rdmad.conf") < 0)
		return -ENAMETOOLONG;
	fd = open(tmpl, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static void exec_rdmad(const struct bench_rdmad *d)
{
	char rdmad[PATH_MAX], state[PATH_MAX], conf[PATH_MAX], log[PATH_MAX];
	int fd;

	snprintf(rdmad, sizeof(rdmad), "%s/rdmad", build_dir());
	if (path_in(state, sizeof(state), d, "state") < 0 ||
	    path_in(conf, sizeof(conf), d, "rdmad.conf") < 0 ||
	    path_in(log, sizeof(log), d, "rdmad.log") < 0)
		_exit(126);
	/* Not outliving the bench, however it ends (^C, exit). */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() == 1)
		_exit(126);
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0)
		_exit(126);
	if (d->cpus[0])
		execl(rdmad, "rdmad", "--foreground", "--socket", d->socket, "--state-dir", state,
		      "--config", conf, "--cpus", d->cpus, (char *)NULL);
	else
		execl(rdmad, "rdmad", "--foreground", "--socket", d->socket, "--state-dir", state,
		      "--config", conf, (char *)NULL);
	fprintf(stderr, "%s: %s\n", rdmad, strerror(errno));
	_exit(127);
}

static bool answers(const char *socket)
{
	struct varlink_client *vc;
	struct json_object *reply;
	char *error = NULL;
	int r;

	if (varlink_client_connect(&vc, socket) < 0)
		return false;
	r = varlink_client_call(vc, "io.rdmad.Daemon.GetStatus", NULL, &reply, &error);
	if (r == 0)
		json_object_put(reply);
	varlink_client_free(vc);
	free(error);
	return r == 0 && !error;
}

static void show_log(const struct bench_rdmad *d)
{
	char path[PATH_MAX], buf[4096];
	size_t n;
	FILE *f;

	if (path_in(path, sizeof(path), d, "rdmad.log") < 0 || !(f = fopen(path, "r")))
		return;
	fprintf(stderr, "rdmad's log (%s):\n", path);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, stderr);
	fclose(f);
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	return remove(path) < 0 ? -1 : 0;
}

static void remove_dir(const struct bench_rdmad *d)
{
	if (nftw(d->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS) < 0)
		fprintf(stderr, "cannot remove %s: %s\n", d->dir, strerror(errno));
}

/* rdmad's exit status once it ended within WAIT_STEPS, else -ETIMEDOUT. */
static int wait_exit(pid_t pid)
{
	int status;

	for (int i = 0; i < WAIT_STEPS; i++) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		if (r < 0)
			return -errno;
		usleep(WAIT_STEP_US);
	}
	return -ETIMEDOUT;
}

static int wait_ready(struct bench_rdmad *d)
{
	for (int i = 0; i < WAIT_STEPS; i++) {
		int status;

		if (answers(d->socket))
			return 0;
		if (waitpid(d->pid, &status, WNOHANG) == d->pid) {
			fprintf(stderr, "bench: rdmad exited (wait status 0x%x)\n", status);
			show_log(d);
			d->pid = 0;
			return -ECHILD;
		}
		usleep(WAIT_STEP_US);
	}
	return -ETIMEDOUT;
}

int bench_rdmad_start(struct bench_rdmad *d, const char *parent)
{
	return bench_rdmad_start_on(d, parent, "");
}

/* rdmad from its directory's state, config and socket; 0 once it answers. */
static int spawn(struct bench_rdmad *d)
{
	int r;

	d->pid = fork();
	if (d->pid < 0)
		return -errno;
	if (d->pid == 0)
		exec_rdmad(d);
	r = wait_ready(d);
	if (r < 0) {
		fprintf(stderr, "bench: rdmad did not start: %s\n", strerror(-r));
		bench_rdmad_stop(d);
	}
	return r;
}

int bench_rdmad_start_on(struct bench_rdmad *d, const char *parent, const char *cpus)
{
	int r;

	memset(d, 0, sizeof(*d));
	snprintf(d->cpus, sizeof(d->cpus), "%s", cpus);
	r = make_dir(d, parent);
	if (r < 0) {
		fprintf(stderr, "bench: cannot make rdmad's directory under %s: %s\n", parent,
			strerror(-r));
		return r;
	}
	return spawn(d);
}

int bench_rdmad_restart(struct bench_rdmad *d, int sig, double *seconds)
{
	struct timespec t0, t1;
	int r;

	kill(d->pid, sig);
	r = wait_exit(d->pid);
	if (r == -ETIMEDOUT) {
		kill(d->pid, SIGKILL);
		waitpid(d->pid, NULL, 0);
	}
	d->pid = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = spawn(d);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	*seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	return r;
}

const char *bench_rdmad_path(const struct bench_rdmad *d, const char *name, char *out, size_t size)
{
	return path_in(out, size, d, name) < 0 ? NULL : out;
}

int bench_rdmad_stop(struct bench_rdmad *d)
{
	int status = 0;

	if (d->pid > 0) {
		kill(d->pid, SIGTERM);
		status = wait_exit(d->pid);
		if (status == -ETIMEDOUT) {
			kill(d->pid, SIGKILL);
			waitpid(d->pid, NULL, 0);
		}
		d->pid = 0;
	}
	if (status != 0) {
		fprintf(stderr, "bench: rdmad did not stop cleanly (%d)\n", status);
		show_log(d);
	}
	remove_dir(d);
	return status == 0 ? 0 : -EIO;
}

long bench_rdmad_status_kb(const struct bench_rdmad *d, const char *field)
{
	size_t len = strlen(field);
	char path[64], line[256];
	long kb = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)d->pid);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, field, len) == 0 && line[len] == ':') {
			kb = strtol(line + len + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return kb;
}
