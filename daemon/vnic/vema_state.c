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

/*
 * vp's MAC table becomes in's used slots with digest; a table the EM wrote only zeros to
 * still carries its digest.  An existing table is reused: putting one back never needs
 * memory that was there before.
 */
static int put_mactable(struct vnic_vport *vp, const struct vema_vport_state *in, uint32_t digest)
{
	size_t i;
	int rc;

	if (!in->n_macs && !digest) {
		vport_mactable_release(vp);
		return 0;
	}
	if (vp->macs)
		memset(vp->macs, 0, sizeof(*vp->macs));
	rc = vport_mactable_set(vp, 0, NULL, 0, digest);
	if (rc < 0)
		return rc;
	for (i = 0; i < in->n_macs; i++) {
		struct vnic_mac_slot s;

		vema_mac_slot_decode(in->macs[i].entry, &s);
		mactable_replace(vp->macs, in->macs[i].index, &s, 1);
	}
	return 0;
}

static void report_all(struct vema *v, struct vnic_vport *vp)
{
	if (v->ops->vport_changed)
		v->ops->vport_changed(v->ctx, vp, VPORT_CHG_ALL);
	if (vp->macs && v->ops->mactable_changed)
		v->ops->mactable_changed(v->ctx, vp, 0, VNIC_MAC_TBL_ENTRIES);
}

int vema_restore_vport(struct vema *v, unsigned index, const struct vema_vport_state *in)
{
	struct vnic_veswport_info info;
	struct vnic_vport *vp;
	int rc;

	if (!records_ok(in))
		return -EINVAL;
	rc = vport_set_add(&v->vports, index, &vp);
	if (rc < 0)
		return rc;
	vema_vpinfo_decode(in->info, &info);
	vport_configure(vp, &info);
	rc = put_mactable(vp, in, info.port.mac_tbl_digest);
	if (rc < 0)
		goto undo;
	/* Last, as nothing after it can fail: the driver's port is never left behind. */
	if (v->ops->vport_created) {
		rc = v->ops->vport_created(v->ctx, vp);
		if (rc < 0)
			goto undo;
	}
	report_all(v, vp);
	return 0;
undo:
	vport_set_remove(&v->vports, index);
	return rc;
}

int vema_reset_vport(struct vema *v, unsigned index, const struct vema_vport_state *in)
{
	struct vnic_vport *vp = vema_vport(v, index);
	struct vnic_veswport_info info;
	int rc;

	if (!in) {
		vema_remove_vport(v, index);
		return 0;
	}
	if (!vp)
		return vema_restore_vport(v, index, in);
	if (!records_ok(in))
		return -EINVAL;
	vema_vpinfo_decode(in->info, &info);
	vport_configure(vp, &info);
	rc = put_mactable(vp, in, info.port.mac_tbl_digest);
	/* Reported whatever came of the table: the driver follows what the agent now holds. */
	report_all(v, vp);
	return rc;
}

void vema_remove_vport(struct vema *v, unsigned index)
{
	struct vnic_vport *vp = vema_vport(v, index);

	if (!vp)
		return;
	if (v->ops->vport_removed)
		v->ops->vport_removed(v->ctx, vp);
	vport_set_remove(&v->vports, index);
}
