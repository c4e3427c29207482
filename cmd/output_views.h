/* SPDX-License-Identifier: MIT */
/*
 * How each kind of object reads as text, as rdma(8) prints its objects: the
 * label of its records, the main keys of its one-line list form, whether its
 * handle is a key (printed in hex as rdma prints lkey 0x101).  JSON is not
 * shaped by any of it.
 */
#pragma once

#include <stdbool.h>

struct output_view {
	const char *label;
	/* The keys of "list", in order, after "LABEL HANDLE:". */
	const char *const *brief;
	/* The handle is a key (MR, MKEY): "mr 0x101:". */
	bool hex_handle;
	/* The key that names a record after its label when not "handle" (a GID's "index"). */
	const char *name_key;
	/* Keys text leaves out of a record's line (JSON keeps them), NULL-terminated. */
	const char *const *omit;
};

/* The view of records labelled label; NULL for none (every key, as given). */
const struct output_view *output_view(const char *label);

/* Whether the text of a record of view leaves key out. */
bool output_view_omits(const struct output_view *view, const char *key);

/* Keys whose numbers are keys (lkey, rkey, a reference to an MR or an MKEY): hex in text. */
bool output_key_is_hex(const char *key);
