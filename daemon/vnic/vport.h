/* SPDX-License-Identifier: MIT */
/*
 * A VNIC port as its driver sees it (reference opa_vnic.md §2.3, §5.1, §5.2):
 * the VESWPortInfo the Ethernet Manager configures, kept field by field in host
 * byte order with the reserved bytes verbatim (they are echoed), the MAC table,
 * and the state inputs the host gives (netdev opened, carrier).  Pure logic:
 * the netdev, the data path and the MADs are someone else's.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/vnic/mactable.h"
#include "dataplane/opa/vnic_fields.h"

#define VNIC_MAX_VPORTS		256	/* addressed by attr_mod & 0xff */
#define VNIC_MAX_SMAC_ENT	256	/* advertised, never enforced */
#define VNIC_POD_MTU		1500
#define VNIC_MIN_MTU		68

/* config_state / oper_state (OPA_VNIC_STATE_*) and eth_link_status (OPA_VNIC_ETH_LINK_*). */
enum {
	VNIC_STATE_DROP_ALL	= 1,
	VNIC_STATE_FORWARDING	= 3,
};

enum {
	VNIC_ETH_LINK_UP	= 1,
	VNIC_ETH_LINK_DOWN	= 2,
};

/* opa_vesw_info: the virtual Ethernet switch part, data bytes 0-151. */
struct vnic_vesw_info {
	uint16_t fabric_id;
	uint16_t vesw_id;
	uint8_t rsvd0[6];
	uint16_t def_port_mask;
	uint8_t rsvd1[2];
	uint16_t pkey;
	uint8_t rsvd2[4];
	uint32_t u_mcast_dlid;
	uint32_t u_ucast_dlid[OPA_VNIC_DEF_PORTS];
	uint32_t rc;
	uint8_t rsvd3[56];
	uint16_t eth_mtu;
	uint8_t rsvd4[2];
};

/* opa_per_veswport_info: this port's part, data bytes 152-279. */
struct vnic_port_info {
	uint32_t port_num;
	uint8_t eth_link_status;	/* read-only */
	uint8_t rsvd0[3];
	uint8_t base_mac[6];
	uint8_t config_state;
	uint8_t oper_state;		/* read-only */
	uint16_t max_mac_tbl_ent;	/* read-only */
	uint16_t max_smac_ent;		/* read-only */
	uint32_t mac_tbl_digest;	/* read-only here; written with the MAC table */
	uint8_t rsvd1[4];
	uint32_t encap_slid;
	uint8_t pcp_to_sc_uc[8];
	uint8_t pcp_to_vl_uc[8];
	uint8_t pcp_to_sc_mc[8];
	uint8_t pcp_to_vl_mc[8];
	uint8_t non_vlan_sc_uc;
	uint8_t non_vlan_vl_uc;
	uint8_t non_vlan_sc_mc;
	uint8_t non_vlan_vl_mc;
	uint8_t rsvd2[48];
	uint16_t uc_macs_gen_count;	/* read-only */
	uint16_t mc_macs_gen_count;	/* read-only */
	uint8_t rsvd3[8];
};

struct vnic_veswport_info {
	struct vnic_vesw_info vesw;
	struct vnic_port_info port;
};

/* What a configuration change touched, for whoever programs the netdev and data path. */
enum vport_change {
	VPORT_CHG_BASE_MAC	= 1 << 0,	/* set the netdev MAC to base_mac */
	VPORT_CHG_VESW_ID	= 1 << 1,	/* re-register the RX demux */
	VPORT_CHG_MTU		= 1 << 2,	/* eth_mtu changed: apply vport_mtu_lowered() */
	VPORT_CHG_STATE		= 1 << 3,	/* oper_state, eth_link_status, dormant or carrier */
	VPORT_CHG_TABLES	= 1 << 4,	/* DLIDs, SC tables, pkey, rc, encap_slid, flow table */
	VPORT_CHG_ALL		= (1 << 5) - 1,
};

struct vnic_vport {
	unsigned index;				/* attr_mod & 0xff */
	struct vnic_veswport_info info;
	struct vnic_mactable *macs;		/* NULL until the first MAC table Set */
	uint8_t flow_tbl[OPA_VNIC_FLOW_TBL];	/* default-port choice by entropy (§4.5) */

