/* SPDX-License-Identifier: MIT */
/*
 * The VEMA agent's receive side: the MAD core's filter (§1.3), the reply frame (§1.4)
 * and one handler per attribute and method, with the status matrix of §2.9.
 */
#include "daemon/vnic/vema.h"

#include <errno.h>
#include <string.h>

#include "dataplane/bytes.h"

/* A request after the filter: the header fields the handlers use and the data area,
 * zero where the MAD was shorter than 2048 bytes. */
struct vema_req {
	uint8_t method;
	uint16_t attr_id;
	uint32_t attr_mod;
	uint8_t data[VEMA_DATA_LEN];
};

typedef uint16_t (*vema_handler)(struct vema *v, const struct vema_req *req, uint8_t *out);

void vema_init(struct vema *v, const struct vema_ops *ops, void *ctx)
{
	memset(v, 0, sizeof(*v));
	v->ops = ops;
	v->ctx = ctx;
	v->opa_port_num = 1;
}

void vema_fini(struct vema *v)
{
	vport_set_clear(&v->vports);
}

static void notify_changed(struct vema *v, struct vnic_vport *vp, unsigned changed)
{
	if (changed && v->ops->vport_changed)
		v->ops->vport_changed(v->ctx, vp, changed);
}

/* ---- 0x0001 ClassPortInfo: one block per OPA port, attr_mod ignored */

static uint16_t get_cpi(struct vema *v, const struct vema_req *req, uint8_t *out)
{
	vema_cpi_reply(v->cpi, out);
	return VEMA_STATUS_OK;
}

static uint16_t set_cpi(struct vema *v, const struct vema_req *req, uint8_t *out)
{
	memcpy(v->cpi, req->data, VEMA_CPI_LEN);
	return get_cpi(v, req, out);
}

/* ---- 0x0011 VESWPortInfo */

static uint16_t get_vpinfo(struct vema *v, const struct vema_req *req, uint8_t *out)
{
	const struct vnic_vport *vp = vema_vport(v, req->attr_mod);
	struct vnic_veswport_info pod;

	if (vp) {
		vema_vpinfo_encode(&vp->info, out);
	} else {
		vport_pod_info(&pod);
		vema_vpinfo_encode(&pod, out);
	}
	return VEMA_STATUS_OK;
}

/* The vport a Set addresses, made if absent; NULL if it could not be made. */
static struct vnic_vport *vport_for_set(struct vema *v, uint32_t attr_mod, bool *created)
{
	struct vnic_vport *vp = vema_vport(v, attr_mod);

	*created = false;
	if (vp)
		return vp;
	if (vport_set_add(&v->vports, attr_mod, &vp) < 0)
		return NULL;
	if (v->ops->vport_created && v->ops->vport_created(v->ctx, vp) < 0) {
		vport_set_remove(&v->vports, attr_mod);
		return NULL;
	}
	*created = true;
	return vp;
}

static uint16_t set_vpinfo(struct vema *v, const struct vema_req *req, uint8_t *out)
{
	struct vnic_veswport_info info;
	struct vnic_vport *vp;
	unsigned changed;
	bool created;

	vp = vport_for_set(v, req->attr_mod, &created);
	if (!vp)
		return VEMA_STATUS_INVAL;
	vema_vpinfo_decode(req->data, &info);
	changed = vport_configure(vp, &info);
	notify_changed(v, vp, created ? VPORT_CHG_ALL : changed);
	return get_vpinfo(v, req, out);
}

/* ---- 0x0015 Delete VESW: back to POD through the Set path, table released */

static uint16_t delete_vesw(struct vema *v, const struct vema_req *req, uint8_t *out)
{
	struct vnic_vport *vp = vema_vport(v, req->attr_mod);
	struct vnic_veswport_info pod;

	if (!vp)
		return VEMA_STATUS_INVAL;
	vport_pod_info(&pod);
	vport_configure(vp, &pod);
	vport_mactable_release(vp);
	if (v->ops->vport_reset)
		v->ops->vport_reset(v->ctx, vp);
	return get_vpinfo(v, req, out);
}

/* ---- 0x0012 MAC entries */

static uint16_t get_mactbl(struct vema *v, const struct vema_req *req, uint8_t *out)
{
	const struct vnic_vport *vp = vema_vport(v, req->attr_mod);
	struct vnic_mac_slot slots[VNIC_MAC_TBL_PER_MAD];
	struct vema_mactbl_hdr h;
	unsigned i;

	if (!vp)
		return VEMA_STATUS_INVAL;
	vema_mactbl_hdr_decode(req->data, &h);
	if (!mactable_range_ok(h.offset, h.num_entries))
		return VEMA_STATUS_INVAL;
	mactable_read(vp->macs, h.offset, h.num_entries, slots);
	h.digest = vp->info.port.mac_tbl_digest;
	vema_mactbl_hdr_encode(&h, out);
	for (i = 0; i < h.num_entries; i++)
		vema_mac_slot_encode(&slots[i], out + VEMA_MACTBL_HDR_LEN +
						     i * VEMA_MACTBL_ENTRY_LEN);
	return VEMA_STATUS_OK;
}

