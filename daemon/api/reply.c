/* SPDX-License-Identifier: MIT */
/*
 * How every interface answers: a record, a refusal of the model as its typed
 * error, a system failure; and what a caller may learn of DEKs.  Below the
 * method files and the dispatcher, above nothing of the API.  Every answer of
 * daemon/api goes out through here, none straight to lib/varlink: one place
 * sees all of them.
 */
#include "daemon/api/api.h"

#include <errno.h>
#include <stdio.h>

/*
 * A DEK's handle is no key material, but it is the DEK's identity: which MKEYs
 * share a key, when keys come and go.  The DEK methods are root's even to read,
 * so what the other methods and the monitor say of DEKs is too.
 */
bool api_caller_knows_deks(const struct varlink_call *call)
{
	return varlink_call_peer(call)->uid == 0;
}

int api_reply(struct varlink_call *call, struct json_object *params)
{
	return varlink_call_reply(call, params);
}

int api_reply_more(struct varlink_call *call, struct json_object *params)
{
	return varlink_call_reply_more(call, params);
}

int api_error(struct varlink_call *call, const char *error, struct json_object *params)
{
	return varlink_call_error(call, error, params);
}

int api_error_string(struct varlink_call *call, const char *error, const char *key, const char *value)
{
	struct json_object *p = json_object_new_object();

	json_add_string(p, key, value);
	return api_error(call, error, p);
}

int api_error_parameter(struct varlink_call *call, const char *name)
{
	return varlink_call_error_invalid_parameter(call, name);
}

int api_error_errno(struct varlink_call *call, int negative_errno)
{
	return varlink_call_error_errno(call, negative_errno);
}

int api_reply_record(struct varlink_call *call, const char *key, struct json_object *record)
{
	struct json_object *reply = json_object_new_object();

	json_object_object_add(reply, key, record);
	return api_reply(call, reply);
}

int api_reply_error(struct varlink_call *call, const char *iface, const struct rdma_error *err)
{
	struct json_object *p = json_object_new_object();
	char name[128];

	snprintf(name, sizeof(name), "%s.%s", iface, rdma_error_name(err->code));
	switch (err->code) {
	case RDMA_ERR_NO_SUCH_OBJECT:
		json_add_string(p, "kind", rdma_object_kind_name(err->kind));
		json_add_uint(p, "handle", err->handle);
		/* Only where the interface describes it (io.rdmad.Vnic: the fabric's rdmad.conf key). */
		if (err->setting)
			json_add_string(p, "setting", err->setting);
		break;
	case RDMA_ERR_OBJECT_IN_USE:
		json_add_string(p, "kind", rdma_object_kind_name(err->kind));
		json_add_uint(p, "handle", err->handle);
		json_add_string(p, "user_kind", rdma_object_kind_name(err->user_kind));
		json_add_uint(p, "user_handle", err->user_handle);
		break;
	case RDMA_ERR_LIMIT_REACHED:
		json_add_string(p, "kind", rdma_object_kind_name(err->kind));
		json_add_uint(p, "limit", err->limit);
		if (!err->setting)
			break;
		json_add_string(p, "setting", err->setting);
		json_add_uint(p, "uid", err->uid);
		json_add_uint(p, "in_use", err->in_use);
		break;
	case RDMA_ERR_INVALID_ARGUMENT:
	case RDMA_ERR_INVALID_STATE:
	case RDMA_ERR_NOT_SUPPORTED:
		json_add_string(p, "field", err->field);
		json_add_string(p, "reason", err->reason);
		break;
	case RDMA_ERR_NONE:
		json_object_put(p);
		return api_error_errno(call, err->sys_errno < 0 ? err->sys_errno : -EIO);
	}
	return api_error(call, name, p);
}

int api_reply_failure(struct varlink_call *call, const char *iface, const struct rdma_error *err, int r)
{
	if (err->code != RDMA_ERR_NONE)
		return api_reply_error(call, iface, err);
	return api_error_errno(call, err->sys_errno < 0 ? err->sys_errno : r);
}
