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
	/* One record; text shows "NAME: key value ..." with name_key's value first. */
	void (*record)(struct ctl *ctl, struct json_object *rec, const char *name_key);
	/* One object shown as "key: value" lines (text), the object itself (JSON). */
	void (*details)(struct ctl *ctl, struct json_object *obj);
	/* Flushes what was gathered. */
	void (*end)(struct ctl *ctl);
	/* A varlink error's parameters (JSON only; text says it on stderr). */
	void (*error)(struct ctl *ctl, const char *error, struct json_object *params);
};

extern const struct output output_text;
extern const struct output output_json;

/* Prints a JSON value as -j/-p want it. */
void output_print_json(struct ctl *ctl, struct json_object *obj);
