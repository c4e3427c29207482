/* SPDX-License-Identifier: MIT */
#include "daemon/verbs/qp.h"
#include "daemon/verbs/mr.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void qp_release(struct rdma_device *dev, struct rdma_object *obj)
{
	rdma_device_qp_destroy(dev, rdma_qp(obj));
	free(rdma_qp(obj)->recovery.log);
}

const struct rdma_object_type rdma_qp_type = {
	.size = sizeof(struct rdma_qp),
	.first_handle = RDMA_QPN_FIRST,
	.release = qp_release,
};

/* ---- attribute values ---- */

static uint32_t max_init_rd_atom(const struct rdma_device *dev)
{
	return dev->attr.max_qp_init_rd_atom;
}

static uint32_t max_rd_atom(const struct rdma_device *dev)
{
	return dev->attr.max_qp_rd_atom;
}

#define NUMBER(b, field, ...) \
	{ .bit = (b), .offset = offsetof(struct rdma_qp_attr, field), __VA_ARGS__ }

const struct rdma_qp_number_attr rdma_qp_number_attrs[] = {
	NUMBER(RDMA_QP_QKEY, qkey, .max = UINT32_MAX, .width = "32 bits"),
	NUMBER(RDMA_QP_PATH_MTU, path_mtu, .max = UINT32_MAX, .width = "bytes"),
	NUMBER(RDMA_QP_TIMEOUT, timeout, .max = 31, .width = "a 5-bit exponent"),
	NUMBER(RDMA_QP_RETRY_CNT, retry_cnt, .max = 7, .width = "3 bits"),
	NUMBER(RDMA_QP_RNR_RETRY, rnr_retry, .max = 7, .width = "3 bits"),
	NUMBER(RDMA_QP_RQ_PSN, rq_psn, .max = RDMA_QP_24BIT_MAX, .width = "24 bits"),
	NUMBER(RDMA_QP_MAX_QP_RD_ATOMIC, max_rd_atomic, .device_limit = max_init_rd_atom,
	       .width = "the device's max_qp_init_rd_atom", .pow2 = true),
	NUMBER(RDMA_QP_MIN_RNR_TIMER, min_rnr_timer, .max = 31, .width = "a 5-bit code"),
	NUMBER(RDMA_QP_SQ_PSN, sq_psn, .max = RDMA_QP_24BIT_MAX, .width = "24 bits"),
	NUMBER(RDMA_QP_MAX_DEST_RD_ATOMIC, max_dest_rd_atomic, .device_limit = max_rd_atom,
	       .width = "the device's max_qp_rd_atom", .pow2 = true),
	NUMBER(RDMA_QP_DEST_QPN, dest_qp_num, .max = RDMA_QP_24BIT_MAX, .width = "24 bits"),
	{ .bit = 0 },
};

/* 0 stays 0: no reads or atomics at all. */
static uint32_t round_up_pow2(uint32_t v)
{
	uint32_t p = 1;

	if (!v)
		return 0;
	while (p < v && p < (1u << 31))
		p <<= 1;
	return p;
}

unsigned rdma_qp_mtu_enum(uint32_t bytes)
{
	for (unsigned e = 1, mtu = 256; mtu <= 4096; e++, mtu <<= 1)
		if (bytes == mtu)
			return e;
	return 0;
}

static int check_numbers(const struct rdma_device *dev, const struct rdma_qp_attr *attr,
			 uint32_t mask, struct rdma_error *err)
{
	for (const struct rdma_qp_number_attr *n = rdma_qp_number_attrs; n->bit; n++) {
		uint32_t v = rdma_qp_attr_get(attr, n);
		uint32_t max = n->device_limit ? n->device_limit(dev) : n->max;

		if ((mask & n->bit) && v > max)
			return rdma_error_invalid(err, rdma_qp_attr_name(n->bit), "%u; at most %u (%s)",
						  v, max, n->width);
	}
	return 0;
}

static int check_path_mtu(const struct rdma_device *dev, uint32_t mtu, struct rdma_error *err)
{
	uint32_t port_max = dev->ports[RDMA_QP_PORT - 1].max_mtu;

	if (!rdma_qp_mtu_enum(mtu))
		return rdma_error_invalid(err, "path_mtu", "%u; one of 256, 512, 1024, 2048, 4096", mtu);
	if (mtu > port_max)
		return rdma_error_invalid(err, "path_mtu", "%u; the port's max_mtu is %u", mtu, port_max);
	return 0;
}

/* The address vector's fields, as wide as struct virtio_rdma_global_route has them. */
static const struct {
	const char *field;
	size_t offset;
	uint32_t max;
} av_widths[] = {
	{ "av.sgid_index", offsetof(struct rdma_ah_attr, sgid_index), UINT8_MAX },
	{ "av.hop_limit", offsetof(struct rdma_ah_attr, hop_limit), UINT8_MAX },
	{ "av.traffic_class", offsetof(struct rdma_ah_attr, traffic_class), UINT8_MAX },
	{ "av.flow_label", offsetof(struct rdma_ah_attr, flow_label), 0xfffff },
};

