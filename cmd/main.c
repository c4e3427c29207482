/* SPDX-License-Identifier: MIT */
/* rdmactl: control rdmad.  See rdmactl(8). */
#include "cmd/rdmactl.h"
#include "cmd/output.h"
#include "cmd/remote.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void print_word(void *data, const char *word)
{
	puts(word);
}

/*
 * -s or else $RDMACTL_SOCKET, which names a socket here: with -H, the far
 * host's default (remote.c passes no -s then, and its own setting holds).
 */
static const char *default_socket(const char *host)
{
	const char *path = getenv("RDMACTL_SOCKET");

	return host || !path || !*path ? RDMACTL_SOCKET_DEFAULT : path;
}

/*
 * "rdmactl __complete WORD..." (completions/): -H HOST among the words says
 * whose daemon to ask, and is not a word of the command line completed.
 */
static int complete(struct ctl *ctl, int n, char **words)
{
	char **rest = calloc((size_t)n + 1, sizeof(*rest));
	int kept = 0;

	if (!rest)
		return EXIT_FAIL;
	for (int i = 0; i < n; i++) {
		bool host = strcmp(words[i], "-H") == 0 || strcmp(words[i], "--host") == 0;

		if (host && i + 2 < n) {
			if (ctl_remote_check_host(words[i + 1]) == 0)
				ctl->host = words[i + 1];
			i++;
			continue;
		}
		if ((strcmp(words[i], "-s") == 0 || strcmp(words[i], "--socket") == 0) && i + 2 < n)
			ctl->socket_path = words[i + 1];
		rest[kept++] = words[i];
	}
	if (!ctl->socket_path)
		ctl->socket_path = default_socket(ctl->host);
	cmd_complete(ctl, kept, rest, print_word, NULL);
	ctl_disconnect(ctl);
	free(rest);
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "json",        no_argument,       NULL, 'j' },
		{ "pretty",      no_argument,       NULL, 'p' },
		{ "details",     no_argument,       NULL, 'd' },
		{ "quiet",       no_argument,       NULL, 'q' },
		/* No pager, no legends: accepted as systemd's tools take them, and nothing to do. */
		{ "no-legend",   no_argument,       NULL, 'L' },
		{ "no-pager",    no_argument,       NULL, 'P' },
		{ "socket",      required_argument, NULL, 's' },
		{ "host",        required_argument, NULL, 'H' },
		{ "bridge",      no_argument,       NULL, 'B' },
		{ "interactive", no_argument,       NULL, 'i' },
		{ "batch",       required_argument, NULL, 'b' },
		{ "force",       no_argument,       NULL, 'f' },
		{ "version",     no_argument,       NULL, 'V' },
		{ "help",        no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ctl ctl = { .out = &output_text };
	const char *batch = NULL;
	bool interactive = false, force = false, bridge = false;
	int c, r;

	ctl.host = getenv("RDMACTL_HOST");
	if (ctl.host && !*ctl.host)
		ctl.host = NULL;

	/* Completion for shells: "rdmactl __complete WORD... CURRENT" (see completions/). */
	if (argc >= 2 && strcmp(argv[1], "__complete") == 0)
		return complete(&ctl, argc - 2, argv + 2);

	/* "+": options stop at the object, so commands keep their own. */
	while ((c = getopt_long(argc, argv, "+jpdqs:H:ib:fVh", options, NULL)) >= 0) {
		switch (c) {
		case 'j':
		case 'p':
		case 'd':
		case 'q':
		case 's':
			ctl_set_global_option(&ctl, (char)c, optarg);
			break;
		case 'L':
		case 'P':
			break;
		case 'H':
			ctl.host = optarg;
			break;
		case 'B':
			bridge = true;
			break;
		case 'i':
			interactive = true;
			break;
		case 'b':
			batch = optarg;
			break;
		case 'f':
			force = true;
			break;
		case 'V':
			printf("rdmactl %s\n", RDMAD_VERSION);
			return EXIT_OK;
		case 'h':
			cmd_help(cmd_root, "");
			return EXIT_OK;
		default:
			fprintf(stderr, "Try 'rdmactl help'.\n");
			return EXIT_USAGE;
		}
	}

	/* The bridge is on the far host: its socket is that host's, whatever RDMACTL_HOST says. */
	if (bridge)
		ctl.host = NULL;
	if (!ctl.socket_path)
		ctl.socket_path = default_socket(ctl.host);
	/* ssh runs the bridge; it takes no command, and goes to no other host. */
	if (bridge && (interactive || batch || optind < argc))
		r = cmd_exit_code(ctl_usage_error("--bridge relays standard input and output to rdmad: no command, -i or -b with it"));
	else if (bridge)
		r = cmd_bridge_run(ctl.socket_path);
	else if (ctl.host && ctl_remote_check_host(ctl.host) < 0)
		r = EXIT_USAGE;
	/* One source of commands: the words given, a batch file, or the shell. */
	else if (batch && (interactive || optind < argc))
		r = cmd_exit_code(ctl_usage_error("-b runs the commands of a file: no %s with it",
						  interactive ? "-i" : "command"));
	else if (interactive && optind < argc)
		r = cmd_exit_code(ctl_usage_error("-i runs the shell: no command with it ('%s')",
						  argv[optind]));
	else if (force && !batch)
		r = cmd_exit_code(ctl_usage_error("--force goes with -b"));
	else if (batch)
		r = batch_run(&ctl, batch, force);
	else if (interactive || (optind == argc && isatty(STDIN_FILENO)))
		r = shell_run(&ctl);
	else {
		ctl.one_shot = true;
		r = cmd_dispatch(&ctl, argc - optind, argv + optind);
	}
	ctl_disconnect(&ctl);
	json_object_put(ctl.doc);
	return r;
}
