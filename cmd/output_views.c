/* SPDX-License-Identifier: MIT */
#include "cmd/output_views.h"

#include <stddef.h>
#include <string.h>

#define KEYS(...) ((const char *const[]){ __VA_ARGS__, NULL })

static const struct output_view views[] = {
	{ .label = "pd", .brief = KEYS("ifname", "mrs", "qps", "ahs", "mkeys", "pid", "comm") },
	{ .label = "mr", .hex_handle = true,
	  .brief = KEYS("ifname", "pd", "mr_type", "access", "lkey", "rkey", "iova", "mrlen", "state", "pid", "comm") },
	{ .label = "cq", .brief = KEYS("ifname", "cqe", "armed", "qps", "pid", "comm") },
	{ .label = "qp",
	  .brief = KEYS("ifname", "type", "state", "pd", "send_cq", "recv_cq", "pid", "comm") },
	{ .label = "ah", .brief = KEYS("ifname", "pd", "port", "dgid", "sgid_index", "pid", "comm") },
	{ .label = "mkey", .hex_handle = true,
	  .brief = KEYS("ifname", "pd", "flags", "state", "access", "length", "pool_name", "borrowed", "pid", "comm") },
	{ .label = "dek", .brief = KEYS("ifname", "name", "size", "import", "state", "mkeys") },
	{ .label = "pool", .brief = KEYS("ifname", "name", "type", "size", "available", "in_use") },
	{ .label = "gid", .name_key = "index" },
	{ .label = "vdev", .brief = KEYS("ifname", "name", "socket", "mac", "state", "accepted", "refused") },
	/*
	 * A VNIC port, labelled by its handle: its device's port (1) beside it
	 * read "port 0: ... port 1", two ports; vnic fabric shows that one.
	 */
	{ .label = "port", .brief = KEYS("ifname", "netdev", "oper_state", "passing"), .omit = KEYS("port") },
};

const struct output_view *output_view(const char *label)
{
	for (size_t i = 0; label && i < sizeof(views) / sizeof(views[0]); i++)
		if (strcmp(views[i].label, label) == 0)
			return &views[i];
	return NULL;
}

bool output_view_omits(const struct output_view *view, const char *key)
{
	for (const char *const *k = view && view->omit ? view->omit : KEYS(NULL); *k; k++)
		if (strcmp(*k, key) == 0)
			return true;
	return false;
}

bool output_key_is_hex(const char *key)
{
	static const char *const keys[] = { "lkey", "rkey", "mr", "mkey", "members", "key", NULL };

	for (const char *const *k = keys; *k; k++)
		if (strcmp(*k, key) == 0)
			return true;
	return false;
}
