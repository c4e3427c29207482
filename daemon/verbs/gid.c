/* SPDX-License-Identifier: MIT */
#include "daemon/verbs/gid.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An entry of port's table was filled (created) or emptied: applications hear IBV_EVENT_GID_CHANGE. */
static void gid_changed(struct rdma_device *dev, unsigned port, const struct rdma_gid_entry *e,
			enum rdma_event_type type)
{
	struct rdma_event ev = { .type = type, .kind = RDMA_OBJ_GID, .handle = e->obj.handle,
				 .port = (uint8_t)port };

	rdma_device_post_event(dev, &ev);
}

static void empty(struct rdma_device *dev, unsigned port, struct rdma_gid_entry *e)
{
	memset(e->gid, 0, RDMA_GID_LEN);
	e->netdev[0] = '\0';
	e->address_gone = false;
	e->is_default = false;
	e->valid = false;
	gid_changed(dev, port, e, RDMA_EVENT_OBJECT_DESTROYED);
}

int rdma_gid_tables_init(struct rdma_device *dev)
{
	for (unsigned p = 0; p < dev->num_ports && p < RDMA_PORTS_MAX; p++) {
		uint32_t len = dev->ports[p].gid_tbl_len;

		dev->gid_tables[p] = calloc(len ? len : 1, sizeof(struct rdma_gid_entry));
		if (!dev->gid_tables[p])
			return -ENOMEM;
		for (uint32_t i = 0; i < len; i++) {
			dev->gid_tables[p][i].obj.kind = RDMA_OBJ_GID;
			dev->gid_tables[p][i].obj.handle = i;
		}
	}
	return 0;
}

void rdma_gid_tables_free(struct rdma_device *dev)
{
	for (unsigned p = 0; p < RDMA_PORTS_MAX; p++) {
		free(dev->gid_tables[p]);
		dev->gid_tables[p] = NULL;
	}
}

int rdma_gid_parse(const char *text, uint8_t gid[RDMA_GID_LEN])
{
	struct in_addr v4;

	if (inet_pton(AF_INET6, text, gid) == 1)
		return 0;
	if (inet_pton(AF_INET, text, &v4) != 1)
		return -EINVAL;
	rdma_gid_from_ipv4(&v4, gid);
	return 0;
}

void rdma_gid_from_ipv4(const struct in_addr *addr, uint8_t gid[RDMA_GID_LEN])
{
	memset(gid, 0, 10);
	gid[10] = gid[11] = 0xff;
	memcpy(gid + 12, addr, 4);
}

void rdma_gid_from_ipv6(const struct in6_addr *addr, uint8_t gid[RDMA_GID_LEN])
{
	memcpy(gid, addr, RDMA_GID_LEN);
}

void rdma_gid_format(const uint8_t gid[RDMA_GID_LEN], char out[RDMA_GID_TEXT_MAX])
{
	if (!inet_ntop(AF_INET6, gid, out, RDMA_GID_TEXT_MAX))
		out[0] = '\0';
}

int rdma_gid_check_port(const struct rdma_device *dev, unsigned port, struct rdma_error *err)
{
	if (port < 1 || port > dev->num_ports)
		return rdma_error_invalid(err, "port", "%u; the device's ports are 1 to %u", port,
					  dev->num_ports);
	return 0;
}

/* The entry at index of port, whether filled or not; NULL with the error when out of range. */
static struct rdma_gid_entry *entry_at(struct rdma_device *dev, unsigned port, uint32_t index,
				       const char *index_field, struct rdma_error *err)
{
	uint32_t len;

	if (rdma_gid_check_port(dev, port, err) < 0)
		return NULL;
	len = dev->ports[port - 1].gid_tbl_len;
	if (index >= len) {
		rdma_error_invalid(err, index_field, "%u; port %u has GID indexes 0-%u (gid_tbl_len %u)",
				   index, port, len - 1, len);
		return NULL;
	}
	return &dev->gid_tables[port - 1][index];
}

