/* SPDX-License-Identifier: MIT */
#include "lib/json-util.h"

#include <inttypes.h>
#include <stdio.h>

void json_add_string(struct json_object *obj, const char *key, const char *value)
{
	json_object_object_add(obj, key, json_object_new_string(value ? value : ""));
}

void json_add_int(struct json_object *obj, const char *key, int64_t value)
{
	json_object_object_add(obj, key, json_object_new_int64(value));
}

void json_add_uint(struct json_object *obj, const char *key, uint64_t value)
{
	json_object_object_add(obj, key, json_object_new_uint64(value));
}

void json_add_bool(struct json_object *obj, const char *key, bool value)
{
	json_object_object_add(obj, key, json_object_new_boolean(value));
}

void json_add_hex64(struct json_object *obj, const char *key, uint64_t value)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%016" PRIx64, value);
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
