/* SPDX-License-Identifier: MIT */
#include "daemon/vdev/roce_ctrl.h"
#include "daemon/verbs/ah.h"
#include "daemon/verbs/cq.h"
#include "daemon/verbs/gid.h"
#include "daemon/verbs/owner.h"
#include "daemon/verbs/mr.h"
#include "daemon/verbs/qp.h"
#include "daemon/verbs/reclaim.h"
#include "lib/log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The guest driver hands REG_USER_MR its pages in blocks of this size (reference §1.5). */
#define GUEST_PAGE 4096ull

/* One command: its request's data, what it answers, and its handler. */
struct command {
	const char *name;
	size_t req_size;          /* the command-specific data (REG_USER_MR: before pages[]) */
	size_t ack_size;          /* the ack-specific data */
	int (*run)(struct vdev_roce *r, const void *req, size_t req_len, void *ack,
		   struct rdma_error *err);
};

/* ---- the VM's objects ---- */

/* The object of kind named by handle, if it is the VM's; NoSuchObject otherwise. */
static struct rdma_object *own(struct vdev_roce *r, enum rdma_object_kind kind, uint32_t handle,
			       struct rdma_error *err)
{
	struct rdma_object *obj = rdma_object_lookup(r->dev, kind, handle, err);

	if (obj && obj->owner != r->owner) {
		rdma_error_no_such(err, kind, handle);
		return NULL;
	}
	return obj;
}

static void make_own(struct vdev_roce *r, struct rdma_object *obj)
{
	rdma_object_set_owner(r->dev, obj, r->owner, r->owner_uid);
}

static int destroy_own(struct vdev_roce *r, enum rdma_object_kind kind, uint32_t handle,
		       struct rdma_error *err)
{
	return own(r, kind, handle, err) ? rdma_object_destroy(r->dev, kind, handle, err) : -ENOENT;
}

/*
 * The guest numbers its completion and send/receive virtqueues by handle:
 * one its queues cannot reach is refused (and the object it was given to
 * goes again), which the device's limits make the exception.
 */
static int check_queue_handle(struct vdev_roce *r, struct rdma_object *obj, uint32_t bound,
			      struct rdma_error *err)
{
	enum rdma_object_kind kind = obj->kind;

	if (obj->handle < bound)
		return 0;
	rdma_object_free(r->dev, obj);
	return rdma_error_limit(err, kind, bound);
}

/* ---- the commands ---- */

static int query_device(struct vdev_roce *r, const void *req, size_t len, void *ack,
			struct rdma_error *err)
{
	const struct rdma_device_attr *a = &r->dev->attr;
	struct virtio_roce_query_device_ack out = {
		.device_cap_flags = htole64(a->device_cap_flags),
		.max_mr_size = htole64(a->max_mr_size),
		.page_size_cap = htole64(a->page_size_cap),
		.hw_ver = htole32(a->hw_ver),
		.max_qp_wr = htole32(a->max_qp_wr),
		.max_send_sge = htole32(a->max_send_sge),
		.max_recv_sge = htole32(a->max_recv_sge),
		.max_sge_rd = htole32(a->max_sge_rd),
		.max_cqe = htole32(a->max_cqe),
		.max_mr = htole32(a->max_mr),
		.max_pd = htole32(a->max_pd),
		.max_qp_rd_atom = htole32(a->max_qp_rd_atom),
		.max_qp_init_rd_atom = htole32(a->max_qp_init_rd_atom),
		.max_ah = htole32(a->max_ah),
		.local_ca_ack_delay = a->local_ca_ack_delay,
	};

	memcpy(ack, &out, sizeof(out));
	return 0;
}

static int query_port(struct vdev_roce *r, const void *req, size_t len, void *ack,
		      struct rdma_error *err)
{
	const struct rdma_port_attr *p = &r->dev->ports[RDMA_QP_PORT - 1];
	struct virtio_roce_query_port_ack out = {
		.gid_tbl_len = htole32(p->gid_tbl_len),
		.max_msg_sz = htole32(p->max_msg_sz),
	};

	memcpy(ack, &out, sizeof(out));
	return 0;
}

static void ack_u32(void *ack, uint32_t value)
{
	struct virtio_roce_u32 out = { htole32(value) };

	memcpy(ack, &out, sizeof(out));
}

