/* SPDX-License-Identifier: MIT */
/* daemon/verbs/gid.c: GIDs of host addresses (roce_netdev), their placement and their rules. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "daemon/soft/soft_device.h"
#include "daemon/verbs/ah.h"
#include "daemon/verbs/gid.h"

static int setup(void **state)
{
	struct rdma_device *dev;

	if (soft_device_create(&dev, "soft0", 0) < 0)
		return -1;
	*state = dev;
	return 0;
}

static int teardown(void **state)
{
	rdma_device_free(*state);
	return 0;
}

static void gid(const char *text, uint8_t out[RDMA_GID_LEN])
{
	assert_int_equal(rdma_gid_parse(text, out), 0);
}

static void assert_entry(struct rdma_device *dev, uint32_t index, const char *text,
			 const char *netdev)
{
	const struct rdma_gid_entry *e = &dev->gid_tables[0][index];
	char got[RDMA_GID_TEXT_MAX];

	assert_true(e->valid);
	rdma_gid_format(e->gid, got);
	assert_string_equal(got, text);
	assert_string_equal(e->netdev, netdev);
}

static void test_address_to_gid(void **state)
{
	static const uint8_t mapped[RDMA_GID_LEN] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1,
	};
	uint8_t g[RDMA_GID_LEN];
	struct in_addr v4;
	struct in6_addr v6;

	assert_int_equal(inet_pton(AF_INET, "192.0.2.1", &v4), 1);
	rdma_gid_from_ipv4(&v4, g);
	assert_memory_equal(g, mapped, RDMA_GID_LEN);
	assert_int_equal(inet_pton(AF_INET6, "fe80::1:2", &v6), 1);
	rdma_gid_from_ipv6(&v6, g);
	assert_memory_equal(g, &v6, RDMA_GID_LEN);
}

static void test_sync_places_at_lowest_free(void **state)
{
	struct rdma_device *dev = *state;
	uint8_t user[RDMA_GID_LEN], addrs[3][RDMA_GID_LEN];
	struct rdma_error err;

	gid("2001:db8::99", user);
	assert_int_equal(rdma_gid_add(dev, 1, 1, user, &err), 0);
	gid("10.1.0.1", addrs[0]);
	gid("fe80::1", addrs[1]);
	gid("2001:db8::1", addrs[2]);
	assert_int_equal(rdma_gid_sync_netdev(dev, 1, "veth0", (const uint8_t (*)[16])addrs, 3), 0);
	assert_entry(dev, 0, "::ffff:10.1.0.1", "veth0");
	assert_entry(dev, 1, "2001:db8::99", "");
	assert_entry(dev, 2, "fe80::1", "veth0");
	assert_entry(dev, 3, "2001:db8::1", "veth0");
	/* The same addresses again change nothing. */
	assert_int_equal(rdma_gid_sync_netdev(dev, 1, "veth0", (const uint8_t (*)[16])addrs, 3), 0);
	assert_false(dev->gid_tables[0][4].valid);
	/* fe80::1 goes: its index is the next one filled. */
	memcpy(addrs[1], addrs[2], RDMA_GID_LEN);
	gid("10.1.0.2", addrs[2]);
	assert_int_equal(rdma_gid_sync_netdev(dev, 1, "veth0", (const uint8_t (*)[16])addrs, 3), 0);
	assert_entry(dev, 2, "::ffff:10.1.0.2", "veth0");
	assert_entry(dev, 3, "2001:db8::1", "veth0");
	/* No address (interface gone): only the user's entry stays. */
	assert_int_equal(rdma_gid_sync_netdev(dev, 1, "veth0", NULL, 0), 0);
	for (uint32_t i = 0; i < 5; i++)
		assert_int_equal(dev->gid_tables[0][i].valid, i == 1);
}

static void test_user_gid_stays_the_users(void **state)
{
	struct rdma_device *dev = *state;
	uint8_t g[1][RDMA_GID_LEN];
	struct rdma_error err;

	gid("10.1.0.1", g[0]);
	assert_int_equal(rdma_gid_add(dev, 1, 7, g[0], &err), 0);
	assert_int_equal(rdma_gid_sync_netdev(dev, 1, "veth0", (const uint8_t (*)[16])g, 1), 0);
	assert_entry(dev, 7, "::ffff:10.1.0.1", "");
	assert_false(dev->gid_tables[0][0].valid);
	assert_int_equal(rdma_gid_sync_netdev(dev, 1, "veth0", NULL, 0), 0);
	assert_entry(dev, 7, "::ffff:10.1.0.1", "");
	/* And a user cannot add a GID an address already gave. */
	gid("fe80::5", g[0]);
	assert_int_equal(rdma_gid_sync_netdev(dev, 1, "veth0", (const uint8_t (*)[16])g, 1), 0);
	assert_int_equal(rdma_gid_add(dev, 1, 9, g[0], &err), -EINVAL);
	assert_string_equal(err.field, "gid");
}

