/* SPDX-License-Identifier: MIT */
/* io.rdmad.Cq */
#include "daemon/api/vocab.h"
#include "daemon/api/api.h"
#include "daemon/api/tenant.h"
#include "daemon/api/application.h"
#include "daemon/api/dispatch.h"
#include "daemon/api/rings.h"
#include "daemon/verbs/cq.h"
#include "dataplane/wqe.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define IFACE "io.rdmad.Cq"

static struct json_object *cq_json(struct rdma_device *dev, struct rdma_object *obj)
{
	struct rdma_cq *cq = rdma_cq(obj);
	struct json_object *o = json_object_new_object();

	api_add_record_head(o, dev, &cq->obj);
	json_add_uint(o, "cqe", cq->cqe);
	json_add_string(o, "armed", rdma_cq_armed_name(cq));
	json_add_uint(o, "notify_requests", cq->notify_requests);
	json_add_uint(o, "events", cq->events);
	json_add_uint(o, "qps", rdma_object_count_users(dev, &cq->obj, RDMA_OBJ_QP));
	json_add_bool(o, "rings", cq->rings);
	return o;
}

/* The CQ named by "handle", or NULL once the call has been answered. */
static struct rdma_cq *lookup(struct varlink_call *call, struct json_object *params,
			      struct rdma_device **dev, void *userdata)
{
	struct rdma_object *obj = api_lookup(call, userdata, params, IFACE, RDMA_OBJ_CQ, dev);

	return obj ? rdma_cq(obj) : NULL;
}

struct create_params {
	uint32_t cqe;
	bool rings;
};

static const struct api_field create_fields[] = {
	{ .name = "cqe", .type = API_FIELD_U32, .offset = offsetof(struct create_params, cqe),
	  .required = true, .invalid_parameter = true },
	{ .name = "rings", .type = API_FIELD_BOOL, .offset = offsetof(struct create_params, rings) },
	{ NULL },
};

static int create(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev = api_device(call, userdata, params, IFACE);
	struct create_params p = { 0 };
	struct json_object *rings = NULL;
	struct rdma_error err;
	struct rdma_cq *cq;

	if (!dev || api_dispatch(call, params, create_fields, &p) < 0)
		return 0;
	if (api_tenant_may_create(call, userdata, RDMA_OBJ_CQ, 0, &err) < 0)
		return api_reply_error(call, IFACE, &err);
	if (rdma_cq_create(dev, p.cqe, p.rings, &cq, &err) < 0)
		return api_reply_error(call, IFACE, &err);
	if (cq->rings && !(rings = api_rings(call, IFACE, dev, &cq->obj)))
		return 0;
	api_application_own(call, dev, &cq->obj);
	return api_reply_with_rings(call, "cq", cq_json(dev, &cq->obj), rings);
}

static int list(struct varlink_call *call, struct json_object *params, void *userdata)
{
	return api_list(call, userdata, params, IFACE, RDMA_OBJ_CQ, "cqs", cq_json);
}

static int show(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_cq *cq = lookup(call, params, &dev, userdata);

	return cq ? api_reply_record(call, "cq", cq_json(dev, &cq->obj)) : 0;
}

static int destroy(struct varlink_call *call, struct json_object *params, void *userdata)
{
	return api_destroy(call, userdata, params, IFACE, RDMA_OBJ_CQ);
}

static const char *notify_word(unsigned notify)
{
	switch (notify) {
	case RDMA_CQ_NOTIFY_SOLICITED: return "solicited";
	case RDMA_CQ_NOTIFY_NEXT:      return "next";
	}
	return NULL;
}

struct notify_params {
	unsigned notify;
};

static const struct api_field notify_fields[] = {
	{ .name = "notify", .type = API_FIELD_ENUM, .offset = offsetof(struct notify_params, notify),
	  .required = true, .word = notify_word, .max = RDMA_CQ_NOTIFY_NEXT },
	{ NULL },
};

