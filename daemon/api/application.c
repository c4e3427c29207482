/* SPDX-License-Identifier: MIT */
/* Applications: attached connections, what they own, and what rdmad reclaims when they go. */
#include "daemon/api/application.h"
#include "daemon/api/vocab.h"
#include "daemon/api/api.h"
#include "daemon/api/dispatch.h"
#include "daemon/verbs/device.h"
#include "daemon/verbs/mkey.h"
#include "daemon/verbs/owner.h"
#include "daemon/verbs/reclaim.h"
#include "lib/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A name an application gives itself, as pool owner names are spelled. */
#define APPLICATION_NAME_MAX 64
/* /proc/PID/comm: TASK_COMM_LEN. */
#define APPLICATION_COMM_MAX 16

struct application {
	struct application *next;
	struct varlink_connection *conn;
	struct ucred cred;          /* as the kernel said when it connected */
	char comm[APPLICATION_COMM_MAX];
	char name[APPLICATION_NAME_MAX];
	uint64_t memlock;           /* RLIMIT_MEMLOCK when it attached, bytes; UINT64_MAX: unlimited */
};

/* Few at once (one per program using the library): a list is enough. */
static struct application *applications;


static struct application *application_find(const struct varlink_connection *conn)
{
	for (struct application *a = applications; a; a = a->next)
		if (a->conn == conn)
			return a;
	return NULL;
}

/* The process's name, for logs and lists; "" when it cannot be read (gone, or another pid namespace). */
static void read_comm(pid_t pid, char comm[APPLICATION_COMM_MAX])
{
	char path[64];
	ssize_t n;
	int fd;

	comm[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, comm, APPLICATION_COMM_MAX - 1);
	close(fd);
	if (n <= 0) {
		comm[0] = '\0';
		return;
	}
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
}

/*
 * The process's RLIMIT_MEMLOCK (its soft limit), which bounds what it may
 * register as it bounds an ibverbs program's pinned pages.  /proc/PID/limits
 * is read, as prlimit(2) on another process needs CAP_SYS_RESOURCE, which the
 * unit does not give.  A limit that cannot be read is 0: the process is gone.
 */
static uint64_t read_memlock(pid_t pid)
{
	char path[64], line[256];
	uint64_t limit = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/limits", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char soft[32];

		if (strncmp(line, "Max locked memory", 17) != 0 || sscanf(line + 17, "%31s", soft) != 1)
			continue;
		limit = strcmp(soft, "unlimited") == 0 ? UINT64_MAX : strtoull(soft, NULL, 10);
		break;
	}
	fclose(f);
	return limit;
}

/* Letters, digits and "_.-@:", 1 to APPLICATION_NAME_MAX - 1 of them. */
static bool name_valid(const char *name)
{
	size_t len = strlen(name);

	if (len == 0 || len >= APPLICATION_NAME_MAX)
		return false;
	for (const char *c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || strchr("_.-@:", *c)))
			return false;
	return true;
}

static unsigned owned_count(struct manager *m, const struct application *a, enum rdma_object_kind kind)
{
	unsigned n = 0;

	for (unsigned d = 0; d < m->n_devices; d++) {
		struct rdma_object *obj;

		for (uint32_t pos = 0; (obj = object_table_next(&m->devices[d]->tables[kind], &pos)); )
			n += obj->owner == a->conn;
	}
	return n;
}

/* a's record with counts of objects by kind (in rdma_reclaim_order): what it owns, or what was reclaimed. */
static struct json_object *application_record(const struct application *a, const unsigned counts[RDMA_RECLAIM_KINDS])
{
	struct json_object *o = json_object_new_object();
	struct json_object *objects = json_object_new_object();

