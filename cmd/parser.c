/* SPDX-License-Identifier: MIT */
/*
 * The token-table walker: words are matched against the command tree (any
 * unambiguous prefix will do), then the leaf's arguments are parsed against
 * its argument table.  Help and completion read the same tables.
 */
#include "cmd/rdmactl.h"
#include "cmd/progress.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool is_help(const char *word)
{
	return strcmp(word, "help") == 0 || strcmp(word, "-h") == 0 || strcmp(word, "--help") == 0;
}

/*
 * Exact name, else the only entry the word is a prefix of; NULL with
 * *ambiguous otherwise, or with *unabbreviated when that entry is one that
 * must be spelled out (it destroys something: a typo must not).
 */
static const struct cmd *find_cmd(const struct cmd *table, const char *word, bool *ambiguous,
				  const struct cmd **unabbreviated)
{
	const struct cmd *found = NULL;
	size_t len = strlen(word);
	unsigned n = 0;

	*ambiguous = false;
	*unabbreviated = NULL;
	for (const struct cmd *c = table; c->name; c++)
		if (strcmp(c->name, word) == 0)
			return c;
	for (const struct cmd *c = table; c->name && len > 0; c++)
		if (strncmp(c->name, word, len) == 0) {
			found = c;
			n++;
		}
	if (n > 1) {
		*ambiguous = true;
		return NULL;
	}
	if (found && found->spelled_out) {
		*unabbreviated = found;
		return NULL;
	}
	return found;
}

static void list_names(FILE *f, const struct cmd *table, const char *prefix)
{
	const char *sep = "";

	for (const struct cmd *c = table; c->name; c++)
		if (!prefix || strncmp(c->name, prefix, strlen(prefix)) == 0) {
			fprintf(f, "%s%s", sep, c->name);
			sep = ", ";
		}
	fputc('\n', f);
}

static void print_arg_usage(FILE *f, const struct cmd_arg *a)
{
	const char *open = a->required ? "" : "[";
	const char *close = a->required ? "" : "]";

	if (a->kind == ARG_POSITIONAL)
		fprintf(f, " %s%s%s%s", open, a->name, a->repeat ? "..." : "", close);
	else if (a->kind == ARG_OPTION)
		fprintf(f, " %s%s %s%s%s", open, a->name, a->metavar ? a->metavar : "VALUE",
			close, a->repeat ? "..." : "");
	else
		fprintf(f, " %s%s%s", open, a->name, close);
}

static void print_leaf_help(const struct cmd *c, const char *path)
{
	printf("Usage: rdmactl %s", path);
	for (const struct cmd_arg *a = c->args; a && a->name; a++)
		print_arg_usage(stdout, a);
	printf("\n\n%s\n", c->summary);
	if (c->args && c->args->name)
		printf("\n");
	for (const struct cmd_arg *a = c->args; a && a->name; a++) {
		char left[64];

		if (a->kind == ARG_OPTION)
			snprintf(left, sizeof(left), "%s %s", a->name, a->metavar ? a->metavar : "VALUE");
		else
			snprintf(left, sizeof(left), "%s", a->name);
		printf("  %-22s %s", left, a->help ? a->help : "");
		if (a->values) {
			printf(" (");
			for (const char *const *v = a->values; *v; v++)
				printf("%s%s", v == a->values ? "" : "|", *v);
			printf(")");
		}
		printf("\n");
	}
}

