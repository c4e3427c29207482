/* SPDX-License-Identifier: MIT */
/* rdmad: the RDMA device management daemon.  See rdmad(8). */
#include "daemon/api/api.h"
#include "daemon/core/manager.h"
#include "dataplane/offload/kern.h"
#include "lib/log.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static void help(void)
{
	printf("Usage: rdmad [OPTIONS]\n"
	       "\n"
	       "Owns an RDMA device and serves its control interface over varlink.\n"
	       "\n"
	       "  -s, --socket PATH      listen on PATH (default " RDMAD_SOCKET_PATH ")\n"
	       "  -d, --state-dir DIR    keep configured state in DIR (default " RDMAD_STATE_DIR ")\n"
	       "  -c, --config FILE      read settings from FILE (default " RDMAD_CONFIG_PATH ")\n"
	       "  -f, --foreground       do not detach (implied under systemd)\n"
	       "  -l, --log-level LEVEL  emerg|alert|crit|err|warning|notice|info|debug\n"
	       "      --cpus LIST        run dataplane workers on these CPUs, e.g. 0-3,8\n"
	       "                         (default: every CPU rdmad may run on)\n"
	       "  -V, --version          print the version and exit\n"
	       "  -h, --help             print this help and exit\n"
	       "\n"
	       "See the rdmad(8) man page for details.\n");
}

/* Started by systemd (or its socket activation) there is nothing to detach from. */
static bool under_service_manager(void)
{
	return getenv("NOTIFY_SOCKET") || getenv("LISTEN_FDS") || getenv("INVOCATION_ID");
}

/*
 * Classic detach for a start from a shell: the parent exits once the child has
 * its socket or has failed, so "rdmad && rdmactl status" works.
 */
static int detach(int *ready_fd)
{
	int pipefd[2];
	pid_t pid;
	char status = 1;
	int null;

	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid > 0) {
		close(pipefd[1]);
		if (read(pipefd[0], &status, 1) != 1)
			status = 1;
		_exit(status);
	}
	close(pipefd[0]);
	if (setsid() < 0)
		return -errno;
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		close(null);
	}
	*ready_fd = pipefd[1];
	return 0;
}

enum { ARG_CPUS = 0x100 };

/* The engine chose a level below one this CPU runs because that one failed its start-up
 * self-test: say which, why, and what runs instead. */
static void log_kernel_selftests(void)
{
	for (int l = 0; l < DP_KERN_LEVELS; l++)
		if (dp_kern_level_supported((enum dp_kern_level)l) && !dp_kern_level_usable((enum dp_kern_level)l))
			log_error("guard kernel level %s not used: its start-up self-test %s; running %s",
				  dp_kern_level_name((enum dp_kern_level)l), dp_kern_level_selftest((enum dp_kern_level)l),
				  dp_kern_level_name(dp_kern_level_in_use()));
}

/*
 * Each program's QP and CQ holds descriptors in rdmad (its ring's memory and
 * its doorbell), so 65,536 QPs need far more than the 1024 a service gets by
 * default.  rdmad polls with epoll, never select(), and runs no other
 * program, so the soft limit may be the hard one, as systemd advises for
 * such services.
 */
static void raise_open_files_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		log_warning_errno(-errno, "cannot raise the open files limit to %llu",
				  (unsigned long long)rl.rlim_max);
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "socket",     required_argument, NULL, 's' },
		{ "state-dir",  required_argument, NULL, 'd' },
		{ "config",     required_argument, NULL, 'c' },
		{ "foreground", no_argument,       NULL, 'f' },
		{ "log-level",  required_argument, NULL, 'l' },
		{ "cpus",       required_argument, NULL, ARG_CPUS },
		{ "version",    no_argument,       NULL, 'V' },
		{ "help",       no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct manager_options opts = { .log_level = -1 };
	struct manager *m = NULL;
	bool foreground = false;
	char level_msg[160];
	int ready_fd = -1;
	int c, r;

	while ((c = getopt_long(argc, argv, "s:d:c:fl:Vh", options, NULL)) >= 0) {
		switch (c) {
		case 's':
			opts.socket_path = optarg;
			break;
		case 'd':
			opts.state_dir = optarg;
			break;
		case 'c':
			opts.config_path = optarg;
			break;
		case 'f':
			foreground = true;
			break;
		case 'l':
			opts.log_level = log_level_from_string(optarg);
			if (opts.log_level < 0) {
				fprintf(stderr, "rdmad: --log-level: '%s' is not one of emerg, alert, crit, "
					"err, warning, notice, info, debug\n", optarg);
				return 2;
			}
			break;
		case ARG_CPUS:
			opts.cpus = optarg;
			break;
		case 'V':
			printf("rdmad %s\n", RDMAD_VERSION);
			return 0;
		case 'h':
			help();
			return 0;
		default:
			fprintf(stderr, "Try 'rdmad --help'.\n");
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "rdmad: unexpected argument '%s'\nTry 'rdmad --help'.\n", argv[optind]);
		return 2;
	}
	if (dp_kern_env_describe(level_msg, sizeof(level_msg)) < 0) {
		fprintf(stderr, "rdmad: %s\n", level_msg);
		return 1;
	}
	if (!foreground && !under_service_manager()) {
		r = detach(&ready_fd);
		if (r < 0) {
			log_error_errno(r, "cannot detach");
			return 1;
		}
		log_to_journal(true);
	}
	log_kernel_selftests();
	raise_open_files_limit();

	r = manager_new(&m, &opts);
	if (r >= 0) {
		manager_set_ready_fd(m, ready_fd);
		r = manager_start(m);
	}
	if (r >= 0)
		r = api_varlink_init(m);
	if (r >= 0)
		r = manager_loop(m);
	if (m)
		api_varlink_free(m);
	manager_free(m);
	return r < 0 ? 1 : 0;
}
