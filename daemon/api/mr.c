/* SPDX-License-Identifier: MIT */
/* io.rdmad.Mr */
#include "daemon/api/api.h"
#include "daemon/api/attr.h"
#include "daemon/verbs/mr.h"
#include "lib/base64.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define IFACE "io.rdmad.Mr"

/* Bytes one Write or Read carries: base64 of it stays well inside a 16 MiB message. */
#define MR_IO_MAX (8u << 20)

static const char *mr_type_name(enum rdma_mr_type type)
{
	switch (type) {
	case RDMA_MR_DAEMON: return "daemon";
	case RDMA_MR_USER:   return "user";
	case RDMA_MR_DMA:    return "dma";
	}
	return "?";
}

static struct json_object *mr_json(struct rdma_device *dev, struct rdma_object *obj)
{
	struct rdma_mr *mr = rdma_mr(obj);
	struct json_object *o = json_object_new_object();
	struct json_object *access = json_object_new_array();

	for (uint32_t bit = 1; bit & RDMA_ACCESS_ALL; bit <<= 1)
		if (mr->access & bit)
			json_object_array_add(access, json_object_new_string(rdma_access_name(bit)));
	json_add_string(o, "device", dev->name);
	json_add_uint(o, "handle", mr->obj.handle);
	json_add_uint(o, "mrn", mr->obj.handle >> 8);
	json_add_uint(o, "pdn", mr->pd->handle);
	json_add_string(o, "mr_type", mr_type_name(mr->type));
	json_object_object_add(o, "access", access);
	json_add_uint(o, "lkey", mr->obj.handle);
	json_add_uint(o, "rkey", mr->rkey);
	json_add_uint(o, "iova", mr->iova);
	json_add_uint(o, "mrlen", mr->length);
	return o;
}

static uint32_t access_flags(struct json_object *params)
{
	return api_access_from_json(json_object_object_get(params, "access"));
}

/* An optional non-negative integer parameter; InvalidParameter when negative. */
static int get_u64(struct varlink_call *call, struct json_object *params, const char *key,
		   uint64_t *out)
{
	int64_t v = json_get_int(params, key, 0);

	if (v < 0) {
		varlink_call_error_invalid_parameter(call, key);
		return -EINVAL;
	}
	*out = (uint64_t)v;
	return 0;
}

static int create(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct manager *m = userdata;
	struct rdma_device *dev = api_device(call, m, params, IFACE);
	struct rdma_error err = { 0 };
	struct rdma_mr *mr;
	uint64_t size;
	uint32_t pd;
	int r;

	if (!dev || api_get_handle(call, params, "pd", &pd) < 0 ||
	    get_u64(call, params, "size", &size) < 0)
		return 0;
	r = rdma_mr_create(dev, pd, size, access_flags(params), m->config.max_mr_size, &mr, &err);
	if (r < 0)
		return api_reply_failure(call, IFACE, &err, r);
	return api_reply_record(call, "mr", mr_json(dev, &mr->obj));
}

static int get_dma(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev = api_device(call, userdata, params, IFACE);
	struct rdma_error err = { 0 };
	struct rdma_mr *mr;
	uint32_t pd;
	int r;

	if (!dev || api_get_handle(call, params, "pd", &pd) < 0)
		return 0;
	r = rdma_mr_get_dma(dev, pd, access_flags(params), &mr, &err);
	if (r < 0)
		return api_reply_failure(call, IFACE, &err, r);
	return api_reply_record(call, "mr", mr_json(dev, &mr->obj));
}

static int reg_user(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct manager *m = userdata;
	struct rdma_device *dev = api_device(call, m, params, IFACE);
	uint64_t offset, length, iova;
	struct rdma_error err = { 0 };
	struct rdma_mr *mr;
	uint32_t pd;
	int memfd, r;

	if (!dev || api_get_handle(call, params, "pd", &pd) < 0 ||
	    get_u64(call, params, "offset", &offset) < 0 ||
	    get_u64(call, params, "length", &length) < 0 || get_u64(call, params, "iova", &iova) < 0)
		return 0;
	memfd = api_passed_fd(call, params, "fd");
	if (memfd < 0)
		return 0;
	/* The MR keeps a duplicate of its own; the passed one goes with the call. */
	r = rdma_mr_register_memfd(dev, pd, memfd, offset, length, iova, access_flags(params),
				   m->config.max_mr_size, &mr, &err);
	if (r < 0)
		return api_reply_failure(call, IFACE, &err, r);
	return api_reply_record(call, "mr", mr_json(dev, &mr->obj));
}