static uint32_t req_u32(const void *req)
{
	struct virtio_roce_u32 in;

	memcpy(&in, req, sizeof(in));
	return le32(in.value);
}

static int create_cq(struct vdev_roce *r, const void *req, size_t len, void *ack,
		     struct rdma_error *err)
{
	struct rdma_cq *cq;
	int ret = rdma_cq_create(r->dev, req_u32(req), false, &cq, err);

	if (ret < 0)
		return ret;
	ret = check_queue_handle(r, &cq->obj, r->max_cqs, err);
	if (ret < 0)
		return ret;
	make_own(r, &cq->obj);
	if (r->hooks && r->hooks->cq_created)
		r->hooks->cq_created(r->hooks_data, cq);
	ack_u32(ack, cq->obj.handle);
	return 0;
}

static int destroy_cq(struct vdev_roce *r, const void *req, size_t len, void *ack,
		      struct rdma_error *err)
{
	uint32_t cqn = req_u32(req);
	struct rdma_object *obj = own(r, RDMA_OBJ_CQ, cqn, err);

	if (!obj)
		return -ENOENT;
	if (obj->users)
		return rdma_object_destroy(r->dev, RDMA_OBJ_CQ, cqn, err);
	if (r->hooks && r->hooks->cq_destroying)
		r->hooks->cq_destroying(r->hooks_data, rdma_cq(obj));
	return rdma_object_destroy(r->dev, RDMA_OBJ_CQ, cqn, err);
}

static int create_pd(struct vdev_roce *r, const void *req, size_t len, void *ack,
		     struct rdma_error *err)
{
	struct rdma_object *pd = rdma_object_create(r->dev, RDMA_OBJ_PD, err);

	if (!pd)
		return -ENOSPC;
	make_own(r, pd);
	ack_u32(ack, pd->handle);
	return 0;
}

static int destroy_pd(struct vdev_roce *r, const void *req, size_t len, void *ack,
		      struct rdma_error *err)
{
	return destroy_own(r, RDMA_OBJ_PD, req_u32(req), err);
}

static void ack_mr(void *ack, const struct rdma_mr *mr)
{
	struct virtio_roce_mr_ack out = {
		.mrn = htole32(mr->obj.handle), .lkey = htole32(mr->obj.handle),
		.rkey = htole32(mr->rkey),
	};

	memcpy(ack, &out, sizeof(out));
}

/* The PD of a request, if it is the VM's. */
static int own_pd(struct vdev_roce *r, uint32_t pdn, struct rdma_error *err)
{
	return own(r, RDMA_OBJ_PD, pdn, err) ? 0 : -ENOENT;
}

static int get_dma_mr(struct vdev_roce *r, const void *req, size_t len, void *ack,
		      struct rdma_error *err)
{
	struct dp_dma_window w[DP_DMA_WINDOWS_MAX];
	struct virtio_roce_get_dma_mr in;
	struct rdma_mr *mr;
	unsigned n;
	int ret;

	memcpy(&in, req, sizeof(in));
	ret = own_pd(r, le32(in.pdn), err);
	if (ret < 0)
		return ret;
	n = r->mem.windows ? r->mem.windows(r->mem.data, w, DP_DMA_WINDOWS_MAX) : 0;
	if (n == 0)
		return rdma_error_state(err, "pdn", "the guest's memory table is not set yet");
	ret = rdma_mr_get_dma_windows(r->dev, le32(in.pdn), le32(in.access_flags), w, n, &mr, err);
	if (ret < 0)
		return ret;
	make_own(r, &mr->obj);
	ack_mr(ack, mr);
	return 0;
}

/*
 * The guest pages of an MR as runs of memory contiguous in the descriptors
 * they come from: each page must be whole, in the guest's memory, and a run
 * grows while the next page follows in the same descriptor.
 */
static int page_runs(struct vdev_roce *r, const uint8_t *pages, uint32_t npages,
		     struct rdma_mr_run *runs, unsigned *n_runs, struct rdma_error *err)
{
	unsigned n = 0;

