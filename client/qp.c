/* SPDX-License-Identifier: MIT */
/* Queue pairs: CREATE_QP, MODIFY_QP, QUERY_QP, DESTROY_QP. */
#include "client/internal.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

static const char *const states[] = { "reset", "init", "rtr", "rts", "sqd", "sqe", "err" };
static const char *const types[] = { "rc", "uc", "ud" };
#define N_STATES (sizeof(states) / sizeof(states[0]))
#define N_TYPES (sizeof(types) / sizeof(types[0]))

static uint8_t state_of(const char *word)
{
	for (uint8_t i = 0; i < N_STATES; i++)
		if (!strcmp(word, states[i]))
			return i;
	return RDMAD_QPS_ERR;
}

static void add_if(struct json_object *p, const char *key, uint32_t value)
{
	if (value)
		client_add_u64(p, key, value);
}

static void qp_free(void *desc)
{
	struct client_qp *qp = desc;

	client_rings_unmap(&qp->rings);
	free(qp);
}

struct rdmad_qp *client_qp_find(struct rdmad_context *ctx, uint32_t qp_num)
{
	return client_held_find(ctx, qp_free, offsetof(struct rdmad_qp, qp_num), qp_num);
}

/* The send and receive queues, mapped from the reply's rings and descriptors. */
static int qp_rings(struct rdmad_context *ctx, struct client_qp *qp, struct json_object *reply)
{
	struct dp_queue queues[2];
	int fds[2], r = client_take_fds(ctx, fds, 2);

	if (r == 0)
		r = client_rings_map(&qp->rings, reply, fds, queues, 2);
	if (r == 0) {
		qp->sq = queues[0];
		qp->rq = queues[1];
		qp->sq.doorbell = qp->rings.eventfd;
	}
	return r;
}

struct rdmad_qp *rdmad_create_qp(struct rdmad_pd *pd, const struct rdmad_qp_init_attr *attr)
{
	struct json_object *p, *reply = NULL, *rec;
	struct client_qp *qp;
	int r;

	client_ok();
	if (attr->recovery > RDMAD_RECOVERY_AUTO)
		return client_fail_null(client_fail(-EINVAL, "recovery: %u; the policies are "
						    "RDMAD_RECOVERY_DEFAULT, _MANUAL and _AUTO", attr->recovery));
	if (!attr->send_cq || !attr->recv_cq || attr->qp_type >= N_TYPES)
		return client_fail_null(client_fail(-EINVAL, "a QP needs a send CQ, a receive CQ "
						    "and a type RC, UC or UD"));
	qp = client_alloc_aligned(sizeof(*qp));
	if (!qp)
		return client_fail_null(client_fail(-ENOMEM, "out of memory"));
	qp->rings.eventfd = -1;
	p = json_object_new_object();
	client_add_u64(p, "pd", pd->handle);
	client_add_u64(p, "send_cq", attr->send_cq->handle);
	client_add_u64(p, "recv_cq", attr->recv_cq->handle);
	client_add_str(p, "type", types[attr->qp_type]);
	add_if(p, "max_send_wr", attr->cap.max_send_wr);
	add_if(p, "max_recv_wr", attr->cap.max_recv_wr);
	add_if(p, "max_send_sge", attr->cap.max_send_sge);
	add_if(p, "max_recv_sge", attr->cap.max_recv_sge);
	add_if(p, "max_inline_data", attr->cap.max_inline_data);
	client_add_bool(p, "sq_sig_all", attr->sq_sig_all);
	client_add_bool(p, "sig_pipelining", attr->sig_pipelining);
	if (attr->recovery == RDMAD_RECOVERY_MANUAL || attr->recovery == RDMAD_RECOVERY_AUTO)
		client_add_str(p, "recovery", attr->recovery == RDMAD_RECOVERY_AUTO ? "auto" : "manual");
	/* A UD send names an address handle, which rdmad resolves: UD QPs post through rdmad. */
	if (attr->qp_type != RDMAD_QPT_UD)
		client_add_bool(p, "rings", true);
	r = client_call(pd->context, "io.rdmad.Qp.Create", p, NULL, 0, &reply);
	if (r < 0) {
		qp_free(qp);
		return client_fail_null(r);
	}
	rec = client_get(reply, "qp");
	qp->pub = (struct rdmad_qp){
		.context = pd->context, .pd = pd, .send_cq = attr->send_cq, .recv_cq = attr->recv_cq,
		.qp_num = (uint32_t)client_get_u64(rec, "handle"), .qp_type = attr->qp_type,
		.state = state_of(client_get_str(rec, "state")),
	};
	qp->max_send_wr = (uint32_t)client_get_u64(rec, "max_send_wr");
	qp->max_recv_wr = (uint32_t)client_get_u64(rec, "max_recv_wr");
	qp->max_send_sge = (uint32_t)client_get_u64(rec, "max_send_sge");
	qp->max_recv_sge = (uint32_t)client_get_u64(rec, "max_recv_sge");
	qp->max_inline = (uint32_t)client_get_u64(rec, "max_inline_data");
	r = attr->qp_type != RDMAD_QPT_UD ? qp_rings(pd->context, qp, reply) : 0;
	json_object_put(reply);
	if (r < 0) {
		(void)client_destroy_handle(pd->context, "io.rdmad.Qp.Destroy", qp->pub.qp_num);
		qp_free(qp);
		return client_fail_null(r);
	}
	return client_hold_by(pd->context, qp, qp_free);
}

