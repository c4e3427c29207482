/* SPDX-License-Identifier: MIT */
/* io.rdmad.Vnic: the OPA port's VNIC ports, read only (the Ethernet Manager configures them). */
#include "daemon/api/vocab.h"
#include "daemon/api/api.h"
#include "daemon/api/dispatch.h"
#include "daemon/verbs/device.h"
#include "daemon/vnic/vnic.h"
#include "dataplane/opa/fabric.h"

#include <stdio.h>
#include <string.h>

#define IFACE "io.rdmad.Vnic"

static struct json_object *u8_array(const uint8_t *v, size_t n)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_int(v[i]));
	return a;
}

static const char *state_word(uint8_t state)
{
	return state == VNIC_STATE_FORWARDING ? "forwarding" : "drop_all";
}

static struct json_object *port_json(const struct vnic_service *s, const struct vnic_port *p)
{
	const struct vnic_vport *vp = vema_vport(&s->vema, p->index);
	const struct vnic_vesw_info *w = &vp->info.vesw;
	const struct vnic_port_info *pi = &vp->info.port;
	struct json_object *o = json_object_new_object(), *ucast = json_object_new_array();

	api_add_device(o, s->env.dev);
	json_add_uint(o, "port", s->vema.opa_port_num);
	json_add_uint(o, "handle", p->index);
	json_add_string(o, "netdev", p->ifname);
	json_add_bool(o, "admin_up", vp->admin_up);
	json_add_bool(o, "carrier", vp->carrier);
	json_add_string(o, "config_state", state_word(pi->config_state));
	json_add_string(o, "oper_state", state_word(pi->oper_state));
	json_add_string(o, "eth_link_status", pi->eth_link_status == VNIC_ETH_LINK_UP ? "up" : "down");
	json_add_bool(o, "passing", vport_oper_up(vp));
	json_add_uint(o, "fabric_id", w->fabric_id);
	json_add_uint(o, "vesw_id", w->vesw_id);
	json_add_uint(o, "pkey", w->pkey);
	json_add_uint(o, "def_port_mask", w->def_port_mask);
	json_add_uint(o, "u_mcast_dlid", w->u_mcast_dlid);
	for (unsigned i = 0; i < OPA_VNIC_DEF_PORTS; i++)
		json_object_array_add(ucast, json_object_new_int64(w->u_ucast_dlid[i]));
	json_object_object_add(o, "u_ucast_dlid", ucast);
	json_add_uint(o, "rc", w->rc);
	json_add_uint(o, "eth_mtu", w->eth_mtu);
	json_add_uint(o, "port_num", pi->port_num);
	json_add_mac(o, "base_mac", pi->base_mac);
	json_add_uint(o, "encap_slid", pi->encap_slid);
	json_object_object_add(o, "pcp_to_sc_uc", u8_array(pi->pcp_to_sc_uc, 8));
	json_object_object_add(o, "pcp_to_vl_uc", u8_array(pi->pcp_to_vl_uc, 8));
	json_object_object_add(o, "pcp_to_sc_mc", u8_array(pi->pcp_to_sc_mc, 8));
	json_object_object_add(o, "pcp_to_vl_mc", u8_array(pi->pcp_to_vl_mc, 8));
	json_add_uint(o, "non_vlan_sc_uc", pi->non_vlan_sc_uc);
	json_add_uint(o, "non_vlan_vl_uc", pi->non_vlan_vl_uc);
	json_add_uint(o, "non_vlan_sc_mc", pi->non_vlan_sc_mc);
	json_add_uint(o, "non_vlan_vl_mc", pi->non_vlan_vl_mc);
	json_add_uint(o, "mtu", vnic_port_mtu(p));
	json_add_uint(o, "mac_entries", vp->macs ? vp->macs->used : 0);
	json_add_uint(o, "mac_tbl_digest", pi->mac_tbl_digest);
	json_add_uint(o, "uc_macs_gen_count", pi->uc_macs_gen_count);
	json_add_uint(o, "mc_macs_gen_count", pi->mc_macs_gen_count);
	json_add_uint(o, "worker", p->worker_index);
	return o;
}

static struct json_object *mac_table_json(const struct vnic_vport *vp)
{
	struct json_object *a = json_object_new_array();

	for (unsigned i = 0; vp->macs && i < VNIC_MAC_TBL_ENTRIES; i++) {
		const struct vnic_mac_slot *slot = &vp->macs->slot[i];
		struct json_object *e;

		if (mactable_mac_is_zero(slot->mac))
			continue;
		e = json_object_new_object();
		json_add_uint(e, "slot", i);
		json_add_mac(e, "mac", slot->mac);
		json_add_mac(e, "mask", slot->mask);
		json_add_uint(e, "dlid", slot->dlid_sd >> 8);
		json_add_uint(e, "side_data", slot->dlid_sd & 0xff);
		json_add_bool(e, "source_mac", slot->dlid_sd & OPA_VNIC_SD_IS_SRC_MAC);
		json_object_array_add(a, e);
	}
	return a;
}

