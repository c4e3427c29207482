/* SPDX-License-Identifier: MIT */
/*
 * The VNIC port model (daemon/vnic/vport.c, mactable.c): reference opa_vnic.md §2.3
 * POD values, §2.4 MAC table semantics, §5.1 states, §5.2 MTU ceiling, §3.1 digests.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>

#include "daemon/vnic/vport.h"

static struct vnic_vport *new_vport(void)
{
	struct vnic_vport *vp = malloc(sizeof(*vp));

	assert_non_null(vp);
	vport_init(vp, 7);
	return vp;
}

static void free_vport(struct vnic_vport *vp)
{
	vport_release(vp);
	free(vp);
}

/* Configure with vesw_id and config_state, the rest as now. */
static unsigned configure(struct vnic_vport *vp, uint16_t vesw_id, uint8_t config_state)
{
	struct vnic_veswport_info info = vp->info;

	info.vesw.vesw_id = vesw_id;
	info.port.config_state = config_state;
	return vport_configure(vp, &info);
}

/* §2.3 lines "power-on default": all zero but 2048, 256, oper 1, config 1, MTU 1500. */
static void test_pod(void **state)
{
	struct vnic_veswport_info pod, zero;

	(void)state;
	vport_pod_info(&pod);
	assert_int_equal(pod.port.max_mac_tbl_ent, 2048);
	assert_int_equal(pod.port.max_smac_ent, 256);
	assert_int_equal(pod.port.oper_state, 1);
	assert_int_equal(pod.port.config_state, 1);
	assert_int_equal(pod.vesw.eth_mtu, 1500);
	pod.port.max_mac_tbl_ent = pod.port.max_smac_ent = 0;
	pod.port.oper_state = pod.port.config_state = 0;
	pod.vesw.eth_mtu = 0;
	memset(&zero, 0, sizeof(zero));
	assert_memory_equal(&pod, &zero, sizeof(pod));
}

static void test_new_vport(void **state)
{
	struct vnic_vport *vp = new_vport();

	(void)state;
	assert_int_equal(vp->index, 7);
	assert_int_equal(vp->info.port.eth_link_status, VNIC_ETH_LINK_DOWN);
	assert_int_equal(vp->info.port.oper_state, 0);
	assert_false(vp->carrier);
	assert_false(vp->admin_up);
	assert_null(vp->macs);
	assert_false(vport_oper_up(vp));
	free_vport(vp);
}

/* §5.1: forwarding needs config FORWARDING and admin up; traffic also carrier and vesw_id. */
static void test_state_machine(void **state)
{
	struct vnic_vport *vp = new_vport();

	(void)state;
	configure(vp, 0, VNIC_STATE_FORWARDING);
	assert_int_equal(vp->info.port.oper_state, VNIC_STATE_DROP_ALL);
	assert_int_equal(vp->info.port.eth_link_status, VNIC_ETH_LINK_DOWN);
	assert_false(vp->dormant);
	assert_int_equal(vport_open(vp), -EINVAL);	/* vesw_id 0 cannot open */
	assert_false(vp->admin_up);

	configure(vp, 0x123, VNIC_STATE_FORWARDING);
	assert_int_equal(vport_open(vp), 0);
	assert_int_equal(vp->info.port.oper_state, VNIC_STATE_FORWARDING);
	assert_int_equal(vp->info.port.eth_link_status, VNIC_ETH_LINK_UP);
	assert_true(vport_oper_up(vp));

	/* The OPA link: traffic stops, the reported state does not move. */
	vport_set_carrier(vp, false);
	assert_false(vport_oper_up(vp));
	assert_int_equal(vp->info.port.oper_state, VNIC_STATE_FORWARDING);
	vport_set_carrier(vp, true);

	assert_true(configure(vp, 0x123, VNIC_STATE_DROP_ALL) & VPORT_CHG_STATE);
	assert_true(vp->dormant);
	assert_int_equal(vp->info.port.oper_state, VNIC_STATE_DROP_ALL);
	assert_false(vport_oper_up(vp));

	configure(vp, 0x123, VNIC_STATE_FORWARDING);
	assert_true(vport_oper_up(vp));
	/* vesw_id 0 while up: the hardware side cannot come back. */
	assert_true(configure(vp, 0, VNIC_STATE_FORWARDING) & VPORT_CHG_VESW_ID);
	assert_false(vp->carrier);
	assert_false(vport_oper_up(vp));
	configure(vp, 0x124, VNIC_STATE_FORWARDING);
	assert_true(vport_oper_up(vp));

	vport_close(vp);
	assert_false(vport_oper_up(vp));
	assert_int_equal(vp->info.port.oper_state, VNIC_STATE_DROP_ALL);
	assert_int_equal(vp->info.port.eth_link_status, VNIC_ETH_LINK_DOWN);
	free_vport(vp);
}

