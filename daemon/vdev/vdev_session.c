/* SPDX-License-Identifier: MIT */
/*
 * A vdev's session: the vhost-user protocol with its front end
 * (dataplane/virtio/vhost_user.h) and the virtio-net RoCE device behind it.
 * The device is the VM's own RDMA device (docs/decisions.md, "A VM's RoCE
 * device"), made when the front end connects and at each reset, freed with
 * every object the guest made when the front end goes; its data path runs
 * on rdmad's workers.  The network queues and the control queue are served
 * here, on the main thread (net_queues.c, ctrl_queue.c).
 */
#include "daemon/vdev/session_int.h"
#include "daemon/vdev/vdev_session.h"
#include "daemon/vdev/virtio_net.h"
#include "daemon/soft/datapath.h"
#include "daemon/soft/soft_device.h"
#include "daemon/verbs/cq.h"
#include "daemon/verbs/gid.h"
#include "daemon/verbs/qp.h"
#include "lib/json-util.h"
#include "lib/log.h"

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

/* What the device offers: virtio-net with a MAC, link status, the control queue and RoCE. */
#define OFFERED_FEATURES                                                                       \
	(1ull << VIRTIO_NET_F_MAC | 1ull << VIRTIO_NET_F_STATUS | 1ull << VIRTIO_NET_F_CTRL_VQ |  \
	 1ull << VIRTIO_NET_F_ROCE | 1ull << VIRTIO_F_VERSION_1 |                                 \
	 1ull << VIRTIO_RING_F_INDIRECT_DESC | 1ull << VIRTIO_RING_F_EVENT_IDX)

/* ---- the VM's device ---- */

/* Device numbers past the host's, for their node GUIDs: one per device made. */
static unsigned next_device_index = 256;

static int device_new(struct vdev_session *s)
{
	int r = soft_device_create_vm(&s->dev, s->env.name, next_device_index++, s->env.max_qps,
				      s->env.max_cqs);

	if (r < 0)
		return r;
	if (s->env.workers) {
		r = rdma_device_start(s->dev, s->env.workers);
		/* The guest's RoCE v2 to other hosts: its own frames on its TAP, from its own addresses. */
		if (r == 0 && s->env.tap_fd >= 0) {
			struct dp_roce_link link = { .fd = s->env.tap_fd, .vnet_hdr = VIRTIO_NET_HDR_LEN };
			struct dp_roce_config cfg = { .port = ROCE_UDP_PORT };

			memcpy(link.mac, s->env.mac, sizeof(link.mac));
			r = rdma_datapath_roce_start_link(s->dev, &cfg, &link);
		}
		if (r < 0) {
			rdma_device_free(s->dev);
			s->dev = NULL;
			return r;
		}
	}
	s->roce.dev = s->dev;
	return 0;
}

/* Every object of the guest goes with the device; the DMA MRs' table is let go after them. */
static void device_free(struct vdev_session *s)
{
	unsigned reclaimed[RDMA_RECLAIM_KINDS] = { 0 };

	if (!s->dev)
		return;
	vdev_roce_reclaim(&s->roce, reclaimed);
	if (reclaimed[0] + reclaimed[1] + reclaimed[3] + reclaimed[4] + reclaimed[5])
		log_info("vdev %s: the guest's objects went: %u QPs, %u AHs, %u MRs, %u CQs, %u PDs",
			 s->env.name, reclaimed[0], reclaimed[1], reclaimed[3], reclaimed[4],
			 reclaimed[5]);
	rdma_device_free(s->dev);
	s->dev = NULL;
	s->roce.dev = NULL;
	vhost_mem_unref(s->dma_mem);
	s->dma_mem = NULL;
}

/* ---- guest memory, for the control door's MRs ---- */

static int locate(void *data, uint64_t gpa, uint64_t len, int *fd, uint64_t *offset)
{
	struct vdev_session *s = data;
	int region = s->dma_mem ? vhost_mem_gpa_region(s->dma_mem, gpa, len, offset) : -EFAULT;

	if (region < 0)
		return region;
	*fd = vhost_mem_region_fd(s->dma_mem, (unsigned)region);
	return *fd < 0 ? -EFAULT : 0;
}

