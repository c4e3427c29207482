/* SPDX-License-Identifier: MIT */
/*
 * Watching the VNIC interfaces for what the host does: one RTNLGRP_LINK
 * socket for every port in the event loop.  A notification only says "look
 * at this interface again": the port's state is then queried afresh and
 * compared with what the driver last knew, so the driver's own changes
 * (already recorded) never call back, and a burst of notifications costs
 * one query.  Multicast lists are re-read on each notification and on a
 * timer, because the kernel sends no notification when one changes
 * (`ip maddr add`, IP multicast joins).
 */
#include <errno.h>
#include <net/if.h>	/* before linux/if.h, which then leaves out what glibc defines */
#include <linux/if.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <netlink/msg.h>

#include "daemon/vnic/netdev_priv.h"
#include "lib/log.h"

#define MC_POLL_USEC_DEFAULT 1000000ULL

static struct vnic_netdev *find_port(struct vnic_netdev_watch *w, int ifindex)
{
	for (struct vnic_netdev *nd = w->ports; nd; nd = nd->next)
		if (nd->ifindex == ifindex)
			return nd;
	return NULL;
}

static bool mac_lists_equal(const struct vnic_mac_list *a, const struct vnic_mac_list *b)
{
	return a->n == b->n && memcmp(a->mac, b->mac, (size_t)a->n * 6) == 0;
}

/* A new multicast list replaces the known one; the driver hears of it only if it differs. */
static void mc_list_update(struct vnic_netdev *nd, const struct vnic_mac_list *now)
{
	if (mac_lists_equal(&nd->mc, now))
		return;
	memcpy(&nd->mc, now, sizeof(*now));
	if (nd->events && nd->events->on_mc_list)
		nd->events->on_mc_list(nd->userdata, &nd->mc);
}

/* Reference §5.2: the host may not raise the MTU above the EM's ceiling. */
static unsigned enforce_ceiling(struct vnic_netdev *nd, unsigned mtu)
{
	int r;

	if (mtu <= nd->ceiling)
		return mtu;
	if (!nd->ceiling_warned)
		log_warning("vnic %s: MTU %u is above the Ethernet Manager's %u; lowered back "
			    "(logged once)", nd->name, mtu, nd->ceiling);
	nd->ceiling_warned = true;
	r = vnic_netdev_set_mtu(nd, nd->ceiling);
	return r < 0 ? mtu : nd->ceiling;
}

static void refresh_port(struct vnic_netdev *nd, const struct vnic_mac_list *mc)
{
	const struct vnic_netdev_events *ev = nd->events;
	struct vnic_link_state st;
	unsigned known_mtu = nd->mtu, mtu;
	int r;

	nd->dirty = false;
	r = vnic_netdev_query(nd, &st);
	if (r == -ENODEV) {
		if (!nd->gone)
			log_warning("vnic %s: the interface was deleted", nd->name);
		nd->gone = true;
		return;
	}
	if (r < 0) {
		log_warning_errno(r, "vnic %s: reading its state", nd->name);
		return;
	}
	if (!!(st.flags & IFF_UP) != nd->admin_up) {
		nd->admin_up = st.flags & IFF_UP;
		if (ev && ev->on_admin)
			ev->on_admin(nd->userdata, nd->admin_up);
	}
	if (memcmp(st.mac, nd->mac, 6) != 0) {
		memcpy(nd->mac, st.mac, 6);
		if (ev && ev->on_mac)
			ev->on_mac(nd->userdata, nd->mac);
	}
	mtu = enforce_ceiling(nd, st.mtu);
	nd->mtu = mtu;
	if (mtu != known_mtu && ev && ev->on_mtu)
		ev->on_mtu(nd->userdata, mtu);
	/* The kernel's linkwatch puts a dormant-mode link back to DORMANT on carrier or up. */
	if (!nd->dormant && st.operstate == IF_OPER_DORMANT)
		vnic_netdev_apply_operstate(nd);
	if (mc)
		mc_list_update(nd, mc);
}

/* Each port once, whatever the number of notifications; one read of the multicast table. */
static void refresh(struct vnic_netdev_watch *w, bool all)
{
	struct vnic_mac_list *mc = malloc(sizeof(*mc));
	char *text = NULL;
	int r;

	r = mc ? vnic_mcast_read_text(&text) : -ENOMEM;
	if (r < 0)
		log_warning_errno(r, "vnic: reading /proc/net/dev_mcast");
	for (struct vnic_netdev *nd = w->ports; nd; nd = nd->next) {
		if (!all && !nd->dirty)
			continue;
		if (text)
			vnic_mcast_parse(text, nd->ifindex, mc);
		refresh_port(nd, text ? mc : NULL);
	}
	free(text);
	free(mc);
}

