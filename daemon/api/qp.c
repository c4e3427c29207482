/* SPDX-License-Identifier: MIT */
/* io.rdmad.Qp */
#include "daemon/api/vocab.h"
#include "daemon/api/api.h"
#include "daemon/api/tenant.h"
#include "daemon/api/application.h"
#include "daemon/api/rings.h"
#include "daemon/api/attr.h"
#include "daemon/api/counters.h"
#include "daemon/api/dispatch.h"
#include "daemon/api/mkey_conf.h"
#include "daemon/api/lend.h"
#include "daemon/verbs/qp.h"
#include "daemon/verbs/recovery.h"
#include "dataplane/offload/transform_json.h"
#include "dataplane/counters.h"
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
	struct dp_counters counters;
	unsigned worker;
	int cpu;

	api_add_record_head(o, dev, &qp->obj);
	json_add_string(o, "type", rdma_qp_type_name(qp->type));
	json_add_string(o, "state", rdma_qp_state_name(qp->state));
	json_add_uint(o, "pd", qp->pd->handle);
	json_add_uint(o, "send_cq", qp->send_cq->handle);
	json_add_uint(o, "recv_cq", qp->recv_cq->handle);
	json_add_bool(o, "sq_sig_all", qp->sq_sig_all);
	json_add_bool(o, "sig_pipelining", qp->sig_pipelining);
	json_add_bool(o, "rings", qp->rings);
	json_add_uint(o, "max_send_wr", qp->cap.max_send_wr);
	json_add_uint(o, "max_recv_wr", qp->cap.max_recv_wr);
	json_add_uint(o, "max_send_sge", qp->cap.max_send_sge);
	json_add_uint(o, "max_recv_sge", qp->cap.max_recv_sge);
	json_add_uint(o, "max_inline_data", qp->cap.max_inline_data);
	json_add_bool(o, "sq_draining", qp->sq_draining);
	/* Where it runs (from the first state past INIT until RESET), or where it was placed to. */
	if ((cpu = rdma_device_qp_placement(dev, qp, &worker)) != -ENOENT) {
		json_add_uint(o, "worker", worker);
		json_add_int(o, "cpu", cpu);
	} else if (qp->cpu >= 0) {
		json_add_int(o, "cpu", qp->cpu);
	}
	/* Only what MODIFY_QP has set: an attribute never given has no value to show. */
	if (qp->attr_mask & RDMA_QP_ACCESS_FLAGS)
		json_object_object_add(o, "access", api_access_json(qp->attr.access_flags));
	if (qp->attr_mask & RDMA_QP_AV) {
		struct json_object *av = json_object_new_object();

		api_av_add_json(av, &qp->attr.av);
		json_object_object_add(o, "av", av);
	}
	for (const struct rdma_qp_number_attr *n = rdma_qp_number_attrs; n->bit; n++)
		if (qp->attr_mask & n->bit)
			json_add_uint(o, rdma_qp_attr_name(n->bit), rdma_qp_attr_get(&qp->attr, n));
	if (rdma_device_qp_counters(dev, qp, &counters))
		json_object_object_add(o, "datapath", api_dp_counters_json(&counters, &qp->sqd_stats));
	json_add_string(o, "recovery", rdma_recovery_policy_name(qp->recovery.policy));
	json_object_object_add(o, "recovery_log", recoveries_json(qp));
	return o;
}

/* The enum words of the IDL, in the model's numbering. */
#define QP_TYPE_FIELD(key, params_type, member) { .name = key, .type = API_FIELD_ENUM, \
	.offset = offsetof(params_type, member), .word = rdma_qp_type_name, .max = RDMA_QPT_COUNT - 1 }
#define QP_STATE_WORDS .word = rdma_qp_state_name, .max = RDMA_QPS_COUNT - 1

static const char *recovery_word(unsigned policy)
{
	return policy <= RDMA_RECOVERY_AUTO ? rdma_recovery_policy_name(policy) : NULL;
}