static void test_change_flags(void **state)
{
	struct vnic_vport *vp = new_vport();
	struct vnic_veswport_info info;

	(void)state;
	info = vp->info;
	assert_int_equal(vport_configure(vp, &info) & ~VPORT_CHG_STATE, 0);
	info.port.base_mac[5] = 1;
	assert_int_equal(vport_configure(vp, &info), VPORT_CHG_BASE_MAC);
	info.vesw.eth_mtu = 9000;
	assert_int_equal(vport_configure(vp, &info), VPORT_CHG_MTU);
	info.vesw.u_ucast_dlid[15] = 9;
	assert_int_equal(vport_configure(vp, &info), VPORT_CHG_TABLES);
	info.port.pcp_to_sc_mc[3] = 2;
	assert_int_equal(vport_configure(vp, &info), VPORT_CHG_TABLES);
	/* Reserved bytes are kept verbatim but change nothing to apply. */
	info.vesw.rsvd3[0] = 0xaa;
	assert_int_equal(vport_configure(vp, &info), 0);
	assert_int_equal(vp->info.vesw.rsvd3[0], 0xaa);
	free_vport(vp);
}

/* Read-only fields of a Set are ignored. */
static void test_configure_read_only(void **state)
{
	struct vnic_vport *vp = new_vport();
	struct vnic_veswport_info info;

	(void)state;
	memset(&info, 0x5a, sizeof(info));
	info.port.config_state = VNIC_STATE_DROP_ALL;
	vport_configure(vp, &info);
	assert_int_equal(vp->info.port.max_mac_tbl_ent, 2048);
	assert_int_equal(vp->info.port.max_smac_ent, 256);
	assert_int_equal(vp->info.port.mac_tbl_digest, 0);
	assert_int_equal(vp->info.port.uc_macs_gen_count, 0);
	assert_int_equal(vp->info.port.mc_macs_gen_count, 0);
	assert_int_equal(vp->info.port.oper_state, VNIC_STATE_DROP_ALL);
	assert_int_equal(vp->info.port.eth_link_status, VNIC_ETH_LINK_DOWN);
	assert_int_equal(vp->info.port.port_num, 0x5a5a5a5a);
	assert_memory_equal(vp->info.port.rsvd2, info.port.rsvd2, sizeof(info.port.rsvd2));
	free_vport(vp);
}

/* §5.2: ceiling max(eth_mtu, 68); the MTU is only lowered. */
static void test_mtu(void **state)
{
	struct vnic_vport *vp = new_vport();
	struct vnic_veswport_info info = vp->info;

	(void)state;
	assert_int_equal(vport_max_mtu(vp), 1500);
	info.vesw.eth_mtu = 9000;
	vport_configure(vp, &info);
	assert_int_equal(vport_max_mtu(vp), 9000);
	assert_int_equal(vport_mtu_lowered(vp, 1500), 1500);
	info.vesw.eth_mtu = 1000;
	vport_configure(vp, &info);
	assert_int_equal(vport_mtu_lowered(vp, 1500), 1000);
	assert_int_equal(vport_mtu_lowered(vp, 576), 576);
	info.vesw.eth_mtu = 10;
	vport_configure(vp, &info);
	assert_int_equal(vport_max_mtu(vp), 68);
	assert_int_equal(vport_mtu_lowered(vp, 1500), 68);
	free_vport(vp);
}

static void test_flow_table_and_encap(void **state)
{
	struct vnic_vport *vp = new_vport();
	struct vnic_veswport_info info = vp->info;
	struct opa_vnic_mac_entry macs[4];
	struct opa_vnic_dlid_tables t;
	struct opa_vnic_port port;
	struct vnic_mac_slot s = { { 2, 0, 0, 0, 0, 1 }, { 0 }, 0x1200 };

	(void)state;
	info.vesw.def_port_mask = 0x0005;
	info.vesw.u_ucast_dlid[2] = 0x33;
	info.vesw.pkey = 0x8001;
	info.port.encap_slid = 0x44;
	vport_configure(vp, &info);
	assert_int_equal(vp->flow_tbl[0], 0);
	assert_int_equal(vp->flow_tbl[1], 2);
	assert_int_equal(vp->flow_tbl[2], 0);
	vport_encap_port(vp, &port);
	assert_int_equal(port.pkey, 0x8001);
	assert_int_equal(port.encap_slid, 0x44);
	assert_int_equal(vport_mactable_set(vp, 9, &s, 1, 1), 0);
	vport_dlid_tables(vp, &t, macs, 4);
	assert_int_equal(t.n_macs, 1);
	assert_int_equal(macs[0].dlid_sd, 0x1200);
	assert_int_equal(t.u_ucast_dlid[2], 0x33);
	assert_int_equal(t.flow_tbl[1], 2);
	free_vport(vp);
}