void cmd_help(const struct cmd *table, const char *path)
{
	printf("Usage: rdmactl %s%s%s\n\nCommands:\n", path[0] ? "" : "[OPTIONS] ", path,
	       path[0] ? " COMMAND [ARGS]" : "OBJECT [COMMAND] [ARGS]");
	for (const struct cmd *c = table; c->name; c++)
		printf("  %-12s %s%s\n", c->name, c->summary, c->is_default ? " (default)" : "");
	if (!path[0])
		printf("\nOptions:\n"
		       "  -j, --json           print JSON\n"
		       "  -p, --pretty         indent JSON output (with -j)\n"
		       "  -d, --details        print more detail (list: every key)\n"
		       "  -q, --quiet          no records, no progress line; the exit status tells\n"
		       "      --no-legend      accepted; rdmactl prints no legends\n"
		       "      --no-pager       accepted; rdmactl uses no pager\n"
		       "  -s, --socket PATH    the rdmad socket (default $RDMACTL_SOCKET or "
		       RDMACTL_SOCKET_DEFAULT ")\n"
		       "  -H, --host HOST      the rdmad of [USER@]HOST, through ssh (default $RDMACTL_HOST)\n"
		       "      --bridge         relay stdin/stdout to the socket (what -H runs there)\n"
		       "  -i, --interactive    run the interactive shell\n"
		       "  -b, --batch FILE     run the commands of FILE ('-': standard input)\n"
		       "  -f, --force          with -b: go on after a command fails\n"
		       "  -V, --version        print the version\n"
		       "  -h, --help           print this help\n");
	if (!path[0])
		printf("\n-j, -p, -d, -q, -s, --no-legend and --no-pager may also follow the object\n"
		       "and the command.\n");
	printf("\nNames may be abbreviated to any unambiguous prefix; destroy and del must be\n"
	       "spelled out.\n"
	       "Run 'rdmactl %s%sCOMMAND help' for a command's arguments.\n",
	       path, path[0] ? " " : "");
}

static const struct cmd_arg *find_option(const struct cmd *c, const char *name, size_t len,
					 bool *ambiguous)
{
	const struct cmd_arg *found = NULL;
	unsigned n = 0;

	*ambiguous = false;
	for (const struct cmd_arg *a = c->args; a && a->name; a++)
		if (a->kind != ARG_POSITIONAL && strlen(a->name) == len && strncmp(a->name, name, len) == 0)
			return a;
	for (const struct cmd_arg *a = c->args; a && a->name; a++)
		if (a->kind != ARG_POSITIONAL && strncmp(a->name, name, len) == 0) {
			found = a;
			n++;
		}
	*ambiguous = n > 1;
	return n == 1 ? found : NULL;
}

/*
 * A value of a word list, taken in either case (RC, rc) and stored as the
 * list spells it, the way rdmactl prints it back.
 */
static int check_value(const char *path, const struct cmd_arg *a, const char **value)
{
	if (!a->values)
		return 0;
	for (const char *const *v = a->values; *v; v++)
		if (strcasecmp(*v, *value) == 0) {
			*value = *v;
			return 0;
		}
	fprintf(stderr, "rdmactl: %s: %s: '%s' is not one of: ", path, a->name, *value);
	for (const char *const *v = a->values; *v; v++)
		fprintf(stderr, "%s%s", v == a->values ? "" : ", ", *v);
	fputc('\n', stderr);
	return -EINVAL;
}

static int store(struct cmd_args *out, const struct cmd_arg *a, const char *value)
{
	unsigned i = (unsigned)(a - out->cmd->args);

	if ((out->count[i] > 0 && !a->repeat) || out->count[i] >= CMD_VALUES_MAX) {
		ctl_usage_error("%s: %s given too often", out->path, a->name);
		return -EINVAL;
	}
	if (value && check_value(out->path, a, &value) < 0)
		return -EINVAL;
	out->value[i][out->count[i]++] = value;
	return 0;
}

/*
 * The command has an option spelled w (up to its '='): it wins over a global
 * option of that name (vdev create --socket is the vdev's socket; -s stays
 * rdmad's).
 */
static bool own_option(const struct cmd *c, const char *w)
{
	size_t len = strcspn(w, "=");

	for (const struct cmd_arg *a = c->args; a && a->name; a++)
		if (a->kind != ARG_POSITIONAL && strlen(a->name) == len && strncmp(a->name, w, len) == 0)
			return true;
	return false;
}

/* Returns 0, 1 when help was asked for, or -EINVAL after printing a usage error. */
static int parse_args(struct ctl *ctl, const struct cmd *c, int argc, char **argv,
		      struct cmd_args *out)
{
	const struct cmd_arg *pos = c->args;

