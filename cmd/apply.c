/* SPDX-License-Identifier: MIT */
/*
 * rdmactl apply FILE: makes the daemon what a provisioning file says, all or
 * nothing.  The whole file is checked, then compared with what the daemon
 * has; only then are the changes made, in order, and if one fails those made
 * before it are taken back, last first.  A file the daemon already matches
 * changes nothing, and says so.
 */
#include "cmd/provision.h"
#include "cmd/output.h"
#include "cmd/progress.h"
#include "lib/io.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The file's text ("-": standard input), at most PROV_FILE_MAX bytes. */
static int read_file(const char *path, const char *file, char **text, size_t *len)
{
	bool is_stdin = strcmp(file, "-") == 0;
	const char *name = is_stdin ? "standard input" : file;
	uint8_t *data = NULL;
	int r;

	if (is_stdin) {
		r = read_all_alloc(STDIN_FILENO, PROV_FILE_MAX, &data, len);
		*text = (char *)data;
	} else {
		r = ctl_read_text_file(file, PROV_FILE_MAX, text);
		*len = r == 0 ? strlen(*text) : 0;
	}
	if (r == -EFBIG)
		return ctl_usage_error("%s: %s: larger than %u bytes, more than any provisioning file",
				       path, name, PROV_FILE_MAX);
	if (r == -EILSEQ)
		return ctl_usage_error("%s: %s: holds a NUL byte: not a JSON text", path, name);
	if (r < 0)
		return ctl_fail("%s: %s: %s", path, name, strerror(-r));
	return 0;
}

/*
 * What apply did, for -j: the file, the changes, how far it got, and the
 * changes that failed (the one the daemon refused, those it could not undo),
 * a list as qp recover's failed.
 */
struct report {
	struct json_object *changes, *failed;
	unsigned made, undone;
	bool dry_run;
};

static void say(struct ctl *ctl, const char *prefix, const struct prov_change *c)
{
	char line[PROV_PATH_MAX + 256];

	if (ctl->json)
		return;
	prov_change_describe(c, line, sizeof(line));
	progress_hide();
	printf("%s%s\n", prefix, line);
	fflush(stdout);
}

/* Takes back the first n changes, last first; how many could not be. */
static unsigned undo(struct ctl *ctl, const char *path, const struct prov_plan *plan, unsigned n,
		     struct report *rep)
{
	unsigned failed = 0;

	while (n-- > 0) {
		const struct prov_change *c = &plan->changes[n];
		char line[PROV_PATH_MAX + 256];

		prov_change_describe(c, line, sizeof(line));
		if (prov_change_undo(ctl, path, c) < 0) {
			fprintf(stderr, "rdmactl: %s: could not undo: %s\n", path, line);
			json_object_array_add(rep->failed, prov_change_json(c));
			failed++;
		} else {
			fprintf(stderr, "rdmactl: %s: undone: %s\n", path, line);
			rep->undone++;
		}
	}
	return failed;
}

static int execute(struct ctl *ctl, const char *path, const struct prov_plan *plan, struct report *rep)
{
	for (unsigned i = 0; i < plan->n; i++) {
		const struct prov_change *c = &plan->changes[i];
		char line[PROV_PATH_MAX + 256];
		unsigned left;
		int r = prov_change_do(ctl, path, c);

		if (r == 0) {
			say(ctl, "changed: ", c);
			rep->made++;
			progress_set(rep->made);
			continue;
		}
		/* What follows says what failed and what was undone: no line between. */
		progress_end();
		json_object_array_add(rep->failed, prov_change_json(c));
		prov_change_describe(c, line, sizeof(line));
		if (i == 0)
			fprintf(stderr, "rdmactl: %s: %s: failed: %s\n", path, c->where, line);
		else
			fprintf(stderr, "rdmactl: %s: %s: failed: %s; undoing the %u change%s made before "
				"it\n", path, c->where, line, i, i == 1 ? "" : "s");
		left = undo(ctl, path, plan, i, rep);
		if (left)
			fprintf(stderr, "rdmactl: %s: the daemon is NOT as it was: %u change%s could not "
				"be undone (above)\n", path, left, left == 1 ? "" : "s");
		else
			fprintf(stderr, "rdmactl: %s: nothing changed: the daemon is as it was\n", path);
		return r;
	}
	return 0;
}

