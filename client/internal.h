/* SPDX-License-Identifier: MIT */
/*
 * What the files of librdmad share: the context, the one way to call rdmad,
 * and errors.  Nothing here is exported (client/librdmad.map).
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#include "include/rdmad/rdmad.h"

struct varlink_client;

/* A buffer of rdmad_alloc_buf: a memfd mapped at addr. */
struct client_buf {
	void *addr;
	size_t size;
	int fd;
};

struct rdmad_context {
	struct varlink_client *varlink;
	char device[64];
	/* The MRs registered through this context, for SGE addresses (post.c). */
	struct rdmad_mr **mrs;
	size_t n_mrs, cap_mrs;
	struct client_buf *bufs;
	size_t n_bufs, cap_bufs;
	/* The PD, AH, CQ, QP and MKEY descriptions handed out and not destroyed (held.c). */
	void **held;
	size_t n_held, cap_held;
};

/*
 * A description handed out is the context's until destroyed: rdmad_close()
 * frees those the program did not (rdmad destroys the objects themselves).
 * client_hold() returns desc, or frees it and fails with ENOMEM (NULL);
 * client_release() frees it.
 */
void *client_hold(struct rdmad_context *ctx, void *desc);
void client_release(struct rdmad_context *ctx, void *desc);
void client_release_all(struct rdmad_context *ctx);

/*
 * Calls rdmad's method (e.g. "io.rdmad.Pd.Create") with params (consumed; the
 * context's device is added) and n_fds descriptors.  0 with *reply (the
 * caller's, may be NULL to drop it), or a negative errno with the thread's
 * message set: rdmad's error mapped as librdmad(3) says, or the connection's.
 */
int client_call(struct rdmad_context *ctx, const char *method, struct json_object *params,
		const int *fds, unsigned n_fds, struct json_object **reply);
/* The same without the device parameter (methods of io.rdmad.Daemon). */
int client_call_plain(struct rdmad_context *ctx, const char *method, struct json_object *params,
		      struct json_object **reply);

/* Sets the thread's message (printf format); returns negative_errno. */
int client_fail(int negative_errno, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* For calls returning a pointer: errno = -r, NULL. */
void *client_fail_null(int r);
/* Clears the thread's message at the start of a call. */
void client_ok(void);

/* A member of a reply: an unsigned number (0 when absent), a string ("" when absent). */
uint64_t client_get_u64(struct json_object *obj, const char *key);
const char *client_get_str(struct json_object *obj, const char *key);
struct json_object *client_get(struct json_object *obj, const char *key);
/* params with a new member; returns params. */
struct json_object *client_add_u64(struct json_object *params, const char *key, uint64_t value);
struct json_object *client_add_str(struct json_object *params, const char *key, const char *value);
struct json_object *client_add_bool(struct json_object *params, const char *key, bool value);
/* The access bits as rdmad's word list (remote_atomic never: rdmad has none for MRs). */
struct json_object *client_access_words(unsigned access);

/* An address vector's members (pd.c): dgid, sgid_index, flow_label, hop_limit, traffic_class. */
int client_add_av(struct json_object *params, const struct rdmad_ah_attr *attr);
/* Destroys the object named handle with method (pd.c). */
int client_destroy_handle(struct rdmad_context *ctx, const char *method, uint32_t handle);

/* The MR table (memory.c): the registered MR of this context whose key is lkey, or NULL. */
struct rdmad_mr *client_mr_by_key(struct rdmad_context *ctx, uint32_t lkey);
/* Frees every buffer of rdmad_alloc_buf still allocated (at close). */
void client_bufs_free_all(struct rdmad_context *ctx);