/* The 39 counters of the kernel VNIC's ethtool, derived as it derives them (reference §5.3). */
static void add_dir(struct json_object *o, const char *dir, const struct opa_vnic_dir_counters *d)
{
	static const char *const buckets[OPA_VNIC_SIZE_BUCKETS] = {
		"64_size", "65_127", "128_255", "256_511", "512_1023", "1024_1518", "1519_max",
	};
	char key[32];

#define ADD(name, value) (snprintf(key, sizeof(key), "%s_%s", dir, name), json_add_uint(o, key, value))
	ADD("unicast", d->unicast);
	ADD("mcastbcast", d->mcastbcast);
	ADD("untagged", d->untagged);
	ADD("vlan", d->vlan);
	for (unsigned i = 0; i < OPA_VNIC_SIZE_BUCKETS; i++)
		ADD(buckets[i], d->size[i]);
#undef ADD
}

static struct json_object *counters_json(const struct vnic_service *s, const struct vnic_port *p)
{
	struct json_object *o = json_object_new_object();
	struct opa_vnic_counters c;
	uint64_t tx_errors, rx_errors;

	vnic_port_counters(p, &c);
	tx_errors = opa_vnic_tx_errors(&c);
	rx_errors = opa_vnic_rx_errors(&c);
	api_add_device(o, s->env.dev);
	json_add_uint(o, "handle", p->index);
	json_add_string(o, "netdev", p->ifname);
	json_add_uint(o, "rx_packets", c.rx.packets);
	json_add_uint(o, "tx_packets", c.tx.packets);
	json_add_uint(o, "rx_bytes", c.rx.bytes);
	json_add_uint(o, "tx_bytes", c.tx.bytes);
	json_add_uint(o, "rx_errors", rx_errors);
	json_add_uint(o, "tx_errors", tx_errors);
	json_add_uint(o, "rx_dropped", rx_errors);
	json_add_uint(o, "tx_dropped", tx_errors);
	add_dir(o, "tx", &c.tx);
	add_dir(o, "rx", &c.rx);
	json_add_uint(o, "rx_fifo_errors", c.rx_fifo_errors);
	json_add_uint(o, "rx_length_errors", c.rx_oversize + c.rx_runt);
	json_add_uint(o, "tx_fifo_errors", c.tx_fifo_errors);
	json_add_uint(o, "tx_carrier_errors", c.tx_carrier_errors);
	json_add_uint(o, "tx_dlid_zero", c.tx_dlid_zero);
	json_add_uint(o, "tx_drop_state", c.tx_drop_state);
	json_add_uint(o, "rx_drop_state", c.rx_drop_state);
	json_add_uint(o, "rx_oversize", c.rx_oversize);
	json_add_uint(o, "rx_runt", c.rx_runt);
	json_add_uint(o, "rx_bad_veswid", c.rx_nohandler);
	json_add_uint(o, "tx_no_route", c.tx_no_route);
	return o;
}

static struct json_object *fabric_json(const struct vnic_service *s)
{
	const struct vema_stats *st = &s->vema.stats;
	struct json_object *o = json_object_new_object();
	uint64_t dropped = 0;

	api_add_device(o, s->env.dev);
	json_add_uint(o, "port", s->vema.opa_port_num);
	json_add_string(o, "transport", s->fabric ? "fabric" : "umad");
	json_add_uint(o, "lid", vnic_service_lid(s));
	if (s->fabric) {
		const struct opa_fabric_map *map = opa_fabric_map_current(s->fabric);
		struct json_object *nodes = json_object_new_array();
		struct opa_fabric_counters c;
		char addr[DP_UDP_ADDR_STRLEN];

		dp_udp_addr_format(opa_fabric_local_addr(s->fabric), addr, sizeof(addr));
		json_add_string(o, "address", addr);
		for (size_t i = 0; i < opa_fabric_map_count(map); i++) {
			const struct opa_fabric_route *r = opa_fabric_map_route(map, i);
			struct json_object *n = json_object_new_object();
			struct json_object *addrs = json_object_new_array();

			json_add_uint(n, "lid", r->lid);
			for (uint32_t j = 0; j < r->n; j++) {
				dp_udp_addr_format(&r->addrs[j], addr, sizeof(addr));
				json_object_array_add(addrs, json_object_new_string(addr));
			}
			json_object_object_add(n, "addresses", addrs);
			json_object_array_add(nodes, n);
		}
		json_object_object_add(o, "nodes", nodes);
		opa_fabric_read_counters(s->fabric, &c);
		json_add_uint(o, "rx_datagrams", c.rx_datagrams);
		json_add_uint(o, "rx_mads", c.rx_mads);
		json_add_uint(o, "rx_frames", c.rx_frames);
		json_add_uint(o, "rx_bad_type", c.rx_bad_type);
		json_add_uint(o, "rx_bad_packet", c.rx_bad_packet);
		json_add_uint(o, "rx_wrong_dlid", c.rx_wrong_dlid);
		json_add_uint(o, "rx_mad_overflow", c.rx_mad_overflow);
		json_add_uint(o, "tx_datagrams", c.tx_datagrams);
		json_add_uint(o, "tx_mads", c.tx_mads);
		json_add_uint(o, "tx_frames", c.tx_frames);
		json_add_uint(o, "tx_no_route", c.tx_no_route);
		json_add_uint(o, "tx_errors", c.tx_errors);
	}
	json_add_uint(o, "trap_lid", vema_cpi_trap_lid(s->vema.cpi));
	json_add_uint(o, "trap_sl", vema_cpi_trap_sl(s->vema.cpi));
	json_add_uint(o, "vnics", s->n_ports);
	for (unsigned i = 0; i < VEMA_DROP_REASONS; i++)
		dropped += st->dropped[i];
	json_add_uint(o, "mads_received", st->mads_received);
	json_add_uint(o, "mads_answered", st->replies + st->unmatched_replies);
	json_add_uint(o, "mads_dropped", dropped);
	json_add_uint(o, "mads_unmatched", st->unmatched_replies);
	json_add_uint(o, "traps_sent", st->traps_sent);
	json_add_uint(o, "traps_rate_limited", st->traps_rate_limited);
	json_add_uint(o, "traps_no_lid", st->traps_no_lid);
	return o;
}