static uint16_t set_mactbl(struct vema *v, const struct vema_req *req, uint8_t *out)
{
	struct vnic_vport *vp = vema_vport(v, req->attr_mod);
	struct vnic_mac_slot slots[VNIC_MAC_TBL_PER_MAD];
	struct vema_mactbl_hdr h;
	uint16_t status;
	unsigned i;

	if (!vp)
		return VEMA_STATUS_INVAL;
	vema_mactbl_hdr_decode(req->data, &h);
	if (!mactable_range_ok(h.offset, h.num_entries))
		return VEMA_STATUS_INVAL;
	/* 8 + 125 x 16 = 2008: the block always lies inside the data area. */
	for (i = 0; i < h.num_entries; i++)
		vema_mac_slot_decode(req->data + VEMA_MACTBL_HDR_LEN + i * VEMA_MACTBL_ENTRY_LEN,
				     &slots[i]);
	if (vport_mactable_set(vp, h.offset, slots, h.num_entries, h.digest) < 0) {
		/* The old table stays; the reply still shows it, with 0x000C. */
		get_mactbl(v, req, out);
		return VEMA_STATUS_UNSUP;
	}
	if (v->ops->mactable_changed)
		v->ops->mactable_changed(v->ctx, vp, h.offset, h.num_entries);
	status = get_mactbl(v, req, out);
	return status;
}

/* ---- 0x0013 / 0x0014 interface MAC lists */

static uint16_t get_iface_macs(struct vema *v, const struct vema_req *req, uint8_t *out,
			       bool multicast)
{
	const struct vnic_vport *vp = vema_vport(v, req->attr_mod);
	uint8_t macs[VEMA_IFACE_MAX_MACS][6];
	struct vema_iface_hdr h;
	size_t want, n = 0, total = 0;

	if (!vp)
		return VEMA_STATUS_INVAL;
	vema_iface_hdr_decode(req->data, &h);
	want = h.num_macs && h.num_macs < VEMA_IFACE_MAX_MACS ? h.num_macs : VEMA_IFACE_MAX_MACS;
	if (v->ops->iface_macs)
		n = v->ops->iface_macs(v->ctx, vp, multicast, h.start_idx, macs, want, &total);
	if (n > want)
		n = want;
	h.num_macs = n;
	h.total = total > UINT16_MAX ? UINT16_MAX : total;
	h.gen_count = multicast ? vp->info.port.mc_macs_gen_count :
				  vp->info.port.uc_macs_gen_count;
	vema_iface_hdr_encode(&h, out);
	memcpy(out + VEMA_IFACE_HDR_LEN, macs, n * 6);
	return VEMA_STATUS_OK;
}

static uint16_t get_uc_macs(struct vema *v, const struct vema_req *req, uint8_t *out)
{
	return get_iface_macs(v, req, out, false);
}

static uint16_t get_mc_macs(struct vema *v, const struct vema_req *req, uint8_t *out)
{
	return get_iface_macs(v, req, out, true);
}

/* ---- 0x0020 / 0x0022 counters */

static const struct vnic_vport *read_counters(struct vema *v, const struct vema_req *req,
					      struct vema_counters_id *id,
					      struct opa_vnic_counters *c)
{
	const struct vnic_vport *vp = vema_vport(v, req->attr_mod);

	if (!vp)
		return NULL;
	memset(c, 0, sizeof(*c));
	if (v->ops->read_counters)
		v->ops->read_counters(v->ctx, vp, c);
	id->vp_instance = vp->index;
	id->vesw_id = vp->info.vesw.vesw_id;
	id->veswport_num = v->opa_port_num;
	return vp;
}

static uint16_t get_summary(struct vema *v, const struct vema_req *req, uint8_t *out)
{
	struct opa_vnic_counters c;
	struct vema_counters_id id;

	if (!read_counters(v, req, &id, &c))
		return VEMA_STATUS_INVAL;
	vema_summary_encode(&id, &c, out);
	return VEMA_STATUS_OK;
}

static uint16_t get_errors(struct vema *v, const struct vema_req *req, uint8_t *out)
{
	struct opa_vnic_counters c;
	struct vema_counters_id id;

	if (!read_counters(v, req, &id, &c))
		return VEMA_STATUS_INVAL;
	vema_errors_encode(&id, &c, out);
	return VEMA_STATUS_OK;
}

/* ---- dispatch: a missing handler is 0x000C, whatever the vport */

static const struct {
	uint16_t attr_id;
	vema_handler get, set;
} vema_attrs[] = {
	{ VEMA_ATTR_CLASS_PORT_INFO, get_cpi, set_cpi },
	{ VEMA_ATTR_VESWPORT_INFO, get_vpinfo, set_vpinfo },
	{ VEMA_ATTR_MAC_ENTRIES, get_mactbl, set_mactbl },
	{ VEMA_ATTR_IFACE_UCAST_MACS, get_uc_macs, NULL },
	{ VEMA_ATTR_IFACE_MCAST_MACS, get_mc_macs, NULL },
	{ VEMA_ATTR_DELETE_VESW, NULL, delete_vesw },
	{ VEMA_ATTR_SUMMARY_COUNTERS, get_summary, NULL },
	{ VEMA_ATTR_ERROR_COUNTERS, get_errors, NULL },
};