int rdma_gid_add(struct rdma_device *dev, unsigned port, uint32_t index,
		 const uint8_t gid[RDMA_GID_LEN], struct rdma_error *err)
{
	static const uint8_t zero[RDMA_GID_LEN];
	struct rdma_gid_entry *e = entry_at(dev, port, index, "index", err);
	char text[RDMA_GID_TEXT_MAX];

	if (!e)
		return -EINVAL;
	/* The default is a convenience nobody chose: whoever sets up the table decides. */
	if (e->valid && e->is_default && !rdma_object_find_user(dev->tables, &e->obj))
		empty(dev, port, e);
	if (e->valid) {
		rdma_gid_format(e->gid, text);
		return rdma_error_state(err, "index", "%u already holds %s; delete it first", index, text);
	}
	/* The zero GID is how an empty entry reads on devices (ibv_query_gid). */
	if (memcmp(gid, zero, RDMA_GID_LEN) == 0)
		return rdma_error_invalid(err, "gid", "the zero GID marks an empty entry");
	for (uint32_t i = 0; i < dev->ports[port - 1].gid_tbl_len; i++) {
		const struct rdma_gid_entry *o = &dev->gid_tables[port - 1][i];

		if (o->valid && memcmp(o->gid, gid, RDMA_GID_LEN) == 0) {
			rdma_gid_format(gid, text);
			return rdma_error_invalid(err, "gid", "%s is already at index %u of port %u",
						  text, i, port);
		}
	}
	memcpy(e->gid, gid, RDMA_GID_LEN);
	e->valid = true;
	gid_changed(dev, port, e, RDMA_EVENT_OBJECT_CREATED);
	return 0;
}

int rdma_gid_set_default(struct rdma_device *dev, unsigned port, const uint8_t gid[RDMA_GID_LEN])
{
	struct rdma_error err;
	int r = rdma_gid_add(dev, port, 0, gid, &err);

	if (r < 0)
		return err.code == RDMA_ERR_INVALID_STATE ? -EEXIST : r;
	dev->gid_tables[port - 1][0].is_default = true;
	return 0;
}

struct rdma_gid_entry *rdma_gid_get(struct rdma_device *dev, unsigned port, uint32_t index,
				    const char *index_field, struct rdma_error *err)
{
	struct rdma_gid_entry *e = entry_at(dev, port, index, index_field, err);

	if (e && !e->valid) {
		rdma_error_no_such(err, RDMA_OBJ_GID, index);
		return NULL;
	}
	return e;
}

int rdma_gid_del(struct rdma_device *dev, unsigned port, uint32_t index, struct rdma_error *err)
{
	struct rdma_gid_entry *e = rdma_gid_get(dev, port, index, "index", err);
	struct rdma_object *user;

	char text[RDMA_GID_TEXT_MAX];

	if (!e)
		return err->code == RDMA_ERR_NO_SUCH_OBJECT ? -ENOENT : -EINVAL;
	if (e->netdev[0]) {
		rdma_gid_format(e->gid, text);
		return rdma_error_state(err, "index", "%u holds %s, an address of %s (roce_netdev): "
					"it goes when the address is removed from %s", index, text,
					e->netdev, e->netdev);
	}
	user = rdma_object_find_user(dev->tables, &e->obj);
	if (user)
		return rdma_error_in_use(err, &e->obj, user);
	empty(dev, port, e);
	return 0;
}

/* Port's entry holding gid, or NULL. */
static struct rdma_gid_entry *find_gid(struct rdma_device *dev, unsigned port,
				       const uint8_t gid[RDMA_GID_LEN])
{
	for (uint32_t i = 0; i < dev->ports[port - 1].gid_tbl_len; i++) {
		struct rdma_gid_entry *e = &dev->gid_tables[port - 1][i];

		if (e->valid && memcmp(e->gid, gid, RDMA_GID_LEN) == 0)
			return e;
	}
	return NULL;
}

static bool listed(const uint8_t (*gids)[RDMA_GID_LEN], size_t n, const uint8_t gid[RDMA_GID_LEN])
{
	for (size_t i = 0; i < n; i++)
		if (memcmp(gids[i], gid, RDMA_GID_LEN) == 0)
			return true;
	return false;
}

