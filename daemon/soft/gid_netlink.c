/* SPDX-License-Identifier: MIT */
/*
 * A notification only says "look again": the interface is looked up by
 * name and its addresses dumped afresh, then the port's table is made to
 * match.  So a rename or a deletion (the name no longer resolves) empties
 * the interface's entries, a burst of notifications costs one dump, and an
 * overrun socket loses nothing.  IPv6 addresses count once DAD is over
 * (neither tentative nor failed); the kernel says so with a new RTM_NEWADDR.
 */
#include "daemon/soft/gid_netlink.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>
#include <netlink/msg.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>

#include "daemon/soft/datapath.h"
#include "daemon/verbs/gid.h"
#include "lib/log.h"
#include "lib/netlink.h"

/* How often entries whose address went are checked for their last user. */
#define SWEEP_USEC 1000000ULL

struct gid_netlink {
	struct rdma_device *dev;
	unsigned port;
	char name[IF_NAMESIZE];
	int ifindex;			/* 0 while no interface has the name */
	bool missing_logged;
	bool dirty;
	struct nl_sock *req;		/* dumps, blocking */
	struct nl_sock *notify;		/* link and address groups, nonblocking */
	struct nl_cb *notify_cb;
	sd_event_source *notify_source;
	sd_event_source *sweep_timer;
};

/* The interface's index now, 0 when none has the name. */
static int lookup_ifindex(struct gid_netlink *g)
{
	struct rtnl_link *link = NULL;
	int r = rtnl_link_get_kernel(g->req, 0, g->name, &link);

	if (r < 0)
		return netlink_errno(r) == -ENODEV ? 0 : netlink_errno(r);
	r = rtnl_link_get_ifindex(link);
	rtnl_link_put(link);
	return r;
}

/* An address's GID, false for one that gives none (family, tentative, DAD failed). */
static bool address_gid(struct rtnl_addr *a, uint8_t gid[RDMA_GID_LEN])
{
	struct nl_addr *local = rtnl_addr_get_local(a);
	unsigned flags = rtnl_addr_get_flags(a);

	if (!local || (flags & (IFA_F_TENTATIVE | IFA_F_DADFAILED)))
		return false;
	if (nl_addr_get_family(local) == AF_INET && nl_addr_get_len(local) == 4)
		rdma_gid_from_ipv4(nl_addr_get_binary_addr(local), gid);
	else if (nl_addr_get_family(local) == AF_INET6 && nl_addr_get_len(local) == 16)
		rdma_gid_from_ipv6(nl_addr_get_binary_addr(local), gid);
	else
		return false;
	return true;
}

/* The GIDs of the interface's addresses, in the kernel's order; at most max. */
static int read_gids(struct gid_netlink *g, uint8_t (*gids)[RDMA_GID_LEN], size_t max, size_t *n)
{
	struct nl_cache *cache;
	int r = rtnl_addr_alloc_cache(g->req, &cache);

	if (r < 0)
		return netlink_errno(r);
	*n = 0;
	for (struct nl_object *o = nl_cache_get_first(cache); o && *n < max;
	     o = nl_cache_get_next(o)) {
		struct rtnl_addr *a = (struct rtnl_addr *)o;

		if (rtnl_addr_get_ifindex(a) == g->ifindex && address_gid(a, gids[*n]))
			++*n;
	}
	nl_cache_free(cache);
	return 0;
}

static void arm_sweep(struct gid_netlink *g)
{
	if (sd_event_source_set_time_relative(g->sweep_timer, SWEEP_USEC) < 0 ||
	    sd_event_source_set_enabled(g->sweep_timer, SD_EVENT_ONESHOT) < 0)
		log_error("roce_netdev %s: cannot arm the GID sweep timer", g->name);
}