#define CREATE_HANDLE(member) { .name = #member, .type = API_FIELD_HANDLE, .required = true, \
				.offset = offsetof(struct rdma_qp_init, member) }
#define CREATE_CAP(member) { .name = #member, .type = API_FIELD_U32, \
			     .offset = offsetof(struct rdma_qp_init, cap.member) }
#define CREATE_BOOL(member) { .name = #member, .type = API_FIELD_BOOL, \
			      .offset = offsetof(struct rdma_qp_init, member) }

static const struct api_field create_fields[] = {
	CREATE_HANDLE(pd), CREATE_HANDLE(send_cq), CREATE_HANDLE(recv_cq),
	QP_TYPE_FIELD("type", struct rdma_qp_init, type),
	CREATE_CAP(max_send_wr), CREATE_CAP(max_recv_wr), CREATE_CAP(max_send_sge),
	CREATE_CAP(max_recv_sge), CREATE_CAP(max_inline_data),
	CREATE_BOOL(sq_sig_all), CREATE_BOOL(sig_pipelining), CREATE_BOOL(rings),
	{ .name = "recovery", .type = API_FIELD_ENUM, .offset = offsetof(struct rdma_qp_init, recovery),
	  .given = API_GIVEN(struct rdma_qp_init, has_recovery), .word = recovery_word,
	  .max = RDMA_RECOVERY_AUTO },
	{ .name = "cpu", .type = API_FIELD_U32, .offset = offsetof(struct rdma_qp_init, cpu),
	  .given = API_GIVEN(struct rdma_qp_init, has_cpu) },
	{ NULL },
};

/* An application's QP uses its own PD and CQs. */
static const struct api_ref create_refs[] = {
	{ "pd", RDMA_OBJ_PD }, { "send_cq", RDMA_OBJ_CQ }, { "recv_cq", RDMA_OBJ_CQ }, { NULL, 0 },
};

static int create(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev = api_device(call, userdata, params, IFACE);
	struct rdma_qp_init init = {
		.cap = { .max_send_wr = QP_DEFAULT_WR, .max_recv_wr = QP_DEFAULT_WR,
			 .max_send_sge = QP_DEFAULT_SGE, .max_recv_sge = QP_DEFAULT_SGE },
	};
	struct json_object *rings = NULL;
	struct rdma_error err;
	struct rdma_qp *qp;

	if (!dev || api_dispatch(call, params, create_fields, &init) < 0 ||
	    !api_application_refs_ok(call, IFACE, dev, params, create_refs))
		return 0;
	if (api_tenant_may_create(call, userdata, RDMA_OBJ_QP, 0, &err) < 0)
		return api_reply_error(call, IFACE, &err);
	if (rdma_qp_create(dev, &init, &qp, &err) < 0)
		return api_reply_error(call, IFACE, &err);
	if (qp->rings && !(rings = api_rings(call, IFACE, dev, &qp->obj)))
		return 0;
	api_application_own(call, dev, &qp->obj);
	return api_reply_with_rings(call, "qp", qp_json(dev, &qp->obj), rings);
}

/* The request's attributes: the mask grows by each one given. */
struct modify_params {
	struct rdma_qp_attr attr;
	struct api_av av;
	bool has_cur_state, has_access_flags, has_av, has_number;
};

static const struct api_field modify_fields[] = {
	{ .name = "state", .type = API_FIELD_ENUM, .offset = offsetof(struct modify_params, attr.state),
	  .required = true, QP_STATE_WORDS },
	{ .name = "cur_state", .type = API_FIELD_ENUM, QP_STATE_WORDS,
	  .offset = offsetof(struct modify_params, attr.cur_state),
	  .given = API_GIVEN(struct modify_params, has_cur_state) },
	{ .name = "access", .type = API_FIELD_FLAGS, .word = rdma_access_name,
	  .max = RDMA_ACCESS_ALL, .offset = offsetof(struct modify_params, attr.access_flags),
	  .given = API_GIVEN(struct modify_params, has_access_flags) },
	{ .name = "av", .type = API_FIELD_OBJECT, .offset = offsetof(struct modify_params, av),
	  .fields = api_av_fields, .given = API_GIVEN(struct modify_params, has_av) },
	{ NULL },
};

