/* SPDX-License-Identifier: MIT */
/* rdmactl -H [USER@]HOST: the same commands, through ssh and the far host's rdmactl --bridge. */
#include "cmd/remote.h"
#include "lib/varlink/varlink.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* Words of $RDMACTL_SSH, then ssh's options, the host and the remote command. */
#define SSH_WORDS_MAX 32

int ctl_remote_check_host(const char *host)
{
	/* ssh would read "-oProxyCommand=..." as an option: a host never starts so. */
	if (!*host || host[0] == '-')
		return ctl_usage_error("-H: '%s' is not a host: [USER@]HOST", host);
	for (const char *c = host; *c; c++)
		if (isspace((unsigned char)*c) || iscntrl((unsigned char)*c))
			return ctl_usage_error("-H: '%s' is not a host: [USER@]HOST, without blanks",
					       host);
	return 0;
}

/* s in single quotes for the far host's shell, which runs what ssh sends it: ' is '\''. */
static int append_quoted(char *out, size_t cap, const char *s)
{
	size_t len = strlen(out);

	/* At most: every byte a quote (four bytes each), the two quotes and the NUL. */
	if (len + 4 * strlen(s) + 3 > cap)
		return -E2BIG;
	out[len++] = '\'';
	for (; *s; s++) {
		if (*s == '\'') {
			memcpy(out + len, "'\\''", 4);
			len += 4;
		} else {
			out[len++] = *s;
		}
	}
	out[len++] = '\'';
	out[len] = '\0';
	return 0;
}

/*
 * "rdmactl --bridge -s 'PATH'": the socket only when -s named one, else the
 * far host's default, which its own RDMACTL_SOCKET may change.
 */
static int remote_command(const struct ctl *ctl, char *out, size_t cap)
{
	const char *remote = getenv("RDMACTL_REMOTE");

	if (!remote || !*remote)
		remote = RDMACTL_REMOTE_DEFAULT;
	if ((size_t)snprintf(out, cap, "%s --bridge", remote) >= cap)
		return -E2BIG;
	if (strcmp(ctl->socket_path, RDMACTL_SOCKET_DEFAULT) == 0)
		return 0;
	if (strlen(out) + strlen(" -s ") >= cap)
		return -E2BIG;
	strcat(out, " -s ");
	return append_quoted(out, cap, ctl->socket_path);
}

int ctl_remote_connect(struct ctl *ctl, struct varlink_client **client)
{
	const char *ssh_env = getenv("RDMACTL_SSH");
	char ssh[1024], command[4096], *argv[SSH_WORDS_MAX + 6];
	int n, r;

	if (!ssh_env || !*ssh_env)
		ssh_env = RDMACTL_SSH_DEFAULT;
	if (strlen(ssh_env) >= sizeof(ssh))
		return ctl_usage_error("RDMACTL_SSH: longer than %zu bytes", sizeof(ssh) - 1);
	strcpy(ssh, ssh_env);
	n = split_words(ssh, argv, SSH_WORDS_MAX);
	if (n <= 0)
		return ctl_usage_error("RDMACTL_SSH: '%s' names no command", ssh_env);
	if (remote_command(ctl, command, sizeof(command)) < 0)
		return ctl_usage_error("-H %s: the socket path or RDMACTL_REMOTE is too long",
				       ctl->host);
	/* As systemctl -H runs it: no X11, no terminal; "--" ends ssh's options. */
	argv[n++] = "-xT";
	argv[n++] = "--";
	argv[n++] = (char *)ctl->host;
	argv[n++] = command;
	argv[n] = NULL;
	r = varlink_client_connect_exec(client, argv);
	if (r < 0)
		fprintf(stderr, "rdmactl: -H %s: cannot run '%s': %s%s\n", ctl->host, argv[0],
			strerror(-r), r == -ENOENT ? " (install ssh, or name it in RDMACTL_SSH)" : "");
	return r;
}

const char *ctl_remote_talk_error(struct ctl *ctl, int r)
{
	static char said[512];
	const char *host = ctl->host;
	int status;

	if (r == -EINTR)
		return "interrupted";
	if (r == -EOPNOTSUPP) {
		snprintf(said, sizeof(said),
			 "host '%s': the command passes a file descriptor, which cannot travel over ssh: run it on that host",
			 host);
		return said;
	}
	/*
	 * ssh closed its output, and so ends: how it ended says what broke.
	 * ssh exits 255 for its own failures, else with the remote command's
	 * status: the shell's 127 or 126, the bridge's 1 (cmd/bridge.c).
	 */
	if (varlink_client_child_status(ctl->client, 2000, &status) < 0)
		snprintf(said, sizeof(said), "host '%s': the connection broke: %s", host,
			 r == -ECONNRESET ? "ssh closed it" : strerror(-r));
	else if (WIFSIGNALED(status))
		snprintf(said, sizeof(said), "host '%s': ssh was killed by signal %d", host,
			 WTERMSIG(status));
	else if (WEXITSTATUS(status) == 255)
		snprintf(said, sizeof(said),
			 "host '%s': ssh could not reach it or log in (ssh exit status 255; ssh's own message is above)",
			 host);
	else if (WEXITSTATUS(status) == 127 || WEXITSTATUS(status) == 126)
		snprintf(said, sizeof(said),
			 "host '%s': no rdmactl to run there (exit status %d): install rdmad on it, or name its rdmactl in RDMACTL_REMOTE",
			 host, WEXITSTATUS(status));
	else if (WEXITSTATUS(status) == EXIT_FAIL)
		snprintf(said, sizeof(said),
			 "host '%s': rdmactl --bridge there could not reach its rdmad (its message is above)",
			 host);
	else
		snprintf(said, sizeof(said), "host '%s': rdmad there closed the connection (ssh exit status %d)",
			 host, WEXITSTATUS(status));
	return said;
}