static int on_link_msg(struct nl_msg *msg, void *arg)
{
	struct vnic_netdev_watch *w = arg;
	struct nlmsghdr *h = nlmsg_hdr(msg);
	const struct ifinfomsg *ifi;
	struct vnic_netdev *nd;

	if (h->nlmsg_type != RTM_NEWLINK && h->nlmsg_type != RTM_DELLINK)
		return NL_SKIP;
	if (!nlmsg_valid_hdr(h, sizeof(*ifi)))
		return NL_SKIP;
	ifi = nlmsg_data(h);
	nd = find_port(w, ifi->ifi_index);
	if (nd)
		nd->dirty = true;
	return NL_OK;
}

static int on_notify(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct vnic_netdev_watch *w = userdata;
	bool overrun;
	int r = netlink_notify_read(w->notify, w->notify_cb, &overrun);

	if (r < 0)
		log_warning_errno(r, "vnic: reading link notifications");
	if (overrun)
		log_debug("vnic: link notifications overran; reading every port again");
	refresh(w, overrun);
	return 0;
}

static int on_mc_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct vnic_netdev_watch *w = userdata;
	char *text;
	int r;

	r = vnic_mcast_read_text(&text);
	if (r < 0) {
		log_warning_errno(r, "vnic: reading /proc/net/dev_mcast");
	} else {
		struct vnic_mac_list *mc = malloc(sizeof(*mc));

		for (struct vnic_netdev *nd = w->ports; mc && nd; nd = nd->next) {
			vnic_mcast_parse(text, nd->ifindex, mc);
			mc_list_update(nd, mc);
		}
		free(mc);
		free(text);
	}
	r = sd_event_source_set_time_relative(s, w->mc_poll_usec);
	if (r >= 0)
		r = sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
	if (r < 0)
		log_error_errno(r, "vnic: re-arming the multicast timer");
	return 0;
}

void vnic_netdev_watch_add(struct vnic_netdev_watch *w, struct vnic_netdev *nd)
{
	nd->next = w->ports;
	w->ports = nd;
	if (!nd->next && w->mc_timer) {
		sd_event_source_set_time_relative(w->mc_timer, w->mc_poll_usec);
		sd_event_source_set_enabled(w->mc_timer, SD_EVENT_ONESHOT);
	}
}

void vnic_netdev_watch_remove(struct vnic_netdev_watch *w, struct vnic_netdev *nd)
{
	for (struct vnic_netdev **p = &w->ports; *p; p = &(*p)->next) {
		if (*p == nd) {
			*p = nd->next;
			break;
		}
	}
	/* No port, nothing to poll: an idle daemon stays asleep. */
	if (!w->ports && w->mc_timer)
		sd_event_source_set_enabled(w->mc_timer, SD_EVENT_OFF);
}

int vnic_netdev_watch_new(struct vnic_netdev_watch **out, sd_event *event, uint64_t mc_poll_usec)
{
	struct vnic_netdev_watch *w = calloc(1, sizeof(*w));
	int r;

	if (!w)
		return -ENOMEM;
	w->event = sd_event_ref(event);
	w->mc_poll_usec = mc_poll_usec ? mc_poll_usec : MC_POLL_USEC_DEFAULT;
	w->req = nl_socket_alloc();
	if (!w->req) {
		r = -ENOMEM;
		goto fail;
	}
	r = nl_connect(w->req, NETLINK_ROUTE);
	if (r < 0) {
		r = netlink_errno(r);
		goto fail;
	}
	r = netlink_notify_open(&w->notify, &w->notify_cb, (const unsigned[]){ RTNLGRP_LINK }, 1,
				on_link_msg, w);
	if (r < 0)
		goto fail;
	r = sd_event_add_io(event, &w->notify_source, nl_socket_get_fd(w->notify), EPOLLIN,
			    on_notify, w);
	if (r >= 0)
		r = sd_event_add_time_relative(event, &w->mc_timer, CLOCK_MONOTONIC,
					       w->mc_poll_usec, w->mc_poll_usec / 10,
					       on_mc_timer, w);
	if (r >= 0)
		r = sd_event_source_set_enabled(w->mc_timer, SD_EVENT_OFF);
	if (r < 0)
		goto fail;
	*out = w;
	return 0;
fail:
	log_error_errno(r, "vnic: opening the rtnetlink sockets");
	vnic_netdev_watch_free(w);
	return r;
}

void vnic_netdev_watch_free(struct vnic_netdev_watch *w)
{
	if (!w)
		return;
	if (w->ports)
		log_error("vnic: netdev watch freed with interfaces still open");
	sd_event_source_disable_unref(w->notify_source);
	sd_event_source_disable_unref(w->mc_timer);
	nl_cb_put(w->notify_cb);
	nl_socket_free(w->notify);
	nl_socket_free(w->req);
	sd_event_unref(w->event);
	free(w);
}
