/* SPDX-License-Identifier: MIT */
/*
 * The UDP source port of a RoCE v2 flow (reference roce_virtio.md §2.8).  It is entropy for
 * ECMP and RSS and must not change within a flow, or packets could be reordered; receivers
 * do not check it.  As the kernel's rdma_get_udp_sport(): the 20-bit flow label of the path
 * if it has one, else one folded from the two QPNs (the same at both ends), then its 20 bits
 * folded to 14 under the 0xC000 prefix, so the port lies in 0xC000..0xFFFF.
 */
#pragma once

#include <stdint.h>

/* The flow label two QPs share when the path gives none (symmetric in local and remote). */
uint32_t roce_flow_label_of_qps(uint32_t local_qpn, uint32_t remote_qpn);

/* flow_label 0 means "none": the QPNs decide. */
uint16_t roce_udp_sport(uint32_t flow_label, uint32_t local_qpn, uint32_t remote_qpn);
