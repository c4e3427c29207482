/* SPDX-License-Identifier: MIT */
/* io.rdmad.Mr */
#include "daemon/api/vocab.h"
#include "daemon/api/api.h"
#include "daemon/api/tenant.h"
#include "daemon/api/application.h"
#include "daemon/api/attr.h"
#include "daemon/api/dispatch.h"
#include "daemon/core/helper.h"
#include "daemon/core/manager.h"
#include "daemon/verbs/mr.h"
#include "lib/base64.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define IFACE "io.rdmad.Mr"

/* Bytes one Write or Read carries: base64 of it stays well inside a 16 MiB message. */
#define MR_IO_MAX (8u << 20)
/*
 * A pinned MR larger than this has its memory made ready on the helper
 * thread, and the call is answered once it is: populating takes about a
 * millisecond a MiB (docs/control-plane-performance.md), and the loop serves
 * the other clients meanwhile.  A smaller one, or one on demand, at once.
 */
#define MR_READY_INLINE_MAX (4u << 20)

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
	uint64_t pages, resident;

	api_add_record_head(o, dev, &mr->obj);
	json_add_uint(o, "mrn", mr->obj.handle >> 8);
	json_add_uint(o, "pd", mr->pd->handle);
	json_add_string(o, "mr_type", mr_type_name(mr->type));
	json_object_object_add(o, "access", api_access_json(mr->access));
	json_add_uint(o, "lkey", mr->obj.handle);
	json_add_uint(o, "rkey", mr->rkey);
	json_add_uint(o, "iova", mr->iova);
	json_add_uint(o, "mrlen", mr->length);
	json_add_string(o, "state", mr->invalidated ? "free" : "valid");
	json_add_bool(o, "on_demand", mr->access & RDMA_ACCESS_ON_DEMAND);
	json_add_bool(o, "pinned", mr->pinned);
	/* mincore cannot fail on a mapping the MR holds; should it, say nothing is resident. */
	if (rdma_mr_residency(mr, &pages, &resident) < 0)
		resident = 0;
	json_add_uint(o, "pages", pages);
	json_add_uint(o, "resident_pages", resident);
	return o;
}

/* The parameters of every MR method; each reads the fields it takes. */
struct mr_params {
	uint32_t pd, access;
	uint64_t size, fd, offset, length, iova;
	const char *data;
};

#define PD_FIELD     { .name = "pd", .type = API_FIELD_HANDLE, .required = true, \
		       .offset = offsetof(struct mr_params, pd) }
/* Create and RegUser take on_demand; GetDma, with no memory of its own, does not. */
#define ACCESS_FIELD API_ACCESS_FIELD("access", struct mr_params, access)
#define MR_ACCESS_FIELD API_ACCESS_FIELD_OF("access", struct mr_params, access, RDMA_ACCESS_MR_ALL)
/* Sizes and offsets: a negative one is the protocol's InvalidParameter. */
#define U64_FIELD(key, member) { .name = key, .type = API_FIELD_U64, .invalid_parameter = true, \
				 .offset = offsetof(struct mr_params, member) }

static const struct api_field create_fields[] = {
	PD_FIELD, U64_FIELD("size", size), MR_ACCESS_FIELD, { NULL },
};
static const struct api_field get_dma_fields[] = { PD_FIELD, ACCESS_FIELD, { NULL } };
static const struct api_field reg_user_fields[] = {
	PD_FIELD, U64_FIELD("fd", fd), U64_FIELD("offset", offset), U64_FIELD("length", length),
	U64_FIELD("iova", iova), MR_ACCESS_FIELD, { NULL },
};
static const struct api_field write_fields[] = {
	U64_FIELD("offset", offset),
	{ .name = "data", .type = API_FIELD_STRING, .offset = offsetof(struct mr_params, data) },
	{ NULL },
};
static const struct api_field read_fields[] = {
	U64_FIELD("offset", offset), U64_FIELD("length", length), { NULL },
};

/* An application's MR goes on its own PD. */
static const struct api_ref pd_ref[] = { { "pd", RDMA_OBJ_PD }, { NULL, 0 } };

/*
 * The MR pend makes, owned by the caller's application, as the reply; pend is
 * used up.  A tenant's bytes are counted again: other MRs of its uid may have
 * been made while this one's memory was made ready.
 */
static int finish(struct varlink_call *call, struct manager *m, struct rdma_device *dev,
		  struct rdma_mr_pending *pend)
{
	struct rdma_error err = { 0 };
	struct rdma_mr *mr;
	int r = api_tenant_may_create(call, m, RDMA_OBJ_MR, pend->length, &err);

