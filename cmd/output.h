/* SPDX-License-Identifier: MIT */
/*
 * Output vtable: commands hand over the daemon's records, and the chosen
 * output prints them as iproute2-style text lines or as JSON with the same keys.
 */
#pragma once

#include "cmd/rdmactl.h"

struct output {
	/* A list of records follows (JSON: an array). */
	void (*begin_list)(struct ctl *ctl);
	/* One record; text shows "[LABEL ]NAME: key value ..." with name_key's value first. */
	void (*record)(struct ctl *ctl, struct json_object *rec, const char *label,
		       const char *name_key);
	/*
	 * One record of a list: text gives its view's main keys on one line
	 * (cmd/output_views.c; all of them with -d), JSON the whole record.
	 */
	void (*brief)(struct ctl *ctl, struct json_object *rec, const char *label,
		      const char *name_key);
	/* One object shown as "key: value" lines (text), the object itself (JSON). */
	void (*details)(struct ctl *ctl, struct json_object *obj);
	/* Flushes what was gathered. */
	void (*end)(struct ctl *ctl);
	/* A varlink error's parameters (JSON only; text says it on stderr). */
	void (*error)(struct ctl *ctl, const char *error, struct json_object *params);
};

extern const struct output output_text;
extern const struct output output_json;
/* -q: records are not printed at all; errors still go to stderr, the exit status says the rest. */
extern const struct output output_quiet;

/*
 * Calls method with params (consumed) and prints reply[key], an object or an
 * array of objects, as records labelled "LABEL HANDLE:".  Returns an exit code.
 */
int output_call_records(struct ctl *ctl, const struct cmd_args *args, const char *method,
			struct json_object *params, const char *key, const char *label);
/* The same for a list command: one line per record in text (the output's brief). */
int output_call_list(struct ctl *ctl, const struct cmd_args *args, const char *method,
		     struct json_object *params, const char *key, const char *label);

/*
 * Calls method with params (consumed) and prints reply[key] alone, for
 * scripts: a number as a number, an object as one line of JSON (text), or
 * as -j/-p want it, a number there as {"KEY": N}.  Returns an exit code.
 */
int output_call_value(struct ctl *ctl, const struct cmd_args *args, const char *method,
		      struct json_object *params, const char *key);

/*
 * A scalar as text shows it: "-" for null (never the JSON word), a key in
 * hex as rdma prints it (lkey, rkey, a reference to an MR or an MKEY, and the
 * handle of an object of kind mr or mkey; kind may be NULL), anything else as
 * JSON has it.  Allocated; NULL when out of memory.
 */
char *output_scalar_text(const char *kind, const char *key, struct json_object *v);

/* Prints a JSON value as -j/-p want it. */
void output_print_json(struct ctl *ctl, struct json_object *obj);