static unsigned windows(void *data, struct dp_dma_window *out, unsigned max)
{
	struct vdev_session *s = data;
	unsigned n = s->dma_mem ? vhost_mem_region_count(s->dma_mem) : 0;

	for (unsigned i = 0; i < n && i < max; i++) {
		const struct vhost_mem_region_desc *d = vhost_mem_region(s->dma_mem, i);

		out[i] = (struct dp_dma_window){
			.iova = d->guest_phys, .length = d->size,
			.addr = vhost_mem_gpa(s->dma_mem, d->guest_phys, d->size),
		};
	}
	return n < max ? n : max;
}

/* ---- the device's side of the protocol ---- */

static int features_set(void *dev, uint64_t negotiated)
{
	struct vdev_session *s = dev;

	/* The modern header (12 bytes) is the only one served: a legacy front end is refused. */
	if (!(negotiated & (1ull << VIRTIO_F_VERSION_1))) {
		log_warning("vdev %s: the front end did not take VIRTIO_F_VERSION_1; legacy virtio is not "
			    "served", s->env.name);
		return -EINVAL;
	}
	if ((negotiated & (1ull << VIRTIO_NET_F_ROCE)) && !(negotiated & (1ull << VIRTIO_NET_F_CTRL_VQ))) {
		log_warning("vdev %s: VIRTIO_NET_F_ROCE needs VIRTIO_NET_F_CTRL_VQ", s->env.name);
		return -EINVAL;
	}
	s->features = negotiated;
	return 0;
}

static void put_le16(uint8_t *p, uint16_t v)
{
	v = htole16(v);
	memcpy(p, &v, sizeof(v));
}

static void put_le32(uint8_t *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, sizeof(v));
}

static int config_read(void *dev, uint32_t offset, void *buf, uint32_t size)
{
	struct vdev_session *s = dev;
	uint8_t cfg[VIRTIO_NET_CFG_SIZE] = { 0 };

	if (offset > sizeof(cfg) || size > sizeof(cfg) - offset)
		return -EINVAL;
	memcpy(cfg + VIRTIO_NET_CFG_MAC, s->env.mac, 6);
	put_le16(cfg + VIRTIO_NET_CFG_STATUS, VIRTIO_NET_S_LINK_UP);
	put_le16(cfg + VIRTIO_NET_CFG_MAX_VQ_PAIRS, 1);
	put_le32(cfg + VIRTIO_NET_CFG_MAX_RDMA_QPS, s->env.max_qps);
	put_le32(cfg + VIRTIO_NET_CFG_MAX_RDMA_CQS, s->env.max_cqs);
	memcpy(buf, cfg + offset, size);
	return 0;
}

/* Every field is the device's: a driver changes its MAC through the control queue's MAC class, which is not offered. */
static int config_write(void *dev, uint32_t offset, const void *buf, uint32_t size, uint32_t flags)
{
	return -EPERM;
}

/*
 * Serves q, and asks the guest to kick at its next chain (with EVENT_IDX it
 * kicks only when asked to); a queue whose serving takes every chain is
 * served again while one came meanwhile.  Receive buffers wait for frames:
 * receiveq1 is served when one comes, a kick only says there is room.
 */
static void serve_queue(struct vdev_mainq *q)
{
	bool more;

	do {
		q->serve(q->session);
		more = q->vq && vq_kick_enable(q->vq);
	} while (more && q->drains);
}

static int on_kick(sd_event_source *src, int fd, uint32_t revents, void *userdata)
{
	struct vdev_mainq *q = userdata;

	if (!q->vq)
		return 0;
	vq_kick_read(q->vq);
	serve_queue(q);
	return 0;
}

