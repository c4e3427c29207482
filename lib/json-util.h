/* SPDX-License-Identifier: MIT */
/* Small json-c helpers for building replies and reading checked parameters. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <json-c/json.h>

/*
 * obj[key] = value.  A key written as a string literal lives as long as the
 * program, so json-c need not copy it nor free it with the object (a QP's
 * record has some twenty keys; a list of 65,536 of them spent about a third
 * of its time in malloc and free).  Any other key
 * (a buffer's, a table's) is copied, as __builtin_constant_p says only of
 * what the compiler knows to be constant.
 */
#define JSON_KEY_FLAGS(key) (__builtin_constant_p(key) ? JSON_C_OBJECT_KEY_IS_CONSTANT : 0u)
#define json_add_string(obj, key, value) json_add_string_ex(obj, key, value, JSON_KEY_FLAGS(key))
#define json_add_int(obj, key, value) json_add_int_ex(obj, key, value, JSON_KEY_FLAGS(key))
#define json_add_uint(obj, key, value) json_add_uint_ex(obj, key, value, JSON_KEY_FLAGS(key))
#define json_add_bool(obj, key, value) json_add_bool_ex(obj, key, value, JSON_KEY_FLAGS(key))
void json_add_string_ex(struct json_object *obj, const char *key, const char *value, unsigned flags);
void json_add_int_ex(struct json_object *obj, const char *key, int64_t value, unsigned flags);
void json_add_uint_ex(struct json_object *obj, const char *key, uint64_t value, unsigned flags);
void json_add_bool_ex(struct json_object *obj, const char *key, bool value, unsigned flags);
/* A GUID as ibv_devinfo and rdma -j print it: "xxxx:xxxx:xxxx:xxxx". */
void json_add_guid(struct json_object *obj, const char *key, uint64_t value);
/* An Ethernet address as "aa:bb:cc:dd:ee:ff". */
void json_add_mac(struct json_object *obj, const char *key, const uint8_t mac[6]);

/* Fields of parameters the varlink layer already type-checked; absent gives NULL / def. */
const char *json_get_string(struct json_object *obj, const char *key);
int64_t json_get_int(struct json_object *obj, const char *key, int64_t def);

/*
 * Does got carry the values of want?  Numbers compare by value (1 may stand
 * for 1.0), and an absent member is the same as null.
 */
bool json_values_match(struct json_object *want, struct json_object *got);