static int notify(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_cq *cq = lookup(call, params, &dev, userdata);
	struct notify_params p;
	struct rdma_error err;

	if (!cq || api_dispatch(call, params, notify_fields, &p) < 0)
		return 0;
	if (rdma_cq_check_polled_here(cq, &err) < 0 || rdma_cq_req_notify(dev, cq, p.notify, &err) < 0)
		return api_reply_error(call, IFACE, &err);
	return api_reply_record(call, "cq", cq_json(dev, &cq->obj));
}

/* ---- Poll ---- */

#define POLL_MAX_DEFAULT 16
#define POLL_MAX         1024
#define POLL_WAIT_MAX_MS 3600000u
/* A wait ends within this of its deadline (sd-event's default slack is 250 ms). */
#define POLL_WAIT_ACCURACY_USEC 1000u

/* A Poll call kept until a completion arrives or its wait has passed. */
struct waiter {
	struct waiter *prev, *next;
	struct varlink_call *call;
	struct rdma_device *dev;
	struct rdma_cq_ring *ring;     /* held: the CQ may be destroyed meanwhile */
	unsigned max;
	sd_event_source *timer;
};

static struct waiter *waiters;

static struct json_object *completion_json(const struct dp_cqe *e)
{
	struct json_object *o = json_object_new_object();
	struct json_object *flags = json_object_new_array();

	json_add_uint(o, "wr_id", e->wr_id);
	json_add_string(o, "status", dp_wc_status_name(e->status));
	json_add_string(o, "opcode", dp_wc_opcode_name(e->opcode));
	json_add_uint(o, "byte_len", e->byte_len);
	json_add_uint(o, "imm", ntohl(e->imm_data));
	json_add_uint(o, "qp", e->qp_num);
	json_add_uint(o, "src_qp", e->src_qp);
	if (e->wc_flags & DP_WC_GRH)
		json_object_array_add(flags, json_object_new_string("grh"));
	if (e->wc_flags & DP_WC_WITH_IMM)
		json_object_array_add(flags, json_object_new_string("with_imm"));
	if (e->wc_flags & DP_WC_WITH_INV)
		json_object_array_add(flags, json_object_new_string("with_inv"));
	json_object_object_add(o, "flags", flags);
	return o;
}

/* Polls up to max entries; NULL when there were none. */
static struct json_object *take(struct rdma_device *dev, struct rdma_cq_ring *ring, unsigned max)
{
	struct dp_cqe entries[64];
	struct json_object *list = NULL;
	unsigned n;

	while (max && (n = rdma_device_cq_poll(dev, ring, entries, max < 64 ? max : 64))) {
		if (!list)
			list = json_object_new_array();
		for (unsigned i = 0; i < n; i++)
			json_object_array_add(list, completion_json(&entries[i]));
		max -= n;
	}
	return list;
}

static int reply_completions(struct varlink_call *call, struct json_object *list)
{
	struct json_object *p = json_object_new_object();

	json_object_object_add(p, "completions", list ? list : json_object_new_array());
	return api_reply(call, p);
}

/* Whether any waiter is left on ring: the workers tell the main thread only then. */
static void update_wanted(struct rdma_device *dev, struct rdma_cq_ring *ring)
{
	bool wanted = false;

	for (struct waiter *w = waiters; w && !wanted; w = w->next)
		wanted = w->ring == ring;
	rdma_device_cq_set_wanted(dev, ring, wanted);
}

static void waiter_free(struct waiter *w)
{
	struct rdma_cq_ring *ring = w->ring;

	if (w->prev)
		w->prev->next = w->next;
	else
		waiters = w->next;
	if (w->next)
		w->next->prev = w->prev;
	sd_event_source_disable_unref(w->timer);
	varlink_call_unref(w->call);
	update_wanted(w->dev, ring);
	rdma_device_cq_release(w->dev, ring);
	free(w);
}

