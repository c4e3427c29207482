/* SPDX-License-Identifier: MIT */
/* Varlink method tables of the io.rdmad.* interfaces: one file per interface. */
#pragma once

#include "daemon/core/manager.h"
#include "lib/json-util.h"
#include "lib/varlink/varlink.h"

/*
 * Who may call a method (the authorizer in api.c): flags 0 is read-only, open
 * to root and group RDMAD_READ_GROUP; VARLINK_METHOD_PRIVILEGED changes state
 * and needs root; API_METHOD_SECRET concerns key material and needs root even
 * to read.  Two flags open a state-changing method to the group's members, the
 * device's tenants: API_METHOD_TENANT to any of them (Attach, which makes a
 * connection a program's), API_METHOD_OWN through a connection that attached,
 * on the objects that program owns (the handler's lookups see to that).
 */
#define API_METHOD_SECRET VARLINK_METHOD_APP(0)
#define API_METHOD_TENANT VARLINK_METHOD_APP(1)
#define API_METHOD_OWN    VARLINK_METHOD_APP(2)
/* What a method's caller needs to be, the words io.rdmad.Daemon.GetAccess answers. */
enum api_access { API_NEEDS_ROOT, API_NEEDS_READ_GROUP, API_NEEDS_ATTACHED };
enum api_access api_method_access(unsigned flags);
const char *api_access_word(enum api_access access);
/* The flags of a method ("io.rdmad.Pd.Create"); -ENOENT when no io.rdmad interface has it. */
int api_method_flags(const char *method, unsigned *flags);

extern const struct varlink_method api_daemon_methods[];
extern const struct varlink_method api_device_methods[];
extern const struct varlink_method api_pd_methods[];
extern const struct varlink_method api_mr_methods[];
extern const struct varlink_method api_cq_methods[];
extern const struct varlink_method api_qp_methods[];
extern const struct varlink_method api_ah_methods[];
extern const struct varlink_method api_gid_methods[];
extern const struct varlink_method api_mkey_methods[];
extern const struct varlink_method api_pool_methods[];
extern const struct varlink_method api_dek_methods[];
extern const struct varlink_method api_vnic_methods[];
extern const struct varlink_method api_vdev_methods[];
extern const struct varlink_method api_monitor_methods[];

/* The monitor: device events to io.rdmad.Monitor subscribers (daemon/api/monitor.c). */
/* Serves the io.rdmad.* interfaces on the manager's event loop and socket. */
int api_varlink_init(struct manager *m);
/* Stops serving: the server, the monitor streams, and the socket file it made. */
void api_varlink_free(struct manager *m);
/* Registers every io.rdmad.* interface (api.c). */
int api_register(struct manager *m);
int api_monitor_start(struct manager *m);
void api_monitor_free(struct manager *m);
/*
 * An application attached (its record: what it owns) or went away (what was
 * reclaimed, in its objects), to the subscribers of that event type.
 * application is consumed.
 */
void api_monitor_application(struct manager *m, bool attached, struct json_object *application);
struct vdev;
/* A vdev as io.rdmad.Vdev's record (daemon/api/vdev.c): Show's and List's. */
struct json_object *api_vdev_json(const struct vdev *v);
/* obj on dev became a tenant's: its creation, to that uid's subscriptions. */
void api_monitor_object_owned(struct rdma_device *dev, const struct rdma_object *obj);

/*
 * What each interface gives back when a connection closes (its client's
 * borrowed MKEYs, unfinished uploads).  api.c calls every one of them from the
 * server's one close hook: add yours to close_handlers[] there.
 */
typedef void (*api_close_fn)(struct varlink_connection *conn, struct manager *m);
void api_mkey_connection_closed(struct varlink_connection *conn, struct manager *m);
void api_pool_connection_closed(struct varlink_connection *conn, struct manager *m);

/*
 * The device named by the "device" parameter, or the first one.  On NULL the
 * call has been answered with IFACE.NoSuchDevice.
 */
struct rdma_device *api_device(struct varlink_call *call, struct manager *m,
			       struct json_object *params, const char *iface);
