/* SPDX-License-Identifier: MIT */
/*
 * What netdev_linux.c (the TAP interface), netdev_config.c (its configuration
 * and state through rtnetlink) and netdev_watch.c (link notifications,
 * multicast polling) share.  Not for
 * the driver: it uses netdev_linux.h.
 */
#pragma once

#include <net/if.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>

#include "daemon/vnic/netdev_linux.h"
#include "lib/netlink.h"

struct vnic_netdev_watch {
	sd_event *event;
	struct nl_sock *req;		/* changes and queries, blocking */
	struct nl_sock *notify;		/* RTNLGRP_LINK, nonblocking */
	struct nl_cb *notify_cb;	/* its callbacks (a reference of our own) */
	sd_event_source *notify_source;
	sd_event_source *mc_timer;
	uint64_t mc_poll_usec;
	struct vnic_netdev *ports;
};

struct vnic_netdev {
	struct vnic_netdev_watch *w;
	struct vnic_netdev *next;
	int fd;
	int ifindex;
	char name[IFNAMSIZ];
	const struct vnic_netdev_events *events;
	void *userdata;
	/* What the driver last knew of the interface: a notification reports the difference. */
	bool admin_up;
	uint8_t mac[6];
	unsigned mtu;
	unsigned ceiling;
	bool dormant;
	bool carrier;
	int vnet_hdr_len;	/* the header before each frame on fd */
	bool ceiling_warned;	/* the host's MTU above the ceiling is logged once per port */
	bool dirty;		/* a link notification named it */
	bool gone;		/* the interface was deleted under us */
	struct vnic_mac_list mc;
};

/* netdev_config.c */

/* Sends `changes` (what: for the log) for nd's interface. */
int vnic_link_change(struct vnic_netdev *nd, struct rtnl_link *changes, const char *what);

/* The state the kernel has now: IFF_* flags, address, MTU, operstate. */
struct vnic_link_state {
	unsigned flags;
	uint8_t mac[6];
	unsigned mtu;
	uint8_t operstate;
};
int vnic_netdev_query(struct vnic_netdev *nd, struct vnic_link_state *st);
/* Sets IFLA_OPERSTATE as the dormant flag wants it (the kernel's linkwatch may undo it). */
int vnic_netdev_apply_operstate(struct vnic_netdev *nd);

/*
 * Picks ifindex's addresses out of /proc/net/dev_mcast text ("ifindex name
 * users global_users hexaddress" lines).  Lines that do not parse, and
 * addresses that are not 6 bytes, are skipped.
 */
void vnic_mcast_parse(const char *text, int ifindex, struct vnic_mac_list *list);
/* Reads /proc/net/dev_mcast (of the calling thread's network namespace) into a string. */
int vnic_mcast_read_text(char **text);

/* netdev_watch.c */
void vnic_netdev_watch_add(struct vnic_netdev_watch *w, struct vnic_netdev *nd);
void vnic_netdev_watch_remove(struct vnic_netdev_watch *w, struct vnic_netdev *nd);
