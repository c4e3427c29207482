/* SPDX-License-Identifier: MIT */
/*
 * The libibumad MAD backend's hardware-free parts: the port choice, the
 * registration, the send buffer's address and the receive buffer's sender;
 * and that opening it on a host without Omni-Path gives -ENODEV.
 */
#include <endian.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "daemon/vnic/mad_umad.h"

static struct mad_umad_port_desc port_desc(const char *ca, const char *driver, int portnum,
					   unsigned state, const char *link_layer)
{
	struct mad_umad_port_desc d;

	memset(&d, 0, sizeof(d));
	strcpy(d.ca_name, ca);
	strcpy(d.driver, driver);
	strcpy(d.link_layer, link_layer);
	d.portnum = portnum;
	d.state = state;
	return d;
}

static void test_port_is_opa(void **state)
{
	struct mad_umad_port_desc d;

	d = port_desc("hfi1_0", "hfi1", 1, 4, "InfiniBand");
	assert_true(mad_umad_port_is_opa(&d));
	/* A renamed HFI is still one by its driver. */
	d = port_desc("opa0", "hfi1", 1, 4, "InfiniBand");
	assert_true(mad_umad_port_is_opa(&d));
	/* No driver link (an old sysfs): the kernel's hfi1_N name says it. */
	d = port_desc("hfi1_3", "", 1, 4, "");
	assert_true(mad_umad_port_is_opa(&d));
	d = port_desc("mlx5_0", "mlx5_core", 1, 4, "InfiniBand");
	assert_false(mad_umad_port_is_opa(&d));
	d = port_desc("rxe0", "", 1, 4, "Ethernet");
	assert_false(mad_umad_port_is_opa(&d));
	/* A name is not enough when the driver says otherwise. */
	d = port_desc("hfi1_9", "mlx4_core", 1, 4, "InfiniBand");
	assert_false(mad_umad_port_is_opa(&d));
	d = port_desc("hfi1_0", "hfi1", 1, 4, "Ethernet");
	assert_false(mad_umad_port_is_opa(&d));
}

static void test_choose_port(void **state)
{
	struct mad_umad_port_desc ports[] = {
		port_desc("mlx5_0", "mlx5_core", 1, 4, "InfiniBand"),
		port_desc("hfi1_0", "hfi1", 1, 1, "InfiniBand"),	/* down */
		port_desc("hfi1_1", "hfi1", 1, 4, "InfiniBand"),	/* active */
		port_desc("hfi1_1", "hfi1", 2, 4, "InfiniBand"),
	};
	size_t n = sizeof(ports) / sizeof(ports[0]);

	assert_int_equal(mad_umad_choose_port(ports, n, NULL, 0), 2);
	assert_int_equal(mad_umad_choose_port(ports, n, "hfi1_0", 0), 1);
	assert_int_equal(mad_umad_choose_port(ports, n, "hfi1_1", 2), 3);
	assert_int_equal(mad_umad_choose_port(ports, n, NULL, 3), -ENODEV);
	assert_int_equal(mad_umad_choose_port(ports, n, "mlx5_0", 0), -ENODEV);
	assert_int_equal(mad_umad_choose_port(ports, 1, NULL, 0), -ENODEV);
	/* None active: the first OPA port, whose link may come up later. */
	assert_int_equal(mad_umad_choose_port(ports, 2, NULL, 0), 1);
	assert_int_equal(mad_umad_choose_port(NULL, 0, NULL, 0), -ENODEV);
}

static void test_reg_attr(void **state)
{
	struct umad_reg_attr attr;

	memset(&attr, 0xa5, sizeof(attr));
	mad_umad_reg_attr(&attr);
	assert_int_equal(attr.mgmt_class, 0x34);
	assert_int_equal(attr.mgmt_class_version, 0x80);
	assert_int_equal(attr.oui, 0x00066a);
	/* Get (method 1) and Set (method 2) only. */
	assert_int_equal(attr.method_mask[0], 0x6);
	assert_int_equal(attr.method_mask[1], 0);
	assert_int_equal(attr.flags, 0);
	assert_int_equal(attr.rmpp_version, 0);
}

static const uint16_t pkeys[] = { 0xffff, 0x8001, 0x0002 };
#define NPKEYS (sizeof(pkeys) / sizeof(pkeys[0]))