	if (!r->mem.locate)
		return rdma_error_state(err, "pages", "the guest's memory table is not set yet");
	for (uint32_t i = 0; i < npages; i++) {
		uint64_t gpa, offset;
		int fd;

		memcpy(&gpa, pages + (size_t)i * sizeof(gpa), sizeof(gpa));
		gpa = le64(gpa);
		if (gpa % GUEST_PAGE)
			return rdma_error_invalid(err, "pages", "page %u (0x%llx) is not %llu-byte "
						  "aligned", i, (unsigned long long)gpa, GUEST_PAGE);
		if (r->mem.locate(r->mem.data, gpa, GUEST_PAGE, &fd, &offset) < 0)
			return rdma_error_invalid(err, "pages", "page %u (0x%llx) is not in the "
						  "guest's memory", i, (unsigned long long)gpa);
		if (n && runs[n - 1].fd == fd && runs[n - 1].offset + runs[n - 1].bytes == offset) {
			runs[n - 1].bytes += GUEST_PAGE;
			continue;
		}
		if (n == RDMA_MR_RUNS_MAX)
			return rdma_error_invalid(err, "pages", "scattered in more than %u runs of "
						  "contiguous guest memory", RDMA_MR_RUNS_MAX);
		runs[n++] = (struct rdma_mr_run){ .fd = fd, .offset = offset, .bytes = GUEST_PAGE };
	}
	*n_runs = n;
	return 0;
}

static int reg_user_mr(struct vdev_roce *r, const void *req, size_t len, void *ack,
		       struct rdma_error *err)
{
	struct virtio_roce_reg_user_mr in;
	uint64_t virt, length, first, need;
	struct rdma_mr_run *runs;
	struct rdma_mr *mr;
	unsigned n_runs = 0;
	uint32_t npages;
	int ret;

	memcpy(&in, req, sizeof(in));
	virt = le64(in.virt_addr);
	length = le64(in.length);
	npages = le32(in.npages);
	first = virt % GUEST_PAGE;
	if (length == 0 || length > r->dev->attr.max_mr_size)
		return rdma_error_invalid(err, "length", "%llu bytes; an MR holds 1 to %llu bytes",
					  (unsigned long long)length,
					  (unsigned long long)r->dev->attr.max_mr_size);
	need = (first + length + GUEST_PAGE - 1) / GUEST_PAGE;
	/* The pages follow the head in the same request: as many as the range spans, no more. */
	if (npages != need || (len - sizeof(in)) / sizeof(uint64_t) != npages)
		return rdma_error_invalid(err, "npages", "%u pages, with %zu given; %llu bytes from "
					  "virt_addr 0x%llx span %llu pages of %llu bytes", npages,
					  (len - sizeof(in)) / sizeof(uint64_t),
					  (unsigned long long)length, (unsigned long long)virt,
					  (unsigned long long)need, GUEST_PAGE);
	ret = own_pd(r, le32(in.pdn), err);
	if (ret < 0)
		return ret;
	runs = calloc(npages < RDMA_MR_RUNS_MAX ? npages : RDMA_MR_RUNS_MAX, sizeof(*runs));
	if (!runs)
		return rdma_error_system(err, -ENOMEM);
	ret = page_runs(r, (const uint8_t *)req + sizeof(in), npages, runs, &n_runs, err);
	if (ret == 0)
		ret = rdma_mr_register_runs(r->dev, le32(in.pdn), runs, n_runs, first, length, virt,
					    le32(in.access_flags), &mr, err);
	free(runs);
	if (ret < 0)
		return ret;
	make_own(r, &mr->obj);
	ack_mr(ack, mr);
	return 0;
}

static int dereg_mr(struct vdev_roce *r, const void *req, size_t len, void *ack,
		    struct rdma_error *err)
{
	return destroy_own(r, RDMA_OBJ_MR, req_u32(req), err);
}

static int create_qp(struct vdev_roce *r, const void *req, size_t len, void *ack,
		     struct rdma_error *err)
{
	static const int types[] = {
		[VIRTIO_IB_QPT_RC] = RDMA_QPT_RC, [VIRTIO_IB_QPT_UC] = RDMA_QPT_UC,
		[VIRTIO_IB_QPT_UD] = RDMA_QPT_UD,
	};
	struct virtio_roce_create_qp in;
	struct rdma_qp_init init;
	struct rdma_qp *qp;
	int ret;

