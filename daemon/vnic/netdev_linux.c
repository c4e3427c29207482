/* SPDX-License-Identifier: MIT */
/*
 * One VNIC port's TAP interface: created as the kernel VNIC driver creates
 * its netdev (carrier off, dormant), in user space; its configuration is
 * netdev_config.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>	/* before linux/if.h, which then leaves out what glibc defines */
#include <linux/if.h>
#include <linux/if_tun.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <netlink/errno.h>
#include <netlink/route/link.h>

#include "daemon/vnic/netdev_priv.h"
#include "lib/log.h"

/*
 * The TAP's transmit queue (frames the stack queued for rdmad to read): the default 1000
 * overflows while the port's worker is sending the previous burst, and each frame dropped
 * there is a TCP segment retransmitted.
 */
#define TAP_TXQLEN	10000
/*
 * Every frame on the TAP descriptor comes and goes behind a struct virtio_net_hdr
 * (IFF_VNET_HDR): what lets the data path tell the host a received frame's checksum needs no
 * verification, and take the host's TCP super-frames with their checksums left to it (TSO
 * and TX checksum offload: the data path segments, dataplane/opa/vnic_gso.h); see
 * docs/decisions.md, the VNIC data path.
 */
#define TAP_VNET_HDR_LEN	10
#define TAP_OFFLOADS		(TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6)

/* IFF_TUN_EXCL: an interface of that name already there (the host's persistent TAP, or ours
 * still open) is -EBUSY, never taken over. */
static int open_tap(const char *name, int hdr_len, bool offloads, int *fd_out)
{
	struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI | IFF_TUN_EXCL | IFF_VNET_HDR };
	int fd;

	fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	memcpy(ifr.ifr_name, name, strlen(name) + 1);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0 || ioctl(fd, TUNSETVNETHDRSZ, &hdr_len) < 0 ||
	    ioctl(fd, TUNSETOFFLOAD, (unsigned long)(offloads ? TAP_OFFLOADS : 0)) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	*fd_out = fd;
	return 0;
}

int vnic_netdev_create_opts(struct vnic_netdev **out, struct vnic_netdev_watch *w, const char *name,
			    const struct vnic_netdev_options *opts,
			    const struct vnic_netdev_events *events, void *userdata)
{
	struct rtnl_link *changes = NULL;
	struct vnic_link_state st;
	struct vnic_netdev *nd;
	int r;

	if (!name || !*name || strlen(name) >= IFNAMSIZ || strchr(name, '%') || strchr(name, '/'))
		return -EINVAL;
	nd = calloc(1, sizeof(*nd));
	if (!nd)
		return -ENOMEM;
	nd->w = w;
	nd->fd = -1;
	nd->events = events;
	nd->userdata = userdata;
	nd->ceiling = 1500;	/* the POD eth_mtu */
	nd->dormant = opts->dormant;
	nd->vnet_hdr_len = opts->vnet_hdr_len;
	memcpy(nd->name, name, strlen(name) + 1);
	r = open_tap(name, opts->vnet_hdr_len, opts->offloads, &nd->fd);
	if (r < 0) {
		log_error_errno(r, "vnic %s: creating the TAP interface", name);
		goto fail;
	}
	nd->ifindex = (int)if_nametoindex(name);
	if (nd->ifindex <= 0) {
		r = log_error_errno(-errno, "vnic %s: finding the new interface", name);
		goto fail;
	}
	/* A new kernel VNIC netdev: no carrier, dormant until the EM says FORWARDING. */
	r = vnic_netdev_set_carrier(nd, false);
	if (r < 0)
		goto fail_named;
	if (opts->dormant) {
		changes = rtnl_link_alloc();
		if (!changes) {
			r = -ENOMEM;
			goto fail;
		}
		rtnl_link_set_linkmode(changes, IF_LINK_MODE_DORMANT);
		rtnl_link_set_operstate(changes, IF_OPER_DORMANT);
		r = vnic_link_change(nd, changes, "link mode dormant");
		rtnl_link_put(changes);
		if (r < 0)
			goto fail_named;
	}
	/* Best effort: a shorter queue only costs drops under load, counted as tx_dropped. */
	changes = rtnl_link_alloc();
	if (changes) {
		rtnl_link_set_txqlen(changes, TAP_TXQLEN);
		(void)vnic_link_change(nd, changes, "txqueuelen");
		rtnl_link_put(changes);
	}
	r = vnic_netdev_query(nd, &st);
	if (r < 0)
		goto fail_named;
	nd->admin_up = st.flags & IFF_UP;
	memcpy(nd->mac, st.mac, 6);
	nd->mtu = st.mtu;
	r = vnic_netdev_read_multicast(nd, &nd->mc);
	if (r < 0)
		goto fail_named;
	vnic_netdev_watch_add(w, nd);
	*out = nd;
	return 0;
fail_named:
	log_error_errno(r, "vnic %s: configuring the new interface", name);
fail:
	if (nd->fd >= 0)
		close(nd->fd);
	free(nd);
	return r;
}

int vnic_netdev_create(struct vnic_netdev **out, struct vnic_netdev_watch *w, const char *name,
		       const struct vnic_netdev_events *events, void *userdata)
{
	static const struct vnic_netdev_options vnic = { .vnet_hdr_len = TAP_VNET_HDR_LEN, .dormant = true,
							 .offloads = true };

	return vnic_netdev_create_opts(out, w, name, &vnic, events, userdata);
}

void vnic_netdev_destroy(struct vnic_netdev *nd)
{
	if (!nd)
		return;
	vnic_netdev_watch_remove(nd->w, nd);
	if (nd->fd >= 0)
		close(nd->fd);
	free(nd);
}

int vnic_netdev_fd(const struct vnic_netdev *nd)
{
	return nd->fd;
}

size_t vnic_netdev_vnet_hdr_len(const struct vnic_netdev *nd)
{
	return (size_t)nd->vnet_hdr_len;
}

int vnic_netdev_ifindex(const struct vnic_netdev *nd)
{
	return nd->ifindex;
}

const char *vnic_netdev_name(const struct vnic_netdev *nd)
{
	return nd->name;
}

unsigned vnic_netdev_mtu(const struct vnic_netdev *nd)
{
	return nd->mtu;
}