static uint16_t dispatch(struct vema *v, const struct vema_req *req, uint8_t *out)
{
	size_t i;

	for (i = 0; i < sizeof(vema_attrs) / sizeof(vema_attrs[0]); i++) {
		vema_handler h;

		if (vema_attrs[i].attr_id != req->attr_id)
			continue;
		h = req->method == VEMA_METHOD_GET ? vema_attrs[i].get : vema_attrs[i].set;
		return h ? h(v, req, out) : VEMA_STATUS_UNSUP;
	}
	return VEMA_STATUS_UNSUP;
}

int vema_set_target(const uint8_t *mad, size_t len)
{
	if (len < VEMA_HDR_LEN)
		return VEMA_SET_NONE;
	switch (dp_get_be16(mad + VEMA_OFF_ATTR_ID)) {
	case VEMA_ATTR_CLASS_PORT_INFO:
		return VEMA_SET_CPI;
	case VEMA_ATTR_VESWPORT_INFO:
	case VEMA_ATTR_MAC_ENTRIES:
	case VEMA_ATTR_DELETE_VESW:
		/* As vport_set_get() reads attr_mod. */
		return dp_get_be32(mad + VEMA_OFF_ATTR_MOD) & 0xff;
	}
	return VEMA_SET_NONE;
}

/* ---- the MAD core's part */

/* Class 0x34, version 0x80, Intel OUI: what VEMA registered for.  Without bytes 37-39
 * there is no OUI to match, so a MAD under 40 bytes finds no agent. */
static bool for_vema(const uint8_t *mad, size_t len)
{
	return len >= VEMA_HDR_LEN && mad[VEMA_OFF_CLASS] == VEMA_MGMT_CLASS &&
	       mad[VEMA_OFF_CLASS_VERSION] == VEMA_CLASS_VERSION &&
	       !memcmp(mad + VEMA_OFF_OUI, vema_oui, sizeof(vema_oui));
}

static size_t drop(struct vema *v, enum vema_drop why)
{
	v->stats.dropped[why]++;
	return 0;
}

/* No agent for a Get/Set: GetResp 0x000C, only the 24-byte common header (OPA base). */
static size_t unmatched_reply(struct vema *v, const uint8_t *mad, uint8_t *reply,
			      size_t reply_size)
{
	if (reply_size < VEMA_COMMON_HDR_LEN)
		return drop(v, VEMA_DROP_NO_ROOM);
	memcpy(reply, mad, VEMA_COMMON_HDR_LEN);
	reply[VEMA_OFF_METHOD] = VEMA_METHOD_GET_RESP;
	dp_put_be16(reply + VEMA_OFF_STATUS, VEMA_STATUS_UNSUP);
	v->stats.unmatched_replies++;
	return VEMA_COMMON_HDR_LEN;
}

size_t vema_handle(struct vema *v, const struct mad_addr *from, const uint8_t *mad, size_t len,
		   uint8_t *reply, size_t reply_size)
{
	struct vema_req req;
	size_t data_len;
	uint16_t status;

	v->stats.mads_received++;
	if (len < VEMA_COMMON_HDR_LEN)
		return drop(v, VEMA_DROP_SHORT);
	if (mad[VEMA_OFF_BASE_VERSION] != VEMA_BASE_VERSION)
		return drop(v, VEMA_DROP_BASE_VERSION);
	req.method = mad[VEMA_OFF_METHOD];
	if (req.method != VEMA_METHOD_GET && req.method != VEMA_METHOD_SET)
		return drop(v, VEMA_DROP_METHOD);
	if (!for_vema(mad, len))
		return unmatched_reply(v, mad, reply, reply_size);
	if (reply_size < VEMA_MAD_LEN)
		return drop(v, VEMA_DROP_NO_ROOM);

	req.attr_id = dp_get_be16(mad + VEMA_OFF_ATTR_ID);
	req.attr_mod = dp_get_be32(mad + VEMA_OFF_ATTR_MOD);
	data_len = len - VEMA_HDR_LEN;
	if (data_len > VEMA_DATA_LEN)
		data_len = VEMA_DATA_LEN;
	memcpy(req.data, mad + VEMA_HDR_LEN, data_len);
	memset(req.data + data_len, 0, VEMA_DATA_LEN - data_len);

	memset(reply, 0, VEMA_MAD_LEN);
	memcpy(reply, mad, VEMA_HDR_LEN);
	reply[VEMA_OFF_METHOD] = VEMA_METHOD_GET_RESP;
	status = dispatch(v, &req, reply + VEMA_HDR_LEN);
	dp_put_be16(reply + VEMA_OFF_STATUS, status);
	v->stats.replies++;
	return VEMA_MAD_LEN;
}