	memcpy(&in, req, sizeof(in));
	if (in.qp_type < VIRTIO_IB_QPT_RC || in.qp_type > VIRTIO_IB_QPT_UD)
		return rdma_error_unsupported(err, "qp_type", "%u; the guest may create RC (2), UC (3) "
					      "and UD (4) QPs: SMI and GSI are the device's",
					      in.qp_type);
	if (in.sq_sig_all > 1)
		return rdma_error_invalid(err, "sq_sig_all", "%u; 0 or 1", in.sq_sig_all);
	ret = own_pd(r, le32(in.pdn), err);
	if (ret == 0 && !own(r, RDMA_OBJ_CQ, le32(in.send_cqn), err))
		ret = -ENOENT;
	if (ret == 0 && !own(r, RDMA_OBJ_CQ, le32(in.recv_cqn), err))
		ret = -ENOENT;
	if (ret < 0)
		return ret;
	init = (struct rdma_qp_init){
		.type = types[in.qp_type], .pd = le32(in.pdn),
		.send_cq = le32(in.send_cqn), .recv_cq = le32(in.recv_cqn),
		.cap = {
			.max_send_wr = le32(in.cap.max_send_wr), .max_recv_wr = le32(in.cap.max_recv_wr),
			.max_send_sge = le32(in.cap.max_send_sge),
			.max_recv_sge = le32(in.cap.max_recv_sge),
			.max_inline_data = le32(in.cap.max_inline_data),
		},
		.sq_sig_all = in.sq_sig_all,
	};
	ret = rdma_qp_create(r->dev, &init, &qp, err);
	if (ret < 0)
		return ret;
	ret = check_queue_handle(r, &qp->obj, r->max_qps, err);
	if (ret < 0)
		return ret;
	make_own(r, &qp->obj);
	if (r->hooks && r->hooks->qp_created)
		r->hooks->qp_created(r->hooks_data, qp);
	ack_u32(ack, qp->obj.handle);
	return 0;
}

static void av_in(struct rdma_ah_attr *av, const struct virtio_roce_ah_attr *in)
{
	*av = (struct rdma_ah_attr){
		.port = RDMA_QP_PORT, .flow_label = le32(in->grh.flow_label),
		.sgid_index = in->grh.sgid_index, .hop_limit = in->grh.hop_limit,
		.traffic_class = in->grh.traffic_class,
	};
	memcpy(av->dgid, in->grh.dgid, sizeof(av->dgid));
	memcpy(av->dmac, in->dmac, sizeof(av->dmac));
}

static void av_out(struct virtio_roce_ah_attr *out, const struct rdma_ah_attr *av)
{
	memcpy(out->grh.dgid, av->dgid, sizeof(out->grh.dgid));
	out->grh.flow_label = htole32(av->flow_label);
	out->grh.sgid_index = (uint8_t)av->sgid_index;
	out->grh.hop_limit = (uint8_t)av->hop_limit;
	out->grh.traffic_class = (uint8_t)av->traffic_class;
	memcpy(out->dmac, av->dmac, sizeof(out->dmac));
}

/* The mask bits MODIFY_QP knows besides the model's: CAP and RATE_LIMIT, which no transition allows. */
#define VIRTIO_IB_QP_CAP        (1u << 14)
#define VIRTIO_IB_QP_RATE_LIMIT (1u << 16)

static int modify_qp(struct vdev_roce *r, const void *req, size_t len, void *ack,
		     struct rdma_error *err)
{
	struct virtio_roce_modify_qp in;
	struct rdma_qp_attr attr;
	struct rdma_object *obj;
	uint32_t mask;
	int rc;

