/* SPDX-License-Identifier: MIT */
/*
 * VEMA attribute codecs.  VESWPortInfo is described once, as a table of fields, and the
 * table drives both directions, so an offset cannot differ between Get and Set.
 */
#include "daemon/vnic/vema_attr.h"

#include <stddef.h>
#include <string.h>

#include "dataplane/bytes.h"

const uint8_t vema_oui[3] = { 0x00, 0x06, 0x6a };

static void put_be64(uint8_t *p, uint64_t v)
{
	dp_put_be32(p, v >> 32);
	dp_put_be32(p + 4, (uint32_t)v);
}

/* ---- ClassPortInfo */

void vema_cpi_reply(const uint8_t stored[VEMA_CPI_LEN], uint8_t out[VEMA_CPI_LEN])
{
	memcpy(out, stored, VEMA_CPI_LEN);
	out[0] = VEMA_BASE_VERSION;
	out[1] = VEMA_CLASS_VERSION;
	/* bit 0: the agent sends traps; bits 8-15: 255 VNIC ports. */
	dp_put_be16(out + 2, 0xff01);
	/* Response time 4.096 µs x 2^18, cap_mask2 0. */
	dp_put_be32(out + 4, 18);
}

uint32_t vema_cpi_trap_lid(const uint8_t cpi[VEMA_CPI_LEN])
{
	return dp_get_be32(cpi + VEMA_CPI_OFF_TRAP_LID);
}

uint8_t vema_cpi_trap_sl(const uint8_t cpi[VEMA_CPI_LEN])
{
	return cpi[VEMA_CPI_OFF_TRAP_SL] >> 3;
}

/* ---- VESWPortInfo */

enum field_kind { F_BYTES, F_BE16, F_BE32 };

struct field {
	uint16_t wire;		/* offset in the 280-byte attribute */
	uint8_t kind;
	uint8_t count;		/* bytes for F_BYTES, elements otherwise */
	uint16_t mem;		/* offsetof in struct vnic_veswport_info */
};

#define VESW(f)	offsetof(struct vnic_veswport_info, vesw.f)
#define PORT(f)	offsetof(struct vnic_veswport_info, port.f)
#define P	VEMA_VESW_INFO_LEN

static const struct field vpinfo_fields[] = {
	{ 0, F_BE16, 1, VESW(fabric_id) },
	{ 2, F_BE16, 1, VESW(vesw_id) },
	{ 4, F_BYTES, 6, VESW(rsvd0) },
	{ 10, F_BE16, 1, VESW(def_port_mask) },
	{ 12, F_BYTES, 2, VESW(rsvd1) },
	{ 14, F_BE16, 1, VESW(pkey) },
	{ 16, F_BYTES, 4, VESW(rsvd2) },
	{ 20, F_BE32, 1, VESW(u_mcast_dlid) },
	{ 24, F_BE32, OPA_VNIC_DEF_PORTS, VESW(u_ucast_dlid) },
	{ 88, F_BE32, 1, VESW(rc) },
	{ 92, F_BYTES, 56, VESW(rsvd3) },
	{ 148, F_BE16, 1, VESW(eth_mtu) },
	{ 150, F_BYTES, 2, VESW(rsvd4) },
	{ P + 0, F_BE32, 1, PORT(port_num) },
	{ P + 4, F_BYTES, 1, PORT(eth_link_status) },
	{ P + 5, F_BYTES, 3, PORT(rsvd0) },
	{ P + 8, F_BYTES, 6, PORT(base_mac) },
	{ P + 14, F_BYTES, 1, PORT(config_state) },
	{ P + 15, F_BYTES, 1, PORT(oper_state) },
	{ P + 16, F_BE16, 1, PORT(max_mac_tbl_ent) },
	{ P + 18, F_BE16, 1, PORT(max_smac_ent) },
	{ P + 20, F_BE32, 1, PORT(mac_tbl_digest) },
	{ P + 24, F_BYTES, 4, PORT(rsvd1) },
	{ P + 28, F_BE32, 1, PORT(encap_slid) },
	{ P + 32, F_BYTES, 8, PORT(pcp_to_sc_uc) },
	{ P + 40, F_BYTES, 8, PORT(pcp_to_vl_uc) },
	{ P + 48, F_BYTES, 8, PORT(pcp_to_sc_mc) },
	{ P + 56, F_BYTES, 8, PORT(pcp_to_vl_mc) },
	{ P + 64, F_BYTES, 1, PORT(non_vlan_sc_uc) },
	{ P + 65, F_BYTES, 1, PORT(non_vlan_vl_uc) },
	{ P + 66, F_BYTES, 1, PORT(non_vlan_sc_mc) },
	{ P + 67, F_BYTES, 1, PORT(non_vlan_vl_mc) },
	{ P + 68, F_BYTES, 48, PORT(rsvd2) },
	{ P + 116, F_BE16, 1, PORT(uc_macs_gen_count) },
	{ P + 118, F_BE16, 1, PORT(mc_macs_gen_count) },
	{ P + 120, F_BYTES, 8, PORT(rsvd3) },
};

