/* SPDX-License-Identifier: MIT */
/*
 * GID tables (virtio-net RoCE ADD_GID / DEL_GID): gid_tbl_len entries per
 * port, filled at the index the user chooses.  An entry is an object only so
 * that AHs (and QPs) reference the source GID they send from: deleting an
 * entry in use is refused naming the user, as for any object.
 *
 * Entries come from users (ADD_GID) or from the host's addresses on the
 * interface a port is bound to (roce_netdev, kept current by the driver):
 * those name their interface, users cannot delete them, and an address
 * removed while an AH or QP sends from its GID leaves the entry in place,
 * marked address_gone, until the last user is gone (rdma_gid_sweep_gone).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <arpa/inet.h>
#include <net/if.h>

#include "daemon/verbs/device.h"

#define RDMA_GID_LEN      16
#define RDMA_GID_TEXT_MAX INET6_ADDRSTRLEN

struct rdma_gid_entry {
	struct rdma_object obj;   /* kind RDMA_OBJ_GID, handle = index; users: AHs, QPs */
	bool valid;
	uint8_t gid[RDMA_GID_LEN];
	char netdev[IF_NAMESIZE]; /* the interface whose address it is; "" when a user added it */
	bool address_gone;        /* netdev entry whose address went while still in use */
	bool is_default;          /* rdmad's own at start (rdma_gid_set_default): a user's add replaces it */
};

int rdma_gid_tables_init(struct rdma_device *dev);
void rdma_gid_tables_free(struct rdma_device *dev);

/*
 * A GID in IPv6 text form; an IPv4 address (dotted quad) gives its
 * IPv4-mapped GID ::ffff:a.b.c.d, as RoCE v2 uses for IPv4.
 */
int rdma_gid_parse(const char *text, uint8_t gid[RDMA_GID_LEN]);
/* RoCE v2 GIDs of host addresses: IPv4 as ::ffff:a.b.c.d, IPv6 as is. */
void rdma_gid_from_ipv4(const struct in_addr *addr, uint8_t gid[RDMA_GID_LEN]);
void rdma_gid_from_ipv6(const struct in6_addr *addr, uint8_t gid[RDMA_GID_LEN]);
/* The usual IPv6 text ("fe80::1", "::ffff:192.0.2.1"). */
/*
 * A path from sgid to dgid: both IPv4-mapped or both IPv6, as RoCE v2
 * packets carry one IP header (-EINVAL naming field, the destination's, else).
 */
int rdma_gid_check_path(const uint8_t sgid[RDMA_GID_LEN], const uint8_t dgid[RDMA_GID_LEN],
			const char *field, struct rdma_error *err);
/* Whether gid is in one of the device's GID tables (a valid entry of any port). */
bool rdma_gid_is_local(const struct rdma_device *dev, const uint8_t gid[RDMA_GID_LEN]);
void rdma_gid_format(const uint8_t gid[RDMA_GID_LEN], char out[RDMA_GID_TEXT_MAX]);

/* Port 1..num_ports, else InvalidArgument on "port". */
int rdma_gid_check_port(const struct rdma_device *dev, unsigned port, struct rdma_error *err);

/*
 * ADD_GID: an empty index (or one holding the default GID nobody sends
 * from, which the new GID replaces), a GID not zero and not already on the
 * port.
 */
int rdma_gid_add(struct rdma_device *dev, unsigned port, uint32_t index,
		 const uint8_t gid[RDMA_GID_LEN], struct rdma_error *err);
/*
 * DEL_GID: refused (ObjectInUse) while an AH or QP sends from it, and
 * (InvalidState naming the interface) for an entry of a host address.
 */
int rdma_gid_del(struct rdma_device *dev, unsigned port, uint32_t index, struct rdma_error *err);
/*
 * The filled entry at index, or NULL with the error: NoSuchObject when empty,
 * InvalidArgument naming "port" or index_field when out of range.
 */
struct rdma_gid_entry *rdma_gid_get(struct rdma_device *dev, unsigned port, uint32_t index,
				    const char *index_field, struct rdma_error *err);

/*
 * Makes port's entries of netdev hold exactly the n GIDs given (the
 * interface's addresses now): a new GID goes to the lowest free index (in
 * the order given), one no longer there is emptied, or marked address_gone
 * while an AH or QP uses it.  A GID a user already put on the port stays
 * the user's.  Returns how many GIDs found no free index (0 when all did).
 */
unsigned rdma_gid_sync_netdev(struct rdma_device *dev, unsigned port, const char *netdev,
			      const uint8_t (*gids)[RDMA_GID_LEN], size_t n);
/*
 * The GID a port has before anyone adds one, so that a program can query a
 * GID on a fresh device: at index 0 when that is empty (-EEXIST otherwise).
 * Shown as is_default; a user's add at its index replaces it, del removes it.
 */
int rdma_gid_set_default(struct rdma_device *dev, unsigned port, const uint8_t gid[RDMA_GID_LEN]);
/* Empties the address_gone entries of port nobody uses any more; returns how many stay. */
unsigned rdma_gid_sweep_gone(struct rdma_device *dev, unsigned port);
