/* SPDX-License-Identifier: MIT */
/*
 * The counters of one VNIC port (reference opa_vnic.md §5.3): the raw ones the
 * data path keeps, from which the netdev totals and the Ethernet Manager's
 * summary (0x0020) and error (0x0022) attributes are derived.  Byte totals
 * count 4 bytes of FCS per frame, size buckets the frame without FCS.
 */
#pragma once

#include <stdint.h>

enum opa_vnic_size_bucket {
	OPA_VNIC_SIZE_64,		/* < 65 */
	OPA_VNIC_SIZE_65_127,
	OPA_VNIC_SIZE_128_255,
	OPA_VNIC_SIZE_256_511,
	OPA_VNIC_SIZE_512_1023,
	OPA_VNIC_SIZE_1024_1518,
	OPA_VNIC_SIZE_1519_MAX,
	OPA_VNIC_SIZE_BUCKETS
};

/* One direction's frame counters. */
struct opa_vnic_dir_counters {
	uint64_t packets;
	uint64_t bytes;			/* frame length + 4 (FCS) */
	uint64_t unicast;		/* good frames only, from here on */
	uint64_t mcastbcast;
	uint64_t untagged;
	uint64_t vlan;
	uint64_t size[OPA_VNIC_SIZE_BUCKETS];
};

struct opa_vnic_counters {
	struct opa_vnic_dir_counters tx, rx;
	uint64_t tx_fifo_errors;	/* no room to send (socket buffer full) */
	uint64_t tx_carrier_errors;	/* the fabric refused the datagram */
	uint64_t tx_drop_state;		/* sent while not operationally up */
	uint64_t tx_dlid_zero;		/* no DLID for the destination MAC */
	uint64_t tx_no_route;		/* a DLID the fabric map does not know */
	uint64_t rx_fifo_errors;	/* could not hand the frame to the interface */
	uint64_t rx_nohandler;		/* unknown vesw_id (counted on one port: §4.8) */
	uint64_t rx_drop_state;		/* received while not operationally up */
	uint64_t rx_oversize;		/* frame > MTU + 18 */
	uint64_t rx_runt;		/* frame < 60 */
};

/* §5.3's bucket for a frame of len bytes (without FCS). */
static inline enum opa_vnic_size_bucket opa_vnic_size_bucket(uint32_t len)
{
	if (len >= 1515)
		return OPA_VNIC_SIZE_1519_MAX;
	if (len >= 1020)
		return OPA_VNIC_SIZE_1024_1518;
	if (len >= 508)
		return OPA_VNIC_SIZE_512_1023;
	if (len >= 252)
		return OPA_VNIC_SIZE_256_511;
	if (len >= 124)
		return OPA_VNIC_SIZE_128_255;
	if (len >= 61)
		return OPA_VNIC_SIZE_65_127;
	return OPA_VNIC_SIZE_64;
}

/* The derived totals of §5.3. */
static inline uint64_t opa_vnic_tx_errors(const struct opa_vnic_counters *c)
{
	return c->tx_fifo_errors + c->tx_carrier_errors + c->tx_drop_state + c->tx_dlid_zero +
	       c->tx_no_route;
}

static inline uint64_t opa_vnic_rx_errors(const struct opa_vnic_counters *c)
{
	return c->rx_fifo_errors + c->rx_nohandler + c->rx_drop_state + c->rx_oversize + c->rx_runt;
}