	for (int i = 0; i < argc; i++) {
		const char *w = argv[i];
		int taken;

		if (is_help(w))
			return 1;
		taken = own_option(c, w) ? 0 : ctl_global_option(ctl, argc, argv, i);
		if (taken < 0)
			return -EINVAL;
		if (taken > 0) {
			i += taken - 1;
			continue;
		}
		if (strncmp(w, "--", 2) == 0 && w[2]) {
			const char *eq = strchr(w, '=');
			size_t len = eq ? (size_t)(eq - w) : strlen(w);
			const struct cmd_arg *a;
			bool ambiguous;

			a = find_option(c, w, len, &ambiguous);
			if (!a) {
				ctl_usage_error("%s: %s option '%.*s'", out->path,
						ambiguous ? "ambiguous" : "unknown", (int)len, w);
				return -EINVAL;
			}
			if (a->kind == ARG_FLAG) {
				if (eq) {
					ctl_usage_error("%s: %s takes no value", out->path, a->name);
					return -EINVAL;
				}
				if (store(out, a, NULL) < 0)
					return -EINVAL;
				continue;
			}
			if (!eq && i + 1 >= argc) {
				ctl_usage_error("%s: %s needs a value (%s)", out->path, a->name,
						a->metavar ? a->metavar : "VALUE");
				return -EINVAL;
			}
			if (store(out, a, eq ? eq + 1 : argv[++i]) < 0)
				return -EINVAL;
			continue;
		}
		while (pos && pos->name && pos->kind != ARG_POSITIONAL)
			pos++;
		if (!pos || !pos->name) {
			ctl_usage_error("%s: superfluous argument '%s'", out->path, w);
			return -EINVAL;
		}
		if (store(out, pos, w) < 0)
			return -EINVAL;
		if (!pos->repeat)
			pos++;
	}
	for (const struct cmd_arg *a = c->args; a && a->name; a++)
		if (a->required && out->count[a - c->args] == 0) {
			if (a->kind == ARG_POSITIONAL)
				ctl_usage_error("%s: missing argument %s", out->path, a->name);
			else
				ctl_usage_error("%s: missing option %s %s", out->path, a->name,
						a->metavar ? a->metavar : "");
			return -EINVAL;
		}
	return 0;
}

static void path_append(char *path, size_t size, const char *word)
{
	size_t n = strlen(path);

	snprintf(path + n, size - n, "%s%s", n ? " " : "", word);
}

static const struct cmd *find_default(const struct cmd *table)
{
	for (const struct cmd *c = table; c->name; c++)
		if (c->is_default)
			return c;
	return NULL;
}

/* Finds the command the words name, parses its arguments and runs it: 0 or a negative errno. */
static int run_words(struct ctl *ctl, int argc, char **argv)
{
	static struct cmd_args args;
	const struct cmd *table = cmd_root, *node = NULL;
	char path[256] = "";
	int i = 0, r;

	for (;;) {
		const struct cmd *next, *unabbreviated;
		bool ambiguous;
		int taken = i < argc ? ctl_global_option(ctl, argc, argv, i) : 0;

		if (taken < 0)
			return -EINVAL;
		if (taken > 0) {
			i += taken;
			continue;
		}
		if (i == argc) {
			next = find_default(table);
			if (!next) {
				cmd_help(table, path);
				return node ? -EINVAL : 0;
			}
			node = next;
			path_append(path, sizeof(path), node->name);
		} else if (is_help(argv[i])) {
			cmd_help(table, path);
			return 0;
		} else {
			next = find_cmd(table, argv[i], &ambiguous, &unabbreviated);
			if (unabbreviated)
				return ctl_usage_error("%s%s'%s' is short for '%s', which must be spelled out",
						       path, path[0] ? ": " : "", argv[i], unabbreviated->name);
			if (!next) {
				fprintf(stderr, "rdmactl: %s%s%s '%s'; valid: ", path, path[0] ? ": " : "",
					ambiguous ? "ambiguous command" : "unknown command", argv[i]);
				list_names(stderr, table, ambiguous ? argv[i] : NULL);
				return -EINVAL;
			}
			node = next;
			path_append(path, sizeof(path), node->name);
			i++;
		}
		if (!node->sub)
			break;
		table = node->sub;
	}

	memset(&args, 0, sizeof(args));
	args.cmd = node;
	args.path = path;
	if (node->raw_args) {
		args.argc = argc - i;
		args.argv = argv + i;
		return node->run(ctl, &args);
	}
	r = parse_args(ctl, node, argc - i, argv + i, &args);
	if (r == 1) {
		print_leaf_help(node, path);
		return 0;
	}
	if (r < 0)
		return r;
	return node->run(ctl, &args);
}