static void test_del_of_address_gid_refused(void **state)
{
	struct rdma_device *dev = *state;
	uint8_t g[1][RDMA_GID_LEN];
	struct rdma_error err;

	gid("10.1.0.1", g[0]);
	rdma_gid_sync_netdev(dev, 1, "veth0", (const uint8_t (*)[16])g, 1);
	assert_int_equal(rdma_gid_del(dev, 1, 0, &err), -EPERM);
	assert_int_equal(err.code, RDMA_ERR_INVALID_STATE);
	assert_string_equal(err.field, "index");
	assert_non_null(strstr(err.reason, "veth0"));
	assert_true(dev->gid_tables[0][0].valid);
}

static void test_removed_address_in_use_stays_until_unused(void **state)
{
	struct rdma_device *dev = *state;
	struct rdma_ah_attr attr = { .port = 1, .sgid_index = 0, .hop_limit = 64 };
	uint8_t g[1][RDMA_GID_LEN];
	struct rdma_object *pd;
	struct rdma_error err;
	struct rdma_ah *ah;

	gid("10.1.0.7", attr.dgid);
	gid("10.1.0.1", g[0]);
	rdma_gid_sync_netdev(dev, 1, "veth0", (const uint8_t (*)[16])g, 1);
	pd = rdma_object_create(dev, RDMA_OBJ_PD, &err);
	assert_int_equal(rdma_ah_create(dev, pd->handle, &attr, &ah, &err), 0);
	/* The address goes while the AH sends from it. */
	rdma_gid_sync_netdev(dev, 1, "veth0", NULL, 0);
	assert_true(dev->gid_tables[0][0].valid);
	assert_true(dev->gid_tables[0][0].address_gone);
	assert_int_equal(rdma_gid_sweep_gone(dev, 1), 1);
	/* Back again: the same entry, no longer gone. */
	rdma_gid_sync_netdev(dev, 1, "veth0", (const uint8_t (*)[16])g, 1);
	assert_false(dev->gid_tables[0][0].address_gone);
	assert_false(dev->gid_tables[0][1].valid);
	assert_int_equal(rdma_gid_sweep_gone(dev, 1), 0);
	assert_true(dev->gid_tables[0][0].valid);
	/* Gone once more, then the AH goes: the sweep empties it. */
	rdma_gid_sync_netdev(dev, 1, "veth0", NULL, 0);
	assert_int_equal(rdma_object_destroy(dev, RDMA_OBJ_AH, ah->obj.handle, &err), 0);
	assert_int_equal(rdma_gid_sweep_gone(dev, 1), 0);
	assert_false(dev->gid_tables[0][0].valid);
	assert_string_equal(dev->gid_tables[0][0].netdev, "");
}

static void test_full_table_counts_what_found_no_room(void **state)
{
	struct rdma_device *dev = *state;
	uint32_t len = dev->ports[0].gid_tbl_len;
	uint8_t g[2][RDMA_GID_LEN];
	struct rdma_error err;

	for (uint32_t i = 0; i < len - 1; i++) {
		uint8_t u[RDMA_GID_LEN] = { 0x20, 0x01, 0x0d, 0xb8 };

		u[14] = (uint8_t)(i >> 8);
		u[15] = (uint8_t)i;
		u[13] = 1;
		assert_int_equal(rdma_gid_add(dev, 1, i, u, &err), 0);
	}
	gid("10.1.0.1", g[0]);
	gid("10.1.0.2", g[1]);
	assert_int_equal(rdma_gid_sync_netdev(dev, 1, "veth0", (const uint8_t (*)[16])g, 2), 1);
	assert_entry(dev, len - 1, "::ffff:10.1.0.1", "veth0");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_address_to_gid),
		cmocka_unit_test_setup_teardown(test_sync_places_at_lowest_free, setup, teardown),
		cmocka_unit_test_setup_teardown(test_user_gid_stays_the_users, setup, teardown),
		cmocka_unit_test_setup_teardown(test_del_of_address_gid_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_removed_address_in_use_stays_until_unused,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_full_table_counts_what_found_no_room,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
