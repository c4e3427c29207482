/* SPDX-License-Identifier: MIT */
/* The interactive shell: the same command table, read line by line, completed by readline. */
#include "cmd/rdmactl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <readline/history.h>
#include <readline/readline.h>

#define SHELL_WORDS_MAX 128

static struct ctl *shell_ctl;

struct matches {
	char **list;
	size_t n, cap;
};

static void add_match(void *data, const char *word)
{
	struct matches *m = data;

	if (m->n + 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 16;
		char **list = realloc(m->list, cap * sizeof(*list));

		if (!list)
			return;
		m->list = list;
		m->cap = cap;
	}
	m->list[m->n++] = strdup(word);
	m->list[m->n] = NULL;
}

static char *next_match(const char *text, int state)
{
	static struct matches m;
	static size_t i;

	if (state == 0) {
		char *line = strndup(rl_line_buffer, (size_t)rl_point);
		char *words[SHELL_WORDS_MAX + 1];
		int n;

		for (size_t k = i; k < m.n; k++)
			free(m.list[k]);
		m.n = 0;
		i = 0;
		if (!line)
			return NULL;
		n = split_words(line, words, SHELL_WORDS_MAX);
		if (n >= 0) {
			/* The word being typed may be empty (after a blank). */
			if (n == 0 || rl_point == 0 || rl_line_buffer[rl_point - 1] == ' ')
				words[n++] = (char *)"";
			cmd_complete(shell_ctl, n, words, add_match, &m);
		}
		free(line);
	}
	return i < m.n ? m.list[i++] : NULL;
}

static char **shell_completion(const char *text, int start, int end)
{
	rl_attempted_completion_over = 1;
	return rl_completion_matches(text, next_match);
}

int shell_run(struct ctl *ctl)
{
	int last = EXIT_OK;
	char *line;

	shell_ctl = ctl;
	ctl->interactive = true;
	rl_readline_name = "rdmactl";
	/* Prompt and echo on stderr: standard output carries only what commands print. */
	rl_outstream = stderr;
	rl_attempted_completion_function = shell_completion;
	while ((line = readline("rdmactl> "))) {
		char *words[SHELL_WORDS_MAX];
		int n;

		if (*line)
			add_history(line);
		n = split_words(line, words, SHELL_WORDS_MAX);
		if (n < 0)
			last = cmd_exit_code(ctl_usage_error("too many words"));
		else if (n > 0 && (strcmp(words[0], "quit") == 0 || strcmp(words[0], "exit") == 0)) {
			free(line);
			break;
		} else if (n > 0)
			last = cmd_dispatch(ctl, n, words);
		free(line);
	}
	return last;
}