	/* State inputs (§5.1). */
	bool admin_up;				/* the host opened the netdev */
	bool carrier;				/* on at open, then follows the OPA link */
	bool dormant;				/* config_state != FORWARDING */

	/* Host address lists as last seen, to tell a real change (§3.1). */
	uint32_t uc_digest;
	uint32_t mc_digest;

	/* Trap rate limit (§3.3). */
	uint64_t trap_window_end;		/* µs, monotonic */
	unsigned trap_count;
};

/* The "power-on default" VESWPortInfo a Get of an absent vport returns (§2.3). */
void vport_pod_info(struct vnic_veswport_info *info);

/* A new vport: POD values, link down, oper_state 0 until the first state update, carrier
 * off, no MAC table. */
void vport_init(struct vnic_vport *vp, unsigned index);

/* Frees what vport_init() and the MAC table Sets allocated (not vp itself). */
void vport_release(struct vnic_vport *vp);

/* Copies the writable fields of src into vp (reserved bytes included) and applies them:
 * carrier if vesw_id changed while up, flow table, state.  Returns enum vport_change. */
unsigned vport_configure(struct vnic_vport *vp, const struct vnic_veswport_info *src);

/* §5.1 update_state(up): oper_state, eth_link_status and dormant from config_state. */
void vport_update_state(struct vnic_vport *vp, bool up);

/* The host opened the netdev: -EINVAL with vesw_id 0 (the port cannot open), else admin up,
 * carrier on and the state updated. */
int vport_open(struct vnic_vport *vp);

/* The host closed the netdev. */
void vport_close(struct vnic_vport *vp);

/* OPA link events: carrier only, no state update (§5.1). */
void vport_set_carrier(struct vnic_vport *vp, bool on);

/* Packets flow: carrier && !dormant && admin up && vesw_id != 0. */
bool vport_oper_up(const struct vnic_vport *vp);

/* §5.2: the MTU ceiling, max(eth_mtu, 68), and what the current MTU becomes on apply. */
uint16_t vport_max_mtu(const struct vnic_vport *vp);
uint16_t vport_mtu_lowered(const struct vnic_vport *vp, uint16_t cur_mtu);

/* The 16B header inputs of the data path (dataplane/opa/vnic_fields.h). */
void vport_encap_port(const struct vnic_vport *vp, struct opa_vnic_port *out);

/* The DLID tables of the data path; the MAC entries go to macs[0..max). */
void vport_dlid_tables(const struct vnic_vport *vp, struct opa_vnic_dlid_tables *out,
		       struct opa_vnic_mac_entry *macs, size_t max);

/* §2.4 MAC table block write: allocates the table on first use (-ENOMEM), replaces the
 * block and stores the EM's digest.  The range must be mactable_range_ok(). */
int vport_mactable_set(struct vnic_vport *vp, uint32_t offset, const struct vnic_mac_slot *in,
		       uint32_t num, uint32_t digest);

/* Drops the MAC table; the digest reads 0 again. */
void vport_mactable_release(struct vnic_vport *vp);

/* §3.1 digest of a host address list: CRC-32 over the addresses, then over the count. */
uint32_t vport_mac_list_digest(const uint8_t (*macs)[6], size_t n);

/* The host changed the list: the gen count moves and true is returned only on a real
 * change. */
bool vport_uc_list_update(struct vnic_vport *vp, const uint8_t (*macs)[6], size_t n);
bool vport_mc_list_update(struct vnic_vport *vp, const uint8_t (*macs)[6], size_t n);

/* The host set the interface MAC itself (ndo_set_mac_address): uc gen count + 1. */
void vport_host_mac_changed(struct vnic_vport *vp);

/* The vports of one OPA port, indexed by attr_mod & 0xff. */
struct vnic_vport_set {
	struct vnic_vport *vp[VNIC_MAX_VPORTS];
};

static inline struct vnic_vport *vport_set_get(const struct vnic_vport_set *s, uint32_t attr_mod)
{
	return s->vp[attr_mod & 0xff];
}

/* Allocates and inits vport attr_mod & 0xff; -EEXIST, -ENOMEM. */
int vport_set_add(struct vnic_vport_set *s, uint32_t attr_mod, struct vnic_vport **out);

/* Releases and frees one vport (absent: nothing), or all of them. */
void vport_set_remove(struct vnic_vport_set *s, uint32_t attr_mod);
void vport_set_clear(struct vnic_vport_set *s);
