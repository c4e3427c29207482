/* SPDX-License-Identifier: MIT */
/*
 * The default GID of a device without roce_netdev: link-local, as the GID
 * Linux gives an RDMA device from its netdev's MAC (fe80::/64 and the
 * modified EUI-64), but with an interface identifier from what identifies a
 * device here, the machine ID and the device's name (docs/decisions.md,
 * "Default GID").  Linux only: the machine ID is systemd's.
 */
#pragma once

#include "daemon/verbs/device.h"
#include "daemon/verbs/gid.h"

/* The default GID of the device named ifname on this machine; -errno without a machine ID. */
int gid_default_value(const char *ifname, uint8_t gid[RDMA_GID_LEN]);
/* Puts it at index 0 of port (rdma_gid_set_default); -EEXIST when that index is taken. */
int gid_default_install(struct rdma_device *dev, unsigned port);
