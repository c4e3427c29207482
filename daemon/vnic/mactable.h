/* SPDX-License-Identifier: MIT */
/*
 * The MAC table of one VNIC port (reference opa_vnic.md §2.4): 2048 slots the
 * Ethernet Manager writes in blocks.  A block write replaces every slot of the
 * block; a slot written with MAC 00:00:00:00:00:00 becomes empty.  The table is
 * kept by slot index because a Get returns slots, not matches.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dataplane/opa/vnic_fields.h"

#define VNIC_MAC_TBL_ENTRIES	2048	/* OPA_VNIC_MAC_TBL_MAX_ENTRIES */
#define VNIC_MAC_TBL_PER_MAD	125	/* (2008 - 8) / 16 */

/* One slot as the wire carries it (§2.4 entry), host byte order. */
struct vnic_mac_slot {
	uint8_t mac[6];
	uint8_t mask[6];	/* stored and returned, never matched on */
	uint32_t dlid_sd;	/* DLID in bits 31..8, side data in 7..0 */
};

struct vnic_mactable {
	struct vnic_mac_slot slot[VNIC_MAC_TBL_ENTRIES];	/* empty: all-zero MAC */
	size_t used;						/* slots with a MAC */
};

/* §2.4 validation: at most 125 entries per MAD and the block inside the table. */
bool mactable_range_ok(uint32_t offset, uint32_t num);

/* A slot is in use when its MAC is not all zero. */
bool mactable_mac_is_zero(const uint8_t mac[6]);

/* Replaces slots [offset, offset+num) by in[0..num); the range must be ok. */
void mactable_replace(struct vnic_mactable *t, uint32_t offset, const struct vnic_mac_slot *in,
		      uint32_t num);

/* Copies slots [offset, offset+num) to out; a NULL table reads as empty. */
void mactable_read(const struct vnic_mactable *t, uint32_t offset, uint32_t num,
		   struct vnic_mac_slot *out);

/* The used slots as the data path's lookup entries, in slot order; returns how many
 * were written (at most max). */
size_t mactable_routes(const struct vnic_mactable *t, struct opa_vnic_mac_entry *out, size_t max);
