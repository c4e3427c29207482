/* SPDX-License-Identifier: MIT */
/*
 * session.c - the vhost-user session as QEMU opens one: features and
 * protocol features, owner, the memory table with the memfd twice (two
 * regions), the config space; and the commands negotiate, config, start and
 * reconnect.
 */
#include "guest.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CTRL_PAGES	40	/* header and ack, ack data, then a request of up to 38 pages */

int session_connect(struct guest *g)
{
	g->vu.timeout_ms = CTRL_TIMEOUT_MS;
	return vu_connect(&g->vu, g->socket_path);
}

void session_mem_table(const struct guest *g, struct vhost_user_memory *mem)
{
	unsigned r;

	memset(mem, 0, sizeof(*mem));
	mem->nregions = GUEST_REGIONS;
	for (r = 0; r < GUEST_REGIONS; r++) {
		mem->regions[r].guest_phys_addr = g->mem.region[r].gpa;
		mem->regions[r].memory_size = g->mem.region[r].size;
		mem->regions[r].userspace_addr = (uint64_t)(uintptr_t)g->mem.region[r].host;
		mem->regions[r].mmap_offset = g->mem.region[r].mmap_offset;
	}
}

/* One fd per region, as the spec asks; here the same memfd each time. */
int session_send_mem_table(struct guest *g, const struct vhost_user_memory *mem, uint64_t *refused)
{
	int fds[VHOST_USER_MAX_REGIONS];
	unsigned r;

	for (r = 0; r < mem->nregions && r < VHOST_USER_MAX_REGIONS; r++)
		fds[r] = g->mem.fd;
	return vu_request(&g->vu, VHOST_USER_SET_MEM_TABLE, mem,
			  (uint32_t)(8 + mem->nregions * sizeof(struct vhost_user_region)), fds,
			  mem->nregions, refused);
}

/* What this driver takes of what the device offers. */
static uint64_t wanted_features(const struct guest *g)
{
	uint64_t want = 1ull << VIRTIO_F_VERSION_1 | 1ull << VIRTIO_NET_F_CTRL_VQ |
			1ull << VIRTIO_NET_F_MAC | 1ull << VHOST_USER_F_PROTOCOL_FEATURES;

	if (g->want_roce)
		want |= 1ull << VIRTIO_NET_F_ROCE;
	if (g->want_indirect)
		want |= 1ull << VIRTIO_F_INDIRECT_DESC;
	if (g->want_event_idx)
		want |= 1ull << VIRTIO_F_EVENT_IDX;
	return want;
}

/* A step that failed: the request's name and why ("refused" for a REPLY_ACK non-zero). */
static int step_failed(struct guest *g, uint32_t request, int r, uint64_t refused)
{
	if (r < 0)
		return reply_fail(g, "%s: %s", vu_request_name(request), strerror(-r));
	return reply_fail(g, "%s refused (%" PRIu64 ")", vu_request_name(request), refused);
}

