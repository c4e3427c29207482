/* SPDX-License-Identifier: MIT */
/* Who calls, and the allow lists of DEKs and pools as parameters and records. */
#include "daemon/api/lend.h"

#include <errno.h>
#include <stdlib.h>

struct rdma_lend_caller api_lend_caller(const struct varlink_call *call)
{
	struct varlink_peer peer = varlink_call_credentials(call);

	return (struct rdma_lend_caller) {
		.uid = peer.cred.uid, .gid = peer.cred.gid, .groups = peer.groups,
		.n_groups = peer.n_groups,
	};
}

/*
 * The strings of the array parameter key (the interface description made it
 * one) into names; no more than RDMA_LEND_MAX of them.
 */
static int get_names(struct json_object *params, const char *key, const char **names, size_t *n,
		     struct rdma_error *err)
{
	struct json_object *list;

	*n = 0;
	if (!json_object_object_get_ex(params, key, &list) || !list)
		return 0;
	if (!json_object_is_type(list, json_type_array))
		return rdma_error_invalid(err, key, "a list of users and @groups");
	if (json_object_array_length(list) > RDMA_LEND_MAX)
		return rdma_error_invalid(err, key, "at most %d users and groups", RDMA_LEND_MAX);
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		struct json_object *v = json_object_array_get_idx(list, i);

		if (!json_object_is_type(v, json_type_string))
			return rdma_error_invalid(err, key, "entry %zu is not a string: a user's name, "
						  "or @ and a group's name", i);
		names[(*n)++] = json_object_get_string(v);
	}
	return 0;
}

int api_lend_edit(struct json_object *params, const struct rdma_lend_policy *base,
		  struct rdma_lend_policy *out, struct rdma_error *err)
{
	const char *add[RDMA_LEND_MAX], *remove[RDMA_LEND_MAX];
	size_t n_add, n_remove;
	int r = get_names(params, "allow", add, &n_add, err);

	if (r == 0)
		r = get_names(params, "disallow", remove, &n_remove, err);
	if (r < 0)
		return r;
	*out = *base;
	return rdma_lend_edit(out, add, n_add, remove, n_remove, &rdma_lend_nss, "allow", "disallow",
			      err);
}

void api_lend_add_json(struct json_object *record, const struct rdma_lend_policy *p)
{
	struct json_object *allow = json_object_new_array(), *unresolved = json_object_new_array();

	for (unsigned i = 0; i < p->n; i++) {
		char text[RDMA_LEND_NAME_MAX + 1];

		rdma_lend_entry_text(&p->entries[i], text, sizeof(text));
		json_object_array_add(allow, json_object_new_string(text));
		if (!p->entries[i].resolved)
			json_object_array_add(unresolved, json_object_new_string(text));
	}
	json_object_object_add(record, "allow", allow);
	json_object_object_add(record, "allow_unresolved", unresolved);
}
