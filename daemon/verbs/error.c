/* SPDX-License-Identifier: MIT */
#include "daemon/verbs/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *rdma_error_name(enum rdma_error_code code)
{
	switch (code) {
	case RDMA_ERR_NONE:             return NULL;
	case RDMA_ERR_NO_SUCH_OBJECT:   return "NoSuchObject";
	case RDMA_ERR_OBJECT_IN_USE:    return "ObjectInUse";
	case RDMA_ERR_LIMIT_REACHED:    return "LimitReached";
	case RDMA_ERR_INVALID_ARGUMENT: return "InvalidArgument";
	case RDMA_ERR_INVALID_STATE:    return "InvalidState";
	case RDMA_ERR_NOT_SUPPORTED:    return "NotSupported";
	}
	return NULL;
}

int rdma_error_system(struct rdma_error *e, int negative_errno)
{
	memset(e, 0, sizeof(*e));
	e->code = RDMA_ERR_NONE;
	e->sys_errno = negative_errno;
	return negative_errno;
}

int rdma_error_no_such(struct rdma_error *e, enum rdma_object_kind kind, uint32_t handle)
{
	memset(e, 0, sizeof(*e));
	e->code = RDMA_ERR_NO_SUCH_OBJECT;
	e->kind = kind;
	e->handle = handle;
	return -ENOENT;
}

int rdma_error_in_use(struct rdma_error *e, const struct rdma_object *target,
		      const struct rdma_object *user)
{
	memset(e, 0, sizeof(*e));
	e->code = RDMA_ERR_OBJECT_IN_USE;
	e->kind = target->kind;
	e->handle = target->handle;
	e->user_kind = user->kind;
	e->user_handle = user->handle;
	return -EBUSY;
}

int rdma_error_limit(struct rdma_error *e, enum rdma_object_kind kind, uint64_t limit)
{
	memset(e, 0, sizeof(*e));
	e->code = RDMA_ERR_LIMIT_REACHED;
	e->kind = kind;
	e->limit = limit;
	return -ENOSPC;
}

int rdma_error_user_limit(struct rdma_error *e, enum rdma_object_kind kind, uint64_t limit,
			  const char *setting, uint32_t uid, uint64_t in_use)
{
	int r = rdma_error_limit(e, kind, limit);

	e->setting = setting;
	e->uid = uid;
	e->in_use = in_use;
	return r;
}

void rdma_error_prefix(struct rdma_error *e, const char *prefix)
{
	char field[sizeof(e->field) + 32];

	if (!*e->field)
		return;
	snprintf(field, sizeof(field), "%s%s", prefix, e->field);
	snprintf(e->field, sizeof(e->field), "%.*s", (int)sizeof(e->field) - 1, field);
}

int rdma_error_vfield(struct rdma_error *e, enum rdma_error_code code, const char *field,
		      const char *fmt, va_list ap)
{
	memset(e, 0, sizeof(*e));
	e->code = code;
	snprintf(e->field, sizeof(e->field), "%s", field);
	vsnprintf(e->reason, sizeof(e->reason), fmt, ap);
	switch (code) {
	case RDMA_ERR_INVALID_STATE: return -EPERM;
	case RDMA_ERR_NOT_SUPPORTED: return -EOPNOTSUPP;
	default:                     return -EINVAL;
	}
}

#define DEFINE_FIELD_ERROR(fn, code)                                                   \
	int fn(struct rdma_error *e, const char *field, const char *fmt, ...)          \
	{                                                                              \
		va_list ap;                                                            \
		int r;                                                                 \
		va_start(ap, fmt);                                                     \
		r = rdma_error_vfield(e, code, field, fmt, ap);                        \
		va_end(ap);                                                            \
		return r;                                                              \
	}

DEFINE_FIELD_ERROR(rdma_error_invalid, RDMA_ERR_INVALID_ARGUMENT)
DEFINE_FIELD_ERROR(rdma_error_state, RDMA_ERR_INVALID_STATE)
DEFINE_FIELD_ERROR(rdma_error_unsupported, RDMA_ERR_NOT_SUPPORTED)

void rdma_error_describe(const struct rdma_error *e, char *buf, size_t size)
{
	switch (e->code) {
	case RDMA_ERR_NO_SUCH_OBJECT:
		snprintf(buf, size, "no %s %u", rdma_object_kind_name(e->kind), e->handle);
		return;
	case RDMA_ERR_OBJECT_IN_USE:
		snprintf(buf, size, "%s %u is used by %s %u", rdma_object_kind_name(e->kind), e->handle,
			 rdma_object_kind_name(e->user_kind), e->user_handle);
		return;
	case RDMA_ERR_LIMIT_REACHED:
		snprintf(buf, size, "at most %llu %ss", (unsigned long long)e->limit,
			 rdma_object_kind_name(e->kind));
		return;
	case RDMA_ERR_NONE:
		snprintf(buf, size, "%s", strerror(e->sys_errno < 0 ? -e->sys_errno : EIO));
		return;
	default:
		snprintf(buf, size, "%s", e->reason);
	}
}
