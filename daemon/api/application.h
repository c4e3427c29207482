/* SPDX-License-Identifier: MIT */
/*
 * Applications: varlink connections that called io.rdmad.Daemon.Attach (the
 * client library does, at rdmad_open).  What an attached connection creates
 * is its own (rdma_object.owner): it addresses no other connection's objects,
 * and when it closes (the program exited or crashed) rdmad destroys them.
 * A connection that never attached (rdmactl, scripts) creates objects that
 * outlive it, and may address every object.  docs/decisions.md, "Applications
 * own what they create".
 */
#pragma once

#include <stdbool.h>

#include "daemon/core/manager.h"
#include "daemon/verbs/object.h"
#include "lib/varlink/varlink.h"

/* Method handlers of io.rdmad.Daemon (registered in daemon.c). */
int api_application_attach(struct varlink_call *call, struct json_object *params, void *userdata);
int api_application_list(struct varlink_call *call, struct json_object *params, void *userdata);

/*
 * How every object record of an application's kinds (PD, MR, CQ, QP, AH,
 * MKEY) begins: its device, its "handle", and, when an application owns it,
 * that process's "pid" and "comm" (as rdma resource show names them).
 */
void api_add_record_head(struct json_object *o, const struct rdma_device *dev,
			 const struct rdma_object *obj);

/* conn called Attach: it is a program's, which may use what it owns. */
bool api_application_attached(const struct varlink_connection *conn);
/* The RLIMIT_MEMLOCK of conn's program when it attached (0 for a connection that did not). */
uint64_t api_application_memlock(const struct varlink_connection *conn);
/* The uids that have applications now, at most max of them into uids; how many. */
unsigned api_application_uids(uid_t *uids, unsigned max);
/* How many applications uid has now. */
unsigned api_application_count(uid_t uid);
/*
 * obj, just created on dev by call, belongs to the call's application, if its
 * connection attached (and the monitor tells its uid's subscribers).
 */
void api_application_own(struct varlink_call *call, struct rdma_device *dev, struct rdma_object *obj);
/*
 * Whether the call may address obj: for an application, its own objects and
 * the pool MKEYs it borrowed; for a connection that did not attach, every
 * object if it is root's, else the objects its uid's applications own and
 * the device-wide ones (DEKs, pools, GIDs).
 */
bool api_application_may_use(struct varlink_call *call, const struct rdma_object *obj);
/*
 * The same for a call that names obj by its handle: a refusal (another's
 * object: a tenant's attempt at what is not its own) is counted.
 */
bool api_application_may_name(struct varlink_call *call, const struct rdma_object *obj);
/* Such refusals since the daemon started (GetStatus refused_not_owner). */
uint64_t api_application_refused(void);
/* A parameter naming an object of kind by its handle, as a Create takes its PD. */
struct api_ref {
	const char *key;
	enum rdma_object_kind kind;
};
/*
 * Whether the objects that params names in refs (ending with { NULL }) are
 * the call's to use; if one is another application's, the call has been
 * answered IFACE.NoSuchObject naming it, as if there were none.  Handles
 * that name nothing are left to the method, which refuses them as always.
 */
bool api_application_refs_ok(struct varlink_call *call, const char *iface, struct rdma_device *dev,
			     struct json_object *params, const struct api_ref *refs);
/* The close hook's part (api.c): destroys what the connection's application owned. */
void api_application_connection_closed(struct varlink_connection *conn, struct manager *m);
