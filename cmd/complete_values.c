/* SPDX-License-Identifier: MIT */
/*
 * Completion of argument values the command table names by kind rather than
 * by a list of words: FILE (file names), and the live objects of the daemon
 * (PD, MR, CQ, QP, AH, MKEY, DEK, PORT, POOL), whether an argument is the object
 * itself ("qp show QP") or an option naming one ("--pd PD").  The table's
 * own words say which, so every command gets it from the one table.
 */
#include "cmd/rdmactl.h"
#include "cmd/output.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/*
 * The objects a value may name: the List method, the key of its list, the
 * key shown, and the kind, whose lists print it (an MR's or MKEY's key in hex).
 */
static const struct {
	const char *word, *method, *list, *key, *kind;
} live_objects[] = {
	{ "PD", "io.rdmad.Pd.List", "pds", "handle", "pd" },
	{ "MR", "io.rdmad.Mr.List", "mrs", "handle", "mr" },
	{ "CQ", "io.rdmad.Cq.List", "cqs", "handle", "cq" },
	{ "QP", "io.rdmad.Qp.List", "qps", "handle", "qp" },
	{ "AH", "io.rdmad.Ah.List", "ahs", "handle", "ah" },
	{ "MKEY", "io.rdmad.Mkey.List", "mkeys", "handle", "mkey" },
	{ "DEK", "io.rdmad.Dek.List", "deks", "name", "dek" },
	{ "PORT", "io.rdmad.Vnic.List", "ports", "handle", "port" },
	{ "POOL", "io.rdmad.Pool.List", "pools", "name", "pool" },
	{ "VDEV", "io.rdmad.Vdev.List", "vdevs", "name", "vdev" },
};

/* Names in the directory of prefix that start as its last part does; directories end in '/'. */
void cmd_complete_file_names(const char *prefix, void (*add)(void *data, const char *word),
			     void *data)
{
	const char *slash = strrchr(prefix, '/');
	size_t dir_len = slash ? (size_t)(slash - prefix + 1) : 0;
	const char *base = prefix + dir_len;
	char *dir = slash ? strndup(prefix, dir_len) : strdup(".");
	struct dirent *e;
	DIR *d;

	if (!dir)
		return;
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		struct stat st;
		char *path, *word;

		if (strncmp(e->d_name, base, strlen(base)) != 0 ||
		    strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    (e->d_name[0] == '.' && base[0] != '.'))
			continue;
		if (asprintf(&path, "%s/%s", dir, e->d_name) < 0)
			break;
		if (asprintf(&word, "%.*s%s%s", (int)dir_len, prefix, e->d_name,
			     stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? "/" : "") >= 0) {
			add(data, word);
			free(word);
		}
		free(path);
	}
	if (d)
		closedir(d);
	free(dir);
}

/* The key of each object of the list method gives, from the daemon; nothing if it does not answer. */
static void complete_live(struct ctl *ctl, size_t k, const char *prefix,
			  void (*add)(void *, const char *), void *data)
{
	struct json_object *params = json_object_new_object(), *reply = NULL, *list;
	char *error = NULL;

	if (ctl_call_raw(ctl, live_objects[k].method, params, &reply, &error) == 0 && !error &&
	    json_object_object_get_ex(reply, live_objects[k].list, &list))
		for (size_t i = 0; i < json_object_array_length(list); i++) {
			char *word = output_scalar_text(live_objects[k].kind, live_objects[k].key,
							json_object_object_get(json_object_array_get_idx(list, i),
									       live_objects[k].key));

			if (word && strncmp(word, prefix, strlen(prefix)) == 0)
				add(data, word);
			free(word);
		}
	free(error);
	json_object_put(reply);
	json_object_put(params);
}

void cmd_complete_objects(struct ctl *ctl, const char *word, const char *prefix,
			  void (*add)(void *data, const char *word), void *data)
{
	for (size_t k = 0; k < sizeof(live_objects) / sizeof(live_objects[0]); k++)
		if (strcmp(live_objects[k].word, word) == 0) {
			complete_live(ctl, k, prefix, add, data);
			return;
		}
}

void cmd_complete_by_kind(struct ctl *ctl, const struct cmd_arg *a, const char *prefix,
			  void (*add)(void *data, const char *word), void *data)
{
	const char *word = a->kind == ARG_POSITIONAL ? a->name : a->metavar;

	if (!word)
		return;
	if (strcmp(word, "FILE") == 0)
		cmd_complete_file_names(prefix, add, data);
	else
		cmd_complete_objects(ctl, word, prefix, add, data);
}
