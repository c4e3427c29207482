/* SPDX-License-Identifier: MIT */
#include "daemon/soft/gid_default.h"

#include <gcrypt.h>
#include <string.h>
#include <systemd/sd-id128.h>

/* rdmad's application ID for sd_id128_get_machine_app_specific(): never changes. */
#define GID_APP_ID SD_ID128_MAKE(5d, 2c, 8e, 31, 7a, 40, 4b, 96, a1, 0f, 63, d8, 9e, 27, c4, 15)

int gid_default_value(const char *ifname, uint8_t gid[RDMA_GID_LEN])
{
	uint8_t digest[32];
	sd_id128_t id;
	int r;

	/* Keyed by the application ID, so the machine ID itself cannot be read back from the GID. */
	r = sd_id128_get_machine_app_specific(GID_APP_ID, &id);
	if (r < 0)
		return r;
	gcry_md_hash_buffer(GCRY_MD_SHA256, digest, ifname, strlen(ifname) + 1);
	memset(gid, 0, RDMA_GID_LEN);
	gid[0] = 0xfe;
	gid[1] = 0x80;
	for (int i = 0; i < 8; i++)
		gid[8 + i] = id.bytes[i] ^ digest[i];
	/* Modified EUI-64's universal/local bit, 0: a local identifier, not from a vendor's MAC. */
	gid[8] &= (uint8_t)~0x02;
	return 0;
}

int gid_default_install(struct rdma_device *dev, unsigned port)
{
	uint8_t gid[RDMA_GID_LEN];
	int r = gid_default_value(dev->name, gid);

	return r < 0 ? r : rdma_gid_set_default(dev, port, gid);
}
