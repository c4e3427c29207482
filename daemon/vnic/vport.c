/* SPDX-License-Identifier: MIT */
/*
 * The VNIC port model: POD values, configuration apply, the §5.1 state machine,
 * the §5.2 MTU ceiling and the §3.1 host address-list digests.
 */
#include "daemon/vnic/vport.h"

#include <errno.h>
#include <isa-l/crc.h>
#include <stdlib.h>
#include <string.h>

void vport_pod_info(struct vnic_veswport_info *info)
{
	memset(info, 0, sizeof(*info));
	info->vesw.eth_mtu = VNIC_POD_MTU;
	info->port.max_mac_tbl_ent = VNIC_MAC_TBL_ENTRIES;
	info->port.max_smac_ent = VNIC_MAX_SMAC_ENT;
	info->port.oper_state = VNIC_STATE_DROP_ALL;
	info->port.config_state = VNIC_STATE_DROP_ALL;
}

void vport_init(struct vnic_vport *vp, unsigned index)
{
	memset(vp, 0, sizeof(*vp));
	vp->index = index;
	vport_pod_info(&vp->info);
	/* As the kernel's new port until its first state update (§2.3). */
	vp->info.port.eth_link_status = VNIC_ETH_LINK_DOWN;
	vp->info.port.oper_state = 0;
	vp->dormant = true;
	opa_vnic_flow_table(0, vp->flow_tbl);
	vp->uc_digest = vport_mac_list_digest(NULL, 0);
	vp->mc_digest = vp->uc_digest;
}

void vport_release(struct vnic_vport *vp)
{
	vport_mactable_release(vp);
}

/* The writable part of the per-port info: everything but the read-only fields. */
static void copy_port_writable(struct vnic_port_info *dst, const struct vnic_port_info *src)
{
	struct vnic_port_info keep = *dst;

	*dst = *src;
	dst->eth_link_status = keep.eth_link_status;
	dst->oper_state = keep.oper_state;
	dst->max_mac_tbl_ent = keep.max_mac_tbl_ent;
	dst->max_smac_ent = keep.max_smac_ent;
	dst->mac_tbl_digest = keep.mac_tbl_digest;
	dst->uc_macs_gen_count = keep.uc_macs_gen_count;
	dst->mc_macs_gen_count = keep.mc_macs_gen_count;
}

/* Whether anything the 16B header or the DLID choice reads differs. */
static bool tables_differ(const struct vnic_veswport_info *a, const struct vnic_veswport_info *b)
{
	const struct vnic_vesw_info *va = &a->vesw, *vb = &b->vesw;
	const struct vnic_port_info *pa = &a->port, *pb = &b->port;

	return va->def_port_mask != vb->def_port_mask || va->pkey != vb->pkey ||
	       va->u_mcast_dlid != vb->u_mcast_dlid || va->rc != vb->rc ||
	       memcmp(va->u_ucast_dlid, vb->u_ucast_dlid, sizeof(va->u_ucast_dlid)) ||
	       pa->encap_slid != pb->encap_slid ||
	       memcmp(pa->pcp_to_sc_uc, pb->pcp_to_sc_uc, sizeof(pa->pcp_to_sc_uc)) ||
	       memcmp(pa->pcp_to_vl_uc, pb->pcp_to_vl_uc, sizeof(pa->pcp_to_vl_uc)) ||
	       memcmp(pa->pcp_to_sc_mc, pb->pcp_to_sc_mc, sizeof(pa->pcp_to_sc_mc)) ||
	       memcmp(pa->pcp_to_vl_mc, pb->pcp_to_vl_mc, sizeof(pa->pcp_to_vl_mc)) ||
	       pa->non_vlan_sc_uc != pb->non_vlan_sc_uc || pa->non_vlan_vl_uc != pb->non_vlan_vl_uc ||
	       pa->non_vlan_sc_mc != pb->non_vlan_sc_mc || pa->non_vlan_vl_mc != pb->non_vlan_vl_mc;
}

struct vport_state_snap {
	uint8_t oper_state, eth_link_status;
	bool dormant, carrier;
};

