/* SPDX-License-Identifier: MIT */
/* daemon/verbs/gid.c and daemon/verbs/ah.c: GID text, the table's rules, and AHs that hold entries. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "daemon/soft/soft_device.h"
#include "daemon/verbs/ah.h"
#include "daemon/verbs/gid.h"

static void test_parse_and_format(void **state)
{
	static const uint8_t mapped[RDMA_GID_LEN] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1,
	};
	uint8_t gid[RDMA_GID_LEN];
	char text[RDMA_GID_TEXT_MAX];

	assert_int_equal(rdma_gid_parse("fe80::1", gid), 0);
	assert_int_equal(gid[0], 0xfe);
	assert_int_equal(gid[1], 0x80);
	assert_int_equal(gid[15], 1);
	rdma_gid_format(gid, text);
	assert_string_equal(text, "fe80::1");
	/* IPv4, and its IPv4-mapped form, give the same GID. */
	assert_int_equal(rdma_gid_parse("192.0.2.1", gid), 0);
	assert_memory_equal(gid, mapped, RDMA_GID_LEN);
	assert_int_equal(rdma_gid_parse("::ffff:192.0.2.1", gid), 0);
	assert_memory_equal(gid, mapped, RDMA_GID_LEN);
	rdma_gid_format(gid, text);
	assert_string_equal(text, "::ffff:192.0.2.1");
	assert_int_equal(rdma_gid_parse("fe80::1::2", gid), -EINVAL);
	assert_int_equal(rdma_gid_parse("192.0.2", gid), -EINVAL);
	assert_int_equal(rdma_gid_parse("", gid), -EINVAL);
	assert_int_equal(rdma_gid_parse("fe80::1 ", gid), -EINVAL);
}

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

static void test_table_rules(void **state)
{
	struct rdma_device *dev = *state;
	uint8_t a[RDMA_GID_LEN], b[RDMA_GID_LEN], zero[RDMA_GID_LEN] = { 0 };
	struct rdma_error err;

	gid("fe80::1", a);
	gid("fe80::2", b);
	/* gid_tbl_len 512 (roce_virtio.md 1.6): indexes 0-511, port 1 only. */
	assert_int_equal(rdma_gid_add(dev, 1, 511, a, &err), 0);
	assert_int_equal(rdma_gid_add(dev, 1, 512, b, &err), -EINVAL);
	assert_string_equal(err.field, "index");
	assert_int_equal(rdma_gid_add(dev, 2, 0, b, &err), -EINVAL);
	assert_string_equal(err.field, "port");
	assert_int_equal(rdma_gid_add(dev, 0, 0, b, &err), -EINVAL);
	assert_string_equal(err.field, "port");
	/* An occupied index, the same GID twice, the zero GID. */
	assert_int_equal(rdma_gid_add(dev, 1, 511, b, &err), -EPERM);
	assert_int_equal(err.code, RDMA_ERR_INVALID_STATE);
	assert_string_equal(err.field, "index");
	assert_int_equal(rdma_gid_add(dev, 1, 3, a, &err), -EINVAL);
	assert_string_equal(err.field, "gid");
	assert_int_equal(rdma_gid_add(dev, 1, 3, zero, &err), -EINVAL);
	assert_string_equal(err.field, "gid");
	assert_false(dev->gid_tables[0][3].valid);
	assert_memory_equal(dev->gid_tables[0][511].gid, a, RDMA_GID_LEN);
	/* Delete, then an empty entry is no object. */
	assert_int_equal(rdma_gid_del(dev, 1, 511, &err), 0);
	assert_int_equal(rdma_gid_del(dev, 1, 511, &err), -ENOENT);
	assert_int_equal(err.code, RDMA_ERR_NO_SUCH_OBJECT);
	assert_int_equal(err.kind, RDMA_OBJ_GID);
	assert_int_equal(err.handle, 511);
	assert_int_equal(rdma_gid_del(dev, 1, 600, &err), -EINVAL);
	assert_string_equal(err.field, "index");
	/* The GID is free again for another index. */
	assert_int_equal(rdma_gid_add(dev, 1, 3, a, &err), 0);
	assert_int_equal(rdma_gid_del(dev, 1, 3, &err), 0);
}

static struct rdma_ah_attr attr_for(unsigned sgid_index)
{
	struct rdma_ah_attr a = { .port = 1, .sgid_index = sgid_index, .hop_limit = 64 };

	gid("2001:db8::7", a.dgid);
	return a;
}