int cmd_exit_code(int r)
{
	if (r >= 0)
		return EXIT_OK;
	if (r == -EBADMSG)
		return EXIT_SIGNATURE;
	return r == -EINVAL ? EXIT_USAGE : EXIT_FAIL;
}

int cmd_dispatch(struct ctl *ctl, int argc, char **argv)
{
	struct ctl saved = *ctl;
	int r = run_words(ctl, argc, argv);

	/* A command that stopped half way (an error, Ctrl-C) leaves no progress line behind. */
	progress_end();

	/* The line's own options end with it (the shell and batch run more lines). */
	if (ctl->socket_path != saved.socket_path)
		ctl_disconnect(ctl);
	ctl->socket_path = saved.socket_path;
	ctl->json = saved.json;
	ctl->pretty = saved.pretty;
	ctl->details = saved.details;
	ctl->quiet = saved.quiet;
	ctl->out = saved.out;
	return cmd_exit_code(r);
}

/* ---- reading parsed arguments ---- */

static int arg_index(const struct cmd_args *a, const char *name)
{
	for (const struct cmd_arg *x = a->cmd->args; x && x->name; x++)
		if (strcmp(x->name, name) == 0)
			return (int)(x - a->cmd->args);
	return -1;
}

unsigned arg_count(const struct cmd_args *a, const char *name)
{
	int i = arg_index(a, name);

	return i < 0 ? 0 : a->count[i];
}

const char *arg_get_nth(const struct cmd_args *a, const char *name, unsigned n)
{
	int i = arg_index(a, name);

	return i < 0 || n >= a->count[i] ? NULL : a->value[i][n];
}

const char *arg_get(const struct cmd_args *a, const char *name)
{
	return arg_get_nth(a, name, 0);
}

bool arg_flag(const struct cmd_args *a, const char *name)
{
	return arg_count(a, name) > 0;
}

uint64_t ctl_strtou64(const char *s, char **end)
{
	/* Not strtoull's base 0: "010" is ten, as a person means it, not eight. */
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return strtoull(s, end, 16);
	return strtoull(s, end, 10);
}

int arg_get_u64(struct ctl *ctl, const struct cmd_args *a, const char *name, uint64_t min,
		uint64_t max, uint64_t *out)
{
	const char *s = arg_get(a, name);
	char *end;
	uint64_t v;

	if (!s)
		return 0;
	errno = 0;
	v = ctl_strtou64(s, &end);
	if (errno || end == s || *end || s[0] == '-' || v < min || v > max) {
		ctl_usage_error("%s: %s: '%s' is not a number in %" PRIu64 "-%" PRIu64,
				a->path, name, s, min, max);
		return -EINVAL;
	}
	*out = v;
	return 1;
}

struct json_object *ctl_device_params(const struct cmd_args *args)
{
	struct json_object *params = json_object_new_object();
	const char *dev = arg_get(args, "--dev");

	if (dev)
		json_object_object_add(params, "device", json_object_new_string(dev));
	return params;
}

int ctl_add_number(struct ctl *ctl, const struct cmd_args *args, const char *arg,
		   struct json_object *params, const char *key, uint64_t max)
{
	uint64_t v;
	int r = arg_get_u64(ctl, args, arg, 0, max, &v);

	if (r > 0)
		json_object_object_add(params, key, json_object_new_uint64(v));
	return r;
}

/* ---- completion ---- */

static void complete_words(const char *const *words, const char *prefix,
			   void (*add)(void *, const char *), void *data)
{
	for (; words && *words; words++)
		if (strncmp(*words, prefix, strlen(prefix)) == 0)
			add(data, *words);
}

static void complete_value(struct ctl *ctl, const struct cmd_arg *a, const char *prefix,
			   void (*add)(void *, const char *), void *data)
{
	if (a->values)
		complete_words(a->values, prefix, add, data);
	else if (a->complete)
		a->complete(ctl, prefix, add, data);
	else
		cmd_complete_by_kind(ctl, a, prefix, add, data);
}

