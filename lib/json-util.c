/* SPDX-License-Identifier: MIT */
#include "lib/json-util.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void json_add_string_ex(struct json_object *obj, const char *key, const char *value, unsigned flags)
{
	json_object_object_add_ex(obj, key, json_object_new_string(value ? value : ""), flags);
}

void json_add_int_ex(struct json_object *obj, const char *key, int64_t value, unsigned flags)
{
	json_object_object_add_ex(obj, key, json_object_new_int64(value), flags);
}

void json_add_uint_ex(struct json_object *obj, const char *key, uint64_t value, unsigned flags)
{
	json_object_object_add_ex(obj, key, json_object_new_uint64(value), flags);
}

void json_add_bool_ex(struct json_object *obj, const char *key, bool value, unsigned flags)
{
	json_object_object_add_ex(obj, key, json_object_new_boolean(value), flags);
}

void json_add_guid(struct json_object *obj, const char *key, uint64_t value)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%04x:%04x:%04x:%04x", (unsigned)(value >> 48) & 0xffff,
		 (unsigned)(value >> 32) & 0xffff, (unsigned)(value >> 16) & 0xffff,
		 (unsigned)value & 0xffff);
	json_add_string(obj, key, buf);
}

void json_add_mac(struct json_object *obj, const char *key, const uint8_t mac[6])
{
	char buf[18];

	snprintf(buf, sizeof(buf), "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3],
		 mac[4], mac[5]);
	json_add_string(obj, key, buf);
}

const char *json_get_string(struct json_object *obj, const char *key)
{
	struct json_object *v;

	if (!obj || !json_object_object_get_ex(obj, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

int64_t json_get_int(struct json_object *obj, const char *key, int64_t def)
{
	struct json_object *v;

	if (!obj || !json_object_object_get_ex(obj, key, &v) || !json_object_is_type(v, json_type_int))
		return def;
	return json_object_get_int64(v);
}

/*
 * Does got carry the values of want?  Numbers compare by value (a float may
 * come back as 1 for 1.0), and an absent member is the same as null.
 */
bool json_values_match(struct json_object *want, struct json_object *got)
{
	enum json_type wt = json_object_get_type(want), gt = json_object_get_type(got);

	if (wt == json_type_null || gt == json_type_null)
		return wt == gt;
	if ((wt == json_type_int || wt == json_type_double) &&
	    (gt == json_type_int || gt == json_type_double)) {
		if (wt == json_type_int && gt == json_type_int)
			return json_object_get_int64(want) == json_object_get_int64(got);
		return json_object_get_double(want) == json_object_get_double(got);
	}
	if (wt != gt)
		return false;
	switch (wt) {
	case json_type_boolean:
		return json_object_get_boolean(want) == json_object_get_boolean(got);
	case json_type_string:
		return strcmp(json_object_get_string(want), json_object_get_string(got)) == 0;
	case json_type_array: {
		size_t n = json_object_array_length(want);

		if (n != json_object_array_length(got))
			return false;
		for (size_t i = 0; i < n; i++)
			if (!json_values_match(json_object_array_get_idx(want, i),
					  json_object_array_get_idx(got, i)))
				return false;
		return true;
	}
	case json_type_object: {
		json_object_object_foreach(want, wkey, wval)
			if (!json_values_match(wval, json_object_object_get(got, wkey)))
				return false;
		json_object_object_foreach(got, gkey, gval)
			if (!json_object_object_get_ex(want, gkey, NULL) && gval)
				return false;
		return true;
	}
	default:
		return false;
	}
}
