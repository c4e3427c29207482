/* SPDX-License-Identifier: MIT */
/*
 * The VEMA wire formats (reference opa_vnic.md §1.2, §2, §3.2): the MAD header
 * offsets and the attribute layouts, all big-endian at exact offsets of the data
 * area (MAD byte 40).  Encoders write every byte of their block; decoders read a
 * block the caller has already bounded (a short MAD is zero-padded by the agent).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "daemon/vnic/mactable.h"
#include "daemon/vnic/vport.h"
#include "dataplane/opa/vnic_counters.h"

/* MAD header (§1.2). */
#define VEMA_BASE_VERSION	0x80
#define VEMA_MGMT_CLASS		0x34
#define VEMA_CLASS_VERSION	0x80
#define VEMA_MAD_LEN		2048	/* every reply */
#define VEMA_COMMON_HDR_LEN	24	/* the MAD core's unmatched reply */
#define VEMA_HDR_LEN		40	/* common + RMPP + reserved + OUI */
#define VEMA_DATA_LEN		(VEMA_MAD_LEN - VEMA_HDR_LEN)	/* 2008 */
#define VEMA_TRAP_LEN		272	/* 40 + 232 */

#define VEMA_OFF_BASE_VERSION	0
#define VEMA_OFF_CLASS		1
#define VEMA_OFF_CLASS_VERSION	2
#define VEMA_OFF_METHOD		3
#define VEMA_OFF_STATUS		4
#define VEMA_OFF_TID		8
#define VEMA_OFF_ATTR_ID	16
#define VEMA_OFF_ATTR_MOD	20
#define VEMA_OFF_OUI		37

extern const uint8_t vema_oui[3];	/* Intel 00:06:6A */

enum vema_method {
	VEMA_METHOD_GET		= 0x01,
	VEMA_METHOD_SET		= 0x02,
	VEMA_METHOD_TRAP	= 0x05,
	VEMA_METHOD_GET_RESP	= 0x81,
};

enum vema_status {
	VEMA_STATUS_OK		= 0x0000,
	VEMA_STATUS_UNSUP	= 0x000C,	/* unsupported method/attribute */
	VEMA_STATUS_INVAL	= 0x001C,	/* invalid attribute value (vport, range) */
};

enum vema_attr_id {
	VEMA_ATTR_CLASS_PORT_INFO	= 0x0001,
	VEMA_ATTR_NOTICE		= 0x0002,
	VEMA_ATTR_VESWPORT_INFO		= 0x0011,
	VEMA_ATTR_MAC_ENTRIES		= 0x0012,
	VEMA_ATTR_IFACE_UCAST_MACS	= 0x0013,
	VEMA_ATTR_IFACE_MCAST_MACS	= 0x0014,
	VEMA_ATTR_DELETE_VESW		= 0x0015,
	VEMA_ATTR_SUMMARY_COUNTERS	= 0x0020,
	VEMA_ATTR_ERROR_COUNTERS	= 0x0022,
};

/* Attribute sizes. */
#define VEMA_CPI_LEN		80
#define VEMA_VPINFO_LEN		280
#define VEMA_VESW_INFO_LEN	152	/* where the per-port part starts */
#define VEMA_MACTBL_HDR_LEN	8
#define VEMA_MACTBL_ENTRY_LEN	16
#define VEMA_IFACE_HDR_LEN	8
#define VEMA_IFACE_MAX_MACS	((VEMA_DATA_LEN - VEMA_IFACE_HDR_LEN) / 6)	/* 333 */
#define VEMA_SUMMARY_LEN	360
#define VEMA_ERRORS_LEN		304
#define VEMA_NOTICE_LEN		96

/* ---- §2.2 ClassPortInfo */
#define VEMA_CPI_OFF_TRAP_LID	60
#define VEMA_CPI_OFF_TRAP_SL	76

/* The Get reply: the stored block with base/class version, cap_mask 0xFF01, resp time 18. */
void vema_cpi_reply(const uint8_t stored[VEMA_CPI_LEN], uint8_t out[VEMA_CPI_LEN]);
uint32_t vema_cpi_trap_lid(const uint8_t cpi[VEMA_CPI_LEN]);
uint8_t vema_cpi_trap_sl(const uint8_t cpi[VEMA_CPI_LEN]);

/* ---- §2.3 VESWPortInfo: every field, read-only ones included (vport_configure() is what
 * ignores them on a Set). */
void vema_vpinfo_encode(const struct vnic_veswport_info *info, uint8_t out[VEMA_VPINFO_LEN]);
void vema_vpinfo_decode(const uint8_t in[VEMA_VPINFO_LEN], struct vnic_veswport_info *info);

/* ---- §2.4 MAC entries */
struct vema_mactbl_hdr {
	uint16_t offset;
	uint16_t num_entries;
	uint32_t digest;
};

void vema_mactbl_hdr_decode(const uint8_t in[VEMA_MACTBL_HDR_LEN], struct vema_mactbl_hdr *h);
void vema_mactbl_hdr_encode(const struct vema_mactbl_hdr *h, uint8_t out[VEMA_MACTBL_HDR_LEN]);
void vema_mac_slot_decode(const uint8_t in[VEMA_MACTBL_ENTRY_LEN], struct vnic_mac_slot *s);
void vema_mac_slot_encode(const struct vnic_mac_slot *s, uint8_t out[VEMA_MACTBL_ENTRY_LEN]);

/* ---- §2.5 interface MAC lists */
struct vema_iface_hdr {
	uint16_t start_idx;
	uint16_t num_macs;	/* request: wanted (0 = as many as fit); reply: returned */
	uint16_t total;		/* reply */
	uint16_t gen_count;	/* reply */
};

void vema_iface_hdr_decode(const uint8_t in[VEMA_IFACE_HDR_LEN], struct vema_iface_hdr *h);
void vema_iface_hdr_encode(const struct vema_iface_hdr *h, uint8_t out[VEMA_IFACE_HDR_LEN]);

/* ---- §2.7 / §2.8 counters */
struct vema_counters_id {
	uint16_t vp_instance;	/* vport index */
	uint16_t vesw_id;
	uint32_t veswport_num;	/* the OPA port number, not vport.port_num */
};

void vema_summary_encode(const struct vema_counters_id *id, const struct opa_vnic_counters *c,
			 uint8_t out[VEMA_SUMMARY_LEN]);
void vema_errors_encode(const struct vema_counters_id *id, const struct opa_vnic_counters *c,
			uint8_t out[VEMA_ERRORS_LEN]);

/* ---- §3.2 trap */
enum vema_trap_opcode {
	VEMA_TRAP_UCAST_MAC_CHANGE	= 1,
	VEMA_TRAP_MCAST_MAC_CHANGE	= 2,
	VEMA_TRAP_LINK_STATUS_CHANGE	= 3,
};

#define VEMA_NOTICE_GEN_TYPE	0x08	/* OPA_INTEL_EMA_NOTICE_TYPE_INFO << 1, as the kernel */

struct vema_trap_data {
	uint32_t issuer_lid;	/* vport encap_slid */
	uint16_t fabric_id;
	uint16_t vesw_id;
	uint32_t veswportnum;	/* vport port_num */
	uint16_t opaportnum;
	uint8_t veswportindex;
	uint8_t opcode;
};

/* The whole 272-byte Trap MAD. */
void vema_trap_encode(uint64_t tid, const struct vema_trap_data *d, uint8_t out[VEMA_TRAP_LEN]);
