/* SPDX-License-Identifier: MIT */
/*
 * An Ethernet frame in a 16B VNIC packet (reference opa_vnic.md §4.1-4.2, §4.8):
 *
 *   16B header (L4 type 0x78) | 2 reserved | vesw_id (LE u16) | frame (no FCS, >= 60 B)
 *   | pad 0-7 to a flit | ICRC (4) | tail (1): tail & 7 = pad bytes
 *
 * Length counts the whole packet in 8-byte flits.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "dataplane/opa/opa16b.h"
#include "dataplane/opa/reason.h"
#include "dataplane/opa/vnic_fields.h"

#define OPA_VNIC_L4_ETHR	0x78
#define OPA_VNIC_HDR_LEN	20	/* 16B header + reserved + vesw_id */
#define OPA_VNIC_ICRC_TAIL_LEN	5
#define OPA_VNIC_MIN_FRAME	60
#define OPA_VNIC_VLAN_ETH_HLEN	18	/* oversize threshold = MTU + this */
#define OPA_VNIC_VESW_MASK	0x0fff
#define OPA_VNIC_ANY_VESW	0xffff	/* opa_vnic_decap(): accept any vesw_id (demux after) */
#define OPA_VNIC_MAX_PKT	(OPA16B_MAX_FLITS * OPA16B_FLIT)

struct opa_vnic_rx {
	struct opa16b_hdr hdr;
	uint16_t vesw_id;	/* 12 bits */
	const uint8_t *frame;	/* inside the packet */
	size_t frame_len;
};

/* Packet bytes for an eth_len-byte frame (after padding short frames to 60). */
size_t opa_vnic_wire_len(size_t eth_len);

/*
 * Builds the packet into out.  Frames under 60 bytes are zero-padded to 60, pad and ICRC are
 * zero (the ICRC is hardware's; see docs/decisions.md), the tail is the pad count.
 * Refuses OPA_DLID_ZERO, OPA_TOO_LONG, OPA_NO_ROOM, OPA_BAD_FIELD.
 */
enum opa_reason opa_vnic_encap(const struct opa_vnic_tx *tx, const uint8_t *frame, size_t len,
			       uint8_t *out, size_t out_size, size_t *out_len);

/*
 * Checks a received packet (16B header, L4 type, vesw_id unless OPA_VNIC_ANY_VESW, runt,
 * frame > mtu + 18) and points rx->frame at the Ethernet frame.  The ICRC is not checked.
 */
enum opa_reason opa_vnic_decap(const uint8_t *pkt, size_t len, uint16_t vesw_id, uint32_t mtu,
			       struct opa_vnic_rx *rx);