/*
 * The OPA port of the device the call names (default: the one there is); NULL
 * once the call is answered (NoSuchDevice, or NoSuchObject kind fabric).
 */
static struct vnic_service *service(struct varlink_call *call, struct manager *m,
				    struct json_object *params)
{
	struct rdma_device *dev = api_device(call, m, params, IFACE);
	struct rdma_error err;

	if (!dev)
		return NULL;
	if (m->vnic && m->vnic->env.dev == dev)
		return m->vnic;
	/* Where the OPA port comes from, so the refusal says what to set. */
	rdma_error_no_such(&err, RDMA_OBJ_FABRIC, 1);
	err.setting = "fabric_lid";
	api_reply_error(call, IFACE, &err);
	return NULL;
}

struct port_params {
	uint32_t handle;
	bool has_handle;
};

static const struct api_field port_fields[] = {
	{ .name = "handle", .type = API_FIELD_U32, .offset = offsetof(struct port_params, handle),
	  .given = API_GIVEN(struct port_params, has_handle), .max = VNIC_MAX_VPORTS - 1 },
	{ NULL },
};

/* Show's handle is required (the IDL says so: the varlink layer has refused a call without). */

/* The port the call's handle names; NULL once answered. */
static struct vnic_port *port(struct varlink_call *call, struct vnic_service *s, uint32_t handle)
{
	struct vnic_port *p = vnic_service_port(s, handle);
	struct rdma_error err;

	if (!p) {
		rdma_error_no_such(&err, RDMA_OBJ_VNIC, handle);
		api_reply_error(call, IFACE, &err);
	}
	return p;
}

/* Every device's ports: there is one OPA port at most, the first device's. */
static int list(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct manager *m = userdata;
	struct json_object *ports = json_object_new_array(), *reply;
	const char *name = json_get_string(params, "device");

	if (name && !api_device(call, m, params, IFACE)) {
		json_object_put(ports);
		return 0;
	}
	for (unsigned i = 0; m->vnic && i < VNIC_MAX_VPORTS; i++) {
		struct vnic_port *p = vnic_service_port(m->vnic, i);

		if (p && (!name || strcmp(name, m->vnic->env.dev->name) == 0))
			json_object_array_add(ports, port_json(m->vnic, p));
	}
	reply = json_object_new_object();
	json_object_object_add(reply, "ports", ports);
	return api_reply(call, reply);
}

static int show(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct vnic_service *s = service(call, userdata, params);
	struct port_params p = { 0 };
	struct vnic_port *vnic;
	struct json_object *o;

	if (!s || api_dispatch(call, params, port_fields, &p) < 0)
		return 0;
	vnic = port(call, s, p.handle);
	if (!vnic)
		return 0;
	o = port_json(s, vnic);
	json_object_object_add(o, "mac_table", mac_table_json(vema_vport(&s->vema, p.handle)));
	return api_reply_record(call, "port", o);
}

static int counters(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct vnic_service *s = service(call, userdata, params);
	struct port_params p = { 0 };
	struct json_object *list, *reply;

	if (!s || api_dispatch(call, params, port_fields, &p) < 0)
		return 0;
	list = json_object_new_array();
	for (unsigned i = 0; i < VNIC_MAX_VPORTS; i++) {
		struct vnic_port *vnic = vnic_service_port(s, i);

		if (p.has_handle && i != p.handle)
			continue;
		if (!vnic && p.has_handle) {
			json_object_put(list);
			port(call, s, i);
			return 0;
		}
		if (vnic)
			json_object_array_add(list, counters_json(s, vnic));
	}
	reply = json_object_new_object();
	json_object_object_add(reply, "counters", list);
	return api_reply(call, reply);
}

static int fabric(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct vnic_service *s = service(call, userdata, params);

	return s ? api_reply_record(call, "fabric", fabric_json(s)) : 0;
}

const struct varlink_method api_vnic_methods[] = {
	{ "List", list, 0 },
	{ "Show", show, 0 },
	{ "Counters", counters, 0 },
	{ "Fabric", fabric, 0 },
	{ NULL, NULL, 0 },
};
