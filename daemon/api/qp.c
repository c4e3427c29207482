/* SPDX-License-Identifier: MIT */
/* io.rdmad.Qp */
#include "daemon/api/api.h"
#include "daemon/api/attr.h"
#include "daemon/qp.h"

#include <errno.h>

#define IFACE "io.rdmad.Qp"

/* CREATE_QP capabilities a caller leaves out (docs/decisions.md, "Queue pairs"). */
#define QP_DEFAULT_WR  64
#define QP_DEFAULT_SGE 1

static struct json_object *qp_json(struct rdma_device *dev, struct rdma_object *obj)
{
	struct rdma_qp *qp = rdma_qp(obj);
	struct json_object *o = json_object_new_object();

	json_add_string(o, "device", dev->name);
	json_add_uint(o, "handle", qp->obj.handle);
	json_add_string(o, "type", rdma_qp_type_name(qp->type));
	json_add_string(o, "state", rdma_qp_state_name(qp->state));
	json_add_uint(o, "pdn", qp->pd->handle);
	json_add_uint(o, "send_cqn", qp->send_cq->handle);
	json_add_uint(o, "recv_cqn", qp->recv_cq->handle);
	json_add_bool(o, "sq_sig_all", qp->sq_sig_all);
	json_add_bool(o, "sig_pipelining", qp->sig_pipelining);
	json_add_uint(o, "max_send_wr", qp->cap.max_send_wr);
	json_add_uint(o, "max_recv_wr", qp->cap.max_recv_wr);
	json_add_uint(o, "max_send_sge", qp->cap.max_send_sge);
	json_add_uint(o, "max_recv_sge", qp->cap.max_recv_sge);
	json_add_uint(o, "max_inline_data", qp->cap.max_inline_data);
	json_add_bool(o, "sq_draining", qp->sq_draining);
	/* Only what MODIFY_QP has set: an attribute never given has no value to show. */
	if (qp->attr_mask & RDMA_QP_ACCESS_FLAGS)
		json_object_object_add(o, "access_flags", api_access_json(qp->attr.access_flags));
	if (qp->attr_mask & RDMA_QP_AV) {
		struct json_object *av = json_object_new_object();

		api_av_add_json(av, &qp->attr.av);
		json_object_object_add(o, "av", av);
	}
	for (const struct rdma_qp_number_attr *n = rdma_qp_number_attrs; n->bit; n++)
		if (qp->attr_mask & n->bit)
			json_add_uint(o, rdma_qp_attr_name(n->bit), rdma_qp_attr_get(&qp->attr, n));
	return o;
}

static int create(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev = api_device(call, userdata, params, IFACE);
	static const struct { const char *key; size_t offset; uint32_t def; } caps[] = {
		{ "max_send_wr", offsetof(struct rdma_qp_cap, max_send_wr), QP_DEFAULT_WR },
		{ "max_recv_wr", offsetof(struct rdma_qp_cap, max_recv_wr), QP_DEFAULT_WR },
		{ "max_send_sge", offsetof(struct rdma_qp_cap, max_send_sge), QP_DEFAULT_SGE },
		{ "max_recv_sge", offsetof(struct rdma_qp_cap, max_recv_sge), QP_DEFAULT_SGE },
		{ "max_inline_data", offsetof(struct rdma_qp_cap, max_inline_data), 0 },
	};
	struct rdma_qp_init init = { 0 };
	struct json_object *flag;
	struct rdma_error err;
	struct rdma_qp *qp;

	if (!dev || api_get_handle(call, params, "pd", &init.pd) < 0 ||
	    api_get_handle(call, params, "send_cq", &init.send_cq) < 0 ||
	    api_get_handle(call, params, "recv_cq", &init.recv_cq) < 0)
		return 0;
	init.type = rdma_qp_type_from_name(json_get_string(params, "type"));
	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++)
		if (api_get_u32(params, caps[i].key, caps[i].key, caps[i].def,
				(uint32_t *)((char *)&init.cap + caps[i].offset), &err) < 0)
			return api_reply_error(call, IFACE, &err);
	if (json_object_object_get_ex(params, "sq_sig_all", &flag))
		init.sq_sig_all = json_object_get_boolean(flag);
	if (json_object_object_get_ex(params, "sig_pipelining", &flag))
		init.sig_pipelining = json_object_get_boolean(flag);
	if (rdma_qp_create(dev, &init, &qp, &err) < 0)
		return api_reply_error(call, IFACE, &err);
	return api_reply_record(call, "qp", qp_json(dev, &qp->obj));
}

/* The request's attributes and their mask; the IDL has checked the types. */
static int parse_attrs(struct json_object *params, struct rdma_qp_attr *attr, uint32_t *mask,
		       struct rdma_error *err)
{
	struct json_object *v;

	*mask = RDMA_QP_STATE;
	attr->state = rdma_qp_state_from_name(json_get_string(params, "state"));
	if (json_get_string(params, "cur_state")) {
		attr->cur_state = rdma_qp_state_from_name(json_get_string(params, "cur_state"));
		*mask |= RDMA_QP_CUR_STATE;
	}
	if (json_object_object_get_ex(params, "access_flags", &v) && v) {
		attr->access_flags = api_access_from_json(v);
		*mask |= RDMA_QP_ACCESS_FLAGS;
	}
	if (json_object_object_get_ex(params, "av", &v) && v) {
		if (api_av_parse(v, "av.", &attr->av, err) < 0)
			return -EINVAL;
		*mask |= RDMA_QP_AV;
	}
	for (const struct rdma_qp_number_attr *n = rdma_qp_number_attrs; n->bit; n++) {
		const char *key = rdma_qp_attr_name(n->bit);
		uint32_t value;

		if (!json_object_object_get_ex(params, key, &v) || !v)
			continue;
		if (api_get_u32(params, key, key, 0, &value, err) < 0)
			return -EINVAL;
		rdma_qp_attr_set(attr, n, value);
		*mask |= n->bit;
	}
	return 0;
}

static int modify(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_object *obj = api_lookup(call, userdata, params, IFACE, RDMA_OBJ_QP, &dev);
	struct rdma_qp_attr attr = { 0 };
	struct rdma_error err;
	uint32_t mask;

	if (!obj)
		return 0;
	if (parse_attrs(params, &attr, &mask, &err) < 0 ||
	    rdma_qp_modify(dev, rdma_qp(obj), &attr, mask, &err) < 0)
		return api_reply_error(call, IFACE, &err);
	return api_reply_record(call, "qp", qp_json(dev, obj));
}

static int list(struct varlink_call *call, struct json_object *params, void *userdata)
{
	return api_list(call, userdata, params, IFACE, RDMA_OBJ_QP, "qps", qp_json);
}

static int show(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_object *obj = api_lookup(call, userdata, params, IFACE, RDMA_OBJ_QP, &dev);

	return obj ? api_reply_record(call, "qp", qp_json(dev, obj)) : 0;
}

static int destroy(struct varlink_call *call, struct json_object *params, void *userdata)
{
	return api_destroy(call, userdata, params, IFACE, RDMA_OBJ_QP);
}

const struct varlink_method api_qp_methods[] = {
	{ "Create", create, VARLINK_METHOD_PRIVILEGED },
	{ "Modify", modify, VARLINK_METHOD_PRIVILEGED },
	{ "List", list, 0 },
	{ "Show", show, 0 },
	{ "Destroy", destroy, VARLINK_METHOD_PRIVILEGED },
	{ NULL, NULL, 0 },
};
