/* SPDX-License-Identifier: MIT */
/* The one way the library calls rdmad, and what rdmad's errors become. */
#include "client/internal.h"
#include "lib/varlink/varlink.h"

#include <string.h>

/* rdmad's error names (their last component) as errno values: librdmad(3) ERRORS. */
static const struct {
	const char *name;
	int err;
} errors[] = {
	{ "NoSuchObject", ENOENT }, { "NoSuchDevice", ENODEV }, { "NoSuchDek", ENOENT },
	{ "NoSuchPool", ENOENT }, { "ObjectInUse", EBUSY }, { "LimitReached", ENOSPC },
	{ "InvalidArgument", EINVAL }, { "InvalidParameter", EINVAL },
	{ "InvalidState", EINVAL }, { "NotSupported", EOPNOTSUPP }, { "PermissionDenied", EPERM },
	{ "MethodNotFound", EOPNOTSUPP }, { "InterfaceNotFound", EOPNOTSUPP },
};

static int error_errno(const char *error, struct json_object *params)
{
	const char *last = strrchr(error, '.');

	last = last ? last + 1 : error;
	if (!strcmp(last, "System")) {
		int64_t e = json_object_get_int64(client_get(params, "errno"));

		return e > 0 && e < 4096 ? -(int)e : -EIO;
	}
	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
		if (!strcmp(last, errors[i].name))
			return -errors[i].err;
	return -EIO;
}

static int call(struct rdmad_context *ctx, const char *method, struct json_object *params,
		const int *fds, unsigned n_fds, struct json_object **reply)
{
	struct json_object *got = NULL;
	char *error = NULL;
	int r;

	client_ok();
	r = varlink_client_call_fds(ctx->varlink, method, params, fds, n_fds, &got, &error);
	json_object_put(params);
	if (r < 0)
		return client_fail(r, "%s: the connection to rdmad failed: %s", method, strerror(-r));
	if (error) {
		r = error_errno(error, got);
		client_fail(r, "%s: %s %s", method, error,
			    json_object_to_json_string_ext(got, JSON_C_TO_STRING_PLAIN));
		free(error);
		json_object_put(got);
		return r;
	}
	if (reply)
		*reply = got;
	else
		json_object_put(got);
	return 0;
}

int client_call(struct rdmad_context *ctx, const char *method, struct json_object *params,
		const int *fds, unsigned n_fds, struct json_object **reply)
{
	if (ctx->device[0])
		client_add_str(params, "device", ctx->device);
	return call(ctx, method, params, fds, n_fds, reply);
}

int client_call_plain(struct rdmad_context *ctx, const char *method, struct json_object *params,
		      struct json_object **reply)
{
	return call(ctx, method, params, NULL, 0, reply);
}

int client_take_fds(struct rdmad_context *ctx, int *fds, unsigned n)
{
	if (varlink_client_n_fds(ctx->varlink) < n)
		return client_fail(-EPROTO, "rdmad passed %u descriptors, %u expected",
				   varlink_client_n_fds(ctx->varlink), n);
	for (unsigned i = 0; i < n; i++)
		fds[i] = varlink_client_take_fd(ctx->varlink, i);
	return 0;
}

struct json_object *client_get(struct json_object *obj, const char *key)
{
	struct json_object *v = NULL;

	return obj && json_object_object_get_ex(obj, key, &v) ? v : NULL;
}

uint64_t client_get_u64(struct json_object *obj, const char *key)
{
	struct json_object *v = client_get(obj, key);

	return v && json_object_is_type(v, json_type_int) ? json_object_get_uint64(v) : 0;
}

const char *client_get_str(struct json_object *obj, const char *key)
{
	struct json_object *v = client_get(obj, key);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
}

struct json_object *client_add_u64(struct json_object *params, const char *key, uint64_t value)
{
	json_object_object_add(params, key, json_object_new_uint64(value));
	return params;
}

struct json_object *client_add_str(struct json_object *params, const char *key, const char *value)
{
	json_object_object_add(params, key, json_object_new_string(value));
	return params;
}

struct json_object *client_add_bool(struct json_object *params, const char *key, bool value)
{
	json_object_object_add(params, key, json_object_new_boolean(value));
	return params;
}

struct json_object *client_access_words(unsigned access)
{
	static const struct {
		unsigned bit;
		const char *word;
	} words[] = {
		{ RDMAD_ACCESS_LOCAL_WRITE, "local_write" }, { RDMAD_ACCESS_REMOTE_WRITE, "remote_write" },
		{ RDMAD_ACCESS_REMOTE_READ, "remote_read" }, { RDMAD_ACCESS_ON_DEMAND, "on_demand" },
	};
	struct json_object *list = json_object_new_array();

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (access & words[i].bit)
			json_object_array_add(list, json_object_new_string(words[i].word));
	return list;
}