/* The GID entry the address vector sends from, or NULL with the error. */
static struct rdma_gid_entry *check_av(struct rdma_device *dev, const struct rdma_ah_attr *av,
				       struct rdma_error *err)
{
	static const uint8_t zero[RDMA_GID_LEN];
	struct rdma_gid_entry *sgid;

	for (size_t i = 0; i < sizeof(av_widths) / sizeof(av_widths[0]); i++) {
		uint32_t v = *(const uint32_t *)((const char *)av + av_widths[i].offset);

		if (v > av_widths[i].max) {
			rdma_error_invalid(err, av_widths[i].field, "%u; at most %u", v,
					   av_widths[i].max);
			return NULL;
		}
	}
	if (memcmp(av->dgid, zero, RDMA_GID_LEN) == 0) {
		rdma_error_invalid(err, "av.dgid", "the zero GID addresses nobody");
		return NULL;
	}
	sgid = rdma_gid_get(dev, RDMA_QP_PORT, av->sgid_index, "av.sgid_index", err);
	if (!sgid && err->code == RDMA_ERR_NO_SUCH_OBJECT)
		/* An empty entry is bad input here, not a missing object of this interface. */
		rdma_error_invalid(err, "av.sgid_index", "GID index %u of port %u is empty",
				   av->sgid_index, RDMA_QP_PORT);
	if (sgid && rdma_gid_check_path(sgid->gid, av->dgid, "av.dgid", err) < 0)
		return NULL;
	return sgid;
}

/* ---- references ---- */

/* Records what the QP uses, after any change of its address vector. */
static void hold_references(struct rdma_qp *qp)
{
	rdma_object_unuse_all(&qp->obj);
	rdma_object_use(&qp->obj, qp->pd);
	rdma_object_use(&qp->obj, qp->send_cq);
	/* One QP is one user, even when both queues complete into the same CQ. */
	if (qp->recv_cq != qp->send_cq)
		rdma_object_use(&qp->obj, qp->recv_cq);
	if (qp->sgid)
		rdma_object_use(&qp->obj, &qp->sgid->obj);
}

/* ---- CREATE_QP ---- */

static const struct {
	const char *field, *device_field;
	size_t cap, limit;
} cap_limits[] = {
	{ "max_send_wr", "max_qp_wr", offsetof(struct rdma_qp_cap, max_send_wr),
	  offsetof(struct rdma_device_attr, max_qp_wr) },
	{ "max_recv_wr", "max_qp_wr", offsetof(struct rdma_qp_cap, max_recv_wr),
	  offsetof(struct rdma_device_attr, max_qp_wr) },
	{ "max_send_sge", "max_send_sge", offsetof(struct rdma_qp_cap, max_send_sge),
	  offsetof(struct rdma_device_attr, max_send_sge) },
	{ "max_recv_sge", "max_recv_sge", offsetof(struct rdma_qp_cap, max_recv_sge),
	  offsetof(struct rdma_device_attr, max_recv_sge) },
	{ "max_inline_data", "max_inline_data", offsetof(struct rdma_qp_cap, max_inline_data),
	  offsetof(struct rdma_device_attr, max_inline_data) },
};

/* cpu runs a worker of the device's data path (qp create --cpu). */
static int check_cpu(const struct rdma_device *dev, uint32_t cpu, struct rdma_error *err)
{
	int cpus[RDMA_DEVICE_CPUS_MAX];
	unsigned n = rdma_device_cpus(dev, cpus, RDMA_DEVICE_CPUS_MAX);
	char list[256] = "";
	size_t used = 0;
	int r = rdma_device_need_datapath(dev, "cpu", err);

	if (r < 0)
		return r;
	for (unsigned i = 0; i < n && i < RDMA_DEVICE_CPUS_MAX; i++) {
		if (cpus[i] >= 0 && (uint32_t)cpus[i] == cpu)
			return 0;
		if (used < sizeof(list))
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%d", i ? "," : "", cpus[i]);
	}
	return rdma_error_invalid(err, "cpu", "%u runs no worker of %s; its workers run on CPU %s", cpu,
				  dev->name, list);
}