	memcpy(&in, req, sizeof(in));
	mask = le32(in.attr_mask);
	obj = own(r, RDMA_OBJ_QP, le32(in.qpn), err);
	if (!obj)
		return -ENOENT;
	if (mask & ~RDMA_QP_ATTR_ALL)
		return rdma_error_unsupported(err, "attr_mask", "0x%x: bits 0x%x are not attributes "
					      "a QP's transitions take (CAP and RATE_LIMIT are none's)",
					      mask, mask & ~RDMA_QP_ATTR_ALL);
	if (in.qp_state >= RDMA_QPS_COUNT || in.cur_qp_state >= RDMA_QPS_COUNT)
		return rdma_error_invalid(err, in.qp_state >= RDMA_QPS_COUNT ? "qp_state" :
					  "cur_qp_state", "%u; one of 0 (RESET) to 6 (ERR)",
					  in.qp_state >= RDMA_QPS_COUNT ? in.qp_state : in.cur_qp_state);
	if ((mask & RDMA_QP_PATH_MTU) && (in.path_mtu < 1 || in.path_mtu > 5))
		return rdma_error_invalid(err, "path_mtu", "%u; one of 1 (256) to 5 (4096)",
					  in.path_mtu);
	attr = (struct rdma_qp_attr){
		.state = in.qp_state, .cur_state = in.cur_qp_state,
		.access_flags = le32(in.a.qp_access_flags), .qkey = le32(in.a.qkey),
		.path_mtu = (mask & RDMA_QP_PATH_MTU) ? 128u << in.path_mtu : 0,
		.timeout = in.timeout, .retry_cnt = in.retry_cnt, .rnr_retry = in.rnr_retry,
		.rq_psn = le32(in.a.rq_psn), .max_rd_atomic = in.max_rd_atomic,
		.min_rnr_timer = in.min_rnr_timer, .sq_psn = le32(in.a.sq_psn),
		.max_dest_rd_atomic = in.max_dest_rd_atomic, .dest_qp_num = le32(in.a.dest_qp_num),
	};
	av_in(&attr.av, &in.a.ah_attr);
	if (r->hooks && r->hooks->qp_modifying)
		r->hooks->qp_modifying(r->hooks_data, rdma_qp(obj));
	rc = rdma_qp_modify(r->dev, rdma_qp(obj), &attr, mask, err);
	if (r->hooks && r->hooks->qp_modified)
		r->hooks->qp_modified(r->hooks_data, rdma_qp(obj));
	return rc;
}

static int query_qp(struct vdev_roce *r, const void *req, size_t len, void *ack,
		    struct rdma_error *err)
{
	struct virtio_roce_query_qp_ack out = { 0 };
	struct virtio_roce_query_qp in;
	const struct rdma_qp_attr *a;
	struct rdma_object *obj;
	struct rdma_qp *qp;

	memcpy(&in, req, sizeof(in));
	obj = own(r, RDMA_OBJ_QP, le32(in.qpn), err);
	if (!obj)
		return -ENOENT;
	qp = rdma_qp(obj);
	a = &qp->attr;
	/* Every attribute, whatever the mask asks, as the kernel's query_qp fills them all. */
	out.qp_state = (uint8_t)qp->state;
	out.path_mtu = (uint8_t)rdma_qp_mtu_enum(a->path_mtu);
	out.sq_draining = qp->sq_draining;
	out.max_rd_atomic = (uint8_t)a->max_rd_atomic;
	out.max_dest_rd_atomic = (uint8_t)a->max_dest_rd_atomic;
	out.min_rnr_timer = (uint8_t)a->min_rnr_timer;
	out.timeout = (uint8_t)a->timeout;
	out.retry_cnt = (uint8_t)a->retry_cnt;
	out.rnr_retry = (uint8_t)a->rnr_retry;
	out.a.qkey = htole32(a->qkey);
	out.a.rq_psn = htole32(a->rq_psn);
	out.a.sq_psn = htole32(a->sq_psn);
	out.a.dest_qp_num = htole32(a->dest_qp_num);
	out.a.qp_access_flags = htole32(a->access_flags);
	out.a.cap = (struct virtio_roce_qp_cap){
		.max_send_wr = htole32(qp->cap.max_send_wr), .max_recv_wr = htole32(qp->cap.max_recv_wr),
		.max_send_sge = htole32(qp->cap.max_send_sge),
		.max_recv_sge = htole32(qp->cap.max_recv_sge),
		.max_inline_data = htole32(qp->cap.max_inline_data),
	};
	av_out(&out.a.ah_attr, &a->av);
	memcpy(ack, &out, sizeof(out));
	return 0;
}

static int destroy_qp(struct vdev_roce *r, const void *req, size_t len, void *ack,
		      struct rdma_error *err)
{
	uint32_t qpn = req_u32(req);
	struct rdma_object *obj = own(r, RDMA_OBJ_QP, qpn, err);

	if (!obj)
		return -ENOENT;
	if (r->hooks && r->hooks->qp_destroying)
		r->hooks->qp_destroying(r->hooks_data, rdma_qp(obj));
	return rdma_object_destroy(r->dev, RDMA_OBJ_QP, qpn, err);
}