/*
 * The numeric attributes are the model's list (rdma_qp_number_attrs), each
 * read by a table of one field; false once the call has been answered.
 */
static bool dispatch_numbers(struct varlink_call *call, struct json_object *params,
			     struct modify_params *p, uint32_t *mask)
{
	for (const struct rdma_qp_number_attr *n = rdma_qp_number_attrs; n->bit; n++) {
		const struct api_field number[] = {
			{ .name = rdma_qp_attr_name(n->bit), .type = API_FIELD_U32,
			  .offset = offsetof(struct modify_params, attr) + n->offset,
			  .given = API_GIVEN(struct modify_params, has_number) },
			{ NULL },
		};

		p->has_number = false;
		if (api_dispatch(call, params, number, p) < 0)
			return false;
		if (p->has_number)
			*mask |= n->bit;
	}
	return true;
}

static int modify(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_object *obj = api_lookup(call, userdata, params, IFACE, RDMA_OBJ_QP, &dev);
	struct modify_params p = { .av = API_AV_INIT };
	uint32_t mask = RDMA_QP_STATE;
	struct rdma_error err;

	if (!obj || api_dispatch(call, params, modify_fields, &p) < 0 ||
	    !dispatch_numbers(call, params, &p, &mask))
		return 0;
	mask |= (p.has_cur_state ? RDMA_QP_CUR_STATE : 0) |
		(p.has_access_flags ? RDMA_QP_ACCESS_FLAGS : 0) | (p.has_av ? RDMA_QP_AV : 0);
	if (p.has_av && api_av_resolve(&p.av, "av.", &err) < 0)
		return api_reply_error(call, IFACE, &err);
	p.attr.av = p.av.attr;
	if (rdma_qp_modify(dev, rdma_qp(obj), &p.attr, mask, &err) < 0)
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

/* ---- posting ---- */

#define SGES_FIELD(params_type, list_member, count_member) { .name = "sges", .type = API_FIELD_LIST, \
	.offset = offsetof(params_type, list_member), .count = offsetof(params_type, count_member), \
	.size = sizeof(struct rdma_dp_sge), .fields = sge_fields, .max = UINT16_MAX }
#define WR_ID_FIELD(params_type, member) { .name = "wr_id", .type = API_FIELD_U64, \
	.offset = offsetof(params_type, member) }

static const struct api_field sge_fields[] = {
	{ .name = "key", .type = API_FIELD_U32, .offset = offsetof(struct rdma_dp_sge, key) },
	{ .name = "offset", .type = API_FIELD_U64, .offset = offsetof(struct rdma_dp_sge, offset) },
	{ .name = "length", .type = API_FIELD_U32, .offset = offsetof(struct rdma_dp_sge, length) },
	{ NULL },
};

/* One send WR as a request gives it; check_send() completes wr. */
struct send_params {
	struct rdma_dp_send_wr wr;
	bool has_imm, has_remote, has_invalidate, signaled, fence, solicited;
	bool has_mkey, has_configure;
	struct configure_params configure;   /* configure: Mkey.Configure's parameters */
	struct rdma_mkey_conf conf;          /* what they make; wr.conf points here */
	const char *inline_hex;
	uint8_t inline_buf[DP_INLINE_MAX];
};

#define WR_U32(key, member) { .name = key, .type = API_FIELD_U32, \
			      .offset = offsetof(struct rdma_dp_send_wr, member) }
#define SEND_BOOL(member) { .name = #member, .type = API_FIELD_BOOL, \
			    .offset = offsetof(struct send_params, member) }

static const struct api_field remote_fields[] = {
	WR_U32("key", remote_key),
	{ .name = "offset", .type = API_FIELD_U64, .offset = offsetof(struct rdma_dp_send_wr, remote_offset),
	  .given = API_GIVEN(struct rdma_dp_send_wr, has_remote_offset) },
	{ .name = "addr", .type = API_FIELD_U64, .offset = offsetof(struct rdma_dp_send_wr, remote_addr),
	  .given = API_GIVEN(struct rdma_dp_send_wr, has_remote_addr) },
	{ NULL },
};

