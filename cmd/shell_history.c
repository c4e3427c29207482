/* SPDX-License-Identifier: MIT */
/*
 * The shell's history, kept across sessions in the user's state directory as
 * the XDG base directory specification puts it: $XDG_STATE_HOME/rdmactl/history,
 * else ~/.local/state/rdmactl/history.
 */
#include "cmd/rdmactl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <readline/history.h>

#define HISTORY_LINES_MAX 1000

static char *history_path;

/* mkdir -p of the directory part of path, 0700: the history is the user's own. */
static int make_parents(const char *path)
{
	char *dir = strdup(path);
	int r = 0;

	if (!dir)
		return -ENOMEM;
	for (char *p = strchr(dir + 1, '/'); p && r == 0; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(dir, 0700) < 0 && errno != EEXIST)
			r = -errno;
		*p = '/';
	}
	free(dir);
	return r;
}

void shell_history_open(void)
{
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	int r;

	if (state && state[0] == '/')
		r = asprintf(&history_path, "%s/rdmactl/history", state);
	else if (home && home[0] == '/')
		r = asprintf(&history_path, "%s/.local/state/rdmactl/history", home);
	else
		return;
	if (r < 0) {
		history_path = NULL;
		return;
	}
	r = make_parents(history_path);
	if (r < 0) {
		fprintf(stderr, "rdmactl: no history kept: %s: %s\n", history_path, strerror(-r));
		free(history_path);
		history_path = NULL;
		return;
	}
	stifle_history(HISTORY_LINES_MAX);
	/* A first session has no file yet. */
	read_history(history_path);
}

void shell_history_add(const char *line)
{
	int r;

	add_history(line);
	/* Each line as it is run: a session that is killed keeps what it ran. */
	if (!history_path || append_history(1, history_path) == 0)
		return;
	/* The first line of all: append_history() does not create the file. */
	r = write_history(history_path);
	if (r != 0)
		fprintf(stderr, "rdmactl: history %s: %s\n", history_path, strerror(r));
}

void shell_history_close(void)
{
	if (history_path)
		history_truncate_file(history_path, HISTORY_LINES_MAX);
	free(history_path);
	history_path = NULL;
}