static int list(struct varlink_call *call, struct json_object *params, void *userdata)
{
	return api_list(call, userdata, params, IFACE, RDMA_OBJ_MR, "mrs", mr_json);
}

/* The MR named by "handle", or NULL once the call has been answered. */
static struct rdma_mr *lookup(struct varlink_call *call, struct json_object *params,
			      struct rdma_device **dev, void *userdata)
{
	struct rdma_object *obj = api_lookup(call, userdata, params, IFACE, RDMA_OBJ_MR, dev);

	return obj ? rdma_mr(obj) : NULL;
}

static int show(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_mr *mr = lookup(call, params, &dev, userdata);

	return mr ? api_reply_record(call, "mr", mr_json(dev, &mr->obj)) : 0;
}

static int destroy(struct varlink_call *call, struct json_object *params, void *userdata)
{
	return api_destroy(call, userdata, params, IFACE, RDMA_OBJ_MR);
}

static int write_bytes(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_mr *mr = lookup(call, params, &dev, userdata);
	const char *text = json_get_string(params, "data");
	size_t text_len = text ? strlen(text) : 0, len;
	struct json_object *reply;
	struct rdma_error err = { 0 };
	uint64_t offset;
	uint8_t *buf, *dst;

	if (!mr || get_u64(call, params, "offset", &offset) < 0)
		return 0;
	/* The message limit bounds the text, so decoding before the size check costs little. */
	buf = malloc(base64_decoded_max(text_len) + 1);
	if (!buf)
		return -ENOMEM;
	if (base64_decode(text, text_len, buf, &len) < 0) {
		free(buf);
		rdma_error_invalid(&err, "data", "not base64 (RFC 4648, with '=' padding)");
		return api_reply_error(call, IFACE, &err);
	}
	if (len > MR_IO_MAX) {
		free(buf);
		rdma_error_invalid(&err, "data", "more than %u bytes in one call", MR_IO_MAX);
		return api_reply_error(call, IFACE, &err);
	}
	if (rdma_mr_bytes(mr, offset, len, &dst, &err) < 0) {
		free(buf);
		return api_reply_error(call, IFACE, &err);
	}
	memcpy(dst, buf, len);
	free(buf);
	reply = json_object_new_object();
	json_add_uint(reply, "written", len);
	return varlink_call_reply(call, reply);
}

static int read_bytes(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_mr *mr = lookup(call, params, &dev, userdata);
	struct json_object *reply;
	struct rdma_error err = { 0 };
	uint64_t offset, length;
	uint8_t *src;
	char *text;

	if (!mr || get_u64(call, params, "offset", &offset) < 0 ||
	    get_u64(call, params, "length", &length) < 0)
		return 0;
	if (rdma_mr_bytes(mr, offset, length, &src, &err) < 0)
		return api_reply_error(call, IFACE, &err);
	if (length > MR_IO_MAX) {
		rdma_error_invalid(&err, "length", "%llu; at most %u bytes in one call",
				   (unsigned long long)length, MR_IO_MAX);
		return api_reply_error(call, IFACE, &err);
	}
	text = malloc(base64_encoded_size(length) + 1);
	if (!text)
		return -ENOMEM;
	base64_encode(src, length, text);
	reply = json_object_new_object();
	json_add_string(reply, "data", text);
	free(text);
	return varlink_call_reply(call, reply);
}

const struct varlink_method api_mr_methods[] = {
	{ "Create", create, VARLINK_METHOD_PRIVILEGED },
	{ "GetDma", get_dma, VARLINK_METHOD_PRIVILEGED },
	{ "RegUser", reg_user, VARLINK_METHOD_PRIVILEGED },
	{ "List", list, 0 },
	{ "Show", show, 0 },
	{ "Destroy", destroy, VARLINK_METHOD_PRIVILEGED },
	{ "Write", write_bytes, VARLINK_METHOD_PRIVILEGED },
	{ "Read", read_bytes, VARLINK_METHOD_PRIVILEGED },
	{ NULL, NULL, 0 },
};