	json_add_int(o, "pid", a->cred.pid);
	json_add_int(o, "uid", a->cred.uid);
	json_add_string(o, "comm", a->comm);
	if (a->name[0])
		json_add_string(o, "name", a->name);
	/* Counts of objects are the kind's plural (rdmad-varlink(7), "Vocabulary"). */
	for (size_t i = 0; i < RDMA_RECLAIM_KINDS; i++) {
		char key[32];

		snprintf(key, sizeof(key), "%ss", rdma_object_kind_name(rdma_reclaim_order[i]));
		json_add_uint(objects, key, counts[i]);
	}
	json_object_object_add(o, "objects", objects);
	return o;
}

static struct json_object *application_json(struct manager *m, const struct application *a)
{
	unsigned owned[RDMA_RECLAIM_KINDS];

	for (size_t i = 0; i < RDMA_RECLAIM_KINDS; i++)
		owned[i] = owned_count(m, a, rdma_reclaim_order[i]);
	return application_record(a, owned);
}

void api_add_record_head(struct json_object *o, const struct rdma_device *dev,
			 const struct rdma_object *obj)
{
	const struct application *a = obj->owner ? application_find(obj->owner) : NULL;

	api_add_device(o, dev);
	json_add_uint(o, "handle", obj->handle);
	if (a) {
		json_add_int(o, "pid", a->cred.pid);
		json_add_string(o, "comm", a->comm);
	}
}

bool api_application_attached(const struct varlink_connection *conn)
{
	return application_find(conn) != NULL;
}

uint64_t api_application_memlock(const struct varlink_connection *conn)
{
	const struct application *a = application_find(conn);

	return a ? a->memlock : 0;
}

unsigned api_application_uids(uid_t *uids, unsigned max)
{
	unsigned n = 0;

	for (const struct application *a = applications; a; a = a->next) {
		unsigned i = 0;

		while (i < n && uids[i] != a->cred.uid)
			i++;
		if (i == n && n < max)
			uids[n++] = a->cred.uid;
	}
	return n;
}

unsigned api_application_count(uid_t uid)
{
	unsigned n = 0;

	for (const struct application *a = applications; a; a = a->next)
		n += a->cred.uid == uid;
	return n;
}

int api_application_attach(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct varlink_connection *conn = varlink_call_connection(call);
	const char *name = json_get_string(params, "name");
	struct application *a = application_find(conn);
	bool created = false;

	if (name && !name_valid(name))
		return api_error_parameter(call, "name");
	if (!a) {
		a = calloc(1, sizeof(*a));
		if (!a)
			return -ENOMEM;
		a->conn = conn;
		a->cred = *varlink_connection_peer(conn);
		read_comm(a->cred.pid, a->comm);
		a->memlock = read_memlock(a->cred.pid);
		a->next = applications;
		applications = a;
		/* Its program may work through its rings for hours without a call. */
		varlink_connection_keep_open(conn);
		log_info("application attached: pid %d (%s), uid %d", (int)a->cred.pid, a->comm,
			 (int)a->cred.uid);
		created = true;
	}
	/* Attaching again only renames: what it owns stays its own. */
	if (name)
		snprintf(a->name, sizeof(a->name), "%s", name);
	if (created)
		api_monitor_application(userdata, true, application_json(userdata, a));
	return api_reply_record(call, "application", application_json(userdata, a));
}

int api_application_list(struct varlink_call *call, struct json_object *params, void *userdata)
{
	uid_t uid = varlink_call_peer(call)->uid;
	struct json_object *list = json_object_new_array();

	/* A tenant sees its own programs, not who else uses the device. */
	for (struct application *a = applications; a; a = a->next)
		if (uid == 0 || a->cred.uid == uid)
			json_object_array_add(list, application_json(userdata, a));
	return api_reply_record(call, "applications", list);
}

void api_application_own(struct varlink_call *call, struct rdma_device *dev, struct rdma_object *obj)
{
	struct varlink_connection *conn = varlink_call_connection(call);
	const struct application *a = application_find(conn);

	if (!a)
		return;
	rdma_object_set_owner(dev, obj, conn, a->cred.uid);
	api_monitor_object_owned(dev, obj);
}

