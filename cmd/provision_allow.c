/* SPDX-License-Identifier: MIT */
/*
 * The "allow" list of a DEK or a pool in a provisioning file, from the
 * daemon, and the Modify parameters that take one to another.  The file is
 * hostile: entries are bounded and must be strings; whether a name is a user
 * or group is the daemon's to say when apply asks.
 */
#include "cmd/provision.h"

#include <stdio.h>
#include <string.h>

static bool has(const struct prov_allow *a, const char *name)
{
	for (unsigned i = 0; i < a->n; i++)
		if (strcmp(a->names[i], name) == 0)
			return true;
	return false;
}

int prov_allow_parse(struct json_object *obj, const char *path, struct prov_allow *a,
		     struct prov_error *err)
{
	struct json_object *list = json_object_object_get(obj, "allow");
	char where[300];

	memset(a, 0, sizeof(*a));
	snprintf(where, sizeof(where), "%.250s.allow", path);
	if (!list)
		return 0;
	if (!json_object_is_type(list, json_type_array))
		return prov_fail(err, where, "must be a list of users and @groups");
	if (json_object_array_length(list) > PROV_ALLOW_MAX)
		return prov_fail(err, where, "at most %d users and groups", PROV_ALLOW_MAX);
	a->given = true;
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		struct json_object *v = json_object_array_get_idx(list, i);

		snprintf(where, sizeof(where), "%.250s.allow[%zu]", path, i);
		if (!json_object_is_type(v, json_type_string) ||
		    json_object_get_string_len(v) >= PROV_ALLOW_NAME - 1 ||
		    json_object_get_string_len(v) == 0)
			return prov_fail(err, where, "must be a user's name, or @ and a group's name "
					 "(1 to 32 characters)");
		/* Once each: a list is a set. */
		if (!has(a, json_object_get_string(v)))
			snprintf(a->names[a->n++], PROV_ALLOW_NAME, "%s", json_object_get_string(v));
	}
	return 0;
}

void prov_allow_from_record(struct json_object *rec, struct prov_allow *a)
{
	struct json_object *list = json_object_object_get(rec, "allow");

	memset(a, 0, sizeof(*a));
	a->given = true;
	for (size_t i = 0; json_object_is_type(list, json_type_array) &&
			   i < json_object_array_length(list) && a->n < PROV_ALLOW_MAX; i++)
		snprintf(a->names[a->n++], PROV_ALLOW_NAME, "%s",
			 json_object_get_string(json_object_array_get_idx(list, i)));
}

void prov_allow_add_json(struct json_object *obj, const struct prov_allow *a)
{
	struct json_object *list = json_object_new_array();

	for (unsigned i = 0; i < a->n; i++)
		json_object_array_add(list, json_object_new_string(a->names[i]));
	json_object_object_add(obj, "allow", list);
}

/* Every entry of a is in b. */
static bool within(const struct prov_allow *a, const struct prov_allow *b)
{
	for (unsigned i = 0; i < a->n; i++)
		if (!has(b, a->names[i]))
			return false;
	return true;
}

bool prov_allow_same(const struct prov_allow *a, const struct prov_allow *b)
{
	return within(a, b) && within(b, a);
}

void prov_allow_add_diff(struct json_object *params, const char *key, const struct prov_allow *a,
			 const struct prov_allow *b)
{
	struct json_object *list = json_object_new_array();

	for (unsigned i = 0; i < a->n; i++)
		if (!has(b, a->names[i]))
			json_object_array_add(list, json_object_new_string(a->names[i]));
	json_object_object_add(params, key, list);
}
