/* SPDX-License-Identifier: MIT */
/*
 * A VNIC port's interface as rtnetlink shows and changes it: MAC, MTU and its ceiling,
 * carrier, operational state, up/down, and its address lists.  netdev_linux.c creates the
 * TAP, netdev_watch.c follows the host; both use these.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>	/* before linux/if.h, which then leaves out what glibc defines */
#include <linux/if.h>
#include <linux/if_tun.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <netlink/errno.h>
#include <netlink/route/link.h>

#include "daemon/vnic/netdev_priv.h"
#include "lib/hex.h"
#include "lib/io.h"
#include "lib/log.h"

/* /proc/net/dev_mcast holds one short line per address of every interface. */
#define MCAST_TEXT_MAX (4u << 20)

/* Sends `changes` for nd's interface; libnl falls back from RTM_NEWLINK to RTM_SETLINK. */
int vnic_link_change(struct vnic_netdev *nd, struct rtnl_link *changes, const char *what)
{
	struct rtnl_link *orig = rtnl_link_alloc();
	int r;

	if (!orig)
		return -ENOMEM;
	rtnl_link_set_ifindex(orig, nd->ifindex);
	r = rtnl_link_change(nd->w->req, orig, changes, 0);
	rtnl_link_put(orig);
	if (r < 0) {
		r = netlink_errno(r);
		log_debug("vnic %s: setting %s: %s", nd->name, what, strerror(-r));
	}
	return r;
}

int vnic_netdev_query(struct vnic_netdev *nd, struct vnic_link_state *st)
{
	struct rtnl_link *link = NULL;
	struct nl_addr *addr;
	int r;

	r = rtnl_link_get_kernel(nd->w->req, nd->ifindex, NULL, &link);
	if (r < 0)
		return netlink_errno(r);
	st->flags = rtnl_link_get_flags(link);
	st->mtu = rtnl_link_get_mtu(link);
	st->operstate = rtnl_link_get_operstate(link);
	addr = rtnl_link_get_addr(link);
	if (!addr || nl_addr_get_len(addr) != 6) {
		rtnl_link_put(link);
		return -EPROTO;
	}
	memcpy(st->mac, nl_addr_get_binary_addr(addr), 6);
	rtnl_link_put(link);
	return 0;
}

int vnic_netdev_set_mac(struct vnic_netdev *nd, const uint8_t mac[6])
{
	struct rtnl_link *changes = rtnl_link_alloc();
	struct nl_addr *addr = nl_addr_build(AF_LLC, mac, 6);
	int r = -ENOMEM;

	if (changes && addr) {
		rtnl_link_set_addr(changes, addr);
		r = vnic_link_change(nd, changes, "the MAC address");
	}
	nl_addr_put(addr);
	rtnl_link_put(changes);
	if (r < 0)
		return log_error_errno(r, "vnic %s: setting the MAC address", nd->name);
	memcpy(nd->mac, mac, 6);
	return 0;
}

/* Sets the MTU without the range check: the ceiling code lowers through it too. */
static int change_mtu(struct vnic_netdev *nd, unsigned mtu)
{
	struct rtnl_link *changes = rtnl_link_alloc();
	int r;

	if (!changes)
		return -ENOMEM;
	rtnl_link_set_mtu(changes, mtu);
	r = vnic_link_change(nd, changes, "the MTU");
	rtnl_link_put(changes);
	if (r < 0)
		return log_error_errno(r, "vnic %s: setting the MTU to %u", nd->name, mtu);
	nd->mtu = mtu;
	return 0;
}

int vnic_netdev_set_mtu(struct vnic_netdev *nd, unsigned mtu)
{
	if (mtu < VNIC_NETDEV_MIN_MTU || mtu > nd->ceiling)
		return -ERANGE;
	return change_mtu(nd, mtu);
}

int vnic_netdev_set_mtu_ceiling(struct vnic_netdev *nd, unsigned eth_mtu)
{
	unsigned ceiling = eth_mtu < VNIC_NETDEV_MIN_MTU ? VNIC_NETDEV_MIN_MTU : eth_mtu;

	if (ceiling > VNIC_NETDEV_MAX_MTU)
		ceiling = VNIC_NETDEV_MAX_MTU;
	nd->ceiling = ceiling;
	if (nd->mtu <= ceiling)
		return 0;
	log_info("vnic %s: MTU %u lowered to the EM's ceiling %u", nd->name, nd->mtu, ceiling);
	return change_mtu(nd, ceiling);
}

