/* SPDX-License-Identifier: MIT */
/*
 * The OPA port of a device: MADs in and out, the VEMA agent's decisions carried
 * to the TAP interfaces and the NIC, the host's actions carried back.
 */
#include "daemon/vnic/vnic.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/soft/workers.h"
#include "daemon/verbs/device.h"
#include "daemon/verbs/event.h"
#include "daemon/vnic/vnic_fabric.h"
#include "daemon/vnic/mad_umad.h"
#include "daemon/vnic/netdev_linux.h"
#include "dataplane/opa/vnic_encap.h"
#include "dataplane/opa/vnic_port.h"
#include "lib/log.h"

#define OPA_PORT_NUM 1

static uint64_t monotonic_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static bool mac_is_zero(const uint8_t mac[6])
{
	static const uint8_t zero[6];

	return memcmp(mac, zero, 6) == 0;
}

/* ---- the data path of a port */

/* The snapshot the workers read: the agent's tables, the interface's MTU, passing or not. */
static struct opa_vport_config *port_config(const struct vnic_port *p, const struct vnic_vport *vp)
{
	static struct opa_vnic_mac_entry macs[VNIC_MAC_TBL_ENTRIES];   /* main thread only */
	struct opa_vnic_dlid_tables tables;
	struct opa_vnic_port hdr;

	vport_encap_port(vp, &hdr);
	vport_dlid_tables(vp, &tables, macs, VNIC_MAC_TBL_ENTRIES);
	return opa_vport_config_new(&hdr, &tables, vnic_port_mtu(p), vport_oper_up(vp));
}

/* Every worker that may read what p's data path or the fabric published: both. */
static void barrier_port(struct vnic_service *s, const struct vnic_port *p)
{
	dp_worker_barrier(s->fabric_worker);
	if (p && p->worker != s->fabric_worker)
		dp_worker_barrier(p->worker);
}

static void publish_port(struct vnic_port *p)
{
	struct vnic_vport *vp = vema_vport(&p->svc->vema, p->index);
	struct opa_vport_config *c, *old;

	if (!p->dp || !vp)
		return;
	c = port_config(p, vp);
	if (!c) {
		log_error("vnic %u: out of memory for its configuration; the old one stays", p->index);
		return;
	}
	old = opa_vport_publish(p->dp, c);
	barrier_port(p->svc, p);
	opa_vport_config_free(old);
}

/* The vesw_id → port table of the fabric, rebuilt from every port. */
static void publish_vesw_table(struct vnic_service *s)
{
	struct opa_vesw_table *t, *old;

	if (!s->fabric)
		return;
	t = opa_vesw_table_new();
	if (!t) {
		log_error("out of memory for the VNIC switch table; the old one stays");
		return;
	}
	for (unsigned i = 0; i < VNIC_MAX_VPORTS; i++) {
		struct vnic_port *p = s->ports[i];
		struct vnic_vport *vp = vema_vport(&s->vema, i);
		uint16_t vesw;

		if (!p || !p->dp || !vp)
			continue;
		vesw = vp->info.vesw.vesw_id & OPA_VNIC_VESW_MASK;
		/* vesw_id 0 cannot open (reference §2.3): nothing to it is delivered. */
		if (vesw && opa_vesw_table_set(t, vesw, p->dp) == -EEXIST)
			log_warning("vnic %u: vesw_id %u is another port's already; its frames go there",
				    i, vesw);
	}
	old = opa_fabric_publish_vesw(s->fabric, t);
	dp_worker_barrier(s->fabric_worker);
	opa_vesw_table_free(old);
}

/* ---- events to the monitor */

static void post(struct vnic_service *s, struct rdma_event *ev)
{
	if (s->restoring)
		return;
	ev->kind = RDMA_OBJ_VNIC;
	rdma_device_post_event(s->env.dev, ev);
}