static const struct api_field ud_fields[] = {
	WR_U32("ah", ah), WR_U32("remote_qpn", remote_qpn), WR_U32("remote_qkey", remote_qkey), { NULL },
};

static const struct api_field send_fields[] = {
	{ .name = "opcode", .type = API_FIELD_ENUM, .offset = offsetof(struct send_params, wr.opcode),
	  .required = true, .word = dp_wr_opcode_name, .max = DP_WR_OPCODE_COUNT - 1 },
	WR_ID_FIELD(struct send_params, wr.wr_id),
	{ .name = "imm", .type = API_FIELD_U32, .offset = offsetof(struct send_params, wr.imm),
	  .given = API_GIVEN(struct send_params, has_imm) },
	{ .name = "invalidate", .type = API_FIELD_U32, .offset = offsetof(struct send_params, wr.invalidate_key),
	  .given = API_GIVEN(struct send_params, has_invalidate) },
	{ .name = "remote", .type = API_FIELD_OBJECT, .offset = offsetof(struct send_params, wr),
	  .fields = remote_fields, .given = API_GIVEN(struct send_params, has_remote) },
	{ .name = "mkey", .type = API_FIELD_U32, .offset = offsetof(struct send_params, wr.mkey),
	  .given = API_GIVEN(struct send_params, has_mkey) },
	{ .name = "configure", .type = API_FIELD_OBJECT, .offset = offsetof(struct send_params, configure),
	  .fields = api_mkey_configure_fields, .given = API_GIVEN(struct send_params, has_configure) },
	{ .name = "ud", .type = API_FIELD_OBJECT, .offset = offsetof(struct send_params, wr),
	  .fields = ud_fields, .given = API_GIVEN(struct send_params, wr.ud) },
	{ .name = "inline", .type = API_FIELD_STRING, .offset = offsetof(struct send_params, inline_hex) },
	SEND_BOOL(signaled), SEND_BOOL(fence), SEND_BOOL(solicited),
	SGES_FIELD(struct send_params, wr.sges, wr.n_sges),
	{ NULL },
};

/* What the fields say together: the opcode's needs, the inline bytes, the send flags. */
static int check_send(struct send_params *p, const struct rdma_lend_caller *caller,
		      struct rdma_error *err)
{
	struct rdma_dp_send_wr *wr = &p->wr;

