/* SPDX-License-Identifier: MIT */
/*
 * NAME
 *	vhost-guest - a test front end for rdmad's virtio-net RoCE device
 *
 * SYNOPSIS
 *	vhost-guest SOCKET [--mem MIB] [--queue-size N] [--no-roce] [--no-indirect]
 *	            [--no-event-idx]
 *
 * DESCRIPTION
 *	Plays QEMU and the guest's driver against a vhost-user back end on
 *	SOCKET, written from seed 004 and QEMU's vhost-user specification
 *	alone (it shares no code with rdmad): guest memory is a memfd of --mem
 *	MiB (64) shared as two regions, guest-physical 0.. and 4 GiB..; queues
 *	have --queue-size entries (256).  Commands come one per line on
 *	standard input ('#' starts a comment); each is answered by exactly one
 *	line, "ok key=value ..." or "fail reason", after any "cqe ..." lines,
 *	flushed at once.  A line starting "expect-fail " expects its command to
 *	fail.  The commands are listed in tests/tools/vhost-guest/README.
 *
 * EXIT STATUS
 *	0 at end of input when every command did as expected, 1 when one did
 *	not, 2 usage, 3 the connection closed ("fail closed") or could not be made.
 */
#include "guest.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int cmd_sleep(struct guest *g, struct args *a)
{
	const char *ms_s = args_pos(a, 1);
	uint64_t ms;
	struct timespec ts;

	if (!ms_s || parse_num(ms_s, &ms) < 0 || ms > 3600000 || args_done(a, 1) < 0)
		return reply_fail(g, "usage: sleep MS (0..3600000)");
	ts.tv_sec = (time_t)(ms / 1000);
	ts.tv_nsec = (long)(ms % 1000) * 1000000;
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	return reply_ok("%s", "");
}

static int cmd_echo(struct guest *g, struct args *a)
{
	unsigned i;

	fputs("ok", stdout);
	for (i = 1; i < a->n; i++)
		printf(" %s", a->word[i]);
	putchar('\n');
	fflush(stdout);
	return 0;
}

static const struct command misc_commands[] = {
	{ "sleep", cmd_sleep },
	{ "echo", cmd_echo },
	{ NULL, NULL },
};

static const struct command *const tables[] = {
	session_commands, roce_commands, buffer_commands, wqe_commands, net_commands,
	hostile_commands, bench_commands, misc_commands,
};

static command_fn lookup(const char *name)
{
	size_t t;
	const struct command *c;

	for (t = 0; t < sizeof(tables) / sizeof(tables[0]); t++)
		for (c = tables[t]; c->name; c++)
			if (!strcmp(c->name, name))
				return c->run;
	return NULL;
}

/* One input line: true when it went as expected. */
static bool run_line(struct guest *g, char *line)
{
	bool expect_fail = false;
	struct args a;
	command_fn run;
	int r;

	if (!strncmp(line, "expect-fail", 11) && (line[11] == ' ' || line[11] == '\t')) {
		expect_fail = true;
		line += 12;
	}
	if (args_split(&a, line) < 0) {
		reply_fail(g, "%s", a.err);
		return expect_fail;
	}
	if (a.n == 0 || a.word[0][0] == '#')
		return true;
	run = lookup(a.word[0]);
	if (!run) {
		reply_fail(g, "unknown command '%s'", a.word[0]);
		return expect_fail;
	}
	r = run(g, &a);
	return (r < 0) == expect_fail;
}

static void usage(FILE *f)
{
	fputs("usage: vhost-guest SOCKET [--mem MIB] [--queue-size N] [--no-roce] [--no-indirect]"
	      " [--no-event-idx]\n", f);
}

static int parse_options(struct guest *g, int argc, char **argv, unsigned long *mib)
{
	static const struct option options[] = {
		{ "mem", required_argument, NULL, 'm' },
		{ "queue-size", required_argument, NULL, 'q' },
		{ "no-roce", no_argument, NULL, 'r' },
		{ "no-indirect", no_argument, NULL, 'i' },
		{ "no-event-idx", no_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c;

	while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (parse_num(optarg, &v) < 0 || v < 2 || v > 65536) {
				fprintf(stderr, "vhost-guest: --mem '%s' is not a number of MiB 2..65536\n",
					optarg);
				return -1;
			}
			*mib = (unsigned long)v;
			break;
		case 'q':
			if (parse_num(optarg, &v) < 0 || v < 2 || v > VRING_SIZE_MAX || (v & (v - 1))) {
				fprintf(stderr, "vhost-guest: --queue-size '%s' is not a power of two 2..%d\n",
					optarg, VRING_SIZE_MAX);
				return -1;
			}
			g->queue_size = (unsigned)v;
			break;
		case 'r':
			g->want_roce = false;
			break;
		case 'i':
			g->want_indirect = false;
			break;
		case 'e':
			g->want_event_idx = false;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return -1;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "vhost-guest: %s\n", optind < argc ? "one SOCKET only" : "SOCKET missing");
		return -1;
	}
	g->socket_path = argv[optind];
	return 0;
}

int main(int argc, char **argv)
{
	struct guest g = {
		.queue_size = 256, .want_roce = true, .want_indirect = true, .want_event_idx = true,
	};
	unsigned long mib = 64;
	char *line = NULL;
	size_t cap = 0;
	bool all_ok = true;
	int r;

	if (parse_options(&g, argc, argv, &mib) < 0) {
		usage(stderr);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	r = guest_mem_open(&g.mem, mib);
	if (r < 0) {
		fprintf(stderr, "vhost-guest: guest memory of %lu MiB: %s\n", mib, strerror(-r));
		return 1;
	}
	r = session_connect(&g);
	if (r < 0) {
		printf("fail closed (connect %s: %s)\n", g.socket_path, strerror(-r));
		guest_mem_close(&g.mem);
		return 3;
	}
	while (getline(&line, &cap, stdin) >= 0) {
		if (!run_line(&g, line))
			all_ok = false;
		if (g.vu.closed)
			break;
	}
	free(line);
	/* Everything goes back before the exit, so a leak checker sees none (make check SANITIZE=1). */
	r = g.vu.closed ? 3 : all_ok ? 0 : 1;
	session_reset(&g);
	gbuf_forget_all(&g);
	vu_close(&g.vu);
	guest_mem_close(&g.mem);
	return r;
}