int session_negotiate(struct guest *g)
{
	struct vhost_user_memory mem;
	uint64_t offered, protocol = 0, queues = 0, refused = 0, want;
	int r;

	g->negotiated = false;
	g->have_config = false;
	r = vu_get_u64(&g->vu, VHOST_USER_GET_FEATURES, &offered);
	if (r < 0)
		return step_failed(g, VHOST_USER_GET_FEATURES, r, 0);
	if (!((offered >> VIRTIO_F_VERSION_1) & 1))
		return reply_fail(g, "device does not offer VERSION_1 (features 0x%" PRIx64 ")",
				  offered);
	r = vu_send(&g->vu, VHOST_USER_SET_OWNER, 0, NULL, 0, NULL, 0);
	if (r < 0)
		return step_failed(g, VHOST_USER_SET_OWNER, r, 0);
	if ((offered >> VHOST_USER_F_PROTOCOL_FEATURES) & 1) {
		r = vu_get_u64(&g->vu, VHOST_USER_GET_PROTOCOL_FEATURES, &protocol);
		if (r < 0)
			return step_failed(g, VHOST_USER_GET_PROTOCOL_FEATURES, r, 0);
		protocol &= 1ull << VHOST_USER_PROTOCOL_F_MQ | 1ull << VHOST_USER_PROTOCOL_F_REPLY_ACK |
			    1ull << VHOST_USER_PROTOCOL_F_CONFIG;
		r = vu_send(&g->vu, VHOST_USER_SET_PROTOCOL_FEATURES, 0, &protocol, sizeof(protocol),
			    NULL, 0);
		if (r < 0)
			return step_failed(g, VHOST_USER_SET_PROTOCOL_FEATURES, r, 0);
		g->vu.reply_ack = (protocol >> VHOST_USER_PROTOCOL_F_REPLY_ACK) & 1;
	}
	want = offered & wanted_features(g);
	r = vu_request(&g->vu, VHOST_USER_SET_FEATURES, &want, sizeof(want), NULL, 0, &refused);
	if (r < 0 || refused)
		return step_failed(g, VHOST_USER_SET_FEATURES, r, refused);
	if ((protocol >> VHOST_USER_PROTOCOL_F_MQ) & 1) {
		r = vu_get_u64(&g->vu, VHOST_USER_GET_QUEUE_NUM, &queues);
		if (r < 0)
			return step_failed(g, VHOST_USER_GET_QUEUE_NUM, r, 0);
	}
	session_mem_table(g, &mem);
	r = session_send_mem_table(g, &mem, &refused);
	if (r < 0 || refused)
		return step_failed(g, VHOST_USER_SET_MEM_TABLE, r, refused);
	g->features = want;
	g->protocol = protocol;
	g->negotiated = true;
	if ((protocol >> VHOST_USER_PROTOCOL_F_MQ) & 1)
		return reply_ok("features=0x%" PRIx64 " protocol=0x%" PRIx64 " queues=%" PRIu64,
				want, protocol, queues);
	return reply_ok("features=0x%" PRIx64 " protocol=0x%" PRIx64 " queues=unknown", want,
			protocol);
}

/* GET_CONFIG of the whole virtio_net_config; 0, or a negative errno / -EPROTO. */
int session_get_config(struct guest *g)
{
	struct vhost_user_config req = { .offset = 0, .size = sizeof(struct virtio_net_config) };
	struct vhost_user_config rep;
	int r;

	if (!((g->protocol >> VHOST_USER_PROTOCOL_F_CONFIG) & 1))
		return -EOPNOTSUPP;
	r = vu_send(&g->vu, VHOST_USER_GET_CONFIG, 0, &req, 12 + req.size, NULL, 0);
	if (r < 0)
		return r;
	r = vu_recv(&g->vu, VHOST_USER_GET_CONFIG, &rep, sizeof(rep));
	if (r < 0)
		return r;
	/* A refusal is a reply without payload, or one of another size. */
	if (r != (int)(12 + sizeof(struct virtio_net_config)) || rep.size != req.size)
		return -EPROTO;
	memcpy(&g->config, rep.payload, sizeof(g->config));
	g->have_config = true;
	return 0;
}

/* Drops every queue and buffer of the session; guest memory stays. */
void session_reset(struct guest *g)
{
	unsigned i;

	for (i = 0; i < g->nvqs; i++)
		vq_release(g, i);
	free(g->vqs);
	g->vqs = NULL;
	g->nvqs = 0;
	if (g->ctrl_pages)
		guest_mem_free(&g->mem, g->ctrl_gpa, g->ctrl_pages);
	g->ctrl_pages = 0;
	g->started = false;
}

static int cmd_negotiate(struct guest *g, struct args *a)
{
	if (args_done(a, 0) < 0)
		return reply_fail(g, "%s", a->err);
	return session_negotiate(g);
}