/* attr's members that mask names, as Modify's parameters. */
static int modify_params(struct json_object *p, const struct rdmad_qp_attr *attr, unsigned mask)
{
	static const struct {
		unsigned bit;
		const char *key;
		size_t offset, size;
	} numbers[] = {
#define NUM(bit, key, member) { bit, key, offsetof(struct rdmad_qp_attr, member), \
				sizeof(((struct rdmad_qp_attr *)0)->member) }
		NUM(RDMAD_QP_QKEY, "qkey", qkey), NUM(RDMAD_QP_PATH_MTU, "path_mtu", path_mtu),
		NUM(RDMAD_QP_TIMEOUT, "timeout", timeout), NUM(RDMAD_QP_RETRY_CNT, "retry_cnt", retry_cnt),
		NUM(RDMAD_QP_RNR_RETRY, "rnr_retry", rnr_retry), NUM(RDMAD_QP_RQ_PSN, "rq_psn", rq_psn),
		NUM(RDMAD_QP_SQ_PSN, "sq_psn", sq_psn),
		NUM(RDMAD_QP_MAX_QP_RD_ATOMIC, "max_rd_atomic", max_rd_atomic),
		NUM(RDMAD_QP_MAX_DEST_RD_ATOMIC, "max_dest_rd_atomic", max_dest_rd_atomic),
		NUM(RDMAD_QP_MIN_RNR_TIMER, "min_rnr_timer", min_rnr_timer),
		NUM(RDMAD_QP_DEST_QPN, "dest_qp_num", dest_qp_num),
#undef NUM
	};

	if (!(mask & RDMAD_QP_STATE) || attr->qp_state >= N_STATES)
		return client_fail(-EINVAL, "state: a modify names the state to go to");
	client_add_str(p, "state", states[attr->qp_state]);
	if (mask & RDMAD_QP_CUR_STATE) {
		if (attr->cur_qp_state >= N_STATES)
			return client_fail(-EINVAL, "cur_state: no such state");
		client_add_str(p, "cur_state", states[attr->cur_qp_state]);
	}
	if (mask & RDMAD_QP_ACCESS_FLAGS)
		json_object_object_add(p, "access",
				       client_access_words(attr->qp_access_flags & ~RDMAD_ACCESS_ON_DEMAND));
	if (mask & RDMAD_QP_AV) {
		struct json_object *av = json_object_new_object();
		int r = client_add_av(av, &attr->ah_attr);

		json_object_object_add(p, "av", av);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++) {
		const char *m = (const char *)attr + numbers[i].offset;

		if (mask & numbers[i].bit)
			client_add_u64(p, numbers[i].key, numbers[i].size == 1 ? *(const uint8_t *)m :
				       *(const uint32_t *)m);
	}
	return 0;
}

