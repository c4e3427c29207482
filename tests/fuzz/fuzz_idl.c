/* SPDX-License-Identifier: MIT */
/* Interface descriptions: parsed, and on success used to check a value. */
#include "tests/fuzz/fuzz.h"
#include "lib/varlink/idl.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = strndup((const char *)data, size);
	struct idl_interface *iface = NULL;
	struct json_object *value;
	char *error = NULL;

	if (!text)
		return 0;
	/* Strings with and without a NUL, typed and inside an object. */
	value = json_tokener_parse("{\"a\":1,\"b\":[\"x\",\"y\\u0000z\"],"
				   "\"c\":{\"k\":null,\"s\":[\"\\u0000\"]}}");
	if (idl_parse(text, &iface, &error) == 0) {
		for (size_t i = 0; i < iface->n; i++) {
			char path[256];

			idl_validate(iface->members[i].in, value, path, sizeof(path));
		}
		idl_interface_free(iface);
	}
	json_object_put(value);
	free(error);
	free(text);
	return 0;
}
