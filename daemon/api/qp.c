/* SPDX-License-Identifier: MIT */
/* io.rdmad.Qp */
#include "daemon/api/api.h"
#include "daemon/api/attr.h"
#include "daemon/api/counters.h"
#include "daemon/soft/datapath.h"
#include "daemon/verbs/qp.h"
#include "dataplane/offload/transform_json.h"
#include "lib/hex.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IFACE "io.rdmad.Qp"

/* CREATE_QP capabilities a caller leaves out (docs/decisions.md, "Queue pairs"). */
#define QP_DEFAULT_WR  64
#define QP_DEFAULT_SGE 1

static struct json_object *recovery_json(const struct rdma_recovery_record *rec)
{
	struct json_object *o = json_object_new_object();
	struct json_object *failed = json_object_new_array();

	json_add_uint(o, "seq", rec->seq);
	json_add_string(o, "trigger", rec->automatic ? "auto" : "manual");
	json_add_uint(o, "time_usec", rec->at_usec);
	if (rec->since_error_ns)
		json_add_uint(o, "since_error_ns", rec->since_error_ns);
	json_add_uint(o, "took_ns", rec->took_ns);
	json_add_uint(o, "checked", rec->checked);
	json_add_uint(o, "canceled", rec->canceled);
	for (unsigned i = 0; i < rec->n_failed; i++) {
		struct json_object *f = json_object_new_object();

		json_add_uint(f, "mkey", rec->failed[i].mkey);
		json_add_uint(f, "wr_id", rec->failed[i].wr_id);
		json_object_object_add(f, "record", dp_sig_err_to_json(&rec->failed[i].err));
		json_add_uint(f, "canceled", rec->failed[i].canceled);
		json_object_array_add(failed, f);
	}
	json_object_object_add(o, "failed", failed);
	return o;
}

/* Newest first. */
static struct json_object *recoveries_json(const struct rdma_qp *qp)
{
	struct json_object *a = json_object_new_array();
	const struct rdma_recovery_record *rec;

	for (unsigned i = 0; (rec = rdma_qp_recovery_record(qp, i)); i++)
		json_object_array_add(a, recovery_json(rec));
	return a;
}

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
	if (qp->dp)
		json_object_object_add(o, "counters", api_dp_counters_json(&qp->dp->counters, &qp->sqd_stats));
	json_add_string(o, "recovery", rdma_recovery_policy_name(qp->recovery.policy));
	json_object_object_add(o, "recoveries", recoveries_json(qp));
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
	if (json_get_string(params, "recovery")) {
		init.has_recovery = true;
		init.recovery = (enum rdma_recovery_policy)rdma_recovery_policy_from_name(
			json_get_string(params, "recovery"));
	}
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
	/* A QP the data path stopped in SQD or took to ERR is modified from there. */
	rdma_datapath_sync(dev);
	if (parse_attrs(params, &attr, &mask, &err) < 0 ||
	    rdma_qp_modify(dev, rdma_qp(obj), &attr, mask, &err) < 0)
		return api_reply_error(call, IFACE, &err);
	return api_reply_record(call, "qp", qp_json(dev, obj));
}

static int list(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct manager *m = userdata;

	/* QPs the data path took to ERR are listed in ERR. */
	for (unsigned i = 0; i < m->n_devices; i++)
		rdma_datapath_sync(m->devices[i]);
	return api_list(call, userdata, params, IFACE, RDMA_OBJ_QP, "qps", qp_json);
}

static int show(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_object *obj = api_lookup(call, userdata, params, IFACE, RDMA_OBJ_QP, &dev);

	/* A QP the data path took to ERR is shown in ERR. */
	if (obj)
		rdma_datapath_sync(dev);
	return obj ? api_reply_record(call, "qp", qp_json(dev, obj)) : 0;
}

static int destroy(struct varlink_call *call, struct json_object *params, void *userdata)
{
	return api_destroy(call, userdata, params, IFACE, RDMA_OBJ_QP);
}

/* ---- posting ---- */

/* A u64 parameter given as a JSON integer (the IDL checked the type), 0..INT64_MAX. */
static int get_u64(struct json_object *o, const char *key, const char *field, uint64_t *out,
		   struct rdma_error *err)
{
	struct json_object *v;
	int64_t value;

	*out = 0;
	if (!json_object_object_get_ex(o, key, &v) || !v)
		return 0;
	value = json_object_get_int64(v);
	if (value < 0)
		return rdma_error_invalid(err, field, "%lld; at least 0", (long long)value);
	*out = (uint64_t)value;
	return 0;
}

/* The "sges" list: *out is malloc'd (NULL when there are none). */
static int parse_sges(struct json_object *params, struct rdma_dp_sge **out, uint32_t *n,
		      struct rdma_error *err)
{
	struct json_object *list;
	size_t len;