static struct vport_state_snap state_snap(const struct vnic_vport *vp)
{
	return (struct vport_state_snap){
		vp->info.port.oper_state, vp->info.port.eth_link_status, vp->dormant, vp->carrier,
	};
}

static bool state_differs(const struct vport_state_snap *a, const struct vport_state_snap *b)
{
	return a->oper_state != b->oper_state || a->eth_link_status != b->eth_link_status ||
	       a->dormant != b->dormant || a->carrier != b->carrier;
}

unsigned vport_configure(struct vnic_vport *vp, const struct vnic_veswport_info *src)
{
	struct vnic_veswport_info old = vp->info;
	struct vport_state_snap before = state_snap(vp);
	struct vport_state_snap after;
	unsigned changed = 0;

	vp->info.vesw = src->vesw;
	copy_port_writable(&vp->info.port, &src->port);

	if (memcmp(old.port.base_mac, vp->info.port.base_mac, 6))
		changed |= VPORT_CHG_BASE_MAC;
	if (old.vesw.vesw_id != vp->info.vesw.vesw_id) {
		changed |= VPORT_CHG_VESW_ID;
		/* The hardware side goes down and up again; it cannot come up on id 0. */
		if (vp->admin_up)
			vp->carrier = vp->info.vesw.vesw_id != 0;
	}
	if (old.vesw.eth_mtu != vp->info.vesw.eth_mtu)
		changed |= VPORT_CHG_MTU;
	if (tables_differ(&old, &vp->info))
		changed |= VPORT_CHG_TABLES;
	opa_vnic_flow_table(vp->info.vesw.def_port_mask, vp->flow_tbl);

	vport_update_state(vp, vp->admin_up);
	after = state_snap(vp);
	if (state_differs(&before, &after))
		changed |= VPORT_CHG_STATE;
	return changed;
}

void vport_update_state(struct vnic_vport *vp, bool up)
{
	bool forwarding = vp->info.port.config_state == VNIC_STATE_FORWARDING;

	if (forwarding && up) {
		vp->info.port.oper_state = VNIC_STATE_FORWARDING;
		vp->info.port.eth_link_status = VNIC_ETH_LINK_UP;
	} else {
		vp->info.port.oper_state = VNIC_STATE_DROP_ALL;
		vp->info.port.eth_link_status = VNIC_ETH_LINK_DOWN;
	}
	vp->dormant = !forwarding;
}

int vport_open(struct vnic_vport *vp)
{
	if (vp->info.vesw.vesw_id == 0)
		return -EINVAL;
	vp->admin_up = true;
	vp->carrier = true;
	vport_update_state(vp, true);
	return 0;
}

void vport_close(struct vnic_vport *vp)
{
	vp->admin_up = false;
	vp->carrier = false;
	vport_update_state(vp, false);
}

void vport_set_carrier(struct vnic_vport *vp, bool on)
{
	vp->carrier = on;
}

bool vport_oper_up(const struct vnic_vport *vp)
{
	return vp->carrier && !vp->dormant && vp->admin_up && vp->info.vesw.vesw_id != 0;
}

uint16_t vport_max_mtu(const struct vnic_vport *vp)
{
	return vp->info.vesw.eth_mtu > VNIC_MIN_MTU ? vp->info.vesw.eth_mtu : VNIC_MIN_MTU;
}

uint16_t vport_mtu_lowered(const struct vnic_vport *vp, uint16_t cur_mtu)
{
	uint16_t max = vport_max_mtu(vp);

	/* Only ever lowered: raising eth_mtu raises the ceiling, not the MTU. */
	return cur_mtu > max ? max : cur_mtu;
}

void vport_encap_port(const struct vnic_vport *vp, struct opa_vnic_port *out)
{
	const struct vnic_port_info *p = &vp->info.port;

	memset(out, 0, sizeof(*out));
	out->encap_slid = p->encap_slid;
	out->pkey = vp->info.vesw.pkey;
	out->vesw_id = vp->info.vesw.vesw_id;
	out->rc_word = vp->info.vesw.rc;
	memcpy(out->pcp_to_sc_uc, p->pcp_to_sc_uc, sizeof(out->pcp_to_sc_uc));
	memcpy(out->pcp_to_sc_mc, p->pcp_to_sc_mc, sizeof(out->pcp_to_sc_mc));
	out->non_vlan_sc_uc = p->non_vlan_sc_uc;
	out->non_vlan_sc_mc = p->non_vlan_sc_mc;
}