/* Empties e, or marks it address_gone while an AH or QP still sends from it. */
static void drop_netdev_entry(struct rdma_device *dev, unsigned port, struct rdma_gid_entry *e)
{
	if (rdma_object_find_user(dev->tables, &e->obj))
		e->address_gone = true;
	else
		empty(dev, port, e);
}

/* Puts gid at the lowest free index of port for netdev; false when the table is full. */
static bool place(struct rdma_device *dev, unsigned port, const char *netdev,
		  const uint8_t gid[RDMA_GID_LEN])
{
	for (uint32_t i = 0; i < dev->ports[port - 1].gid_tbl_len; i++) {
		struct rdma_gid_entry *e = &dev->gid_tables[port - 1][i];

		if (e->valid)
			continue;
		memcpy(e->gid, gid, RDMA_GID_LEN);
		snprintf(e->netdev, sizeof(e->netdev), "%s", netdev);
		e->address_gone = false;
		e->valid = true;
		gid_changed(dev, port, e, RDMA_EVENT_OBJECT_CREATED);
		return true;
	}
	return false;
}

unsigned rdma_gid_sync_netdev(struct rdma_device *dev, unsigned port, const char *netdev,
			      const uint8_t (*gids)[RDMA_GID_LEN], size_t n)
{
	unsigned no_room = 0;

	for (uint32_t i = 0; i < dev->ports[port - 1].gid_tbl_len; i++) {
		struct rdma_gid_entry *e = &dev->gid_tables[port - 1][i];

		if (e->valid && strcmp(e->netdev, netdev) == 0 && !listed(gids, n, e->gid))
			drop_netdev_entry(dev, port, e);
	}
	for (size_t k = 0; k < n; k++) {
		struct rdma_gid_entry *e = find_gid(dev, port, gids[k]);

		if (e) {
			/* Back before its last user went: the same entry again. */
			if (strcmp(e->netdev, netdev) == 0)
				e->address_gone = false;
			continue;
		}
		if (!place(dev, port, netdev, gids[k]))
			no_room++;
	}
	return no_room;
}

unsigned rdma_gid_sweep_gone(struct rdma_device *dev, unsigned port)
{
	unsigned stay = 0;

	for (uint32_t i = 0; i < dev->ports[port - 1].gid_tbl_len; i++) {
		struct rdma_gid_entry *e = &dev->gid_tables[port - 1][i];

		if (!e->valid || !e->address_gone)
			continue;
		if (rdma_object_find_user(dev->tables, &e->obj))
			stay++;
		else
			empty(dev, port, e);
	}
	return stay;
}

bool rdma_gid_is_local(const struct rdma_device *dev, const uint8_t gid[RDMA_GID_LEN])
{
	for (unsigned p = 0; p < dev->num_ports; p++)
		for (uint32_t i = 0; i < dev->ports[p].gid_tbl_len; i++)
			if (dev->gid_tables[p][i].valid &&
			    memcmp(dev->gid_tables[p][i].gid, gid, RDMA_GID_LEN) == 0)
				return true;
	return false;
}

static bool ipv4_mapped(const uint8_t gid[RDMA_GID_LEN])
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return memcmp(gid, prefix, sizeof(prefix)) == 0;
}

int rdma_gid_check_path(const uint8_t sgid[RDMA_GID_LEN], const uint8_t dgid[RDMA_GID_LEN],
			const char *field, struct rdma_error *err)
{
	char s[RDMA_GID_TEXT_MAX], d[RDMA_GID_TEXT_MAX];

	if (ipv4_mapped(sgid) == ipv4_mapped(dgid))
		return 0;
	rdma_gid_format(sgid, s);
	rdma_gid_format(dgid, d);
	return rdma_error_invalid(err, field, "%s is %s, the source GID %s is not: both IPv4 (::ffff:a.b.c.d) "
				  "or both IPv6", d, ipv4_mapped(dgid) ? "IPv4" : "IPv6", s);
}
