/* SPDX-License-Identifier: MIT */
/*
 * What the commands of every device object share: show-or-list and destroy
 * by handle, and the comma-separated word lists of their flag options.
 */
#include "cmd/rdmactl.h"
#include "cmd/output.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int ctl_object_show(struct ctl *ctl, const struct cmd_args *args, const char *arg,
		    const char *iface, const char *one, const char *many)
{
	struct json_object *params = ctl_device_params(args);
	char method[128];

	if (!arg_get(args, arg)) {
		snprintf(method, sizeof(method), "%s.List", iface);
		return output_call_records(ctl, args, method, params, many, one);
	}
	if (ctl_add_number(ctl, args, arg, params, "handle", UINT32_MAX) < 0) {
		json_object_put(params);
		return -EINVAL;
	}
	snprintf(method, sizeof(method), "%s.Show", iface);
	return output_call_records(ctl, args, method, params, one, one);
}

int ctl_call_quiet(struct ctl *ctl, const struct cmd_args *args, const char *method,
		   struct json_object *params)
{
	struct json_object *reply;
	int r;

	r = ctl_call(ctl, args->path, method, params, &reply);
	json_object_put(params);
	json_object_put(reply);
	return r < 0 ? r : 0;
}

int ctl_object_destroy(struct ctl *ctl, const struct cmd_args *args, const char *arg,
		       const char *iface)
{
	struct json_object *params = ctl_device_params(args);
	char method[128];

	if (ctl_add_number(ctl, args, arg, params, "handle", UINT32_MAX) < 0) {
		json_object_put(params);
		return -EINVAL;
	}
	snprintf(method, sizeof(method), "%s.Destroy", iface);
	return ctl_call_quiet(ctl, args, method, params);
}

static bool word_in(const char *const *words, const char *word, size_t len)
{
	for (const char *const *w = words; *w; w++)
		if (strlen(*w) == len && strncmp(*w, word, len) == 0)
			return true;
	return false;
}

int ctl_add_words(const struct cmd_args *args, const char *opt, const char *const *words,
		  struct json_object *params, const char *key)
{
	const char *s = arg_get(args, opt);
	struct json_object *list = json_object_new_array();

	json_object_object_add(params, key, list);
	if (s && strcmp(s, "none") == 0)
		return 0;
	while (s) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);

		if (!word_in(words, s, len)) {
			fprintf(stderr, "rdmactl: %s: %s: '%.*s' is not one of: ", args->path, opt,
				(int)len, s);
			for (const char *const *w = words; *w; w++)
				fprintf(stderr, "%s%s", w == words ? "" : ", ", *w);
			fputc('\n', stderr);
			return -EINVAL;
		}
		json_object_array_add(list, json_object_new_string_len(s, (int)len));
		s = comma ? comma + 1 : NULL;
	}
	return 0;
}

/* word is one of the comma-separated items of the first len bytes of list. */
static bool listed(const char *list, size_t len, const char *word)
{
	size_t n = strlen(word);

	for (size_t at = 0; at < len; ) {
		size_t item = strcspn(list + at, ",");

		if (item > len - at)
			item = len - at;
		if (item == n && strncmp(list + at, word, n) == 0)
			return true;
		at += item + 1;
	}
	return false;
}

void ctl_complete_words(const char *const *words, const char *prefix,
			void (*add)(void *data, const char *word), void *data)
{
	const char *last = strrchr(prefix, ',');
	size_t done = last ? (size_t)(last - prefix + 1) : 0;
	char word[256];

	/* A word given already is not offered again. */
	for (const char *const *w = words; *w; w++)
		if (strncmp(*w, prefix + done, strlen(prefix + done)) == 0 &&
		    !listed(prefix, done, *w)) {
			snprintf(word, sizeof(word), "%.*s%s", (int)done, prefix, *w);
			add(data, word);
		}
}