static struct vdev_mainq *main_queue(struct vdev_session *s, unsigned index)
{
	switch (index) {
	case VDEV_VQ_RX:   return &s->rx;
	case VDEV_VQ_TX:   return &s->tx;
	case VDEV_VQ_CTRL: return &s->ctrl;
	}
	return NULL;
}

static int queue_start(void *dev, unsigned index, struct virtqueue *vq)
{
	struct vdev_session *s = dev;
	struct vdev_mainq *q = main_queue(s, index);
	int r;

	if (!q) {
		r = vdev_rdma_queue_start(s, index, vq);
		if (r == -EINVAL)
			log_warning("vdev %s: queue %u without a kick descriptor: polled queues are not "
				    "served", s->env.name, index);
		if (r == 0)
			s->rdma_queues++;
		return r;
	}
	if (vq_kick_fd(vq) < 0) {
		log_warning("vdev %s: queue %u without a kick descriptor: polled queues are served only "
			    "for RDMA", s->env.name, index);
		return -EINVAL;
	}
	r = sd_event_add_io(s->env.event, &q->kick, vq_kick_fd(vq), EPOLLIN, on_kick, q);
	if (r < 0)
		return r;
	q->vq = vq;
	/* What the guest queued before the queue ran. */
	serve_queue(q);
	return 0;
}

static void queue_stop(void *dev, unsigned index)
{
	struct vdev_session *s = dev;
	struct vdev_mainq *q = main_queue(s, index);

	if (!q) {
		vdev_rdma_queue_stop(s, index);
		if (s->rdma_queues)
			s->rdma_queues--;
		return;
	}
	q->kick = sd_event_source_disable_unref(q->kick);
	q->vq = NULL;
}

/* A reset device has none of the guest's objects: a new device, as at connection. */
static void reset(void *dev)
{
	struct vdev_session *s = dev;
	int r;

	device_free(s);
	s->features = 0;
	if (s->closing)
		return;
	r = device_new(s);
	if (r < 0)
		log_error_errno(r, "vdev %s: cannot make the device again after a reset", s->env.name);
}

/* ---- what the control door tells of the guest's objects ---- */

static void cq_created(void *data, struct rdma_cq *cq)
{
	vdev_rdma_object_ready(data, RDMA_OBJ_CQ, cq->obj.handle);
}

static void qp_created(void *data, struct rdma_qp *qp)
{
	vdev_rdma_object_ready(data, RDMA_OBJ_QP, qp->obj.handle);
}

/* A QP's send queue may run on its worker only while the QP's state is that worker's to know. */
static void qp_changing(void *data, struct rdma_qp *qp)
{
	vdev_rdma_qp_changing(data, qp->obj.handle);
}

static void qp_changed(void *data, struct rdma_qp *qp)
{
	vdev_rdma_qp_changed(data, qp->obj.handle);
}

static void cq_armed(void *data, struct rdma_cq *cq, uint32_t flags)
{
	vdev_rdma_armed(data, cq->obj.handle, flags);
}

static const struct vdev_roce_hooks roce_hooks = {
	.cq_created = cq_created, .qp_created = qp_created, .cq_armed = cq_armed,
	.qp_destroying = qp_changing, .qp_modifying = qp_changing, .qp_modified = qp_changed,
};

/* ---- the session ---- */

static int on_socket(sd_event_source *src, int fd, uint32_t revents, void *userdata)
{
	struct vdev_session *s = userdata;
	int r = vhost_user_session_handle(s->vu);
	const char *why;

	if (r >= 0)
		return 0;
	why = vhost_user_session_error(s->vu);
	if (r == -ECONNRESET)
		log_info("vdev %s: the front end closed its connection", s->env.name);
	else
		log_warning("vdev %s: ending the front end's session: %s", s->env.name,
			    why ? why : strerror(-r));
	s->env.ended(s->env.data);
	return 0;
}

