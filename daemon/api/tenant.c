/* SPDX-License-Identifier: MIT */
/* What each tenant holds, against its limits. */
#include "daemon/api/tenant.h"
#include "daemon/api/application.h"
#include "daemon/verbs/mr.h"
#include "daemon/verbs/owner.h"
#include "lib/json-util.h"

#include <errno.h>
#include <stdio.h>
#include <sys/param.h>

/* Tenants listed in a status at most: more are left out, and the list says how many. */
#define TENANTS_LISTED_MAX 1024

struct tenant_use {
	unsigned objects[RDMAD_TENANT_KINDS];
	uint64_t registered_bytes;          /* the uid's MRs together */
	uint64_t conn_registered_bytes;     /* of those, the MRs of one connection's program */
};

/*
 * What uid holds on every device (kept as owners change, daemon/verbs/owner.h:
 * no walk of the objects), and, when conn is given, of its MRs what conn's
 * program registered (a walk of the MRs alone, for the RLIMIT_MEMLOCK rule).
 */
static void tenant_use(const struct manager *m, uid_t uid, const void *conn, struct tenant_use *use)
{
	*use = (struct tenant_use){ 0 };
	for (unsigned d = 0; d < m->n_devices; d++) {
		struct rdma_uid_usage u = rdma_device_uid_usage(m->devices[d], uid);
		struct rdma_object *obj;

		for (int kind = 0; kind < RDMAD_TENANT_KINDS; kind++)
			use->objects[kind] += u.objects[kind];
		use->registered_bytes += u.registered_bytes;
		for (uint32_t pos = 0; conn && (obj = object_table_next(&m->devices[d]->tables[RDMA_OBJ_MR], &pos)); )
			if (obj->owner == conn)
				use->conn_registered_bytes += rdma_mr(obj)->length;
	}
}

int api_tenant_may_create(struct varlink_call *call, struct manager *m, enum rdma_object_kind kind,
			  uint64_t bytes, struct rdma_error *err)
{
	const struct rdmad_tenant_limits *limits = &m->config.tenant;
	struct varlink_connection *conn = varlink_call_connection(call);
	uid_t uid = varlink_call_peer(call)->uid;
	struct tenant_use use;
	uint64_t memlock;

	if (uid == 0 || kind >= RDMAD_TENANT_KINDS)
		return 0;
	/* One connection's bytes count only for an MR under the memlock rule. */
	tenant_use(m, uid, bytes && !limits->max_registered_bytes ? conn : NULL, &use);
	if (use.objects[kind] >= limits->max_objects[kind])
		return rdma_error_user_limit(err, kind, limits->max_objects[kind],
					     config_tenant_setting(kind), uid, use.objects[kind]);
	if (!bytes)
		return 0;
	if (limits->max_registered_bytes) {
		if (bytes > limits->max_registered_bytes - MIN(use.registered_bytes, limits->max_registered_bytes))
			return rdma_error_user_limit(err, kind, limits->max_registered_bytes,
						     "max_registered_bytes_per_uid", uid,
						     use.registered_bytes);
		return 0;
	}
	/* As the kernel holds an ibverbs program's pinned pages to its RLIMIT_MEMLOCK. */
	memlock = api_application_memlock(conn);
	if (bytes > memlock - MIN(use.conn_registered_bytes, memlock))
		return rdma_error_user_limit(err, kind, memlock, "RLIMIT_MEMLOCK", uid,
					     use.conn_registered_bytes);
	return 0;
}

/* A limit in JSON: null where none applies (registered bytes under the memlock rule). */
static struct json_object *tenant_json(const struct manager *m, uid_t uid)
{
	const struct rdmad_tenant_limits *limits = &m->config.tenant;
	struct json_object *o = json_object_new_object();
	struct json_object *held = json_object_new_object(), *max = json_object_new_object();
	struct tenant_use use;

	tenant_use(m, uid, NULL, &use);
	json_add_uint(o, "uid", uid);
	json_add_uint(o, "programs", api_application_count(uid));
	for (int kind = 0; kind < RDMAD_TENANT_KINDS; kind++) {
		char key[32];

		/* Counts of objects are the kind's plural (rdmad-varlink(7), "Vocabulary"). */
		snprintf(key, sizeof(key), "%ss", rdma_object_kind_name(kind));
		json_add_uint(held, key, use.objects[kind]);
		json_add_uint(max, key, limits->max_objects[kind]);
	}
	json_add_uint(held, "registered_bytes", use.registered_bytes);
	if (limits->max_registered_bytes)
		json_add_uint(max, "registered_bytes", limits->max_registered_bytes);
	else
		json_object_object_add(max, "registered_bytes", NULL);
	json_object_object_add(o, "objects", held);
	json_object_object_add(o, "limits", max);
	return o;
}

struct json_object *api_tenants_json(struct varlink_call *call, struct manager *m)
{
	uid_t caller = varlink_call_peer(call)->uid, uids[TENANTS_LISTED_MAX];
	struct json_object *list = json_object_new_array();
	unsigned n = api_application_uids(uids, TENANTS_LISTED_MAX);

	for (unsigned i = 0; i < n; i++)
		if (uids[i] != 0 && (caller == 0 || uids[i] == caller))
			json_object_array_add(list, tenant_json(m, uids[i]));
	return list;
}
