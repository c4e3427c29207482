/* SPDX-License-Identifier: MIT */
/*
 * The fabric map (docs/opa-fabric.md): which UDP addresses serve which LID.  Built whole by
 * the driver (new, add, seal), then immutable: workers read it without a lock while the
 * driver builds the next one.  The node's own address is left out of every route when the
 * map is sealed, so nothing is ever sent to ourselves; a LID whose only address was our own
 * stays in the map with no address (a multicast group we alone joined is still a group).
 *
 * Lookup is a binary search in an array sorted by LID: O(log n), one cache line per step.
 *
 * Replacing the map (opa_fabric_publish_map() in fabric.h) hands back the old one; it is
 * freed once every worker that may hold it has passed dp_worker_barrier().
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "dataplane/udp.h"

#define OPA_LID_MCAST_BASE	0xf00000	/* 16B multicast LIDs: 0xF00000 and up */
#define OPA_LID_MAX		0xffffff

/* The addresses of one LID: addrs[0 .. n) (n may be 0, see above). */
struct opa_fabric_route {
	uint32_t lid;
	uint32_t n;
	const struct dp_udp_addr *addrs;
};

struct opa_fabric_map;

/* An empty, unsealed map for a node of own_lid at own_addr; NULL when out of memory. */
struct opa_fabric_map *opa_fabric_map_new(uint32_t own_lid, const struct dp_udp_addr *own_addr);

/*
 * Adds addr to lid's addresses (unsealed map only).  -EINVAL: lid 0 or wider than 24 bits,
 * or an address of neither family; -EEXIST: lid already has addr; -ENOMEM; -EPERM: sealed.
 */
int opa_fabric_map_add(struct opa_fabric_map *m, uint32_t lid, const struct dp_udp_addr *addr);

/* Sorts, drops the own address from every route, and makes the map read-only.  0 or -ENOMEM. */
int opa_fabric_map_seal(struct opa_fabric_map *m);

/* lid's route, or NULL when the map does not know lid (sealed maps only). */
const struct opa_fabric_route *opa_fabric_map_lookup(const struct opa_fabric_map *m,
						     uint32_t lid);

uint32_t opa_fabric_map_own_lid(const struct opa_fabric_map *m);
const struct dp_udp_addr *opa_fabric_map_own_addr(const struct opa_fabric_map *m);
/* How many LIDs; the i-th route in LID order (i < count), for listing the map. */
size_t opa_fabric_map_count(const struct opa_fabric_map *m);
const struct opa_fabric_route *opa_fabric_map_route(const struct opa_fabric_map *m, size_t i);

void opa_fabric_map_free(struct opa_fabric_map *m);
