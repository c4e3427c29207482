/* SPDX-License-Identifier: MIT */
#include "dataplane/roce/sport.h"

#define FLOW_LABEL_MASK	0xfffff
#define SPORT_BASE	0xc000
#define SPORT_BITS	0x3fff

uint32_t roce_flow_label_of_qps(uint32_t local_qpn, uint32_t remote_qpn)
{
	uint64_t fl = (uint64_t)local_qpn * remote_qpn;

	/* Fold all 48 bits of the product into the 20 a flow label holds. */
	fl ^= fl >> 20;
	fl ^= fl >> 40;
	return fl & FLOW_LABEL_MASK;
}

uint16_t roce_udp_sport(uint32_t flow_label, uint32_t local_qpn, uint32_t remote_qpn)
{
	uint32_t fl = flow_label & FLOW_LABEL_MASK;

	if (!fl)
		fl = roce_flow_label_of_qps(local_qpn, remote_qpn);
	return SPORT_BASE | ((fl & SPORT_BITS) ^ ((fl & 0xfc000) >> 14));
}