static void tell_state(struct vnic_port *p, const struct vnic_vport *vp)
{
	bool passing = vport_oper_up(vp);
	struct rdma_event ev = {
		.type = RDMA_EVENT_VNIC_STATE,
		.handle = p->index,
		.old_state = p->told_oper_state,
		.new_state = vp->info.port.oper_state,
		.passing = passing,
	};

	if (p->told_oper_state == vp->info.port.oper_state && p->told_passing == passing)
		return;
	p->told_oper_state = vp->info.port.oper_state;
	p->told_passing = passing;
	post(p->svc, &ev);
}

/* ---- the agent's side effects (struct vema_ops) */

static void port_free(struct vnic_service *s, struct vnic_port *p)
{
	if (!p)
		return;
	if (p->dp) {
		dp_worker_submit_wait(p->worker, opa_vport_detach, p->dp);
		barrier_port(s, p);
		opa_vport_free(p->dp);
	}
	vnic_netdev_destroy(p->netdev);
	free(p);
}

static void on_admin(void *userdata, bool up);
static void on_mac(void *userdata, const uint8_t mac[6]);
static void on_mtu(void *userdata, unsigned mtu);
static void on_mc_list(void *userdata, const struct vnic_mac_list *list);

static const struct vnic_netdev_events netdev_events = {
	.on_admin = on_admin,
	.on_mac = on_mac,
	.on_mtu = on_mtu,
	.on_mc_list = on_mc_list,
};

/* "vnic3" for the first device's port 3, "vnic1_3" for device 1's. */
static void port_ifname(const struct vnic_service *s, unsigned index, char *buf, size_t size)
{
	/* Both below 256 (RDMAD_MAX_DEVICES, VNIC_MAX_VPORTS): at most "vnic255_255". */
	if (s->env.dev->index == 0)
		snprintf(buf, size, "vnic%hhu", (uint8_t)index);
	else
		snprintf(buf, size, "vnic%hhu_%hhu", (uint8_t)s->env.dev->index, (uint8_t)index);
}

static int vport_created(void *ctx, struct vnic_vport *vp)
{
	struct vnic_service *s = ctx;
	struct opa_vport_config *c;
	struct vnic_port *p;
	int r;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->svc = s;
	p->index = vp->index;
	p->told_oper_state = vp->info.port.oper_state;
	port_ifname(s, vp->index, p->ifname, sizeof(p->ifname));
	r = vnic_netdev_create(&p->netdev, s->watch, p->ifname, &netdev_events, p);
	if (r < 0) {
		log_error_errno(r, "vnic %u: cannot create interface %s", vp->index, p->ifname);
		free(p);
		return r;
	}
	if (s->fabric) {
		p->worker = worker_set_pick(s->env.workers);
		p->worker_index = p->worker->index;
		c = port_config(p, vp);
		r = c ? opa_vport_new(&p->dp, s->fabric, vnic_netdev_fd(p->netdev), c) : -ENOMEM;
		if (r < 0) {
			opa_vport_config_free(c);
			goto fail;
		}
		r = opa_vport_set_vnet_hdr(p->dp, vnic_netdev_vnet_hdr_len(p->netdev));
		if (r < 0)
			goto fail;
		dp_worker_submit_wait(p->worker, opa_vport_attach, p->dp);
		dp_worker_barrier(p->worker);
		r = opa_vport_attach_error(p->dp);
		if (r < 0)
			goto fail;
	}
	s->ports[vp->index] = p;
	s->n_ports++;
	log_info("vnic %u: created, interface %s", vp->index, p->ifname);
	post(s, &(struct rdma_event) { .type = RDMA_EVENT_OBJECT_CREATED, .handle = vp->index });
	return 0;
fail:
	log_error_errno(r, "vnic %u: cannot start its data path", vp->index);
	port_free(s, p);
	return r;
}