void vport_dlid_tables(const struct vnic_vport *vp, struct opa_vnic_dlid_tables *out,
		       struct opa_vnic_mac_entry *macs, size_t max)
{
	memset(out, 0, sizeof(*out));
	out->macs = macs;
	out->n_macs = mactable_routes(vp->macs, macs, max);
	out->u_mcast_dlid = vp->info.vesw.u_mcast_dlid;
	memcpy(out->u_ucast_dlid, vp->info.vesw.u_ucast_dlid, sizeof(out->u_ucast_dlid));
	memcpy(out->flow_tbl, vp->flow_tbl, sizeof(out->flow_tbl));
}

int vport_mactable_set(struct vnic_vport *vp, uint32_t offset, const struct vnic_mac_slot *in,
		       uint32_t num, uint32_t digest)
{
	if (!vp->macs) {
		vp->macs = calloc(1, sizeof(*vp->macs));
		if (!vp->macs)
			return -ENOMEM;
	}
	mactable_replace(vp->macs, offset, in, num);
	vp->info.port.mac_tbl_digest = digest;
	return 0;
}

void vport_mactable_release(struct vnic_vport *vp)
{
	free(vp->macs);
	vp->macs = NULL;
	vp->info.port.mac_tbl_digest = 0;
}

uint32_t vport_mac_list_digest(const uint8_t (*macs)[6], size_t n)
{
	uint8_t count[4];
	uint32_t crc = 0;
	size_t i;

	for (i = 0; i < n; i++)
		crc = crc32_gzip_refl(crc, macs[i], 6);
	/* The byte count, little-endian: only ever compared with an earlier digest. */
	n *= 6;
	count[0] = n;
	count[1] = n >> 8;
	count[2] = n >> 16;
	count[3] = n >> 24;
	crc = crc32_gzip_refl(crc, count, sizeof(count));
	return ~crc;
}

static bool list_update(uint32_t *digest, uint16_t *gen, const uint8_t (*macs)[6], size_t n)
{
	uint32_t d = vport_mac_list_digest(macs, n);

	if (d == *digest)
		return false;
	*digest = d;
	(*gen)++;
	return true;
}

bool vport_uc_list_update(struct vnic_vport *vp, const uint8_t (*macs)[6], size_t n)
{
	return list_update(&vp->uc_digest, &vp->info.port.uc_macs_gen_count, macs, n);
}

bool vport_mc_list_update(struct vnic_vport *vp, const uint8_t (*macs)[6], size_t n)
{
	return list_update(&vp->mc_digest, &vp->info.port.mc_macs_gen_count, macs, n);
}

void vport_host_mac_changed(struct vnic_vport *vp)
{
	vp->info.port.uc_macs_gen_count++;
}

int vport_set_add(struct vnic_vport_set *s, uint32_t attr_mod, struct vnic_vport **out)
{
	unsigned i = attr_mod & 0xff;
	struct vnic_vport *vp;

	if (s->vp[i])
		return -EEXIST;
	vp = malloc(sizeof(*vp));
	if (!vp)
		return -ENOMEM;
	vport_init(vp, i);
	s->vp[i] = vp;
	*out = vp;
	return 0;
}

void vport_set_remove(struct vnic_vport_set *s, uint32_t attr_mod)
{
	unsigned i = attr_mod & 0xff;

	if (!s->vp[i])
		return;
	vport_release(s->vp[i]);
	free(s->vp[i]);
	s->vp[i] = NULL;
}

void vport_set_clear(struct vnic_vport_set *s)
{
	unsigned i;

	for (i = 0; i < VNIC_MAX_VPORTS; i++)
		vport_set_remove(s, i);
}
