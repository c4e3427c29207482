/* SPDX-License-Identifier: MIT */
/* The interactive shell: the same command table, read line by line, completed by readline. */
#include "cmd/rdmactl.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>
#include <readline/readline.h>

#define SHELL_WORDS_MAX 128
#define SHELL_PROMPT "rdmactl> "

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
	char **matches;

	rl_attempted_completion_over = 1;
	matches = rl_completion_matches(text, next_match);
	/* A directory is completed further: no blank after its '/'. */
	if (matches && !matches[1] && matches[0][0] && matches[0][strlen(matches[0]) - 1] == '/')
		rl_completion_suppress_append = 1;
	return matches;
}

/* Ctrl-C: set by the handler, acted on by the loop (readline is no signal handler's to call). */
static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	interrupted = 1;
}

/* The line readline handed over (NULL at end of input), once it has. */
static struct {
	bool done;
	char *line;
} input;

static void on_line(char *line)
{
	input.done = true;
	input.line = line;
	rl_callback_handler_remove();
}

/* What was typed is dropped and a new prompt comes, as in bash. */
static void drop_line(void)
{
	rl_replace_line("", 0);
	rl_crlf();
	rl_on_new_line();
	rl_redisplay();
}

/*
 * One line, or NULL at end of input.  readline's callback interface lets
 * the loop see Ctrl-C between keys: it clears the line and never ends the
 * shell.
 */
static char *read_line(void)
{
	int fd = fileno(rl_instream ? rl_instream : stdin);
	sigset_t sigint, unblocked;

	/* SIGINT comes only inside pselect(): one between keys would be missed until the next. */
	sigemptyset(&sigint);
	sigaddset(&sigint, SIGINT);
	sigprocmask(SIG_BLOCK, &sigint, &unblocked);
	input.done = false;
	interrupted = 0;
	rl_callback_handler_install(SHELL_PROMPT, on_line);
	while (!input.done) {
		fd_set readable;

		FD_ZERO(&readable);
		FD_SET(fd, &readable);
		if (pselect(fd + 1, &readable, NULL, NULL, NULL, &unblocked) < 0) {
			if (errno != EINTR)
				break;
			if (interrupted) {
				interrupted = 0;
				drop_line();
			}
			continue;
		}
		rl_callback_read_char();
	}
	if (!input.done)
		rl_callback_handler_remove();
	sigprocmask(SIG_SETMASK, &unblocked, NULL);
	/* A Ctrl-C as the line was taken belonged to the editing, not to the command. */
	interrupted = 0;
	return input.done ? input.line : NULL;
}

/* SIGINT sets the flag and interrupts what waits (no SA_RESTART): a running command stops. */
static void catch_sigint(struct sigaction *old)
{
	struct sigaction sa = { .sa_handler = on_sigint };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, old);
	/* The handler is ours, not readline's. */
	rl_catch_signals = 0;
}

int shell_run(struct ctl *ctl)
{
	struct sigaction old_sigint;
	/* Lines piped in are a script's: its first failure ends it, as -b's does. */
	bool script = !isatty(STDIN_FILENO);
	int last = EXIT_OK;
	unsigned lineno = 0;
	char *line;

	shell_ctl = ctl;
	ctl->interactive = true;
	ctl->interrupt = &interrupted;
	rl_readline_name = "rdmactl";
	/* Prompt and echo on stderr: standard output carries only what commands print. */
	rl_outstream = stderr;
	rl_attempted_completion_function = shell_completion;
	catch_sigint(&old_sigint);
	/* Lines typed by a person, not those a script pipes in. */
	if (!script)
		shell_history_open();
	while ((line = read_line())) {
		char *words[SHELL_WORDS_MAX];
		int n;

		lineno++;
		if (*line)
			shell_history_add(line);
		n = split_words(line, words, SHELL_WORDS_MAX);
		if (n < 0)
			last = cmd_exit_code(ctl_usage_error("too many words"));
		else if (n > 0 && (strcmp(words[0], "quit") == 0 || strcmp(words[0], "exit") == 0)) {
			free(line);
			break;
		} else if (n > 0)
			last = cmd_dispatch(ctl, n, words);
		free(line);
		/* A Ctrl-C that stopped the command is spent. */
		interrupted = 0;
		if (script && last != EXIT_OK) {
			batch_say_failed("standard input", lineno, last, false);
			break;
		}
	}
	shell_history_close();
	sigaction(SIGINT, &old_sigint, NULL);
	return last;
}