/*
 * The global options: every form where the object is still to come; after
 * it, only the short ones ("-j"), so that "--" lists the command's options.
 */
static void complete_global_options(const char *prefix, bool before_object,
				    void (*add)(void *, const char *), void *data)
{
	if (prefix[0] != '-' || (!before_object && prefix[1] == '-'))
		return;
	for (const char *const *w = ctl_global_option_words; *w; w++)
		if ((before_object || (*w)[1] != '-') && strncmp(*w, prefix, strlen(prefix)) == 0)
			add(data, *w);
}

static void complete_leaf(struct ctl *ctl, const struct cmd *c, int n, char **words,
			  void (*add)(void *, const char *), void *data)
{
	const char *cur = words[n - 1];
	const struct cmd_arg *pos = c->args;
	unsigned used[CMD_ARGS_MAX] = { 0 };

	/* Replay the words before the current one to know what is still open. */
	for (int i = 0; i < n - 1; i++) {
		const struct cmd_arg *a;
		int taken = ctl_global_option(NULL, n - 1, words, i);
		bool ambiguous;

		if (taken > 0) {
			i += taken - 1;
			continue;
		}
		if (strncmp(words[i], "--", 2) == 0) {
			const char *eq = strchr(words[i], '=');

			a = find_option(c, words[i], eq ? (size_t)(eq - words[i]) : strlen(words[i]),
					&ambiguous);
			if (!a)
				continue;
			used[a - c->args]++;
			if (a->kind == ARG_OPTION && !eq) {
				if (i == n - 2) {
					complete_value(ctl, a, cur, add, data);
					return;
				}
				i++;
			}
			continue;
		}
		while (pos && pos->name && pos->kind != ARG_POSITIONAL)
			pos++;
		if (pos && pos->name && !pos->repeat)
			pos++;
	}
	if (cur[0] == '-') {
		for (const struct cmd_arg *a = c->args; a && a->name; a++)
			if (a->kind != ARG_POSITIONAL && (a->repeat || !used[a - c->args]) &&
			    strncmp(a->name, cur, strlen(cur)) == 0)
				add(data, a->name);
		complete_global_options(cur, false, add, data);
		return;
	}
	while (pos && pos->name && pos->kind != ARG_POSITIONAL)
		pos++;
	if (pos && pos->name)
		complete_value(ctl, pos, cur, add, data);
}

void cmd_complete(struct ctl *ctl, int n, char **words,
		  void (*add)(void *data, const char *word), void *data)
{
	const struct cmd *table = cmd_root;
	int i = 0;

	if (n <= 0)
		return;
	/* The socket's path, wherever -s stands. */
	if (n >= 2 && (strcmp(words[n - 2], "-s") == 0 || strcmp(words[n - 2], "--socket") == 0)) {
		cmd_complete_file_names(words[n - 1], add, data);
		return;
	}
	/* Global options before the object. */
	while (i < n - 1 && words[i][0] == '-') {
		if (strcmp(words[i], "-s") == 0 || strcmp(words[i], "--socket") == 0)
			i++;
		i++;
	}
	for (; i < n - 1; i++) {
		const struct cmd *c, *unabbreviated;
		int taken = ctl_global_option(NULL, n - 1, words, i);
		bool ambiguous;

		if (taken > 0) {
			i += taken - 1;
			continue;
		}
		c = find_cmd(table, words[i], &ambiguous, &unabbreviated);
		if (!c)
			return;
		if (!c->sub) {
			/* A command with its own parser still lists its arguments in the table. */
			complete_leaf(ctl, c, n - i - 1, words + i + 1, add, data);
			return;
		}
		table = c->sub;
	}
	complete_global_options(words[n - 1], table == cmd_root, add, data);
	for (const struct cmd *c = table; c->name; c++)
		if (strncmp(c->name, words[n - 1], strlen(words[n - 1])) == 0)
			add(data, c->name);
	if (strncmp("help", words[n - 1], strlen(words[n - 1])) == 0)
		add(data, "help");
}