#undef VESW
#undef PORT
#undef P

void vema_vpinfo_encode(const struct vnic_veswport_info *info, uint8_t out[VEMA_VPINFO_LEN])
{
	const uint8_t *base = (const uint8_t *)info;
	size_t i, k;

	memset(out, 0, VEMA_VPINFO_LEN);
	for (i = 0; i < sizeof(vpinfo_fields) / sizeof(vpinfo_fields[0]); i++) {
		const struct field *f = &vpinfo_fields[i];
		uint8_t *w = out + f->wire;

		for (k = 0; k < f->count; k++) {
			switch (f->kind) {
			case F_BYTES:
				w[k] = base[f->mem + k];
				break;
			case F_BE16: {
				uint16_t v;

				memcpy(&v, base + f->mem + 2 * k, 2);
				dp_put_be16(w + 2 * k, v);
				break;
			}
			case F_BE32: {
				uint32_t v;

				memcpy(&v, base + f->mem + 4 * k, 4);
				dp_put_be32(w + 4 * k, v);
				break;
			}
			}
		}
	}
}

void vema_vpinfo_decode(const uint8_t in[VEMA_VPINFO_LEN], struct vnic_veswport_info *info)
{
	uint8_t *base = (uint8_t *)info;
	size_t i, k;

	memset(info, 0, sizeof(*info));
	for (i = 0; i < sizeof(vpinfo_fields) / sizeof(vpinfo_fields[0]); i++) {
		const struct field *f = &vpinfo_fields[i];
		const uint8_t *w = in + f->wire;

		for (k = 0; k < f->count; k++) {
			switch (f->kind) {
			case F_BYTES:
				base[f->mem + k] = w[k];
				break;
			case F_BE16: {
				uint16_t v = dp_get_be16(w + 2 * k);

				memcpy(base + f->mem + 2 * k, &v, 2);
				break;
			}
			case F_BE32: {
				uint32_t v = dp_get_be32(w + 4 * k);

				memcpy(base + f->mem + 4 * k, &v, 4);
				break;
			}
			}
		}
	}
}

/* ---- MAC entries */

void vema_mactbl_hdr_decode(const uint8_t in[VEMA_MACTBL_HDR_LEN], struct vema_mactbl_hdr *h)
{
	h->offset = dp_get_be16(in);
	h->num_entries = dp_get_be16(in + 2);
	h->digest = dp_get_be32(in + 4);
}

void vema_mactbl_hdr_encode(const struct vema_mactbl_hdr *h, uint8_t out[VEMA_MACTBL_HDR_LEN])
{
	dp_put_be16(out, h->offset);
	dp_put_be16(out + 2, h->num_entries);
	dp_put_be32(out + 4, h->digest);
}

void vema_mac_slot_decode(const uint8_t in[VEMA_MACTBL_ENTRY_LEN], struct vnic_mac_slot *s)
{
	memcpy(s->mac, in, 6);
	memcpy(s->mask, in + 6, 6);
	s->dlid_sd = dp_get_be32(in + 12);
}

void vema_mac_slot_encode(const struct vnic_mac_slot *s, uint8_t out[VEMA_MACTBL_ENTRY_LEN])
{
	memcpy(out, s->mac, 6);
	memcpy(out + 6, s->mask, 6);
	dp_put_be32(out + 12, s->dlid_sd);
}

/* ---- interface MAC lists */

void vema_iface_hdr_decode(const uint8_t in[VEMA_IFACE_HDR_LEN], struct vema_iface_hdr *h)
{
	h->start_idx = dp_get_be16(in);
	h->num_macs = dp_get_be16(in + 2);
	h->total = dp_get_be16(in + 4);
	h->gen_count = dp_get_be16(in + 6);
}