static void test_ah_holds_its_gid_and_pd(void **state)
{
	struct rdma_device *dev = *state;
	struct rdma_ah_attr attr = attr_for(5);
	struct rdma_object *pd;
	struct rdma_error err;
	uint8_t g[RDMA_GID_LEN];
	struct rdma_ah *ah;

	pd = rdma_object_create(dev, RDMA_OBJ_PD, &err);
	gid("2001:db8::1", g);
	/* An empty source entry is bad input for the AH. */
	assert_int_equal(rdma_ah_create(dev, pd->handle, &attr, &ah, &err), -EINVAL);
	assert_string_equal(err.field, "sgid_index");
	assert_int_equal(rdma_gid_add(dev, 1, 5, g, &err), 0);
	assert_int_equal(rdma_ah_create(dev, pd->handle, &attr, &ah, &err), 0);
	assert_int_equal(dev->gid_tables[0][5].obj.users, 1);
	/* DEL_GID and DESTROY_PD are refused naming the AH. */
	assert_int_equal(rdma_gid_del(dev, 1, 5, &err), -EBUSY);
	assert_int_equal(err.code, RDMA_ERR_OBJECT_IN_USE);
	assert_int_equal(err.kind, RDMA_OBJ_GID);
	assert_int_equal(err.handle, 5);
	assert_int_equal(err.user_kind, RDMA_OBJ_AH);
	assert_int_equal(err.user_handle, ah->obj.handle);
	assert_true(dev->gid_tables[0][5].valid);
	assert_int_equal(rdma_object_destroy(dev, RDMA_OBJ_PD, pd->handle, &err), -EBUSY);
	assert_int_equal(err.user_kind, RDMA_OBJ_AH);
	assert_int_equal(rdma_object_destroy(dev, RDMA_OBJ_AH, ah->obj.handle, &err), 0);
	assert_int_equal(dev->gid_tables[0][5].obj.users, 0);
	assert_int_equal(rdma_gid_del(dev, 1, 5, &err), 0);
	assert_int_equal(rdma_object_destroy(dev, RDMA_OBJ_PD, pd->handle, &err), 0);
}

static void expect_refused(struct rdma_device *dev, uint32_t pd, const struct rdma_ah_attr *a,
			   const char *field)
{
	struct rdma_error err;
	struct rdma_ah *ah;

	assert_int_equal(rdma_ah_create(dev, pd, a, &ah, &err), -EINVAL);
	assert_string_equal(err.field, field);
}

static void test_ah_field_widths(void **state)
{
	struct rdma_device *dev = *state;
	struct rdma_ah_attr a = attr_for(0);
	struct rdma_object *pd;
	struct rdma_error err;
	uint8_t g[RDMA_GID_LEN];
	struct rdma_ah *ah;

	pd = rdma_object_create(dev, RDMA_OBJ_PD, &err);
	gid("fe80::9", g);
	assert_int_equal(rdma_gid_add(dev, 1, 0, g, &err), 0);
	/* The widths of the RFC's virtio_rdma_global_route. */
	a.flow_label = 1u << 20;
	expect_refused(dev, pd->handle, &a, "flow_label");
	a = attr_for(0);
	a.hop_limit = 256;
	expect_refused(dev, pd->handle, &a, "hop_limit");
	a = attr_for(0);
	a.traffic_class = 256;
	expect_refused(dev, pd->handle, &a, "traffic_class");
	/* sgid_index is a u8, though the table has 512 entries. */
	a = attr_for(256);
	expect_refused(dev, pd->handle, &a, "sgid_index");
	a = attr_for(0);
	memset(a.dgid, 0, sizeof(a.dgid));
	expect_refused(dev, pd->handle, &a, "dgid");
	a = attr_for(0);
	a.port = 2;
	expect_refused(dev, pd->handle, &a, "port");
	/* One IP header per packet: an IPv6 source GID cannot send to an IPv4 address. */
	a = attr_for(0);
	gid("192.0.2.9", a.dgid);
	expect_refused(dev, pd->handle, &a, "dgid");
	assert_int_equal(dev->tables[RDMA_OBJ_AH].count, 0);

	a = attr_for(0);
	a.flow_label = 0xfffff;
	a.hop_limit = 255;
	a.traffic_class = 255;
	assert_int_equal(rdma_ah_create(dev, pd->handle, &a, &ah, &err), 0);
	assert_int_equal(rdma_ah_create(dev, 9999, &a, &ah, &err), -ENOENT);
	assert_int_equal(err.kind, RDMA_OBJ_PD);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_and_format),
		cmocka_unit_test_setup_teardown(test_table_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ah_holds_its_gid_and_pd, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ah_field_widths, setup, teardown),
	};

	return cmocka_run_group_tests_name("GID tables and address handles", tests, NULL, NULL);
}
