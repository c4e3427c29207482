/* SPDX-License-Identifier: MIT */
/*
 * What a client can send: bytes split into NUL-framed messages, parsed, and
 * the parameters checked against an interface that has every kind of type.
 */
#include "tests/fuzz/fuzz.h"
#include "lib/varlink/buffer.h"
#include "lib/varlink/idl.h"

#include <stdlib.h>

static const char idl_text[] =
	"interface org.example.fuzz\n"
	"type Inner (a: int, b: ?[]string, c: [string]float, d: (x, y))\n"
	"method All(i: int, f: float, s: string, b: bool, o: object, e: (one, two),\n"
	"           n: ?Inner, l: []Inner, m: [string]?int, set: [string](), any: any) -> ()\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct idl_interface *iface;
	struct varlink_buffer b = { 0 };
	const struct idl_member *m;
	const char *msg;
	size_t len;

	if (!iface && idl_parse(idl_text, &iface, NULL) < 0)
		abort();
	m = idl_find(iface, IDL_MEMBER_METHOD, "All");
	if (varlink_buffer_append(&b, data, size) < 0)
		return 0;
	while ((msg = varlink_buffer_next_message(&b, &len))) {
		struct json_object *obj = varlink_parse_message(msg, len);
		char path[256];

		if (obj) {
			idl_validate(m->in, json_object_object_get(obj, "parameters"), path,
				     sizeof(path));
			json_object_put(obj);
		}
		varlink_buffer_consume(&b, len + 1);
	}
	varlink_buffer_release(&b);
	return 0;
}
