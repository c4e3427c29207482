/* SPDX-License-Identifier: MIT */
/*
 * Errors of the device model, as values: a short name that each varlink
 * interface declares (io.rdmad.<Interface>.<name>) and what the user needs to
 * fix the request.  Every function that fails fills one and returns -errno.
 */
#pragma once

#include <stdarg.h>
#include <stdint.h>

#include "daemon/verbs/object.h"

enum rdma_error_code {
	RDMA_ERR_NONE,              /* a system error: io.rdmad.Daemon.System(errno) */
	RDMA_ERR_NO_SUCH_OBJECT,    /* NoSuchObject(kind, handle) */
	RDMA_ERR_OBJECT_IN_USE,     /* ObjectInUse(kind, handle, user_kind, user_handle) */
	RDMA_ERR_LIMIT_REACHED,     /* LimitReached(kind, limit) */
	RDMA_ERR_INVALID_ARGUMENT,  /* InvalidArgument(field, reason) */
	RDMA_ERR_INVALID_STATE,     /* InvalidState(field, reason) */
	RDMA_ERR_NOT_SUPPORTED,     /* NotSupported(field, reason) */
};

struct rdma_error {
	enum rdma_error_code code;
	enum rdma_object_kind kind, user_kind;
	uint32_t handle, user_handle;
	uint64_t limit;
	/*
	 * LimitReached of a tenant: the setting that sets it, whose, and what it
	 * holds now.  NoSuchObject of a fabric: the setting that would make one.
	 */
	const char *setting;
	uint32_t uid;
	uint64_t in_use;
	char field[64];
	char reason[256];
	int sys_errno;              /* RDMA_ERR_NONE: the negative errno (0: EIO) */
};

const char *rdma_error_name(enum rdma_error_code code);
/*
 * What went wrong in one line, for a person (a log, a record of the last
 * refusal): the reason a refusal of a field gives, or what an object
 * refusal says by its fields ("no pd 9", "pd 1 is used by qp 2").
 */
void rdma_error_describe(const struct rdma_error *e, char *buf, size_t size);

/* A system failure (out of memory...), not the request's fault; negative_errno is returned. */
int rdma_error_system(struct rdma_error *e, int negative_errno);
int rdma_error_no_such(struct rdma_error *e, enum rdma_object_kind kind, uint32_t handle);
/* Names one object still using target. */
int rdma_error_in_use(struct rdma_error *e, const struct rdma_object *target,
		      const struct rdma_object *user);
int rdma_error_limit(struct rdma_error *e, enum rdma_object_kind kind, uint64_t limit);
/* The same for a limit of uid's, which setting (static text) sets; it holds in_use now. */
int rdma_error_user_limit(struct rdma_error *e, enum rdma_object_kind kind, uint64_t limit,
			  const char *setting, uint32_t uid, uint64_t in_use);
int rdma_error_invalid(struct rdma_error *e, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int rdma_error_state(struct rdma_error *e, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int rdma_error_unsupported(struct rdma_error *e, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A refusal of a member passed on by its container: "sges" becomes prefix "sges" (no field: unchanged). */
void rdma_error_prefix(struct rdma_error *e, const char *prefix);
/* The three above with the code as a parameter, for callers that pass a refusal on. */
int rdma_error_vfield(struct rdma_error *e, enum rdma_error_code code, const char *field,
		      const char *fmt, va_list ap) __attribute__((format(printf, 4, 0)));