/* The interface follows the agent: MAC, MTU ceiling, carrier and dormancy (reference §5). */
static void apply_netdev(struct vnic_port *p, const struct vnic_vport *vp, unsigned changed)
{
	int r;

	if ((changed & VPORT_CHG_BASE_MAC) && !mac_is_zero(vp->info.port.base_mac)) {
		r = vnic_netdev_set_mac(p->netdev, vp->info.port.base_mac);
		if (r < 0)
			log_warning_errno(r, "vnic %u: cannot set the MAC address of %s", p->index,
					  p->ifname);
	}
	if (changed & VPORT_CHG_MTU) {
		r = vnic_netdev_set_mtu_ceiling(p->netdev, vp->info.vesw.eth_mtu);
		if (r < 0)
			log_warning_errno(r, "vnic %u: cannot apply eth_mtu %u to %s", p->index,
					  vp->info.vesw.eth_mtu, p->ifname);
	}
	if (changed & VPORT_CHG_STATE) {
		r = vnic_netdev_set_carrier(p->netdev, vp->carrier);
		if (r >= 0)
			r = vnic_netdev_set_dormant(p->netdev, vp->dormant);
		if (r < 0)
			log_warning_errno(r, "vnic %u: cannot set the state of %s", p->index,
					  p->ifname);
	}
}

static void vport_changed(void *ctx, struct vnic_vport *vp, unsigned changed)
{
	struct vnic_service *s = ctx;
	struct vnic_port *p = s->ports[vp->index];

	if (!p)
		return;
	apply_netdev(p, vp, changed);
	if (changed & VPORT_CHG_VESW_ID)
		publish_vesw_table(s);
	publish_port(p);
	tell_state(p, vp);
	s->dirty = true;
}

static void mactable_changed(void *ctx, struct vnic_vport *vp, uint32_t offset, uint32_t num)
{
	struct vnic_service *s = ctx;
	struct vnic_port *p = s->ports[vp->index];

	if (!p)
		return;
	publish_port(p);
	post(s, &(struct rdma_event) {
		.type = RDMA_EVENT_VNIC_MAC_TABLE, .handle = vp->index, .offset = offset,
		.count = num, .digest = vp->info.port.mac_tbl_digest,
	});
	s->dirty = true;
}

static void vport_reset(void *ctx, struct vnic_vport *vp)
{
	vport_changed(ctx, vp, VPORT_CHG_ALL);
}

/* A Set that created vp was undone: its port goes, the switch table first. */
static void vport_removed(void *ctx, struct vnic_vport *vp)
{
	struct vnic_service *s = ctx;
	struct vnic_port *p = s->ports[vp->index];

	if (!p)
		return;
	s->ports[vp->index] = NULL;
	s->n_ports--;
	publish_vesw_table(s);
	port_free(s, p);
	log_info("vnic %u: removed", vp->index);
	post(s, &(struct rdma_event) { .type = RDMA_EVENT_OBJECT_DESTROYED, .handle = vp->index });
}

static void read_counters(void *ctx, const struct vnic_vport *vp, struct opa_vnic_counters *c)
{
	struct vnic_service *s = ctx;

	vnic_port_counters(s->ports[vp->index], c);
}

static size_t iface_macs(void *ctx, const struct vnic_vport *vp, bool multicast, size_t start,
			 uint8_t (*out)[6], size_t max, size_t *total)
{
	struct vnic_service *s = ctx;
	struct vnic_port *p = s->ports[vp->index];
	size_t n = 0;
	int r;

	*total = 0;
	if (!p)
		return 0;
	r = multicast ? vnic_netdev_read_multicast(p->netdev, s->macs)
		      : vnic_netdev_read_unicast(p->netdev, vp->info.port.base_mac, s->macs);
	if (r < 0) {
		log_warning_errno(r, "vnic %u: cannot read the address lists of %s", p->index,
				  p->ifname);
		return 0;
	}
	*total = s->macs->n;
	for (size_t i = start; i < s->macs->n && n < max; i++, n++)
		memcpy(out[n], s->macs->mac[i], 6);
	return n;
}