int vnic_netdev_set_carrier(struct vnic_netdev *nd, bool on)
{
	struct rtnl_link *changes = rtnl_link_alloc();
	int r;

	if (!changes)
		return -ENOMEM;
	rtnl_link_set_carrier(changes, on);
	r = vnic_link_change(nd, changes, "the carrier");
	rtnl_link_put(changes);
	/* IFLA_CARRIER reaches TAP's ndo_change_carrier since Linux 5.0; the ioctl is older. */
	if (r == -EOPNOTSUPP || r == -EINVAL) {
		int arg = on;

		r = ioctl(nd->fd, TUNSETCARRIER, &arg) < 0 ? -errno : 0;
	}
	if (r < 0)
		return log_error_errno(r, "vnic %s: setting the carrier %s", nd->name,
				       on ? "on" : "off");
	nd->carrier = on;
	/* Carrier back on: the kernel makes a dormant-mode link DORMANT again. */
	if (on && !nd->dormant)
		return vnic_netdev_apply_operstate(nd);
	return 0;
}

int vnic_netdev_apply_operstate(struct vnic_netdev *nd)
{
	struct rtnl_link *changes = rtnl_link_alloc();
	int r;

	if (!changes)
		return -ENOMEM;
	rtnl_link_set_operstate(changes, nd->dormant ? IF_OPER_DORMANT : IF_OPER_UP);
	r = vnic_link_change(nd, changes, "the operational state");
	rtnl_link_put(changes);
	return r;
}

int vnic_netdev_set_dormant(struct vnic_netdev *nd, bool dormant)
{
	bool was = nd->dormant;
	int r;

	nd->dormant = dormant;
	r = vnic_netdev_apply_operstate(nd);
	if (r < 0) {
		nd->dormant = was;
		return log_error_errno(r, "vnic %s: setting dormant %s", nd->name,
				       dormant ? "on" : "off");
	}
	return 0;
}

int vnic_netdev_set_up(struct vnic_netdev *nd, bool up)
{
	struct rtnl_link *changes = rtnl_link_alloc();
	int r;

	if (!changes)
		return -ENOMEM;
	if (up)
		rtnl_link_set_flags(changes, IFF_UP);
	else
		rtnl_link_unset_flags(changes, IFF_UP);
	r = vnic_link_change(nd, changes, "the admin state");
	rtnl_link_put(changes);
	if (r < 0)
		return log_error_errno(r, "vnic %s: bringing it %s", nd->name, up ? "up" : "down");
	return 0;
}

int vnic_netdev_read_unicast(struct vnic_netdev *nd, const uint8_t exclude[6],
			     struct vnic_mac_list *list)
{
	struct vnic_link_state st;
	int r;

	list->n = 0;
	list->truncated = false;
	r = vnic_netdev_query(nd, &st);
	if (r < 0)
		return log_error_errno(r, "vnic %s: reading its address", nd->name);
	if (!exclude || memcmp(st.mac, exclude, 6) != 0)
		memcpy(list->mac[list->n++], st.mac, 6);
	return 0;
}

void vnic_mcast_parse(const char *text, int ifindex, struct vnic_mac_list *list)
{
	const char *line = text;

	list->n = 0;
	list->truncated = false;
	while (line && *line) {
		const char *start = line, *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - start) : strlen(start);
		char buf[128], name[IFNAMSIZ + 1], hex[64];
		int index, users, global;

		line = end ? end + 1 : NULL;
		/* A line this long is no line the kernel writes. */
		if (len >= sizeof(buf))
			continue;
		memcpy(buf, start, len);
		buf[len] = '\0';
		if (sscanf(buf, "%d %16s %d %d %63s", &index, name, &users, &global, hex) != 5)
			continue;
		if (index != ifindex || strlen(hex) != 12)
			continue;
		if (list->n == VNIC_MAC_LIST_MAX) {
			list->truncated = true;
			continue;
		}
		if (hex_decode(hex, list->mac[list->n], 6) == 0)
			list->n++;
	}
}

int vnic_mcast_read_text(char **text)
{
	uint8_t *buf;
	size_t len;
	int fd, r;

	fd = open("/proc/net/dev_mcast", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = read_all_alloc(fd, MCAST_TEXT_MAX, &buf, &len);
	close(fd);
	if (r < 0)
		return r;
	*text = (char *)buf;
	return 0;
}

int vnic_netdev_read_multicast(struct vnic_netdev *nd, struct vnic_mac_list *list)
{
	char *text;
	int r;

	r = vnic_mcast_read_text(&text);
	if (r < 0)
		return log_error_errno(r, "vnic %s: reading /proc/net/dev_mcast", nd->name);
	vnic_mcast_parse(text, nd->ifindex, list);
	free(text);
	if (list->truncated)
		log_debug("vnic %s: more than %u multicast addresses, the rest left out",
			  nd->name, VNIC_MAC_LIST_MAX);
	return 0;
}
