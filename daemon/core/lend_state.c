/* SPDX-License-Identifier: MIT */
/* Allow lists of DEKs and pools: saved by name, looked up at start and at every reload. */
#include "daemon/core/lend_state.h"
#include "daemon/verbs/dek.h"
#include "daemon/verbs/pool.h"
#include "lib/log.h"

#include <stdio.h>

void lend_state_add(struct json_object *record, const struct rdma_lend_policy *p)
{
	struct json_object *allow = json_object_new_array();

	for (unsigned i = 0; i < p->n; i++) {
		char text[RDMA_LEND_NAME_MAX + 1];

		rdma_lend_entry_text(&p->entries[i], text, sizeof(text));
		json_object_array_add(allow, json_object_new_string(text));
	}
	json_object_object_add(record, "allow", allow);
}

void lend_state_restore(struct json_object *record, struct rdma_lend_policy *p,
			const struct rdma_device *dev, const char *kind, const char *name)
{
	struct json_object *allow = NULL;
	const char *names[RDMA_LEND_MAX];
	char what[RDMA_DEVICE_NAME_MAX + 128];
	size_t n = 0;

	snprintf(what, sizeof(what), "%s: %s '%s'", dev->name, kind, name);
	json_object_object_get_ex(record, "allow", &allow);
	if (allow && !json_object_is_type(allow, json_type_array))
		log_error("%s: saved 'allow' is not a list: lent to nobody but root", what);
	for (size_t i = 0; json_object_is_type(allow, json_type_array) &&
			   i < json_object_array_length(allow); i++) {
		struct json_object *v = json_object_array_get_idx(allow, i);

		if (n == RDMA_LEND_MAX) {
			log_error("%s: saved 'allow' has more than %d entries: the rest left out", what,
				  RDMA_LEND_MAX);
			break;
		}
		names[n++] = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
	}
	rdma_lend_restore(p, names, n, &rdma_lend_nss, what);
}

void lend_state_resolve(struct rdma_device *dev)
{
	struct rdma_object *obj;
	char what[RDMA_DEVICE_NAME_MAX + 128];

	for (uint32_t pos = 0; (obj = object_table_next(&dev->tables[RDMA_OBJ_DEK], &pos)); ) {
		snprintf(what, sizeof(what), "%s: DEK '%s'", dev->name, rdma_dek(obj)->name);
		rdma_lend_resolve_all(&rdma_dek(obj)->allow, &rdma_lend_nss, what);
	}
	for (uint32_t pos = 0; (obj = object_table_next(&dev->tables[RDMA_OBJ_POOL], &pos)); ) {
		snprintf(what, sizeof(what), "%s: pool '%s'", dev->name, rdma_pool(obj)->name);
		rdma_lend_resolve_all(&rdma_pool(obj)->allow, &rdma_lend_nss, what);
	}
}