static int send_mad(void *ctx, const struct mad_addr *to, const uint8_t *mad, size_t len)
{
	struct vnic_service *s = ctx;

	return mad_transport_send(s->mad, to, mad, len);
}

static uint64_t now_us(void *ctx)
{
	return monotonic_us();
}

static void trap_done(void *ctx, const struct vnic_vport *vp, unsigned opcode, int result)
{
	static const uint8_t results[] = {
		[VEMA_TRAP_SENT] = VNIC_TRAP_SENT,
		[VEMA_TRAP_RATE_LIMITED] = VNIC_TRAP_RATE_LIMITED,
		[VEMA_TRAP_NO_LID] = VNIC_TRAP_NO_LID,
	};
	struct vnic_service *s = ctx;

	if (result == VEMA_TRAP_SEND_FAILED)
		log_warning("vnic %u: trap %u could not be sent", vp->index, opcode);
	if (result != VEMA_TRAP_SENT && result != VEMA_TRAP_RATE_LIMITED &&
	    result != VEMA_TRAP_NO_LID)
		return;
	post(s, &(struct rdma_event) {
		.type = RDMA_EVENT_VNIC_TRAP, .handle = vp->index, .trap = opcode,
		.trap_result = results[result],
	});
}

static const struct vema_ops vema_ops = {
	.vport_created = vport_created,
	.vport_changed = vport_changed,
	.mactable_changed = mactable_changed,
	.vport_reset = vport_reset,
	.vport_removed = vport_removed,
	.read_counters = read_counters,
	.iface_macs = iface_macs,
	.send = send_mad,
	.now_us = now_us,
	.trap_done = trap_done,
};

/* ---- what the host does to the interfaces */

static void on_admin(void *userdata, bool up)
{
	struct vnic_port *p = userdata;
	struct vema *v = &p->svc->vema;
	int r;

	r = up ? vema_host_open(v, p->index) : vema_host_close(v, p->index);
	if (r == -EINVAL)
		log_notice("vnic %u: %s is up but cannot pass frames before the manager sets a "
			   "vesw_id", p->index, p->ifname);
	else if (r < 0)
		log_warning_errno(r, "vnic %u: %s went %s", p->index, p->ifname, up ? "up" : "down");
}

static void on_mac(void *userdata, const uint8_t mac[6])
{
	struct vnic_port *p = userdata;
	struct vnic_vport *vp = vema_vport(&p->svc->vema, p->index);

	/* The manager's own base MAC coming back is no change of the host's. */
	if (vp && memcmp(mac, vp->info.port.base_mac, 6) != 0)
		vema_host_mac_changed(&p->svc->vema, p->index);
}

static void on_mtu(void *userdata, unsigned mtu)
{
	publish_port(userdata);
}

/*
 * rx_mode's unicast list is the secondary one (§3.1 b), which a TAP does not show: always
 * empty.  The device address is not in it: its changes are on_mac's (§3.1 a), counted there
 * once.
 */
static void on_mc_list(void *userdata, const struct vnic_mac_list *list)
{
	struct vnic_port *p = userdata;

	vema_host_rx_mode(&p->svc->vema, p->index, NULL, 0, (const uint8_t (*)[6])list->mac,
			  list->n);
}

/* ---- MADs */

static bool is_vema_set(const uint8_t *mad, size_t len)
{
	return len >= VEMA_COMMON_HDR_LEN && mad[VEMA_OFF_CLASS] == VEMA_MGMT_CLASS &&
	       mad[VEMA_OFF_METHOD] == VEMA_METHOD_SET;
}

