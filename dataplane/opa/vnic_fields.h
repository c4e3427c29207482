/* SPDX-License-Identifier: MIT */
/*
 * What goes into a VNIC packet's 16B header for one Ethernet frame (reference opa_vnic.md
 * §4.3-4.6): DLID from the port's tables, SC from the PCP tables, RC from the rc word,
 * entropy from the flow hash.  Pure functions: the tables are parameters.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "dataplane/opa/reason.h"

#define OPA_VNIC_DEF_PORTS	16
#define OPA_VNIC_FLOW_TBL	32
#define OPA_VNIC_NO_PORT	0xff
#define OPA_VNIC_SD_IS_SRC_MAC	0x20	/* dlid_sd bit: entry is a source MAC, not a route */

struct opa_vnic_mac_entry {
	uint8_t mac[6];
	uint32_t dlid_sd;	/* DLID in bits 31..8, side data in 7..0 */
};

/* The DLID sources of VESWPortInfo and the MAC table. */
struct opa_vnic_dlid_tables {
	const struct opa_vnic_mac_entry *macs;
	size_t n_macs;
	uint32_t u_mcast_dlid;
	uint32_t u_ucast_dlid[OPA_VNIC_DEF_PORTS];
	uint8_t flow_tbl[OPA_VNIC_FLOW_TBL];	/* from opa_vnic_flow_table() */
};

/* The per-port header inputs of VESWPortInfo. */
struct opa_vnic_port {
	uint32_t encap_slid;
	uint16_t pkey;
	uint16_t vesw_id;
	uint32_t rc_word;
	uint8_t pcp_to_sc_uc[8];
	uint8_t pcp_to_sc_mc[8];
	uint8_t non_vlan_sc_uc;
	uint8_t non_vlan_sc_mc;
};

/* Everything opa_vnic_encap() writes into the header. */
struct opa_vnic_tx {
	uint32_t slid;
	uint32_t dlid;
	uint8_t sc;
	uint8_t rc;
	uint16_t pkey;
	uint8_t entropy;
	uint16_t vesw_id;
};

/* The 8-bit entropy of a 32-bit flow hash: h ^= h >> 8; h ^= h >> 16; low byte. */
uint8_t opa_vnic_entropy(uint32_t flow_hash);

/* flow_tbl[i] = the (i mod k)-th set bit of def_port_mask, or OPA_VNIC_NO_PORT if none. */
void opa_vnic_flow_table(uint16_t def_port_mask, uint8_t flow_tbl[OPA_VNIC_FLOW_TBL]);

/* §4.6: MAC table, multicast DLID, LID in a local MAC, default port; 0 = no route. */
uint32_t opa_vnic_dlid(const struct opa_vnic_dlid_tables *t, const uint8_t dmac[6], uint8_t entropy);

/* §4.4: SC from the 802.1Q PCP (or the non-VLAN value), unicast or multicast table. */
uint8_t opa_vnic_sc(const struct opa_vnic_port *port, const uint8_t *frame, size_t len);

/* §4.4: the 3-bit RC the rc word gives the frame's protocol (looking through VLAN tags). */
uint8_t opa_vnic_rc(uint32_t rc_word, const uint8_t *frame, size_t len);

/* All of the above for one frame: OPA_SHORT under 14 bytes, OPA_DLID_ZERO with no route. */
enum opa_reason opa_vnic_tx_fields(const struct opa_vnic_port *port,
				   const struct opa_vnic_dlid_tables *t, const uint8_t *frame,
				   size_t len, uint32_t flow_hash, struct opa_vnic_tx *tx);
