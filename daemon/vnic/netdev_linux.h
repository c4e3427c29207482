/* SPDX-License-Identifier: MIT */
/*
 * The Linux side of a VNIC port: one TAP interface per port, configured
 * through rtnetlink (libnl-route-3) the way the kernel VNIC driver configures
 * its netdev, and watched for what the host does to it (admin up/down, MAC,
 * MTU, multicast joins).  Used by the driver on the main thread only.
 *
 * One struct vnic_netdev_watch serves every port: a request socket for
 * changes and queries, one RTNLGRP_LINK notification socket and a timer for
 * multicast lists, all in the sd-event loop.
 *
 * Every function returns 0 or a negative errno.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#define VNIC_NETDEV_MIN_MTU 68		/* the kernel's ETH_MIN_MTU (reference §5.2) */
#define VNIC_NETDEV_MAX_MTU 65535	/* a TAP interface's max_mtu */
/* How many addresses one list holds; the EM pages through at most 65535 (a u16 total). */
#define VNIC_MAC_LIST_MAX 1024

struct vnic_mac_list {
	unsigned n;
	bool truncated;			/* the interface had more than VNIC_MAC_LIST_MAX */
	uint8_t mac[VNIC_MAC_LIST_MAX][6];
};

/*
 * What the host did to the interface.  Each is called only on a change the
 * driver did not make itself through this API (except vnic_netdev_set_up(),
 * which acts as the host would).  Any member may be NULL.  They run from
 * the event loop and may call the setters, but must not destroy a netdev.
 */
struct vnic_netdev_events {
	void (*on_admin)(void *userdata, bool up);
	void (*on_mac)(void *userdata, const uint8_t mac[6]);
	void (*on_mtu)(void *userdata, unsigned mtu);
	void (*on_mc_list)(void *userdata, const struct vnic_mac_list *list);
};

struct vnic_netdev_watch;
struct vnic_netdev;

/*
 * mc_poll_usec: how often multicast lists are re-read between link
 * notifications (the kernel notifies no multicast change); 0 = the default
 * (one second).
 */
int vnic_netdev_watch_new(struct vnic_netdev_watch **out, sd_event *event, uint64_t mc_poll_usec);
/* Every netdev created on the watch must be destroyed first. */
void vnic_netdev_watch_free(struct vnic_netdev_watch *w);

/*
 * Creates the TAP interface `name` (IFNAMSIZ - 1 characters at most), with
 * the carrier off, link mode dormant and operationally dormant, as a new
 * kernel VNIC netdev is.  The interface exists as long as its file
 * descriptor is open.
 */
int vnic_netdev_create(struct vnic_netdev **out, struct vnic_netdev_watch *w, const char *name,
		       const struct vnic_netdev_events *events, void *userdata);
/*
 * How a TAP starts, for the other drivers that make one (a vdev's, for its
 * virtio-net front end): the size of the header before each frame (10, struct
 * virtio_net_hdr, as the VNIC's; 12, struct virtio_net_hdr_v1) and whether it
 * starts dormant as a VNIC netdev does (else only its carrier is off).
 */
struct vnic_netdev_options {
	int vnet_hdr_len;
	bool dormant;
	/*
	 * The host may hand over TCP super-frames with their checksums left
	 * (TSO, TX checksum offload), as the VNIC's data path segments them;
	 * false: every frame read is whole and checksummed (a guest that
	 * negotiated no offload).
	 */
	bool offloads;
};
int vnic_netdev_create_opts(struct vnic_netdev **out, struct vnic_netdev_watch *w, const char *name,
			    const struct vnic_netdev_options *opts,
			    const struct vnic_netdev_events *events, void *userdata);
/* Closes the TAP descriptor (the interface disappears once no dup of it stays open). */
void vnic_netdev_destroy(struct vnic_netdev *nd);

/* The nonblocking TAP descriptor, still owned by nd: the data path may dup() it. */
int vnic_netdev_fd(const struct vnic_netdev *nd);
/* Each frame read or written on it comes behind a struct virtio_net_hdr of this size; the
 * TAP has TX checksum offload and TSO (IPv4, IPv6) on: what opa_vport_set_vnet_hdr() takes. */
size_t vnic_netdev_vnet_hdr_len(const struct vnic_netdev *nd);
int vnic_netdev_ifindex(const struct vnic_netdev *nd);
const char *vnic_netdev_name(const struct vnic_netdev *nd);

/* The driver's own changes: none of them calls back. */
int vnic_netdev_set_mac(struct vnic_netdev *nd, const uint8_t mac[6]);
/* -ERANGE below VNIC_NETDEV_MIN_MTU or above the ceiling. */
int vnic_netdev_set_mtu(struct vnic_netdev *nd, unsigned mtu);
/*
 * Reference §5.2: the ceiling is max(eth_mtu, 68) (and at most a TAP's
 * 65535); an MTU above it is lowered to it now (no callback: the driver
 * reads vnic_netdev_mtu()) and whenever the host raises it again (on_mtu
 * reports the MTU that stays, if it changed).
 */
int vnic_netdev_set_mtu_ceiling(struct vnic_netdev *nd, unsigned eth_mtu);
unsigned vnic_netdev_mtu(const struct vnic_netdev *nd);
int vnic_netdev_set_carrier(struct vnic_netdev *nd, bool on);
/* IFLA_OPERSTATE DORMANT or UP under IFLA_LINKMODE dormant (netif_dormant_on/off). */
int vnic_netdev_set_dormant(struct vnic_netdev *nd, bool dormant);
/* Admin up/down, for tests: the host does it in service (on_admin is called). */
int vnic_netdev_set_up(struct vnic_netdev *nd, bool up);

/*
 * The device addresses (a TAP interface has exactly one; its secondary
 * unicast list is not visible from user space), leaving out `exclude`
 * (the EM's base MAC, reference §2.5) when not NULL.
 */
int vnic_netdev_read_unicast(struct vnic_netdev *nd, const uint8_t exclude[6],
			     struct vnic_mac_list *list);
/* The link-layer multicast list, as `ip maddr` shows it. */
int vnic_netdev_read_multicast(struct vnic_netdev *nd, struct vnic_mac_list *list);
