/* SPDX-License-Identifier: MIT */
/* Small json-c helpers for building replies and reading checked parameters. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <json-c/json.h>

void json_add_string(struct json_object *obj, const char *key, const char *value);
void json_add_int(struct json_object *obj, const char *key, int64_t value);
void json_add_uint(struct json_object *obj, const char *key, uint64_t value);
void json_add_bool(struct json_object *obj, const char *key, bool value);
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