static void resync(struct gid_netlink *g)
{
	uint32_t max = g->dev->ports[g->port - 1].gid_tbl_len;
	uint8_t (*gids)[RDMA_GID_LEN] = calloc(max, RDMA_GID_LEN);
	size_t n = 0;
	unsigned no_room;
	int r;

	g->dirty = false;
	if (!gids) {
		log_error("roce_netdev %s: out of memory reading its addresses", g->name);
		return;
	}
	r = lookup_ifindex(g);
	if (r < 0) {
		log_warning_errno(r, "roce_netdev %s: looking the interface up", g->name);
		goto out;
	}
	if (!r && !g->missing_logged)
		log_warning("roce_netdev %s: no such interface; its GIDs come when it appears",
			    g->name);
	g->missing_logged = !r;
	/* A new interface of the name: the packet path's ring was bound to the old one. */
	if (r && r != g->ifindex)
		rdma_datapath_roce_netdev_changed(g->dev);
	g->ifindex = r;
	if (g->ifindex) {
		r = read_gids(g, gids, max, &n);
		if (r < 0) {
			log_warning_errno(r, "roce_netdev %s: reading its addresses", g->name);
			goto out;
		}
	}
	no_room = rdma_gid_sync_netdev(g->dev, g->port, g->name,
				       (const uint8_t (*)[RDMA_GID_LEN])gids, n);
	if (no_room)
		log_warning("roce_netdev %s: %u address(es) without a GID: port %u's %u entries are "
			    "full", g->name, no_room, g->port, max);
	log_debug("roce_netdev %s: %zu address GID(s) on port %u", g->name, n, g->port);
	if (rdma_gid_sweep_gone(g->dev, g->port))
		arm_sweep(g);
out:
	free(gids);
}

static int on_sweep(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct gid_netlink *g = userdata;

	if (rdma_gid_sweep_gone(g->dev, g->port))
		arm_sweep(g);
	return 0;
}

static int on_msg(struct nl_msg *msg, void *arg)
{
	struct gid_netlink *g = arg;
	struct nlmsghdr *h = nlmsg_hdr(msg);

	switch (h->nlmsg_type) {
	case RTM_NEWADDR:
	case RTM_DELADDR:
		if (nlmsg_valid_hdr(h, sizeof(struct ifaddrmsg)) &&
		    (int)((const struct ifaddrmsg *)nlmsg_data(h))->ifa_index == g->ifindex)
			g->dirty = true;
		break;
	case RTM_NEWLINK:
	case RTM_DELLINK:
		/* Ours (renamed, deleted), or any while ours is missing (created, renamed to it). */
		if (nlmsg_valid_hdr(h, sizeof(struct ifinfomsg)) &&
		    (!g->ifindex ||
		     ((const struct ifinfomsg *)nlmsg_data(h))->ifi_index == g->ifindex))
			g->dirty = true;
		break;
	default:
		return NL_SKIP;
	}
	return NL_OK;
}

static int on_notify(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct gid_netlink *g = userdata;
	bool overrun;
	int r = netlink_notify_read(g->notify, g->notify_cb, &overrun);

	if (r < 0)
		log_warning_errno(r, "roce_netdev %s: reading notifications", g->name);
	if (overrun)
		g->dirty = true;
	if (g->dirty)
		resync(g);
	return 0;
}

static int open_sockets(struct gid_netlink *g)
{
	static const unsigned groups[] = { RTNLGRP_LINK, RTNLGRP_IPV4_IFADDR, RTNLGRP_IPV6_IFADDR };
	int r;

	g->req = nl_socket_alloc();
	if (!g->req)
		return -ENOMEM;
	r = nl_connect(g->req, NETLINK_ROUTE);
	if (r < 0)
		return netlink_errno(r);
	return netlink_notify_open(&g->notify, &g->notify_cb, groups, sizeof(groups) / sizeof(groups[0]),
				   on_msg, g);
}

int gid_netlink_new(struct gid_netlink **out, sd_event *event, struct rdma_device *dev,
		    unsigned port, const char *ifname)
{
	struct gid_netlink *g = calloc(1, sizeof(*g));
	int r;

	if (!g)
		return -ENOMEM;
	g->dev = dev;
	g->port = port;
	snprintf(g->name, sizeof(g->name), "%s", ifname);
	/* Subscribed before the first dump: no change falls between the two. */
	r = open_sockets(g);
	if (r >= 0)
		r = sd_event_add_io(event, &g->notify_source, nl_socket_get_fd(g->notify), EPOLLIN,
				    on_notify, g);
	if (r >= 0)
		r = sd_event_add_time_relative(event, &g->sweep_timer, CLOCK_MONOTONIC, SWEEP_USEC,
					       SWEEP_USEC / 10, on_sweep, g);
	if (r >= 0)
		r = sd_event_source_set_enabled(g->sweep_timer, SD_EVENT_OFF);
	if (r < 0) {
		log_error_errno(r, "roce_netdev %s: opening the rtnetlink sockets", ifname);
		gid_netlink_free(g);
		return r;
	}
	resync(g);
	*out = g;
	return 0;
}

void gid_netlink_free(struct gid_netlink *g)
{
	if (!g)
		return;
	sd_event_source_disable_unref(g->notify_source);
	sd_event_source_disable_unref(g->sweep_timer);
	nl_cb_put(g->notify_cb);
	nl_socket_free(g->notify);
	nl_socket_free(g->req);
	free(g);
}