static int check_init(const struct rdma_device *dev, const struct rdma_qp_init *init,
		      struct rdma_error *err)
{
	if (init->type >= RDMA_QPT_COUNT)
		return rdma_error_invalid(err, "type", "one of RC, UC, UD");
	for (size_t i = 0; i < sizeof(cap_limits) / sizeof(cap_limits[0]); i++) {
		uint32_t v = *(const uint32_t *)((const char *)&init->cap + cap_limits[i].cap);
		uint32_t max = *(const uint32_t *)((const char *)&dev->attr + cap_limits[i].limit);

		if (v > max)
			return rdma_error_invalid(err, cap_limits[i].field, "%u; at most %u (the device's %s)",
						  v, max, cap_limits[i].device_field);
	}
	if (init->rings && init->type == RDMA_QPT_UD)
		return rdma_error_unsupported(err, "rings", "a UD QP's sends name address handles, which "
					      "rdmad resolves when it posts them: UD QPs post through rdmad");
	if (init->rings && !rdma_device_has_datapath(dev))
		return rdma_error_unsupported(err, "rings", "the device has no data path (no workers)");
	if (init->sig_pipelining && !dev->caps.sqd2rts)
		return rdma_error_unsupported(err, "sig_pipelining",
					      "the device cannot go from SQD back to RTS (no sqd2rts)");
	return init->has_cpu ? check_cpu(dev, init->cpu, err) : 0;
}

int rdma_qp_create(struct rdma_device *dev, const struct rdma_qp_init *init, struct rdma_qp **out,
		   struct rdma_error *err)
{
	struct rdma_object *pd, *send_cq, *recv_cq, *obj;
	struct rdma_qp *qp;
	int r;

	r = check_init(dev, init, err);
	if (r < 0)
		return r;
	pd = rdma_object_lookup(dev, RDMA_OBJ_PD, init->pd, err);
	if (!pd)
		return -ENOENT;
	send_cq = rdma_object_lookup(dev, RDMA_OBJ_CQ, init->send_cq, err);
	if (!send_cq)
		return -ENOENT;
	recv_cq = rdma_object_lookup(dev, RDMA_OBJ_CQ, init->recv_cq, err);
	if (!recv_cq)
		return -ENOENT;
	obj = rdma_object_create(dev, RDMA_OBJ_QP, err);
	if (!obj)
		return -ENOSPC;
	qp = rdma_qp(obj);
	qp->pd = pd;
	qp->send_cq = send_cq;
	qp->recv_cq = recv_cq;
	qp->type = init->type;
	qp->cap = init->cap;
	qp->sq_sig_all = init->sq_sig_all;
	qp->sig_pipelining = init->sig_pipelining;
	qp->rings = init->rings;
	qp->recovery.policy = init->has_recovery ? init->recovery :
			      (enum rdma_recovery_policy)dev->default_recovery;
	qp->cpu = init->has_cpu ? (int)init->cpu : -1;
	qp->state = RDMA_QPS_RESET;
	hold_references(qp);
	if (rdma_device_qp_create(dev, qp) < 0) {
		rdma_object_free(dev, obj);
		err->code = RDMA_ERR_NONE;
		return -ENOMEM;
	}
	*out = qp;
	return 0;
}

/* ---- MODIFY_QP ---- */

static int check_state(const struct rdma_qp *qp, const struct rdma_qp_attr *attr, uint32_t mask,
		       struct rdma_error *err)
{
	if (!(mask & RDMA_QP_STATE))
		return rdma_error_invalid(err, "state", "MODIFY_QP needs the state to move to");
	if ((mask & RDMA_QP_CUR_STATE) && attr->cur_state != qp->state)
		return rdma_error_state(err, "cur_state", "the QP is in %s, not %s",
					rdma_qp_state_name(qp->state),
					rdma_qp_state_name(attr->cur_state));
	/* As rxe: out of SQD only to ERR until the drain is over. */
	if (qp->state == RDMA_QPS_SQD && qp->sq_draining && attr->state != RDMA_QPS_ERR)
		return rdma_error_state(err, "state", "the send queue is still draining; until it is "
					"drained the QP may only go to ERR");
	return rdma_qp_transition_check(qp->type, qp->state, attr->state, mask, err);
}

static int check_values(struct rdma_device *dev, const struct rdma_qp_attr *attr, uint32_t mask,
			struct rdma_gid_entry **sgid, struct rdma_error *err)
{
	int r = check_numbers(dev, attr, mask, err);

	if (r < 0)
		return r;
	if ((mask & RDMA_QP_PATH_MTU) && (r = check_path_mtu(dev, attr->path_mtu, err)) < 0)
		return r;
	if ((mask & RDMA_QP_ACCESS_FLAGS) && (attr->access_flags & ~RDMA_ACCESS_ALL))
		return rdma_error_invalid(err, "access", "0x%x; the flags are local_write, "
					  "remote_write and remote_read", attr->access_flags);
	if (mask & RDMA_QP_AV) {
		*sgid = check_av(dev, &attr->av, err);
		if (!*sgid)
			return -EINVAL;
	}
	return 0;
}