static int create_ah(struct vdev_roce *r, const void *req, size_t len, void *ack,
		     struct rdma_error *err)
{
	struct virtio_roce_create_ah in;
	struct rdma_ah_attr attr;
	struct rdma_ah *ah;
	int ret;

	memcpy(&in, req, sizeof(in));
	ret = own_pd(r, le32(in.pdn), err);
	if (ret < 0)
		return ret;
	av_in(&attr, &in.ah_attr);
	ret = rdma_ah_create(r->dev, le32(in.pdn), &attr, &ah, err);
	if (ret < 0)
		return ret;
	make_own(r, &ah->obj);
	ack_u32(ack, ah->obj.handle);
	return 0;
}

static int destroy_ah(struct vdev_roce *r, const void *req, size_t len, void *ack,
		      struct rdma_error *err)
{
	struct virtio_roce_destroy_ah in;
	struct rdma_object *obj;

	memcpy(&in, req, sizeof(in));
	obj = own(r, RDMA_OBJ_AH, le32(in.ah), err);
	if (!obj)
		return -ENOENT;
	if (rdma_ah(obj)->pd->handle != le32(in.pdn))
		return rdma_error_invalid(err, "pdn", "%u; AH %u is in PD %u", le32(in.pdn),
					  obj->handle, rdma_ah(obj)->pd->handle);
	return rdma_object_destroy(r->dev, RDMA_OBJ_AH, obj->handle, err);
}

static int add_gid(struct vdev_roce *r, const void *req, size_t len, void *ack,
		   struct rdma_error *err)
{
	struct virtio_roce_add_gid in;

	memcpy(&in, req, sizeof(in));
	return rdma_gid_add(r->dev, RDMA_QP_PORT, le16(in.index), in.gid, err);
}

static int del_gid(struct vdev_roce *r, const void *req, size_t len, void *ack,
		   struct rdma_error *err)
{
	struct virtio_roce_del_gid in;

	memcpy(&in, req, sizeof(in));
	return rdma_gid_del(r->dev, RDMA_QP_PORT, le16(in.index), err);
}

static int req_notify_cq(struct vdev_roce *r, const void *req, size_t len, void *ack,
			 struct rdma_error *err)
{
	struct virtio_roce_req_notify in;
	struct rdma_object *obj;
	uint32_t flags;

	memcpy(&in, req, sizeof(in));
	flags = le32(in.flags);
	obj = own(r, RDMA_OBJ_CQ, le32(in.cqn), err);
	if (!obj)
		return -ENOENT;
	if (flags != RDMA_CQ_NOTIFY_SOLICITED && flags != RDMA_CQ_NOTIFY_NEXT)
		return rdma_error_invalid(err, "flags", "0x%x; one of 1 (SOLICITED) and 2 "
					  "(NEXT_COMPLETION)", flags);
	if (r->hooks && r->hooks->cq_armed)
		r->hooks->cq_armed(r->hooks_data, rdma_cq(obj), flags);
	return 0;
}

