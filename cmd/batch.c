/* SPDX-License-Identifier: MIT */
/*
 * Batch mode (`rdmactl -b FILE`, as `rdma -b`): the lines of a file run as
 * commands through the same table.  Nothing is echoed: standard output holds
 * only what the commands print, so a batch's output is a script's to read.
 */
#include "cmd/rdmactl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH_WORDS_MAX 128

/* Runs one line; its exit code (0 for a blank or comment line). */
static int run_line(struct ctl *ctl, const char *path, unsigned lineno, char *line)
{
	char *words[BATCH_WORDS_MAX];
	int n;

	line[strcspn(line, "\n")] = '\0';
	n = split_words(line, words, BATCH_WORDS_MAX);
	if (n < 0)
		return cmd_exit_code(ctl_usage_error("%s:%u: more than %d words", path, lineno,
						     BATCH_WORDS_MAX));
	if (n == 0 || words[0][0] == '#')
		return EXIT_OK;
	return cmd_dispatch(ctl, n, words);
}

void batch_say_failed(const char *name, unsigned lineno, int status, bool going_on)
{
	fprintf(stderr, "rdmactl: %s:%u: the command failed (exit status %d)%s\n", name, lineno, status,
		going_on ? "" : "; stopping");
}

int batch_run(struct ctl *ctl, const char *path, bool force)
{
	bool is_stdin = strcmp(path, "-") == 0;
	FILE *f = is_stdin ? stdin : fopen(path, "re");
	const char *name = is_stdin ? "standard input" : path;
	int failed = EXIT_OK;
	unsigned lineno = 0;
	char *line = NULL;
	size_t cap = 0;

	if (!f)
		return cmd_exit_code(ctl_fail("-b %s: %s", path, strerror(errno)));
	while (getline(&line, &cap, f) >= 0) {
		int r = run_line(ctl, name, ++lineno, line);

		if (r == EXIT_OK)
			continue;
		batch_say_failed(name, lineno, r, force);
		failed = r;
		if (!force)
			break;
	}
	free(line);
	if (!is_stdin)
		fclose(f);
	return failed;
}