	if ((wr->opcode == DP_WR_SEND_WITH_IMM || wr->opcode == DP_WR_RDMA_WRITE_WITH_IMM) != p->has_imm)
		return rdma_error_invalid(err, "imm", "send_imm and write_imm carry an immediate; "
					  "the other opcodes do not");
	if ((wr->opcode == DP_WR_LOCAL_INV || wr->opcode == DP_WR_SEND_WITH_INV) != p->has_invalidate)
		return rdma_error_invalid(err, "invalidate", "local_inv and send_inv name the key to "
					  "invalidate; the other opcodes do not");
	if ((wr->opcode == DP_WR_CONFIGURE) != p->has_mkey)
		return rdma_error_invalid(err, "mkey", "configure names the MKEY it configures; the other "
					  "opcodes do not");
	if (p->has_configure && wr->opcode != DP_WR_CONFIGURE)
		return rdma_error_invalid(err, "configure", "only the configure opcode sets an MKEY");
	if (wr->opcode == DP_WR_CONFIGURE) {
		/* Without the object: a configure that sets nothing, as Mkey.Configure without setters. */
		int r = api_mkey_conf_from_params(&p->configure, caller, &p->conf, err);

		if (r < 0) {
			rdma_error_prefix(err, "configure.");
			return r;
		}
		wr->conf = &p->conf;
	}
	if (!p->has_remote && (wr->opcode == DP_WR_RDMA_WRITE || wr->opcode == DP_WR_RDMA_WRITE_WITH_IMM ||
			       wr->opcode == DP_WR_RDMA_READ))
		return rdma_error_invalid(err, "remote", "%s needs the peer's memory (key and offset or addr)",
					  dp_wr_opcode_name(wr->opcode));
	if (p->has_remote && wr->has_remote_offset && wr->has_remote_addr)
		return rdma_error_invalid(err, "remote.addr", "give offset (into this device's region) or "
					  "addr (the peer's address), not both");
	if (wr->ud && wr->remote_qpn > 0xffffff)
		return rdma_error_invalid(err, "ud.remote_qpn", "%u; QP numbers are 24 bits",
					  wr->remote_qpn);
	if (p->inline_hex) {
		size_t len = strlen(p->inline_hex) / 2;

		if (len > DP_INLINE_MAX || hex_decode(p->inline_hex, p->inline_buf, len) < 0)
			return rdma_error_invalid(err, "inline", "an even number of hex digits, at most "
						  "%u bytes", DP_INLINE_MAX);
		wr->inline_data = p->inline_buf;
		wr->inline_len = (uint32_t)len;
		wr->send_flags |= DP_SEND_INLINE;
	}
	wr->send_flags |= (p->signaled ? DP_SEND_SIGNALED : 0) | (p->fence ? DP_SEND_FENCE : 0) |
			  (p->solicited ? DP_SEND_SOLICITED : 0);
	return 0;
}

/* What a configure WR's parameters made (the layout's entries are the conf's). */
static void conf_free(struct rdma_mkey_conf *conf)
{
	free(conf->layout.entries);
	conf->layout.entries = NULL;
	explicit_bzero(&conf->crypto, sizeof(conf->crypto));
}

static void send_params_free(struct send_params *p)
{
	conf_free(&p->conf);
	api_dispatch_free(send_fields, p);
}

static int post_send(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_object *obj = api_lookup(call, userdata, params, IFACE, RDMA_OBJ_QP, &dev);
	struct rdma_lend_caller caller = api_lend_caller(call);
	struct send_params p = { 0 };
	struct rdma_error err;
	uint32_t bad;
	int r;

	if (!obj || api_dispatch(call, params, send_fields, &p) < 0)
		return 0;
	r = check_send(&p, &caller, &err);
	if (r == 0)
		r = rdma_device_post_send(dev, rdma_qp(obj), &p.wr, 1, &bad, &err);
	send_params_free(&p);
	return r < 0 ? api_reply_error(call, IFACE, &err) : api_reply(call, NULL);
}

/* Names the WR a refusal is about: "sges" of the third becomes "wrs[2].sges". */
static void name_wr(struct rdma_error *err, uint32_t i)
{
	char prefix[24];

	snprintf(prefix, sizeof(prefix), "wrs[%u].", i);
	rdma_error_prefix(err, prefix);
}

struct send_list_params {
	struct send_params *wrs;
	uint32_t n;
};

static const struct api_field send_list_fields[] = {
	{ .name = "wrs", .type = API_FIELD_LIST, .offset = offsetof(struct send_list_params, wrs),
	  .count = offsetof(struct send_list_params, n), .size = sizeof(struct send_params),
	  .fields = send_fields, .min = 1, .max = UINT16_MAX },
	{ NULL },
};