static const struct command commands[VIRTIO_ROCE_COMMANDS] = {
	[VIRTIO_ROCE_QUERY_DEVICE] = { "QUERY_DEVICE", 0, sizeof(struct virtio_roce_query_device_ack),
				       query_device },
	[VIRTIO_ROCE_QUERY_PORT] = { "QUERY_PORT", 0, sizeof(struct virtio_roce_query_port_ack),
				     query_port },
	[VIRTIO_ROCE_CREATE_CQ] = { "CREATE_CQ", 4, 4, create_cq },
	[VIRTIO_ROCE_DESTROY_CQ] = { "DESTROY_CQ", 4, 0, destroy_cq },
	[VIRTIO_ROCE_CREATE_PD] = { "CREATE_PD", 0, 4, create_pd },
	[VIRTIO_ROCE_DESTROY_PD] = { "DESTROY_PD", 4, 0, destroy_pd },
	[VIRTIO_ROCE_GET_DMA_MR] = { "GET_DMA_MR", sizeof(struct virtio_roce_get_dma_mr),
				     sizeof(struct virtio_roce_mr_ack), get_dma_mr },
	[VIRTIO_ROCE_REG_USER_MR] = { "REG_USER_MR", sizeof(struct virtio_roce_reg_user_mr),
				      sizeof(struct virtio_roce_mr_ack), reg_user_mr },
	[VIRTIO_ROCE_DEREG_MR] = { "DEREG_MR", 4, 0, dereg_mr },
	[VIRTIO_ROCE_CREATE_QP] = { "CREATE_QP", sizeof(struct virtio_roce_create_qp), 4, create_qp },
	[VIRTIO_ROCE_MODIFY_QP] = { "MODIFY_QP", sizeof(struct virtio_roce_modify_qp), 0, modify_qp },
	[VIRTIO_ROCE_QUERY_QP] = { "QUERY_QP", sizeof(struct virtio_roce_query_qp),
				   sizeof(struct virtio_roce_query_qp_ack), query_qp },
	[VIRTIO_ROCE_DESTROY_QP] = { "DESTROY_QP", 4, 0, destroy_qp },
	[VIRTIO_ROCE_CREATE_AH] = { "CREATE_AH", sizeof(struct virtio_roce_create_ah), 4, create_ah },
	[VIRTIO_ROCE_DESTROY_AH] = { "DESTROY_AH", sizeof(struct virtio_roce_destroy_ah), 0,
				     destroy_ah },
	[VIRTIO_ROCE_ADD_GID] = { "ADD_GID", sizeof(struct virtio_roce_add_gid), 0, add_gid },
	[VIRTIO_ROCE_DEL_GID] = { "DEL_GID", sizeof(struct virtio_roce_del_gid), 0, del_gid },
	[VIRTIO_ROCE_REQ_NOTIFY_CQ] = { "REQ_NOTIFY_CQ", sizeof(struct virtio_roce_req_notify), 0,
					req_notify_cq },
};

const char *vdev_roce_command_name(unsigned cmd)
{
	return cmd < VIRTIO_ROCE_COMMANDS ? commands[cmd].name : NULL;
}

/*
 * Whether req_len bytes are the command's data: exactly its size (the
 * seed's structs have no variable part but REG_USER_MR's pages, which the
 * handler counts), and an ack room of at least its size.
 */
static bool sizes_fit(const struct command *c, unsigned cmd, size_t req_len, size_t ack_cap)
{
	bool pages = cmd == VIRTIO_ROCE_REG_USER_MR;

	if (ack_cap < c->ack_size || req_len < c->req_size)
		return false;
	return pages ? (req_len - c->req_size) % sizeof(uint64_t) == 0 : req_len == c->req_size;
}

uint8_t vdev_roce_command(struct vdev_roce *r, unsigned cmd, const void *req, size_t req_len,
			  void *ack, size_t ack_cap, size_t *ack_len)
{
	const struct command *c = cmd < VIRTIO_ROCE_COMMANDS ? &commands[cmd] : NULL;
	struct rdma_error err = { 0 };

	*ack_len = 0;
	if (!c || !sizes_fit(c, cmd, req_len, ack_cap)) {
		r->malformed++;
		if (c)
			rdma_error_invalid(&err, "command", "%s takes %zu bytes of data and %zu of ack; "
					   "%zu and %zu were given", c->name, c->req_size, c->ack_size,
					   req_len, ack_cap);
		else
			rdma_error_unsupported(&err, "command", "%u; the commands are 0 (QUERY_DEVICE) "
					       "to 17 (REQ_NOTIFY_CQ)", cmd);
		r->last_error = err;
		return VIRTIO_NET_ERR;
	}
	r->commands[cmd]++;
	memset(ack, 0, c->ack_size);
	if (c->run(r, req, req_len, ack, &err) < 0) {
		r->refused[cmd]++;
		r->last_error = err;
		r->last_refused = (int)cmd;
		memset(ack, 0, c->ack_size);
		return VIRTIO_NET_ERR;
	}
	*ack_len = c->ack_size;
	return VIRTIO_NET_OK;
}

/* Root's object built on one of the VM's (an MKEY over its MR): it goes first, and says so. */
static void built_on(const struct rdma_object *user, void *data)
{
	log_warning("a virtual machine went away: %s %u, built on its objects, goes with them",
		    rdma_object_kind_name(user->kind), user->handle);
}

void vdev_roce_reclaim(struct vdev_roce *r, unsigned reclaimed[RDMA_RECLAIM_KINDS])
{
	rdma_owner_reclaim(r->dev, r->owner, reclaimed, built_on, NULL, NULL);
}
