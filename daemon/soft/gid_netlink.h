/* SPDX-License-Identifier: MIT */
/*
 * RoCE v2 GIDs from the host's addresses (rdmad.conf roce_netdev): the
 * IPv4 and IPv6 addresses of one interface, read at start and followed
 * through rtnetlink notifications in the event loop, kept in one port's
 * GID table (rdma_gid_sync_netdev).  Linux only; the model stays free of it.
 */
#pragma once

#include <systemd/sd-event.h>

#include "daemon/verbs/device.h"

struct gid_netlink;

/*
 * Binds port of dev to the interface ifname.  An interface that does not
 * exist (yet) is no error: its GIDs come when it appears.
 */
int gid_netlink_new(struct gid_netlink **out, sd_event *event, struct rdma_device *dev,
		    unsigned port, const char *ifname);
/* Stops following; the entries stay as they are. */
void gid_netlink_free(struct gid_netlink *g);