int rdmad_modify_qp(struct rdmad_qp *qp, const struct rdmad_qp_attr *attr, unsigned mask)
{
	struct json_object *p = json_object_new_object(), *reply = NULL;
	int r;

	client_ok();
	client_add_u64(p, "handle", qp->qp_num);
	r = modify_params(p, attr, mask);
	if (r < 0) {
		json_object_put(p);
		return r;
	}
	r = client_call(qp->context, "io.rdmad.Qp.Modify", p, NULL, 0, &reply);
	if (r < 0)
		return r;
	qp->state = state_of(client_get_str(client_get(reply, "qp"), "state"));
	json_object_put(reply);
	return 0;
}

static unsigned access_bits(struct json_object *list)
{
	unsigned bits = 0;

	for (size_t i = 0; list && i < json_object_array_length(list); i++) {
		const char *w = json_object_get_string(json_object_array_get_idx(list, i));

		bits |= !w ? 0 : !strcmp(w, "local_write") ? RDMAD_ACCESS_LOCAL_WRITE :
			!strcmp(w, "remote_write") ? RDMAD_ACCESS_REMOTE_WRITE :
			!strcmp(w, "remote_read") ? RDMAD_ACCESS_REMOTE_READ : 0;
	}
	return bits;
}

static void av_from_json(struct rdmad_ah_attr *ah, struct json_object *av)
{
	if (!av)
		return;
	inet_pton(AF_INET6, client_get_str(av, "dgid"), ah->dgid);
	ah->sgid_index = (uint8_t)client_get_u64(av, "sgid_index");
	ah->flow_label = (uint32_t)client_get_u64(av, "flow_label");
	ah->hop_limit = (uint8_t)client_get_u64(av, "hop_limit");
	ah->traffic_class = (uint8_t)client_get_u64(av, "traffic_class");
}

int rdmad_query_qp(struct rdmad_qp *qp, struct rdmad_qp_attr *attr, struct rdmad_qp_init_attr *init_attr)
{
	struct json_object *reply = NULL, *q;
	int r;

	r = client_call(qp->context, "io.rdmad.Qp.Show",
			client_add_u64(json_object_new_object(), "handle", qp->qp_num), NULL, 0, &reply);
	if (r < 0)
		return r;
	q = client_get(reply, "qp");
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = attr->cur_qp_state = qp->state = state_of(client_get_str(q, "state"));
	attr->qp_access_flags = access_bits(client_get(q, "access"));
#define U(member, key) attr->member = (__typeof__(attr->member))client_get_u64(q, key)
	U(qkey, "qkey"); U(path_mtu, "path_mtu"); U(timeout, "timeout"); U(retry_cnt, "retry_cnt");
	U(rnr_retry, "rnr_retry"); U(rq_psn, "rq_psn"); U(sq_psn, "sq_psn");
	U(max_rd_atomic, "max_rd_atomic"); U(max_dest_rd_atomic, "max_dest_rd_atomic");
	U(min_rnr_timer, "min_rnr_timer"); U(dest_qp_num, "dest_qp_num");
	U(cap.max_send_wr, "max_send_wr"); U(cap.max_recv_wr, "max_recv_wr");
	U(cap.max_send_sge, "max_send_sge"); U(cap.max_recv_sge, "max_recv_sge");
	U(cap.max_inline_data, "max_inline_data");
#undef U
	av_from_json(&attr->ah_attr, client_get(q, "av"));
	if (init_attr) {
		memset(init_attr, 0, sizeof(*init_attr));
		init_attr->send_cq = qp->send_cq;
		init_attr->recv_cq = qp->recv_cq;
		init_attr->cap = attr->cap;
		init_attr->qp_type = qp->qp_type;
		init_attr->sq_sig_all = json_object_get_boolean(client_get(q, "sq_sig_all"));
		init_attr->sig_pipelining = json_object_get_boolean(client_get(q, "sig_pipelining"));
	}
	json_object_put(reply);
	return 0;
}

int rdmad_destroy_qp(struct rdmad_qp *qp)
{
	int r = client_destroy_handle(qp->context, "io.rdmad.Qp.Destroy", qp->qp_num);

	if (r == 0)
		client_release(qp->context, qp);
	return r;
}
