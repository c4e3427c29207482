/* SPDX-License-Identifier: MIT */
/*
 * The exact-match index over a VNIC port's MAC table (reference opa_vnic.md §2.4, §4.6 step 1):
 * destination MAC -> DLID in O(1), for the TX path of every frame.  Built once per
 * configuration snapshot, read-only after.  Open addressing with linear probing, at most half
 * full.  Entries marked as source MACs (dlid_sd bit 0x20) do not route and are left out; of two
 * entries with one MAC the lower index wins (the kernel's choice there is an artefact, §2.4).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "dataplane/opa/vnic_fields.h"

struct opa_mac_index {
	struct opa_mac_slot {
		uint64_t key;		/* MAC as a 48-bit number | 1 << 48 (0: empty) */
		uint32_t dlid;		/* may be 0: the entry matches but does not route */
	} *slots;
	uint32_t mask;
	unsigned shift;
};

/* 0 or -ENOMEM.  An empty table builds an index that finds nothing. */
int opa_mac_index_build(struct opa_mac_index *x, const struct opa_vnic_mac_entry *macs, size_t n);
void opa_mac_index_free(struct opa_mac_index *x);

/* The DLID of the entry for mac: 1 and *dlid set when there is one, 0 when none. */
int opa_mac_index_lookup(const struct opa_mac_index *x, const uint8_t mac[6], uint32_t *dlid);