/* §2.4: limits 125 per MAD and 2048 in all. */
static void test_mactable_range(void **state)
{
	(void)state;
	assert_true(mactable_range_ok(0, 125));
	assert_false(mactable_range_ok(0, 126));
	assert_true(mactable_range_ok(1923, 125));
	assert_false(mactable_range_ok(1924, 125));
	assert_true(mactable_range_ok(2047, 1));
	assert_false(mactable_range_ok(2047, 2));
	assert_true(mactable_range_ok(2048, 0));
	assert_false(mactable_range_ok(0xffff, 0));
}

/* §2.4: the block is replaced as a whole; a zero MAC empties its slot; others stay. */
static void test_mactable_block(void **state)
{
	struct vnic_vport *vp = new_vport();
	struct vnic_mac_slot in[3] = {
		{ { 0, 1, 2, 3, 4, 5 }, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, 0x000100 },
		{ { 0, 1, 2, 3, 4, 6 }, { 0 }, 0x000220 },
		{ { 0, 1, 2, 3, 4, 7 }, { 0 }, 0x000300 },
	};
	struct vnic_mac_slot zero = { { 0 }, { 1, 2, 3, 4, 5, 6 }, 0x999 };
	struct vnic_mac_slot out[4];

	(void)state;
	mactable_read(vp->macs, 0, 4, out);
	assert_true(mactable_mac_is_zero(out[0].mac));
	assert_int_equal(vport_mactable_set(vp, 10, in, 3, 0xdead), 0);
	assert_int_equal(vp->info.port.mac_tbl_digest, 0xdead);
	assert_int_equal(vp->macs->used, 3);
	mactable_read(vp->macs, 10, 4, out);
	assert_memory_equal(out, in, sizeof(in));
	assert_true(mactable_mac_is_zero(out[3].mac));

	/* Slot 11 deleted by a zero MAC (its mask and DLID go too). */
	assert_int_equal(vport_mactable_set(vp, 11, &zero, 1, 0xbeef), 0);
	mactable_read(vp->macs, 10, 3, out);
	assert_memory_equal(&out[0], &in[0], sizeof(in[0]));
	assert_int_equal(out[1].dlid_sd, 0);
	assert_true(mactable_mac_is_zero(out[1].mac));
	assert_memory_equal(&out[2], &in[2], sizeof(in[2]));
	assert_int_equal(vp->macs->used, 2);
	assert_int_equal(vp->info.port.mac_tbl_digest, 0xbeef);

	vport_mactable_release(vp);
	assert_null(vp->macs);
	assert_int_equal(vp->info.port.mac_tbl_digest, 0);
	free_vport(vp);
}

/* §3.1: gen counts move only on a real change. */
static void test_list_digest(void **state)
{
	struct vnic_vport *vp = new_vport();
	const uint8_t a[2][6] = { { 2, 0, 0, 0, 0, 1 }, { 2, 0, 0, 0, 0, 2 } };
	const uint8_t b[2][6] = { { 2, 0, 0, 0, 0, 2 }, { 2, 0, 0, 0, 0, 1 } };

	(void)state;
	assert_false(vport_uc_list_update(vp, NULL, 0));
	assert_int_equal(vp->info.port.uc_macs_gen_count, 0);
	assert_true(vport_uc_list_update(vp, a, 2));
	assert_false(vport_uc_list_update(vp, a, 2));
	assert_int_equal(vp->info.port.uc_macs_gen_count, 1);
	assert_true(vport_uc_list_update(vp, b, 2));	/* order counts */
	assert_true(vport_uc_list_update(vp, a, 1));
	assert_int_equal(vp->info.port.uc_macs_gen_count, 3);
	assert_true(vport_mc_list_update(vp, a, 1));
	assert_int_equal(vp->info.port.mc_macs_gen_count, 1);
	assert_int_not_equal(vport_mac_list_digest(a, 2), vport_mac_list_digest(b, 2));
	vport_host_mac_changed(vp);
	assert_int_equal(vp->info.port.uc_macs_gen_count, 4);
	free_vport(vp);
}

static void test_vport_set(void **state)
{
	struct vnic_vport_set s;
	struct vnic_vport *vp;

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_int_equal(vport_set_add(&s, 0x1203, &vp), 0);
	assert_ptr_equal(vport_set_get(&s, 3), vp);
	assert_ptr_equal(vport_set_get(&s, 0xff03), vp);
	assert_int_equal(vport_set_add(&s, 3, &vp), -EEXIST);
	assert_int_equal(vport_set_add(&s, 255, &vp), 0);
	vport_set_remove(&s, 3);
	assert_null(vport_set_get(&s, 3));
	vport_set_clear(&s);
	assert_null(vport_set_get(&s, 255));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pod),
		cmocka_unit_test(test_new_vport),
		cmocka_unit_test(test_state_machine),
		cmocka_unit_test(test_change_flags),
		cmocka_unit_test(test_configure_read_only),
		cmocka_unit_test(test_mtu),
		cmocka_unit_test(test_flow_table_and_encap),
		cmocka_unit_test(test_mactable_range),
		cmocka_unit_test(test_mactable_block),
		cmocka_unit_test(test_list_digest),
		cmocka_unit_test(test_vport_set),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