static int post_send_list(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_object *obj = api_lookup(call, userdata, params, IFACE, RDMA_OBJ_QP, &dev);
	struct rdma_lend_caller caller = api_lend_caller(call);
	struct send_list_params p = { 0 };
	struct rdma_dp_send_wr *wrs;
	struct rdma_error err = { 0 };
	uint32_t i, bad;
	int r = 0;

	if (!obj || api_dispatch(call, params, send_list_fields, &p) < 0)
		return 0;
	wrs = calloc(p.n, sizeof(*wrs));
	if (!wrs) {
		api_dispatch_free(send_list_fields, &p);
		return api_error_errno(call, -ENOMEM);
	}
	for (i = 0; i < p.n && r == 0; i++) {
		r = check_send(&p.wrs[i], &caller, &err);
		if (r < 0)
			name_wr(&err, i);
		wrs[i] = p.wrs[i].wr;
	}
	/* A full queue is about the list, not one of its WRs. */
	if (r == 0 && (r = rdma_device_post_send(dev, rdma_qp(obj), wrs, p.n, &bad, &err)) < 0 &&
	    r != -ENOBUFS)
		name_wr(&err, bad);
	free(wrs);
	for (i = 0; i < p.n; i++)
		conf_free(&p.wrs[i].conf);
	api_dispatch_free(send_list_fields, &p);
	return r < 0 ? api_reply_error(call, IFACE, &err) : api_reply(call, NULL);
}

struct recv_params {
	uint64_t wr_id;
	struct rdma_dp_sge *sges;
	uint32_t n_sges;
};

static const struct api_field recv_fields[] = {
	WR_ID_FIELD(struct recv_params, wr_id),
	SGES_FIELD(struct recv_params, sges, n_sges),
	{ NULL },
};

static int post_recv(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_object *obj = api_lookup(call, userdata, params, IFACE, RDMA_OBJ_QP, &dev);
	struct recv_params p = { 0 };
	struct rdma_error err;
	int r;

	if (!obj || api_dispatch(call, params, recv_fields, &p) < 0)
		return 0;
	r = rdma_device_post_recv(dev, rdma_qp(obj), p.wr_id, p.sges, p.n_sges, &err);
	api_dispatch_free(recv_fields, &p);
	return r < 0 ? api_reply_error(call, IFACE, &err) : api_reply(call, NULL);
}

/* ---- signature pipelining ---- */

static const struct api_field cancel_fields[] = { WR_ID_FIELD(struct recv_params, wr_id), { NULL } };

static int cancel(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_object *obj = api_lookup(call, userdata, params, IFACE, RDMA_OBJ_QP, &dev);
	struct recv_params p = { 0 };
	struct json_object *reply;
	struct rdma_error err;
	uint32_t count;

	if (!obj || api_dispatch(call, params, cancel_fields, &p) < 0)
		return 0;
	if (rdma_qp_cancel(dev, rdma_qp(obj), p.wr_id, &count, &err) < 0)
		return api_reply_error(call, IFACE, &err);
	reply = json_object_new_object();
	json_add_uint(reply, "count", count);
	return api_reply(call, reply);
}

static int recover(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct rdma_device *dev;
	struct rdma_object *obj = api_lookup(call, userdata, params, IFACE, RDMA_OBJ_QP, &dev);
	const struct rdma_recovery_record *rec;
	struct rdma_error err;

	if (!obj)
		return 0;
	if (rdma_qp_recover(dev, rdma_qp(obj), false, &rec, &err) < 0)
		return api_reply_error(call, IFACE, &err);
	return api_reply_record(call, "recovery", recovery_json(rec));
}

const struct varlink_method api_qp_methods[] = {
	{ "Cancel", cancel, VARLINK_METHOD_PRIVILEGED | API_METHOD_OWN },
	{ "Recover", recover, VARLINK_METHOD_PRIVILEGED | API_METHOD_OWN },
	{ "Create", create, VARLINK_METHOD_PRIVILEGED | API_METHOD_OWN },
	{ "Modify", modify, VARLINK_METHOD_PRIVILEGED | API_METHOD_OWN },
	{ "List", list, 0 },
	{ "Show", show, 0 },
	{ "Destroy", destroy, VARLINK_METHOD_PRIVILEGED | API_METHOD_OWN },
	{ "PostSend", post_send, VARLINK_METHOD_PRIVILEGED | API_METHOD_OWN },
	{ "PostSendList", post_send_list, VARLINK_METHOD_PRIVILEGED | API_METHOD_OWN },
	{ "PostRecv", post_recv, VARLINK_METHOD_PRIVILEGED | API_METHOD_OWN },
	{ NULL, NULL, 0 },
};