	if (r < 0)
		rdma_mr_pending_release(pend);
	else
		r = rdma_mr_pending_finish(dev, pend, &mr, &err);
	if (r < 0)
		return api_reply_failure(call, IFACE, &err, r);
	api_application_own(call, dev, &mr->obj);
	return api_reply_record(call, "mr", mr_json(dev, &mr->obj));
}

/* A Create or RegUser whose memory the helper thread makes ready. */
struct mr_ready {
	struct helper_job job;
	struct rdma_mr_pending pend;
	struct varlink_call *call;   /* NULL once its client went away */
	struct json_object *params;  /* kept: the PD is looked at again */
	struct rdma_device *dev;
	struct manager *m;
	int result;                  /* of the mapping */
};

static struct mr_ready *mr_ready_of(struct helper_job *job)
{
	return (struct mr_ready *)((char *)job - offsetof(struct mr_ready, job));
}

/* On the helper thread: nothing but the pending MR's own memory. */
static void ready_run(struct helper_job *job)
{
	struct mr_ready *w = mr_ready_of(job);

	w->result = rdma_mr_pending_map(&w->pend);
}

static void ready_cancel(struct varlink_call *call, void *userdata)
{
	struct mr_ready *w = userdata;

	w->call = NULL;
	varlink_call_unref(call);
}

/*
 * Back on the loop: the PD and the application may have gone while the
 * memory was made ready, so both are checked again before the MR is made.
 */
static void ready_done(struct helper_job *job, bool ran)
{
	struct mr_ready *w = mr_ready_of(job);
	struct varlink_call *call = w->call;
	int r = ran ? w->result : -ECANCELED;

	if (call) {
		varlink_call_set_cancel(call, NULL, NULL);
		if (r >= 0 && api_application_refs_ok(call, IFACE, w->dev, w->params, pd_ref))
			r = finish(call, w->m, w->dev, &w->pend);
		if (r < 0)
			api_error_errno(call, r);
		varlink_call_unref(call);
	}
	rdma_mr_pending_release(&w->pend);
	varlink_params_drop(w->params);
	free(w);
}

/* Makes pend's memory ready and answers with the MR: at once, or once the helper has. */
static int make_ready(struct varlink_call *call, struct json_object *params, struct manager *m,
		      struct rdma_device *dev, struct rdma_mr_pending *pend)
{
	struct mr_ready *w;
	int r;

	if ((pend->access & RDMA_ACCESS_ON_DEMAND) || pend->map_size <= MR_READY_INLINE_MAX ||
	    !m->helper) {
		r = rdma_mr_pending_map(pend);
		if (r < 0) {
			rdma_mr_pending_release(pend);
			return r;
		}
		return finish(call, m, dev, pend);
	}
	w = calloc(1, sizeof(*w));
	if (w)
		w->params = varlink_params_keep(params);
	if (!w || (params && !w->params)) {
		free(w);
		rdma_mr_pending_release(pend);
		return -ENOMEM;
	}
	w->job = (struct helper_job){ .run = ready_run, .done = ready_done };
	w->pend = *pend;
	w->dev = dev;
	w->m = m;
	w->call = varlink_call_ref(call);
	varlink_call_set_cancel(call, ready_cancel, w);
	helper_submit(m->helper, &w->job);
	return 0;
}

static int create(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct manager *m = userdata;
	struct rdma_device *dev = api_device(call, m, params, IFACE);
	struct rdma_error err = { 0 };
	struct mr_params p = { 0 };
	struct rdma_mr_pending pend;
	int r;

	if (!dev || api_dispatch(call, params, create_fields, &p) < 0 ||
	    !api_application_refs_ok(call, IFACE, dev, params, pd_ref))
		return 0;
	if (api_tenant_may_create(call, m, RDMA_OBJ_MR, p.size, &err) < 0)
		return api_reply_error(call, IFACE, &err);
	r = rdma_mr_pending_daemon(dev, p.pd, p.size, p.access, m->config.max_mr_size, &pend, &err);
	if (r < 0)
		return api_reply_failure(call, IFACE, &err, r);
	return make_ready(call, params, m, dev, &pend);
}

static int get_dma(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev = api_device(call, userdata, params, IFACE);
	struct rdma_error err = { 0 };
	struct mr_params p = { 0 };
	struct rdma_mr *mr;
	int r;

	if (!dev || api_dispatch(call, params, get_dma_fields, &p) < 0 ||
	    !api_application_refs_ok(call, IFACE, dev, params, pd_ref))
		return 0;
	if (api_tenant_may_create(call, userdata, RDMA_OBJ_MR, 0, &err) < 0)
		return api_reply_error(call, IFACE, &err);
	r = rdma_mr_get_dma(dev, p.pd, p.access, &mr, &err);
	if (r < 0)
		return api_reply_failure(call, IFACE, &err, r);
	api_application_own(call, dev, &mr->obj);
	return api_reply_record(call, "mr", mr_json(dev, &mr->obj));
}