int vdev_session_open(struct vdev_session **out, const struct vdev_session_env *env, int fd,
		      const struct ucred *peer)
{
	struct vdev_session *s = calloc(1, sizeof(*s) + sizeof(struct vhost_user_device_ops));
	struct vhost_user_device_ops *ops;
	int r;

	if (!s) {
		close(fd);
		return -ENOMEM;
	}
	ops = (struct vhost_user_device_ops *)(s + 1);
	*ops = (struct vhost_user_device_ops){
		.features = OFFERED_FEATURES,
		.num_queues = VDEV_QUEUES(env->max_qps, env->max_cqs),
		/* A front end that shrank a file under rdmad would fault it. */
		.mem_flags = VHOST_MEM_SEALED_ONLY,
		.features_set = features_set, .config_read = config_read, .config_write = config_write,
		.queue_start = queue_start, .queue_stop = queue_stop, .reset = reset,
	};
	s->env = *env;
	s->rx = (struct vdev_mainq){ .session = s, .serve = vdev_net_rx };
	s->tx = (struct vdev_mainq){ .session = s, .serve = vdev_net_tx, .drains = true };
	s->ctrl = (struct vdev_mainq){ .session = s, .serve = vdev_ctrl_serve, .drains = true };
	s->roce = (struct vdev_roce){
		.owner = s, .owner_uid = peer->uid, .max_qps = env->max_qps,
		.max_cqs = env->max_cqs, .last_refused = -1,
		.mem = { .locate = locate, .windows = windows, .data = s },
		.hooks = &roce_hooks, .hooks_data = s,
	};
	r = device_new(s);
	if (r == 0) {
		r = vhost_user_session_new(fd, ops, s, &s->vu);
		if (r < 0)
			close(fd);
	} else {
		close(fd);
	}
	if (r == 0)
		r = sd_event_add_io(env->event, &s->source, vhost_user_session_fd(s->vu), EPOLLIN,
				    on_socket, s);
	if (r == 0)
		r = vdev_net_watch(s, true);
	if (r < 0) {
		vdev_session_close(s);
		return r;
	}
	*out = s;
	return 0;
}

void vdev_session_close(struct vdev_session *s)
{
	if (!s)
		return;
	/* The source may be the one running (on_socket -> vdev_session_ended): sd-event allows that. */
	s->source = sd_event_source_disable_unref(s->source);
	/* Every queue stops (queue_stop) and the device resets, then the fds close. */
	s->closing = true;
	vhost_user_session_free(s->vu);
	device_free(s);
	vdev_net_watch(s, false);
	vdev_rdma_free(s);
	free(s->rx_frame);
	free(s);
}

/* ---- what `vdev show` says ---- */

/* What a queue is for, in name[size]: "controlq", "cq 3", "qp 2 send"... */
static const char *queue_name(const struct vdev_session *s, unsigned index, char *name, size_t size)
{
	unsigned cqs = s->env.max_cqs, qp;

	switch (index) {
	case VDEV_VQ_RX:   return "receiveq1";
	case VDEV_VQ_TX:   return "transmitq1";
	case VDEV_VQ_CTRL: return "controlq";
	}
	if (index < VDEV_VQ_FIRST_CQ + cqs) {
		snprintf(name, size, "cq %u", index - VDEV_VQ_FIRST_CQ);
		return name;
	}
	qp = (index - VDEV_VQ_FIRST_CQ - cqs) / 2;
	snprintf(name, size, "qp %u %s", qp, (index - VDEV_VQ_FIRST_CQ - cqs) % 2 ? "receive" : "send");
	return name;
}

static struct json_object *queues_json(const struct vdev_session *s)
{
	struct json_object *list = json_object_new_array();
	unsigned n = VDEV_QUEUES(s->env.max_qps, s->env.max_cqs);

