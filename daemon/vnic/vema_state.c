/* SPDX-License-Identifier: MIT */
/*
 * What the driver persists of the agent: ClassPortInfo and each vport's configuration,
 * as the raw attribute bytes the Ethernet Manager wrote, so a restart restores them
 * through the same decoders and the same apply path a Set takes.
 */
#include "daemon/vnic/vema.h"

#include <errno.h>
#include <string.h>

void vema_export_cpi(const struct vema *v, uint8_t out[VEMA_CPI_LEN])
{
	memcpy(out, v->cpi, VEMA_CPI_LEN);
}

void vema_restore_cpi(struct vema *v, const uint8_t in[VEMA_CPI_LEN])
{
	memcpy(v->cpi, in, VEMA_CPI_LEN);
}

int vema_export_vport(const struct vema *v, unsigned index, struct vema_vport_state *out)
{
	const struct vnic_vport *vp = vema_vport(v, index);
	size_t i;

	if (!vp)
		return -ENOENT;
	vema_vpinfo_encode(&vp->info, out->info);
	out->n_macs = 0;
	for (i = 0; vp->macs && i < VNIC_MAC_TBL_ENTRIES; i++) {
		struct vema_mac_record *r = &out->macs[out->n_macs];

		if (mactable_mac_is_zero(vp->macs->slot[i].mac))
			continue;
		r->index = i;
		vema_mac_slot_encode(&vp->macs->slot[i], r->entry);
		out->n_macs++;
	}
	return 0;
}

static bool records_ok(const struct vema_vport_state *in)
{
	size_t i;

	if (in->n_macs > VNIC_MAC_TBL_ENTRIES)
		return false;
	for (i = 0; i < in->n_macs; i++)
		if (in->macs[i].index >= VNIC_MAC_TBL_ENTRIES)
			return false;
	return true;
}

int vema_restore_vport(struct vema *v, unsigned index, const struct vema_vport_state *in)
{
	struct vnic_veswport_info info;
	struct vnic_vport *vp;
	size_t i;
	int rc;

	if (!records_ok(in))
		return -EINVAL;
	rc = vport_set_add(&v->vports, index, &vp);
	if (rc < 0)
		return rc;
	vema_vpinfo_decode(in->info, &info);
	vport_configure(vp, &info);
	/* A table the EM wrote only zeros to still carries its digest. */
	if (in->n_macs || info.port.mac_tbl_digest) {
		rc = vport_mactable_set(vp, 0, NULL, 0, info.port.mac_tbl_digest);
		if (rc < 0)
			goto undo;
	}
	for (i = 0; i < in->n_macs; i++) {
		struct vnic_mac_slot s;

		vema_mac_slot_decode(in->macs[i].entry, &s);
		mactable_replace(vp->macs, in->macs[i].index, &s, 1);
	}
	/* Last, as nothing after it can fail: the driver's port is never left behind. */
	if (v->ops->vport_created) {
		rc = v->ops->vport_created(v->ctx, vp);
		if (rc < 0)
			goto undo;
	}
	if (v->ops->vport_changed)
		v->ops->vport_changed(v->ctx, vp, VPORT_CHG_ALL);
	if (vp->macs && v->ops->mactable_changed)
		v->ops->mactable_changed(v->ctx, vp, 0, VNIC_MAC_TBL_ENTRIES);
	return 0;
undo:
	vport_set_remove(&v->vports, index);
	return rc;
}