/* Replies IFACE.<error name> with the error's parameters (this and the api_reply_* below: reply.c). */
int api_reply_error(struct varlink_call *call, const char *iface, const struct rdma_error *err);
/*
 * A failure r of the model: a refused request as its error, a system failure
 * (no error code) as io.rdmad.Daemon.System with its errno.
 */
int api_reply_failure(struct varlink_call *call, const char *iface, const struct rdma_error *err, int r);
/*
 * The object of kind named by the "handle" parameter, and its device; NULL
 * once the call has been answered (NoSuchDevice, InvalidParameter, NoSuchObject).
 */
struct rdma_object *api_lookup(struct varlink_call *call, struct manager *m,
			       struct json_object *params, const char *iface,
			       enum rdma_object_kind kind, struct rdma_device **dev);
/* An object as its interface's JSON record. */
typedef struct json_object *(*api_object_json_fn)(struct rdma_device *dev, struct rdma_object *obj);
/*
 * List(device, after, max) of any kind: replies {key: [records], next}, a
 * page of at most max records (default API_LIST_PAGE_DEFAULT) after handle
 * after, next set when more follow (pass it as after for the next page).
 */
#define API_LIST_PAGE_DEFAULT 4096
#define API_LIST_PAGE_MAX     65536
int api_list(struct varlink_call *call, struct manager *m, struct json_object *params,
	     const char *iface, enum rdma_object_kind kind, const char *key, api_object_json_fn fn);
/* The same for records that depend on who asks (api_caller_knows_deks()). */
typedef struct json_object *(*api_caller_json_fn)(struct varlink_call *call, struct rdma_device *dev,
						  struct rdma_object *obj);
int api_list_for_caller(struct varlink_call *call, struct manager *m, struct json_object *params,
			const char *iface, enum rdma_object_kind kind, const char *key,
			api_caller_json_fn fn);

/*
 * Everything about DEKs is root's, as the DEK methods are: which DEK an MKEY
 * uses, DEK events.  False for every other caller, group rdma included, whose
 * replies and events leave them out (rdmad-varlink(7) AUTHORIZATION).
 */
bool api_caller_knows_deks(const struct varlink_call *call);
/* Replies {key: record} (record is consumed). */
int api_reply_record(struct varlink_call *call, const char *key, struct json_object *record);
/* Replies params (consumed; NULL: none); the call's last reply. */
int api_reply(struct varlink_call *call, struct json_object *params);
/* One reply of a stream (a call with more); more follow. */
int api_reply_more(struct varlink_call *call, struct json_object *params);
/* Replies the error (a full name) with params (consumed; NULL: none). */
int api_error(struct varlink_call *call, const char *error, struct json_object *params);
/* org.varlink.service.InvalidParameter naming the parameter. */
int api_error_parameter(struct varlink_call *call, const char *name);
/* A system failure: the server's errno error (io.rdmad.Daemon.System) with negative_errno. */
int api_error_errno(struct varlink_call *call, int negative_errno);
/* Destroy(device, handle) of any kind: refused with ObjectInUse while used. */
int api_destroy(struct varlink_call *call, struct manager *m, struct json_object *params,
		const char *iface, enum rdma_object_kind kind);
/* The same through the kind's own destroy, for kinds with rules of their own. */
typedef int (*api_destroy_fn)(struct rdma_device *dev, enum rdma_object_kind kind, uint32_t handle,
			      struct rdma_error *err);
int api_destroy_by(struct varlink_call *call, struct manager *m, struct json_object *params,
		   const char *iface, enum rdma_object_kind kind, api_destroy_fn destroy);

/*
 * The file descriptor passed with the call at the index that parameter key
 * holds: the call's still, closed when the call ends.  An index with nothing
 * passed there: InvalidArgument naming key, with the indices there are.
 */
int api_passed_fd(struct varlink_call *call, struct json_object *params, const char *key,
		  struct rdma_error *err);
/* Replies io.rdmad.<iface>.<error> with one string parameter. */
int api_error_string(struct varlink_call *call, const char *error, const char *key, const char *value);