static int reg_user(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct manager *m = userdata;
	struct rdma_device *dev = api_device(call, m, params, IFACE);
	struct rdma_error err = { 0 };
	struct mr_params p = { 0 };
	struct rdma_mr_pending pend;
	int memfd, r;

	if (!dev || api_dispatch(call, params, reg_user_fields, &p) < 0 ||
	    !api_application_refs_ok(call, IFACE, dev, params, pd_ref))
		return 0;
	if (api_tenant_may_create(call, m, RDMA_OBJ_MR, p.length, &err) < 0)
		return api_reply_error(call, IFACE, &err);
	memfd = api_passed_fd(call, params, "fd", &err);
	if (memfd < 0)
		return api_reply_error(call, IFACE, &err);
	/* The MR keeps a duplicate of its own; the passed one goes with the call. */
	r = rdma_mr_pending_memfd(dev, p.pd, memfd, p.offset, p.length, p.iova, p.access,
				  m->config.max_mr_size, &pend, &err);
	if (r < 0)
		return api_reply_failure(call, IFACE, &err, r);
	return make_ready(call, params, m, dev, &pend);
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
	struct rdma_error err = { 0 };
	struct mr_params p = { 0 };
	struct json_object *reply;
	size_t text_len, len;
	uint8_t *buf, *dst;

	if (!mr || api_dispatch(call, params, write_fields, &p) < 0)
		return 0;
	text_len = p.data ? strlen(p.data) : 0;
	/* The message limit bounds the text, so decoding before the size check costs little. */
	buf = malloc(base64_decoded_max(text_len) + 1);
	if (!buf)
		return -ENOMEM;
	if (base64_decode(p.data, text_len, buf, &len) < 0) {
		free(buf);
		rdma_error_invalid(&err, "data", "not base64 (RFC 4648, with '=' padding)");
		return api_reply_error(call, IFACE, &err);
	}
	if (len > MR_IO_MAX) {
		free(buf);
		rdma_error_invalid(&err, "data", "more than %u bytes in one call", MR_IO_MAX);
		return api_reply_error(call, IFACE, &err);
	}
	if (rdma_mr_bytes(mr, p.offset, len, &dst, &err) < 0) {
		free(buf);
		return api_reply_error(call, IFACE, &err);
	}
	memcpy(dst, buf, len);
	free(buf);
	reply = json_object_new_object();
	json_add_uint(reply, "written", len);
	return api_reply(call, reply);
}

static int read_bytes(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_mr *mr = lookup(call, params, &dev, userdata);
	struct rdma_error err = { 0 };
	struct mr_params p = { 0 };
	struct json_object *reply;
	uint8_t *src;
	char *text;

	if (!mr || api_dispatch(call, params, read_fields, &p) < 0)
		return 0;
	if (rdma_mr_bytes(mr, p.offset, p.length, &src, &err) < 0)
		return api_reply_error(call, IFACE, &err);
	if (p.length > MR_IO_MAX) {
		rdma_error_invalid(&err, "length", "%llu; at most %u bytes in one call",
				   (unsigned long long)p.length, MR_IO_MAX);
		return api_reply_error(call, IFACE, &err);
	}
	text = malloc(base64_encoded_size(p.length) + 1);
	if (!text)
		return -ENOMEM;
	base64_encode(src, p.length, text);
	reply = json_object_new_object();
	json_add_string(reply, "data", text);
	free(text);
	return api_reply(call, reply);
}

const struct varlink_method api_mr_methods[] = {
	{ "Create", create, VARLINK_METHOD_PRIVILEGED | API_METHOD_OWN },
	{ "GetDma", get_dma, VARLINK_METHOD_PRIVILEGED | API_METHOD_OWN },
	{ "RegUser", reg_user, VARLINK_METHOD_PRIVILEGED | API_METHOD_OWN },
	{ "List", list, 0 },
	{ "Show", show, 0 },
	{ "Destroy", destroy, VARLINK_METHOD_PRIVILEGED | API_METHOD_OWN },
	{ "Write", write_bytes, VARLINK_METHOD_PRIVILEGED | API_METHOD_OWN },
	{ "Read", read_bytes, VARLINK_METHOD_PRIVILEGED | API_METHOD_OWN },
	{ NULL, NULL, 0 },
};