/* Kinds a program owns; the others (DEKs, pools, GIDs, VNIC ports) are the device's. */
static bool application_kind(enum rdma_object_kind kind)
{
	for (size_t i = 0; i < RDMA_RECLAIM_KINDS; i++)
		if (rdma_reclaim_order[i] == kind)
			return true;
	return false;
}

bool api_application_may_use(struct varlink_call *call, const struct rdma_object *obj)
{
	struct varlink_connection *conn = varlink_call_connection(call);
	uid_t uid = varlink_call_peer(call)->uid;

	/* The device's records: the method's flags say who may read or change them. */
	if (!application_kind(obj->kind))
		return true;
	if (application_find(conn))
		return obj->owner == conn ||
		       (obj->kind == RDMA_OBJ_MKEY && rdma_mkey((struct rdma_object *)obj)->borrower == conn);
	/*
	 * A connection that did not attach: root's addresses every object; a
	 * tenant's (it may only read) sees its own uid's programs' objects and
	 * the device's records, never another tenant's or root's objects.
	 */
	return uid == 0 || (obj->owner && obj->owner_uid == uid);
}

/* Calls that named an object not theirs to use, since the daemon started. */
static uint64_t refused_not_owner;

bool api_application_may_name(struct varlink_call *call, const struct rdma_object *obj)
{
	if (api_application_may_use(call, obj))
		return true;
	refused_not_owner++;
	return false;
}

uint64_t api_application_refused(void)
{
	return refused_not_owner;
}

bool api_application_refs_ok(struct varlink_call *call, const char *iface, struct rdma_device *dev,
			     struct json_object *params, const struct api_ref *refs)
{
	for (; refs->key; refs++) {
		int64_t handle = json_get_int(params, refs->key, -1);
		struct rdma_error err = { 0 };
		struct rdma_object *obj;

		if (handle < 0 || handle > UINT32_MAX)
			continue;
		obj = rdma_object_lookup(dev, refs->kind, (uint32_t)handle, &err);
		if (!obj || api_application_may_name(call, obj))
			continue;
		rdma_error_no_such(&err, refs->kind, (uint32_t)handle);
		api_reply_error(call, iface, &err);
		return false;
	}
	return true;
}

/* Another connection's object built on one of a's: it goes first. */
static void built_on(const struct rdma_object *user, void *data)
{
	const struct application *a = data;

	log_warning("application pid %d went away: %s %u, built on its objects, goes with them",
		    (int)a->cred.pid, rdma_object_kind_name(user->kind), user->handle);
}

/* An object of a's that the device keeps (a DEK or pool uses it): it stays, nobody's now. */
static void kept_by_device(const struct rdma_object *obj, const struct rdma_error *err, void *data)
{
	const struct application *a = data;

	log_warning("application pid %d: %s %u stays: %s", (int)a->cred.pid,
		    rdma_object_kind_name(obj->kind), obj->handle, rdma_error_name(err->code));
}

void api_application_connection_closed(struct varlink_connection *conn, struct manager *m)
{
	struct application **slot = &applications, *a;
	unsigned reclaimed[RDMA_RECLAIM_KINDS] = { 0 };

	while (*slot && (*slot)->conn != conn)
		slot = &(*slot)->next;
	a = *slot;
	if (!a)
		return;
	*slot = a->next;
	for (unsigned d = 0; d < m->n_devices; d++)
		rdma_owner_reclaim(m->devices[d], a->conn, reclaimed, built_on, kept_by_device, a);
	log_info("application pid %d (%s) went away: reclaimed %u QPs, %u AHs, %u MKEYs, %u MRs, "
		 "%u CQs, %u PDs", (int)a->cred.pid, a->comm, reclaimed[0], reclaimed[1],
		 reclaimed[2], reclaimed[3], reclaimed[4], reclaimed[5]);
	api_monitor_application(m, false, application_record(a, reclaimed));
	free(a);
}