	*out = NULL;
	*n = 0;
	if (!json_object_object_get_ex(params, "sges", &list) || !list)
		return 0;
	len = json_object_array_length(list);
	if (!len)
		return 0;
	/* More than any QP takes is refused by the data path with the QP's limit. */
	if (len > UINT16_MAX)
		return rdma_error_invalid(err, "sges", "%zu SGEs; far more than any QP takes", len);
	*out = calloc(len, sizeof(**out));
	if (!*out) {
		err->code = RDMA_ERR_NONE;
		return -ENOMEM;
	}
	for (size_t i = 0; i < len; i++) {
		struct json_object *sge = json_object_array_get_idx(list, i);
		uint32_t length;
		int r;

		r = api_get_u32(sge, "key", "sges.key", 0, &(*out)[i].key, err);
		if (r == 0)
			r = get_u64(sge, "offset", "sges.offset", &(*out)[i].offset, err);
		if (r == 0)
			r = api_get_u32(sge, "length", "sges.length", 0, &length, err);
		if (r < 0) {
			free(*out);
			*out = NULL;
			return r;
		}
		(*out)[i].length = length;
	}
	*n = (uint32_t)len;
	return 0;
}

static bool get_flag(struct json_object *params, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(params, key, &v) && v && json_object_get_boolean(v);
}

static int parse_send(struct json_object *params, struct rdma_dp_send_wr *wr, uint8_t *inline_buf,
		      struct rdma_error *err)
{
	const char *hex = json_get_string(params, "inline");
	struct json_object *remote;
	int r;

	wr->opcode = (enum dp_wr_opcode)dp_wr_opcode_from_name(json_get_string(params, "opcode"));
	r = get_u64(params, "wr_id", "wr_id", &wr->wr_id, err);
	if (r == 0)
		r = api_get_u32(params, "imm", "imm", 0, &wr->imm, err);
	if (r < 0)
		return r;
	if ((wr->opcode == DP_WR_SEND_WITH_IMM || wr->opcode == DP_WR_RDMA_WRITE_WITH_IMM) !=
	    (json_object_object_get_ex(params, "imm", &remote) && remote != NULL))
		return rdma_error_invalid(err, "imm", "send_imm and write_imm carry an immediate; "
					  "the other opcodes do not");
	if (json_object_object_get_ex(params, "remote", &remote) && remote) {
		r = api_get_u32(remote, "key", "remote.key", 0, &wr->remote_key, err);
		if (r == 0)
			r = get_u64(remote, "offset", "remote.offset", &wr->remote_offset, err);
		if (r < 0)
			return r;
	} else if (wr->opcode == DP_WR_RDMA_WRITE || wr->opcode == DP_WR_RDMA_WRITE_WITH_IMM ||
		   wr->opcode == DP_WR_RDMA_READ) {
		return rdma_error_invalid(err, "remote", "%s needs the peer's memory (key and offset)",
					  dp_wr_opcode_name(wr->opcode));
	}
	if (json_object_object_get_ex(params, "ud", &remote) && remote) {
		wr->ud = true;
		r = api_get_u32(remote, "ah", "ud.ah", 0, &wr->ah, err);
		if (r == 0)
			r = api_get_u32(remote, "remote_qpn", "ud.remote_qpn", 0, &wr->remote_qpn, err);
		if (r == 0)
			r = api_get_u32(remote, "remote_qkey", "ud.remote_qkey", 0, &wr->remote_qkey, err);
		if (r < 0)
			return r;
		if (wr->remote_qpn > 0xffffff)
			return rdma_error_invalid(err, "ud.remote_qpn", "%u; QP numbers are 24 bits",
						  wr->remote_qpn);
	}
	if (hex) {
		size_t len = strlen(hex) / 2;

		if (len > DP_INLINE_MAX || hex_decode(hex, inline_buf, len) < 0)
			return rdma_error_invalid(err, "inline", "an even number of hex digits, at most "
						  "%u bytes", DP_INLINE_MAX);
		wr->inline_data = inline_buf;
		wr->inline_len = (uint32_t)len;
		wr->send_flags |= DP_SEND_INLINE;
	}
	if (get_flag(params, "signaled"))
		wr->send_flags |= DP_SEND_SIGNALED;
	if (get_flag(params, "fence"))
		wr->send_flags |= DP_SEND_FENCE;
	if (get_flag(params, "solicited"))
		wr->send_flags |= DP_SEND_SOLICITED;
	return 0;
}

static int post_send(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_object *obj = api_lookup(call, userdata, params, IFACE, RDMA_OBJ_QP, &dev);
	uint8_t inline_buf[DP_INLINE_MAX];
	struct rdma_dp_send_wr wr = { 0 };
	struct rdma_dp_sge *sges = NULL;
	struct rdma_error err;
	int r;

	if (!obj)
		return 0;
	rdma_datapath_sync(dev);
	r = parse_send(params, &wr, inline_buf, &err);
	if (r == 0)
		r = parse_sges(params, &sges, &wr.n_sges, &err);
	wr.sges = sges;
	if (r == 0)
		r = rdma_dp_post_send(dev, rdma_qp(obj), &wr, &err);
	free(sges);
	return r < 0 ? api_reply_error(call, IFACE, &err) : varlink_call_reply(call, NULL);
}