void vema_iface_hdr_encode(const struct vema_iface_hdr *h, uint8_t out[VEMA_IFACE_HDR_LEN])
{
	dp_put_be16(out, h->start_idx);
	dp_put_be16(out + 2, h->num_macs);
	dp_put_be16(out + 4, h->total);
	dp_put_be16(out + 6, h->gen_count);
}

/* ---- counters */

static void counters_id_encode(const struct vema_counters_id *id, uint8_t *out)
{
	dp_put_be16(out, id->vp_instance);
	dp_put_be16(out + 2, id->vesw_id);
	dp_put_be32(out + 4, id->veswport_num);
}

/* unicast, mcastbcast, untagged, vlan, then the seven size buckets: 11 x be64. */
static uint8_t *dir_encode(const struct opa_vnic_dir_counters *d, uint8_t *out)
{
	const uint64_t head[4] = { d->unicast, d->mcastbcast, d->untagged, d->vlan };
	unsigned i;

	for (i = 0; i < 4; i++, out += 8)
		put_be64(out, head[i]);
	for (i = 0; i < OPA_VNIC_SIZE_BUCKETS; i++, out += 8)
		put_be64(out, d->size[i]);
	return out;
}

void vema_summary_encode(const struct vema_counters_id *id, const struct opa_vnic_counters *c,
			 uint8_t out[VEMA_SUMMARY_LEN])
{
	uint8_t *p;

	memset(out, 0, VEMA_SUMMARY_LEN);
	counters_id_encode(id, out);
	put_be64(out + 8, opa_vnic_tx_errors(c));
	put_be64(out + 16, opa_vnic_rx_errors(c));
	put_be64(out + 24, c->tx.packets);
	put_be64(out + 32, c->rx.packets);
	put_be64(out + 40, c->tx.bytes);
	put_be64(out + 48, c->rx.bytes);
	p = dir_encode(&c->tx, out + 56);	/* ends at 144 */
	dir_encode(&c->rx, p);			/* ends at 232; reserved to 360 */
}

void vema_errors_encode(const struct vema_counters_id *id, const struct opa_vnic_counters *c,
			uint8_t out[VEMA_ERRORS_LEN])
{
	memset(out, 0, VEMA_ERRORS_LEN);
	counters_id_encode(id, out);
	put_be64(out + 8, opa_vnic_tx_errors(c));
	put_be64(out + 16, opa_vnic_rx_errors(c));
	/* 32 tx_smac_filt and 144 rx_eth_down: never counted, stay 0. */
	put_be64(out + 64, c->tx_dlid_zero);
	put_be64(out + 80, c->tx_fifo_errors + c->tx_carrier_errors + c->tx_no_route);
	put_be64(out + 96, c->tx_drop_state);
	put_be64(out + 104, c->rx_nohandler);
	put_be64(out + 120, c->rx_runt);
	put_be64(out + 128, c->rx_oversize);
	put_be64(out + 152, c->rx_drop_state);
	put_be64(out + 160, c->rx_fifo_errors);
}

/* ---- trap */

void vema_trap_encode(uint64_t tid, const struct vema_trap_data *d, uint8_t out[VEMA_TRAP_LEN])
{
	uint8_t *notice = out + VEMA_HDR_LEN;
	uint8_t *trap = notice + 32;

	memset(out, 0, VEMA_TRAP_LEN);
	out[VEMA_OFF_BASE_VERSION] = VEMA_BASE_VERSION;
	out[VEMA_OFF_CLASS] = VEMA_MGMT_CLASS;
	out[VEMA_OFF_CLASS_VERSION] = VEMA_CLASS_VERSION;
	out[VEMA_OFF_METHOD] = VEMA_METHOD_TRAP;
	put_be64(out + VEMA_OFF_TID, tid);
	dp_put_be16(out + VEMA_OFF_ATTR_ID, VEMA_ATTR_NOTICE);
	memcpy(out + VEMA_OFF_OUI, vema_oui, 3);

	notice[0] = VEMA_NOTICE_GEN_TYPE;
	memcpy(notice + 1, vema_oui, 3);
	/* trap_num and toggle_count stay 0, as the kernel leaves them. */
	dp_put_be32(notice + 8, d->issuer_lid);

	dp_put_be16(trap, d->fabric_id);
	dp_put_be16(trap + 2, d->vesw_id);
	dp_put_be32(trap + 4, d->veswportnum);
	dp_put_be16(trap + 8, d->opaportnum);
	trap[10] = d->veswportindex;
	trap[11] = d->opcode;
}
