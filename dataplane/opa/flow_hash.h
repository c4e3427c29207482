/* SPDX-License-Identifier: MIT */
/*
 * The flow hash a VNIC port feeds into the entropy (reference opa_vnic.md §4.5: any stable
 * per-flow hash will do; it only spreads flows over default ports and fabric paths).
 *
 * Inputs, looking through up to two VLAN tags: IPv4: protocol, source and destination
 * address, and for TCP/UDP/SCTP/UDP-Lite the two ports, only in unfragmented packets (a
 * flow's fragments must hash alike, and only the first carries ports); IPv6: next header
 * (the first only, as the RC choice), both addresses, the flow label, ports for
 * TCP/UDP/SCTP/UDP-Lite; anything else: both MACs and the EtherType.
 * The words are combined with a multiply-rotate step and finished with the murmur3 32-bit
 * finaliser, so every input bit reaches the low byte the entropy keeps.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* frame[0 .. len): an Ethernet frame of at least 14 bytes (shorter: hash of what is there). */
uint32_t opa_vnic_flow_hash(const uint8_t *frame, size_t len);