/* Names the WR a refusal is about: "sges" of the third becomes "wrs[2].sges". */
static void name_wr(struct rdma_error *err, uint32_t i)
{
	char field[sizeof(err->field) + 16];

	snprintf(field, sizeof(field), "wrs[%u].%s", i, err->field);
	snprintf(err->field, sizeof(err->field), "%.*s", (int)sizeof(err->field) - 1, field);
}

static int post_send_list(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_object *obj = api_lookup(call, userdata, params, IFACE, RDMA_OBJ_QP, &dev);
	struct json_object *list = json_object_object_get(params, "wrs");
	size_t n = list ? json_object_array_length(list) : 0;
	struct rdma_dp_send_wr *wrs;
	uint8_t (*inline_bufs)[DP_INLINE_MAX];
	struct rdma_error err = { 0 };
	uint32_t i = 0, bad;
	int r = 0;

	if (!obj)
		return 0;
	if (n == 0 || n > UINT16_MAX) {
		rdma_error_invalid(&err, "wrs", "1 to %u WRs", UINT16_MAX);
		return api_reply_error(call, IFACE, &err);
	}
	rdma_datapath_sync(dev);
	wrs = calloc(n, sizeof(*wrs));
	inline_bufs = calloc(n, sizeof(*inline_bufs));
	if (!wrs || !inline_bufs) {
		free(wrs);
		free(inline_bufs);
		return varlink_call_error_errno(call, -ENOMEM);
	}
	for (i = 0; i < n && r == 0; i++) {
		struct json_object *wr = json_object_array_get_idx(list, i);
		struct rdma_dp_sge *sges = NULL;

		r = parse_send(wr, &wrs[i], inline_bufs[i], &err);
		if (r == 0)
			r = parse_sges(wr, &sges, &wrs[i].n_sges, &err);
		wrs[i].sges = sges;
		if (r < 0)
			name_wr(&err, i);
	}
	/* A full queue is about the list, not one of its WRs. */
	if (r == 0 && (r = rdma_dp_post_sends(dev, rdma_qp(obj), wrs, (uint32_t)n, &bad, &err)) < 0 &&
	    r != -ENOBUFS)
		name_wr(&err, bad);
	for (i = 0; i < n; i++)
		free((void *)wrs[i].sges);
	free(wrs);
	free(inline_bufs);
	return r < 0 ? api_reply_error(call, IFACE, &err) : varlink_call_reply(call, NULL);
}

static int post_recv(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_object *obj = api_lookup(call, userdata, params, IFACE, RDMA_OBJ_QP, &dev);
	struct rdma_dp_sge *sges = NULL;
	struct rdma_error err;
	uint64_t wr_id;
	uint32_t n;
	int r;

	if (!obj)
		return 0;
	rdma_datapath_sync(dev);
	r = get_u64(params, "wr_id", "wr_id", &wr_id, &err);
	if (r == 0)
		r = parse_sges(params, &sges, &n, &err);
	if (r == 0)
		r = rdma_dp_post_recv(dev, rdma_qp(obj), wr_id, sges, n, &err);
	free(sges);
	return r < 0 ? api_reply_error(call, IFACE, &err) : varlink_call_reply(call, NULL);
}

/* ---- signature pipelining ---- */

static int cancel(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_object *obj = api_lookup(call, userdata, params, IFACE, RDMA_OBJ_QP, &dev);
	struct json_object *reply;
	struct rdma_error err;
	uint32_t count;
	uint64_t wr_id;

	if (!obj)
		return 0;
	rdma_datapath_sync(dev);
	if (get_u64(params, "wr_id", "wr_id", &wr_id, &err) < 0 ||
	    rdma_qp_cancel(dev, rdma_qp(obj), wr_id, &count, &err) < 0)
		return api_reply_error(call, IFACE, &err);
	reply = json_object_new_object();
	json_add_uint(reply, "count", count);
	return varlink_call_reply(call, reply);
}

static int recover(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_object *obj = api_lookup(call, userdata, params, IFACE, RDMA_OBJ_QP, &dev);
	const struct rdma_recovery_record *rec;
	struct rdma_error err;

	if (!obj)
		return 0;
	rdma_datapath_sync(dev);
	if (rdma_qp_recover(dev, rdma_qp(obj), false, &rec, &err) < 0)
		return api_reply_error(call, IFACE, &err);
	return api_reply_record(call, "recovery", recovery_json(rec));
}

const struct varlink_method api_qp_methods[] = {
	{ "Cancel", cancel, VARLINK_METHOD_PRIVILEGED },
	{ "Recover", recover, VARLINK_METHOD_PRIVILEGED },
	{ "Create", create, VARLINK_METHOD_PRIVILEGED },
	{ "Modify", modify, VARLINK_METHOD_PRIVILEGED },
	{ "List", list, 0 },
	{ "Show", show, 0 },
	{ "Destroy", destroy, VARLINK_METHOD_PRIVILEGED },
	{ "PostSend", post_send, VARLINK_METHOD_PRIVILEGED },
	{ "PostSendList", post_send_list, VARLINK_METHOD_PRIVILEGED },
	{ "PostRecv", post_recv, VARLINK_METHOD_PRIVILEGED },
	{ NULL, NULL, 0 },
};
