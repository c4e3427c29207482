/* SPDX-License-Identifier: MIT */
/*
 * The VNIC port MAC table: block replacement and slot reads (reference §2.4).
 */
#include "daemon/vnic/mactable.h"

#include <string.h>

bool mactable_range_ok(uint32_t offset, uint32_t num)
{
	/* Both are 16-bit on the wire, so the sum cannot wrap; check anyway for callers. */
	return num <= VNIC_MAC_TBL_PER_MAD && offset <= VNIC_MAC_TBL_ENTRIES &&
	       num <= VNIC_MAC_TBL_ENTRIES - offset;
}

bool mactable_mac_is_zero(const uint8_t mac[6])
{
	static const uint8_t zero[6];

	return !memcmp(mac, zero, sizeof(zero));
}

void mactable_replace(struct vnic_mactable *t, uint32_t offset, const struct vnic_mac_slot *in,
		      uint32_t num)
{
	uint32_t i;

	for (i = 0; i < num; i++) {
		struct vnic_mac_slot *s = &t->slot[offset + i];

		if (!mactable_mac_is_zero(s->mac))
			t->used--;
		/* A zero MAC deletes: the whole slot reads back as zeros, not a stale mask. */
		if (mactable_mac_is_zero(in[i].mac)) {
			memset(s, 0, sizeof(*s));
			continue;
		}
		*s = in[i];
		t->used++;
	}
}

void mactable_read(const struct vnic_mactable *t, uint32_t offset, uint32_t num,
		   struct vnic_mac_slot *out)
{
	if (!t) {
		memset(out, 0, num * sizeof(*out));
		return;
	}
	memcpy(out, &t->slot[offset], num * sizeof(*out));
}

size_t mactable_routes(const struct vnic_mactable *t, struct opa_vnic_mac_entry *out, size_t max)
{
	size_t i, n = 0;

	if (!t)
		return 0;
	for (i = 0; i < VNIC_MAC_TBL_ENTRIES && n < max; i++) {
		if (mactable_mac_is_zero(t->slot[i].mac))
			continue;
		memcpy(out[n].mac, t->slot[i].mac, 6);
		out[n].dlid_sd = t->slot[i].dlid_sd;
		n++;
	}
	return n;
}