static void on_cancel(struct varlink_call *call, void *userdata)
{
	waiter_free(userdata);
}

static int on_timeout(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct waiter *w = userdata;

	reply_completions(w->call, take(w->dev, w->ring, w->max));
	waiter_free(w);
	return 0;
}

/* Workers wrote completions into a CQ someone waits on. */
static void on_cq_entries(struct rdma_device *dev, void *userdata)
{
	struct waiter *w = waiters, *next;

	/*
	 * A QP's state change was reported before the completion that caused
	 * it, so it has been handled already: the event ring is in order.
	 */
	for (; w; w = next) {
		struct json_object *list;

		next = w->next;
		if (w->dev != dev || !(list = take(w->dev, w->ring, w->max)))
			continue;
		reply_completions(w->call, list);
		waiter_free(w);
	}
}

static int wait_for_entries(struct varlink_call *call, struct manager *m, struct rdma_device *dev,
			    struct rdma_cq *cq, unsigned max, uint32_t wait_ms)
{
	struct waiter *w = calloc(1, sizeof(*w));
	struct json_object *list;
	int r;

	if (!w)
		return -ENOMEM;
	r = sd_event_add_time_relative(m->event, &w->timer, CLOCK_MONOTONIC,
				       (uint64_t)wait_ms * 1000u, POLL_WAIT_ACCURACY_USEC, on_timeout, w);
	if (r < 0) {
		free(w);
		return r;
	}
	w->call = varlink_call_ref(call);
	w->dev = dev;
	w->ring = rdma_device_cq_hold(dev, cq->ring);
	w->max = max;
	w->next = waiters;
	if (waiters)
		waiters->prev = w;
	waiters = w;
	varlink_call_set_cancel(call, on_cancel, w);
	rdma_device_set_cq_hook(dev, on_cq_entries, NULL);
	/* Told from now on; and what came before the flag was seen is taken here. */
	rdma_device_cq_set_wanted(dev, w->ring, true);
	list = take(dev, w->ring, max);
	if (list) {
		reply_completions(call, list);
		waiter_free(w);
	}
	return 0;
}

struct poll_params {
	uint32_t max, wait_ms;
};

static const struct api_field poll_fields[] = {
	{ .name = "max", .type = API_FIELD_U32, .offset = offsetof(struct poll_params, max),
	  .min = 1, .max = POLL_MAX },
	{ .name = "wait", .type = API_FIELD_U32, .offset = offsetof(struct poll_params, wait_ms),
	  .max = POLL_WAIT_MAX_MS },
	{ NULL },
};

static int poll_cq(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_cq *cq = lookup(call, params, &dev, userdata);
	struct poll_params p = { .max = POLL_MAX_DEFAULT };
	struct json_object *list;
	struct rdma_error err;

	if (!cq || api_dispatch(call, params, poll_fields, &p) < 0)
		return 0;
	if (!cq->ring) {
		rdma_error_unsupported(&err, "handle", "the device has no data path (no workers)");
		return api_reply_error(call, IFACE, &err);
	}
	if (rdma_cq_check_polled_here(cq, &err) < 0)
		return api_reply_error(call, IFACE, &err);
	list = take(dev, cq->ring, p.max);
	if (list || !p.wait_ms)
		return reply_completions(call, list);
	return wait_for_entries(call, userdata, dev, cq, p.max, p.wait_ms);
}

const struct varlink_method api_cq_methods[] = {
	{ "Create", create, VARLINK_METHOD_PRIVILEGED | API_METHOD_OWN },
	{ "List", list, 0 },
	{ "Show", show, 0 },
	{ "Destroy", destroy, VARLINK_METHOD_PRIVILEGED | API_METHOD_OWN },
	{ "Notify", notify, VARLINK_METHOD_PRIVILEGED | API_METHOD_OWN },
	{ "Poll", poll_cq, VARLINK_METHOD_PRIVILEGED | API_METHOD_OWN },
	{ NULL, NULL, 0 },
};
