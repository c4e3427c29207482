/* SPDX-License-Identifier: MIT */
/*
 * VEMA traps (§3) and the host events that lead to them (§3.1, §5.1): open, close,
 * carrier, the interface MAC and address lists.
 */
#include "daemon/vnic/vema.h"

#include <errno.h>

/* §3.3, per vport: at most 5 traps in a window the first trap after expiry opens.  The
 * count moves before the trap LID is looked at, as the kernel's does. */
static bool rate_limited(struct vnic_vport *vp, uint64_t now)
{
	if (now < vp->trap_window_end) {
		if (vp->trap_count == VEMA_TRAP_PER_WINDOW - 1)
			return true;
		vp->trap_count++;
	} else {
		vp->trap_count = 0;
	}
	return false;
}

static enum vema_trap_result port_event(struct vema *v, struct vnic_vport *vp,
				       enum vema_trap_opcode event)
{
	uint8_t mad[VEMA_TRAP_LEN];
	struct vema_trap_data d;
	struct mad_addr to;
	uint64_t now;

	now = v->ops->now_us ? v->ops->now_us(v->ctx) : 0;
	if (rate_limited(vp, now)) {
		v->stats.traps_rate_limited++;
		return VEMA_TRAP_RATE_LIMITED;
	}
	to = (struct mad_addr){
		.lid = vema_cpi_trap_lid(v->cpi),
		.sl = vema_cpi_trap_sl(v->cpi),
		.pkey = 0xffff,
		.qpn = 1,
	};
	if (!to.lid) {
		v->stats.traps_no_lid++;
		return VEMA_TRAP_NO_LID;
	}
	d = (struct vema_trap_data){
		.issuer_lid = vp->info.port.encap_slid,
		.fabric_id = vp->info.vesw.fabric_id,
		.vesw_id = vp->info.vesw.vesw_id,
		.veswportnum = vp->info.port.port_num,
		.opaportnum = v->opa_port_num,
		.veswportindex = vp->index,
		.opcode = event,
	};
	vema_trap_encode(++v->trap_tid, &d, mad);
	if (!v->ops->send || v->ops->send(v->ctx, &to, mad, sizeof(mad)) < 0) {
		v->stats.traps_send_failed++;
		return VEMA_TRAP_SEND_FAILED;
	}
	if (vp->trap_count == 0)
		vp->trap_window_end = now + VEMA_TRAP_WINDOW_US;
	v->stats.traps_sent++;
	return VEMA_TRAP_SENT;
}

enum vema_trap_result vema_port_event(struct vema *v, unsigned index, enum vema_trap_opcode event)
{
	struct vnic_vport *vp = vema_vport(v, index);
	enum vema_trap_result r;

	if (!vp)
		return VEMA_TRAP_NO_VPORT;
	r = port_event(v, vp, event);
	if (v->ops->trap_done)
		v->ops->trap_done(v->ctx, vp, event, r);
	return r;
}

static void notify_state(struct vema *v, struct vnic_vport *vp)
{
	if (v->ops->vport_changed)
		v->ops->vport_changed(v->ctx, vp, VPORT_CHG_STATE);
}

int vema_host_open(struct vema *v, unsigned index)
{
	struct vnic_vport *vp = vema_vport(v, index);
	int rc;

	if (!vp)
		return -ENOENT;
	rc = vport_open(vp);
	if (rc < 0)
		return rc;
	notify_state(v, vp);
	vema_port_event(v, index, VEMA_TRAP_LINK_STATUS_CHANGE);
	return 0;
}

int vema_host_close(struct vema *v, unsigned index)
{
	struct vnic_vport *vp = vema_vport(v, index);

	if (!vp)
		return -ENOENT;
	vport_close(vp);
	notify_state(v, vp);
	vema_port_event(v, index, VEMA_TRAP_LINK_STATUS_CHANGE);
	return 0;
}

void vema_link_carrier(struct vema *v, bool on)
{
	unsigned i;

	for (i = 0; i < VNIC_MAX_VPORTS; i++) {
		struct vnic_vport *vp = v->vports.vp[i];

		if (!vp || vp->carrier == on)
			continue;
		vport_set_carrier(vp, on);
		notify_state(v, vp);
	}
}

int vema_host_mac_changed(struct vema *v, unsigned index)
{
	struct vnic_vport *vp = vema_vport(v, index);

	if (!vp)
		return -ENOENT;
	vport_host_mac_changed(vp);
	vema_port_event(v, index, VEMA_TRAP_UCAST_MAC_CHANGE);
	return 0;
}

int vema_host_rx_mode(struct vema *v, unsigned index, const uint8_t (*uc)[6], size_t n_uc,
		      const uint8_t (*mc)[6], size_t n_mc)
{
	struct vnic_vport *vp = vema_vport(v, index);

	if (!vp)
		return -ENOENT;
	if (vport_uc_list_update(vp, uc, n_uc))
		vema_port_event(v, index, VEMA_TRAP_UCAST_MAC_CHANGE);
	if (vport_mc_list_update(vp, mc, n_mc))
		vema_port_event(v, index, VEMA_TRAP_MCAST_MAC_CHANGE);
	return 0;
}