static void on_mad(void *userdata, const struct mad_addr *from, const uint8_t *mad, size_t len)
{
	static uint8_t reply[VEMA_MAD_LEN];   /* main thread only */
	struct vnic_service *s = userdata;
	size_t n;
	int r;

	/* A Set is answered once what it changed is saved; reads at once. */
	if (is_vema_set(mad, len) && s->env.changed) {
		vnic_save_set(s, from, mad, len);
		return;
	}
	n = vema_handle(&s->vema, from, mad, len, reply, sizeof(reply));
	if (n) {
		/* Back to the requester's LID, SL, P_Key and QP (reference §1.4). */
		r = mad_transport_send(s->mad, from, reply, n);
		if (r < 0)
			log_full_errno(LOG_DEBUG, r, "no reply to LID %u", from->lid);
	}
}

/* ---- the service */

void vnic_service_free(struct vnic_service *s)
{
	if (!s)
		return;
	vnic_save_fini(&s->save);
	for (unsigned i = 0; i < VNIC_MAX_VPORTS; i++)
		port_free(s, s->ports[i]);
	vema_fini(&s->vema);
	mad_transport_free(s->mad);
	if (s->fabric) {
		if (s->fabric_worker) {
			dp_worker_submit_wait(s->fabric_worker, opa_fabric_detach, s->fabric);
			dp_worker_barrier(s->fabric_worker);
		}
		opa_fabric_free(s->fabric);
	}
	vnic_netdev_watch_free(s->watch);
	free(s->macs);
	free(s);
}

int vnic_service_new(struct vnic_service **out, const struct vnic_env *env,
		     const struct rdmad_fabric_config *fc)
{
	struct vnic_service *s;
	int r;

	s = calloc(1, sizeof(*s));
	if (!s || !(s->macs = malloc(sizeof(*s->macs)))) {
		free(s);
		return -ENOMEM;
	}
	s->env = *env;
	vnic_save_init(&s->save);
	vema_init(&s->vema, &vema_ops, s);
	s->vema.opa_port_num = OPA_PORT_NUM;
	r = mad_umad_open(&s->mad, env->event, NULL, 0);
	if (r >= 0) {
		s->mad->recv = on_mad;
		s->mad->userdata = s;
	} else if (r == -ENODEV && fc->lid) {
		r = vnic_fabric_open(s, fc, on_mad);
	}
	if (r < 0)
		goto fail;
	r = vnic_netdev_watch_new(&s->watch, env->event, 0);
	if (r < 0) {
		log_error_errno(r, "cannot watch network interfaces: no VNIC ports");
		goto fail;
	}
	/* The OPA link is up as long as the transport is: the carrier of every port. */
	vema_link_carrier(&s->vema, true);
	*out = s;
	return 0;
fail:
	vnic_service_free(s);
	return r;
}

struct vnic_port *vnic_service_port(const struct vnic_service *s, unsigned index)
{
	return index < VNIC_MAX_VPORTS ? s->ports[index] : NULL;
}

uint32_t vnic_service_lid(const struct vnic_service *s)
{
	return s->mad->ops->lid(s->mad);
}

void vnic_port_counters(const struct vnic_port *p, struct opa_vnic_counters *out)
{
	memset(out, 0, sizeof(*out));
	if (p && p->dp)
		opa_vport_read_counters(p->dp, out);
}

bool vnic_port_passing(const struct vnic_port *p)
{
	const struct vnic_vport *vp = vema_vport(&p->svc->vema, p->index);

	return vp && vport_oper_up(vp);
}

bool vnic_port_forwarding(const struct vnic_port *p)
{
	const struct vnic_vport *vp = vema_vport(&p->svc->vema, p->index);

	return vp && vp->info.port.oper_state == VNIC_STATE_FORWARDING;
}

bool vnic_port_admin_up(const struct vnic_port *p)
{
	const struct vnic_vport *vp = vema_vport(&p->svc->vema, p->index);

	return vp && vp->admin_up;
}

unsigned vnic_port_mtu(const struct vnic_port *p)
{
	return vnic_netdev_mtu(p->netdev);
}