	for (unsigned i = 0; i < n; i++) {
		const struct virtqueue *vq = vhost_user_session_queue(s->vu, i);
		struct json_object *o;
		char name[32];

		/* Only the queues the front end set up. */
		if (!vq || !vq->num)
			continue;
		o = json_object_new_object();
		json_add_uint(o, "index", i);
		json_add_string(o, "name", queue_name(s, i, name, sizeof(name)));
		json_add_uint(o, "size", vq->num);
		json_add_bool(o, "running", vq_running(vq));
		json_object_object_add(o, "broken", vq_broken(vq) ?
				       json_object_new_string(vq_broken(vq)) : NULL);
		json_add_uint(o, "popped", atomic_load(&vq->counters.popped));
		json_add_uint(o, "pushed", atomic_load(&vq->counters.pushed));
		json_add_uint(o, "signals", atomic_load(&vq->counters.signals));
		json_add_uint(o, "kicks", atomic_load(&vq->counters.kicks));
		json_add_uint(o, "errors", atomic_load(&vq->counters.errors));
		json_object_array_add(list, o);
	}
	return list;
}

/* The GIDs the guest added (its device's one port). */
static unsigned gids(const struct rdma_device *dev)
{
	unsigned n = 0;

	for (uint32_t i = 0; dev && i < dev->ports[RDMA_QP_PORT - 1].gid_tbl_len; i++)
		n += dev->gid_tables[RDMA_QP_PORT - 1][i].valid;
	return n;
}

static struct json_object *objects_json(const struct vdev_session *s)
{
	static const enum rdma_object_kind kinds[] = {
		RDMA_OBJ_PD, RDMA_OBJ_MR, RDMA_OBJ_CQ, RDMA_OBJ_QP, RDMA_OBJ_AH,
	};
	struct json_object *o = json_object_new_object();

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		char key[32];

		snprintf(key, sizeof(key), "%ss", rdma_object_kind_name(kinds[i]));
		json_add_uint(o, key, s->dev ? s->dev->tables[kinds[i]].count : 0);
	}
	json_add_uint(o, "gids", gids(s->dev));
	return o;
}

/* The control queue: requests received, refused, not the seed's, and the last refusal. */
static struct json_object *control_json(const struct vdev_session *s)
{
	const struct vdev_roce *r = &s->roce;
	struct json_object *o = json_object_new_object(), *last = NULL;
	uint64_t received = r->malformed, refused = 0;

	for (unsigned c = 0; c < VIRTIO_ROCE_COMMANDS; c++) {
		received += r->commands[c];
		refused += r->refused[c];
	}
	json_add_uint(o, "received", received);
	json_add_uint(o, "refused", refused);
	json_add_uint(o, "malformed", r->malformed);
	if (r->last_refused >= 0) {
		char reason[sizeof(r->last_error.reason) + 64];

		last = json_object_new_object();
		json_add_string(last, "command", vdev_roce_command_name((unsigned)r->last_refused));
		json_add_string(last, "error", rdma_error_name(r->last_error.code));
		/* A refusal of an object (none such, in use, a limit) names no field. */
		json_object_object_add(last, "field", r->last_error.field[0] ?
				       json_object_new_string(r->last_error.field) : NULL);
		rdma_error_describe(&r->last_error, reason, sizeof(reason));
		json_add_string(last, "reason", reason);
	}
	json_object_object_add(o, "last_refused", last);
	return o;
}

struct rdma_device *vdev_session_device(const struct vdev_session *s)
{
	return s ? s->dev : NULL;
}

void vdev_session_info(const struct vdev_session *s, struct json_object *o)
{
	if (!s)
		return;
	json_add_uint(o, "features", vhost_user_session_features(s->vu));
	json_add_uint(o, "protocol_features", vhost_user_session_protocol_features(s->vu));
	json_object_object_add(o, "queues", queues_json(s));
	json_object_object_add(o, "objects", objects_json(s));
	json_object_object_add(o, "control", control_json(s));
	/* The guest's Ethernet frames, as the VNIC ports count theirs. */
	json_add_uint(o, "tx_frames", s->net.tx_frames);
	json_add_uint(o, "tx_dropped", s->net.tx_dropped);
	json_add_uint(o, "rx_frames", s->net.rx_frames);
	json_add_uint(o, "rx_dropped", s->net.rx_dropped);
}