static void apply(struct rdma_qp *qp, const struct rdma_qp_attr *attr, uint32_t mask,
		  struct rdma_gid_entry *sgid)
{
	/* RESET takes the QP back to what CREATE_QP made: no attributes set. */
	if (attr->state == RDMA_QPS_RESET) {
		memset(&qp->attr, 0, sizeof(qp->attr));
		qp->attr_mask = 0;
		qp->sgid = NULL;
	} else {
		for (const struct rdma_qp_number_attr *n = rdma_qp_number_attrs; n->bit; n++) {
			uint32_t v = rdma_qp_attr_get(attr, n);

			if (mask & n->bit)
				rdma_qp_attr_set(&qp->attr, n, n->pow2 ? round_up_pow2(v) : v);
		}
		if (mask & RDMA_QP_ACCESS_FLAGS)
			qp->attr.access_flags = attr->access_flags;
		if (mask & RDMA_QP_AV) {
			qp->attr.av = attr->av;
			qp->attr.av.port = RDMA_QP_PORT;
			qp->sgid = sgid;
		}
		qp->attr_mask |= mask & ~(RDMA_QP_STATE | RDMA_QP_CUR_STATE);
	}
	qp->state = attr->state;
	hold_references(qp);
}

/*
 * Tells of a state change; entering SQD, the send queue is drained already
 * (SQ_DRAINED).  by_device: the data path moved it, no MODIFY_QP did.
 */
static void state_changed(struct rdma_device *dev, struct rdma_qp *qp, enum rdma_qp_state old,
			  bool by_device)
{
	struct rdma_event ev = {
		.type = RDMA_EVENT_QP_STATE, .kind = RDMA_OBJ_QP, .handle = qp->obj.handle,
		.old_state = (int)old, .new_state = (int)qp->state, .by_device = by_device,
	};

	if (old == qp->state)
		return;
	if (old == RDMA_QPS_SQD)
		rdma_qp_recovery_left_sqd(&qp->recovery);
	rdma_device_post_event(dev, &ev);
	if (qp->state != RDMA_QPS_SQD)
		return;
	qp->sqd_stats.sqd_entries++;
	dev->sqd_stats.sqd_entries++;
	ev.type = RDMA_EVENT_SQ_DRAINED;
	rdma_device_post_event(dev, &ev);
}

static int modify(struct rdma_device *dev, struct rdma_qp *qp, const struct rdma_qp_attr *attr,
		  uint32_t mask, bool by_device, struct rdma_error *err)
{
	struct rdma_gid_entry *sgid = NULL;
	enum rdma_qp_state old;
	int r;

	r = check_state(qp, attr, mask, err);
	if (r < 0)
		return r;
	r = check_values(dev, attr, mask, &sgid, err);
	if (r < 0)
		return r;
	/* A QP that runs from now on gets what running needs (made once, not at creation). */
	if (attr->state != RDMA_QPS_RESET && attr->state != RDMA_QPS_INIT) {
		r = rdma_device_qp_reserve(dev, qp);
		if (r < 0)
			return rdma_error_system(err, r);
	}
	old = qp->state;
	apply(qp, attr, mask, sgid);
	rdma_device_qp_modified(dev, qp, (int)old);
	state_changed(dev, qp, old, by_device);
	return 0;
}

int rdma_qp_modify(struct rdma_device *dev, struct rdma_qp *qp, const struct rdma_qp_attr *attr,
		   uint32_t mask, struct rdma_error *err)
{
	return modify(dev, qp, attr, mask, false, err);
}

bool rdma_qp_sig_stopped(struct rdma_device *dev, struct rdma_qp *qp, uint32_t stops, uint64_t found_ns)
{
	enum rdma_qp_state old = qp->state;

	/*
	 * Known from now on, whatever the state: a later RTS must carry it, or
	 * the device keeps the stop (a user took the QP to SQD or ERR meanwhile,
	 * and will move it on).
	 */
	qp->sig_stops_seen = stops;
	if (qp->state != RDMA_QPS_RTS)
		return false;
	/* The device is in SQD already: only the model follows. */
	qp->recovery.stopped_at_ns = found_ns;
	qp->state = RDMA_QPS_SQD;
	state_changed(dev, qp, old, true);
	return true;
}

void rdma_qp_async_error(struct rdma_device *dev, struct rdma_qp *qp)
{
	struct rdma_error err;

	/* A user may have taken it to RESET or ERR meanwhile. */
	if (qp->state == RDMA_QPS_RESET || qp->state == RDMA_QPS_ERR || qp->state == RDMA_QPS_INIT)
		return;
	rdma_qp_enter_error(dev, qp, &err);
}

int rdma_qp_enter_error(struct rdma_device *dev, struct rdma_qp *qp, struct rdma_error *err)
{
	struct rdma_qp_attr attr = { .state = RDMA_QPS_ERR };

	return modify(dev, qp, &attr, RDMA_QP_STATE, true, err);
}