static void test_build_send(void **state)
{
	size_t cap = MAD_UMAD_HDR_SIZE + MAD_UMAD_MAD_MAX;
	struct mad_addr to = { .lid = 0x1234, .sl = 17, .pkey = 0x8001, .qpn = 1 };
	uint8_t *buf = calloc(1, cap), mad[272];
	const struct ib_user_mad *u = (const void *)buf;

	for (size_t i = 0; i < sizeof(mad); i++)
		mad[i] = (uint8_t)i;
	memset(buf, 0xee, cap);
	assert_int_equal(mad_umad_build_send(buf, cap, &to, pkeys, NPKEYS, mad, sizeof(mad)), 0);
	assert_int_equal(be16toh(u->addr.lid), 0x1234);
	assert_int_equal(be32toh(u->addr.qpn), 1);
	assert_int_equal(be32toh(u->addr.qkey), 0x80010000u);
	assert_int_equal(u->addr.sl, 17);
	assert_int_equal(u->addr.pkey_index, 1);
	assert_int_equal(u->addr.grh_present, 0);
	assert_int_equal(u->status, 0);
	assert_memory_equal(u->data, mad, sizeof(mad));

	/* A limited member's P_Key finds the full member's entry of the same partition. */
	to.pkey = 0x7fff;
	assert_int_equal(mad_umad_build_send(buf, cap, &to, pkeys, NPKEYS, mad, 24), 0);
	assert_int_equal(u->addr.pkey_index, 0);
	to.pkey = 0x8002;
	assert_int_equal(mad_umad_build_send(buf, cap, &to, pkeys, NPKEYS, mad, 24), 0);
	assert_int_equal(u->addr.pkey_index, 2);
	to.pkey = 0x8003;
	assert_int_equal(mad_umad_build_send(buf, cap, &to, pkeys, NPKEYS, mad, 24), -ENXIO);
	to.pkey = 0x0000;	/* the invalid P_Key matches nothing */
	assert_int_equal(mad_umad_build_send(buf, cap, &to, pkeys, NPKEYS, mad, 24), -ENXIO);
	to.pkey = 0xffff;

	assert_int_equal(mad_umad_build_send(buf, cap, &to, pkeys, NPKEYS, mad, 23), -EMSGSIZE);
	assert_int_equal(mad_umad_build_send(buf, cap, &to, pkeys, NPKEYS, mad, 2049), -EMSGSIZE);
	assert_int_equal(mad_umad_build_send(buf, MAD_UMAD_HDR_SIZE + 100, &to, pkeys, NPKEYS, mad, 101),
			 -EMSGSIZE);
	to.lid = 0;
	assert_int_equal(mad_umad_build_send(buf, cap, &to, pkeys, NPKEYS, mad, 24), -EINVAL);
	to.lid = 0x10000;	/* an extended LID: umad has 16 bits */
	assert_int_equal(mad_umad_build_send(buf, cap, &to, pkeys, NPKEYS, mad, 24), -EINVAL);
	to.lid = 1;
	to.sl = 32;
	assert_int_equal(mad_umad_build_send(buf, cap, &to, pkeys, NPKEYS, mad, 24), -EINVAL);
	to.sl = 0;
	to.qpn = 0x1000000;
	assert_int_equal(mad_umad_build_send(buf, cap, &to, pkeys, NPKEYS, mad, 24), -EINVAL);
	free(buf);
}

static void test_parse_recv(void **state)
{
	size_t cap = MAD_UMAD_HDR_SIZE + MAD_UMAD_MAD_MAX;
	uint8_t *buf = calloc(1, cap);
	struct ib_user_mad *u = (void *)buf;
	struct mad_addr from;

	u->addr.lid = htobe16(0xbeef);
	u->addr.sl = 9;
	u->addr.qpn = htobe32(0xff000001);	/* the top byte is not a QPN's */
	u->addr.pkey_index = 2;
	assert_int_equal(mad_umad_parse_recv(buf, 2048, pkeys, NPKEYS, &from), 0);
	assert_int_equal(from.lid, 0xbeef);
	assert_int_equal(from.sl, 9);
	assert_int_equal(from.pkey, 0x0002);
	assert_int_equal(from.qpn, 1);

	assert_int_equal(mad_umad_parse_recv(buf, 23, pkeys, NPKEYS, &from), -EMSGSIZE);
	assert_int_equal(mad_umad_parse_recv(buf, 2049, pkeys, NPKEYS, &from), -EMSGSIZE);
	u->addr.pkey_index = NPKEYS;
	assert_int_equal(mad_umad_parse_recv(buf, 256, pkeys, NPKEYS, &from), -ENXIO);
	u->addr.pkey_index = 0;
	u->status = 110;	/* ETIMEDOUT of a send: not a MAD from anyone */
	assert_int_equal(mad_umad_parse_recv(buf, 256, pkeys, NPKEYS, &from), -EIO);
	free(buf);
}

/* What we send, read back as if received, names the same peer. */
static void test_round_trip(void **state)
{
	size_t cap = MAD_UMAD_HDR_SIZE + MAD_UMAD_MAD_MAX;
	struct mad_addr to = { .lid = 0xc001, .sl = 31, .pkey = 0x8001, .qpn = 1 }, from;
	uint8_t *buf = calloc(1, cap), mad[2048] = { 0x80, 0x34, 0x80, 0x81 };

	assert_int_equal(mad_umad_build_send(buf, cap, &to, pkeys, NPKEYS, mad, sizeof(mad)), 0);
	assert_int_equal(mad_umad_parse_recv(buf, sizeof(mad), pkeys, NPKEYS, &from), 0);
	assert_int_equal(from.lid, to.lid);
	assert_int_equal(from.sl, to.sl);
	assert_int_equal(from.pkey, to.pkey);
	assert_int_equal(from.qpn, to.qpn);
	free(buf);
}

/* This machine has no Omni-Path HFI (no /sys/class/infiniband at all). */
static void test_open_without_hfi(void **state)
{
	struct mad_transport *t = NULL;
	sd_event *event = NULL;

	assert_int_equal(sd_event_new(&event), 0);
	assert_int_equal(mad_umad_open(&t, event, NULL, 0), -ENODEV);
	assert_null(t);
	assert_int_equal(mad_umad_open(&t, event, "hfi1_0", 1), -ENODEV);
	sd_event_unref(event);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_port_is_opa),
		cmocka_unit_test(test_choose_port),
		cmocka_unit_test(test_reg_attr),
		cmocka_unit_test(test_build_send),
		cmocka_unit_test(test_parse_recv),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_open_without_hfi),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
