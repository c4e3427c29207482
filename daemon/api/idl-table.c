/* SPDX-License-Identifier: MIT */
#include "daemon/api/idl-table.h"

#include <string.h>

const char *varlink_idl_text_find(const char *interface)
{
	for (const struct varlink_idl_text *t = varlink_idl_texts; t->name; t++)
		if (strcmp(t->name, interface) == 0)
			return t->text;
	return NULL;
}