static void print_summary(struct ctl *ctl, const char *name, const struct prov_plan *plan,
			  const struct report *rep)
{
	struct json_object *o;

	if (!ctl->json) {
		if (plan->n == 0)
			printf("no change: the daemon already has what %s says\n", name);
		else if (rep->dry_run)
			printf("%u change%s to make (dry run: nothing changed)\n", plan->n,
			       plan->n == 1 ? "" : "s");
		else if (!json_object_array_length(rep->failed))
			printf("%u change%s made\n", rep->made, rep->made == 1 ? "" : "s");
		fflush(stdout);
		return;
	}
	o = json_object_new_object();
	json_object_object_add(o, "file", json_object_new_string(name));
	json_object_object_add(o, "dry_run", json_object_new_boolean(rep->dry_run));
	json_object_object_add(o, "changes", json_object_get(rep->changes));
	/* The changes in force now: those made, less those taken back after one failed. */
	json_object_object_add(o, "made", json_object_new_int64(rep->made - rep->undone));
	json_object_object_add(o, "undone", json_object_new_int64(rep->undone));
	json_object_object_add(o, "failed", json_object_get(rep->failed));
	output_print_json(ctl, o);
	json_object_put(o);
}

int cmd_apply_run(struct ctl *ctl, const struct cmd_args *args)
{
	const char *file = arg_get(args, "FILE");
	const char *name = strcmp(file, "-") == 0 ? "standard input" : file;
	struct report rep = { .dry_run = arg_flag(args, "--dry-run") };
	struct prov_config want, now;
	struct prov_error err;
	struct prov_plan plan;
	char *text = NULL;
	size_t len = 0;
	int r;

	r = read_file(args->path, file, &text, &len);
	if (r < 0)
		return r;
	r = prov_parse(text, len, &want, &err);
	free(text);
	if (r < 0)
		return ctl_usage_error("%s: %s: %s: %s", args->path, name, err.path, err.reason);
	r = prov_read_daemon(ctl, args->path, &now);
	if (r < 0) {
		prov_config_free(&want);
		return r;
	}
	r = prov_plan(&want, &now, &plan, &err);
	if (r < 0) {
		r = ctl_fail("%s: %s: %s: %s; nothing changed", args->path, name, err.path, err.reason);
		goto out;
	}
	rep.changes = json_object_new_array();
	rep.failed = json_object_new_array();
	for (unsigned i = 0; i < plan.n; i++) {
		json_object_array_add(rep.changes, prov_change_json(&plan.changes[i]));
		if (rep.dry_run)
			say(ctl, "would change: ", &plan.changes[i]);
	}
	if (!rep.dry_run) {
		if (plan.n)
			progress_start(ctl, args->path, "changes", plan.n);
		r = execute(ctl, args->path, &plan, &rep);
		progress_end();
	}
	print_summary(ctl, name, &plan, &rep);
	json_object_put(rep.changes);
	json_object_put(rep.failed);
	prov_plan_free(&plan);
out:
	prov_config_free(&now);
	prov_config_free(&want);
	return r;
}

const struct cmd_arg cmd_apply_args[] = {
	{ .name = "FILE", .kind = ARG_POSITIONAL, .required = true,
	  .help = "the provisioning file (JSON, as `rdmactl dump` prints it); '-': standard input" },
	{ .name = "--dry-run", .kind = ARG_FLAG,
	  .help = "print the changes the file would make, and make none" },
	{ NULL },
};
