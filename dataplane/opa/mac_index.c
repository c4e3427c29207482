/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "dataplane/opa/mac_index.h"

#define USED	(1ull << 48)

static uint64_t key_of(const uint8_t mac[6])
{
	return USED | (uint64_t)mac[0] << 40 | (uint64_t)mac[1] << 32 | (uint64_t)mac[2] << 24 |
	       (uint64_t)mac[3] << 16 | (uint64_t)mac[4] << 8 | mac[5];
}

/* Fibonacci hashing: the multiply spreads the low bytes (a vendor's MACs differ there). */
static uint32_t slot_of(const struct opa_mac_index *x, uint64_t key)
{
	return (key * 0x9e3779b97f4a7c15ull) >> x->shift;
}

int opa_mac_index_build(struct opa_mac_index *x, const struct opa_vnic_mac_entry *macs, size_t n)
{
	unsigned bits = 4;
	size_t i;

	while (((size_t)1 << bits) < 2 * n)
		bits++;
	x->slots = calloc((size_t)1 << bits, sizeof(*x->slots));
	if (!x->slots)
		return -ENOMEM;
	x->mask = ((uint32_t)1 << bits) - 1;
	x->shift = 64 - bits;
	for (i = 0; i < n; i++) {
		uint64_t key = key_of(macs[i].mac);
		uint32_t s = slot_of(x, key);

		if (macs[i].dlid_sd & OPA_VNIC_SD_IS_SRC_MAC)
			continue;
		while (x->slots[s].key && x->slots[s].key != key)
			s = (s + 1) & x->mask;
		if (x->slots[s].key)
			continue;	/* a lower index has this MAC already */
		x->slots[s].key = key;
		x->slots[s].dlid = macs[i].dlid_sd >> 8;
	}
	return 0;
}

void opa_mac_index_free(struct opa_mac_index *x)
{
	free(x->slots);
	x->slots = NULL;
}

int opa_mac_index_lookup(const struct opa_mac_index *x, const uint8_t mac[6], uint32_t *dlid)
{
	uint64_t key = key_of(mac);
	uint32_t s = slot_of(x, key);

	/* At most half full, so an empty slot ends every probe. */
	for (; x->slots[s].key; s = (s + 1) & x->mask)
		if (x->slots[s].key == key) {
			*dlid = x->slots[s].dlid;
			return 1;
		}
	return 0;
}