static int cmd_config(struct guest *g, struct args *a)
{
	const struct virtio_net_config *c = &g->config;
	int r;

	if (args_done(a, 0) < 0)
		return reply_fail(g, "%s", a->err);
	if (!g->negotiated)
		return reply_fail(g, "negotiate first");
	r = session_get_config(g);
	if (r == -EOPNOTSUPP)
		return reply_fail(g, "GET_CONFIG: protocol feature CONFIG not offered");
	if (r == -EPROTO)
		return reply_fail(g, "GET_CONFIG refused (reply without the %zu bytes asked)",
				  sizeof(*c));
	if (r < 0)
		return reply_errno(g, "GET_CONFIG", r);
	return reply_ok("mac=%02x:%02x:%02x:%02x:%02x:%02x status=%u max_virtqueue_pairs=%u mtu=%u "
			"max_rdma_qps=%u max_rdma_cqs=%u",
			c->mac[0], c->mac[1], c->mac[2], c->mac[3], c->mac[4], c->mac[5], c->status,
			c->max_virtqueue_pairs, c->mtu, c->max_rdma_qps, c->max_rdma_cqs);
}

static int cmd_start(struct guest *g, struct args *a)
{
	char err[160];
	unsigned nvqs = VQ_CQ_FIRST;
	int r;

	if (args_done(a, 0) < 0)
		return reply_fail(g, "%s", a->err);
	if (!g->negotiated)
		return reply_fail(g, "negotiate first");
	if (g->started)
		return reply_fail(g, "already started");
	if (!HAS(g, VIRTIO_NET_F_CTRL_VQ))
		return reply_fail(g, "device does not offer CTRL_VQ");
	if (HAS(g, VIRTIO_NET_F_ROCE)) {
		r = g->have_config ? 0 : session_get_config(g);
		if (r < 0)
			return reply_fail(g, "ROCE needs the config space (max_rdma_cqs): %s",
					  strerror(-r));
		if (g->config.max_rdma_qps < 1 || g->config.max_rdma_qps > 16384 ||
		    g->config.max_rdma_cqs < 1 || g->config.max_rdma_cqs > 16384)
			return reply_fail(g, "config max_rdma_qps=%u max_rdma_cqs=%u out of 1..16384",
					  g->config.max_rdma_qps, g->config.max_rdma_cqs);
		nvqs += g->config.max_rdma_cqs + 2 * g->config.max_rdma_qps;
	}
	g->vqs = calloc(nvqs, sizeof(*g->vqs));
	if (!g->vqs)
		return reply_errno(g, "start", ENOMEM);
	g->nvqs = nvqs;
	if (guest_mem_alloc(&g->mem, CTRL_PAGES, &g->ctrl_gpa) < 0) {
		session_reset(g);
		return reply_fail(g, "guest memory full (--mem)");
	}
	g->ctrl_pages = CTRL_PAGES;
	if (vq_setup(g, VQ_RX, VQ_KIND_RX, NET_BUF_SIZE, err, sizeof(err)) < 0 ||
	    vq_setup(g, VQ_TX, VQ_KIND_TX, NET_BUF_SIZE, err, sizeof(err)) < 0 ||
	    vq_setup(g, VQ_CTRL, VQ_KIND_CTRL, 0, err, sizeof(err)) < 0) {
		session_reset(g);
		return reply_fail(g, "%s", err);
	}
	g->started = true;
	return reply_ok("vqs=%u", nvqs);
}

static int cmd_reconnect(struct guest *g, struct args *a)
{
	int r;

	if (args_done(a, 0) < 0)
		return reply_fail(g, "%s", a->err);
	session_reset(g);
	vu_close(&g->vu);
	g->negotiated = false;
	r = session_connect(g);
	if (r < 0)
		return reply_errno(g, "connect", r);
	return session_negotiate(g);
}

const struct command session_commands[] = {
	{ "negotiate", cmd_negotiate },
	{ "config", cmd_config },
	{ "start", cmd_start },
	{ "reconnect", cmd_reconnect },
	{ NULL, NULL },
};
