/* SPDX-License-Identifier: MIT */
/*
 * VEMA attribute codecs (daemon/vnic/vema_attr.c).  Offsets are those of the reference
 * opa_vnic.md §2.2-§2.8 and §3.2 tables, written out here independently of the code.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "daemon/vnic/vema_attr.h"

static uint64_t be64_at(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static uint32_t be32_at(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

static uint16_t be16_at(const uint8_t *p)
{
	return p[0] << 8 | p[1];
}

/* §2.2: "Get reply data bytes 0-7: 80 80 ff 01 00 00 00 12". */
static void test_cpi_reply(void **state)
{
	static const uint8_t kat[8] = { 0x80, 0x80, 0xff, 0x01, 0x00, 0x00, 0x00, 0x12 };
	uint8_t stored[VEMA_CPI_LEN], out[VEMA_CPI_LEN];
	int i;

	(void)state;
	for (i = 0; i < VEMA_CPI_LEN; i++)
		stored[i] = i + 1;
	vema_cpi_reply(stored, out);
	assert_memory_equal(out, kat, 8);
	assert_memory_equal(out + 8, stored + 8, VEMA_CPI_LEN - 8);
	stored[60] = 0;
	stored[61] = 0;
	stored[62] = 0x12;
	stored[63] = 0x34;
	stored[76] = 0x5d;
	assert_int_equal(vema_cpi_trap_lid(stored), 0x1234);
	assert_int_equal(vema_cpi_trap_sl(stored), 0x0b);
}

/* §2.3: each field at its offset, big-endian; decode(encode(x)) = x. */
static void test_vpinfo_offsets(void **state)
{
	struct vnic_veswport_info in, back;
	uint8_t w[VEMA_VPINFO_LEN];
	int i;

	(void)state;
	memset(&in, 0, sizeof(in));
	in.vesw.fabric_id = 0x0301;
	in.vesw.vesw_id = 0x0abc;
	in.vesw.rsvd0[0] = 0xe0;
	in.vesw.rsvd0[5] = 0xe5;
	in.vesw.def_port_mask = 0x8001;
	in.vesw.rsvd1[1] = 0xe1;
	in.vesw.pkey = 0xffff;
	in.vesw.rsvd2[3] = 0xe2;
	in.vesw.u_mcast_dlid = 0x00c00001;
	for (i = 0; i < 16; i++)
		in.vesw.u_ucast_dlid[i] = 0x100 + i;
	in.vesw.rc = 0x12345678;
	in.vesw.rsvd3[55] = 0xe3;
	in.vesw.eth_mtu = 9000;
	in.vesw.rsvd4[1] = 0xe4;
	in.port.port_num = 0x01020304;
	in.port.eth_link_status = 1;
	in.port.rsvd0[2] = 0xd0;
	memcpy(in.port.base_mac, "\x06\x2c\x00\x05\x00\x00", 6);
	in.port.config_state = 3;
	in.port.oper_state = 3;
	in.port.max_mac_tbl_ent = 2048;
	in.port.max_smac_ent = 256;
	in.port.mac_tbl_digest = 0xcafef00d;
	in.port.rsvd1[0] = 0xd1;
	in.port.encap_slid = 0x00123456;
	for (i = 0; i < 8; i++) {
		in.port.pcp_to_sc_uc[i] = 0x10 + i;
		in.port.pcp_to_vl_uc[i] = 0x20 + i;
		in.port.pcp_to_sc_mc[i] = 0x30 + i;
		in.port.pcp_to_vl_mc[i] = 0x40 + i;
	}
	in.port.non_vlan_sc_uc = 0x51;
	in.port.non_vlan_vl_uc = 0x52;
	in.port.non_vlan_sc_mc = 0x53;
	in.port.non_vlan_vl_mc = 0x54;
	in.port.rsvd2[47] = 0xd2;
	in.port.uc_macs_gen_count = 0x0102;
	in.port.mc_macs_gen_count = 0x0304;
	in.port.rsvd3[7] = 0xd3;

	vema_vpinfo_encode(&in, w);
	assert_int_equal(be16_at(w + 0), 0x0301);
	assert_int_equal(be16_at(w + 2), 0x0abc);
	assert_int_equal(w[4], 0xe0);
	assert_int_equal(w[9], 0xe5);
	assert_int_equal(be16_at(w + 10), 0x8001);
	assert_int_equal(w[13], 0xe1);
	assert_int_equal(be16_at(w + 14), 0xffff);
	assert_int_equal(w[19], 0xe2);
	assert_int_equal(be32_at(w + 20), 0x00c00001);
	for (i = 0; i < 16; i++)
		assert_int_equal(be32_at(w + 24 + 4 * i), 0x100 + i);
	assert_int_equal(be32_at(w + 88), 0x12345678);
	assert_int_equal(w[147], 0xe3);
	assert_int_equal(be16_at(w + 148), 9000);
	assert_int_equal(w[151], 0xe4);
	assert_int_equal(be32_at(w + 152), 0x01020304);
	assert_int_equal(w[156], 1);
	assert_int_equal(w[159], 0xd0);
	assert_memory_equal(w + 160, "\x06\x2c\x00\x05\x00\x00", 6);
	assert_int_equal(w[166], 3);
	assert_int_equal(w[167], 3);
	assert_int_equal(be16_at(w + 168), 2048);
	assert_int_equal(be16_at(w + 170), 256);
	assert_int_equal(be32_at(w + 172), 0xcafef00d);
	assert_int_equal(w[176], 0xd1);
	assert_int_equal(be32_at(w + 180), 0x00123456);
	for (i = 0; i < 8; i++) {
		assert_int_equal(w[184 + i], 0x10 + i);
		assert_int_equal(w[192 + i], 0x20 + i);
		assert_int_equal(w[200 + i], 0x30 + i);
		assert_int_equal(w[208 + i], 0x40 + i);
	}
	assert_int_equal(w[216], 0x51);
	assert_int_equal(w[217], 0x52);
	assert_int_equal(w[218], 0x53);
	assert_int_equal(w[219], 0x54);
	assert_int_equal(w[267], 0xd2);
	assert_int_equal(be16_at(w + 268), 0x0102);
	assert_int_equal(be16_at(w + 270), 0x0304);
	assert_int_equal(w[279], 0xd3);

	vema_vpinfo_decode(w, &back);
	assert_memory_equal(&back, &in, sizeof(in));
}

/* Any 280 bytes survive decode then encode: every byte belongs to exactly one field. */
static void test_vpinfo_every_byte(void **state)
{
	struct vnic_veswport_info info;
	uint8_t w[VEMA_VPINFO_LEN], again[VEMA_VPINFO_LEN];
	int i;

	(void)state;
	for (i = 0; i < VEMA_VPINFO_LEN; i++)
		w[i] = i * 7 + 3;
	vema_vpinfo_decode(w, &info);
	vema_vpinfo_encode(&info, again);
	assert_memory_equal(w, again, sizeof(w));
}

static void test_mactbl_codec(void **state)
{
	static const uint8_t entry[16] = {
		0x02, 0x11, 0x22, 0x33, 0x44, 0x55, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe,
		0x00, 0x12, 0x34, 0x20,
	};
	struct vema_mactbl_hdr h;
	struct vnic_mac_slot s;
	uint8_t out[16];

	(void)state;
	vema_mactbl_hdr_decode((const uint8_t *)"\x07\xd0\x00\x7d\xde\xad\xbe\xef", &h);
	assert_int_equal(h.offset, 2000);
	assert_int_equal(h.num_entries, 125);
	assert_int_equal(h.digest, 0xdeadbeef);
	vema_mactbl_hdr_encode(&h, out);
	assert_memory_equal(out, "\x07\xd0\x00\x7d\xde\xad\xbe\xef", 8);
	vema_mac_slot_decode(entry, &s);
	assert_int_equal(s.mac[5], 0x55);
	assert_int_equal(s.mask[5], 0xfe);
	assert_int_equal(s.dlid_sd >> 8, 0x1234);		/* DLID bits 31..8 */
	assert_int_equal(s.dlid_sd & 0x20, 0x20);		/* source-MAC side data */
	vema_mac_slot_encode(&s, out);
	assert_memory_equal(out, entry, 16);
}

static void test_iface_codec(void **state)
{
	struct vema_iface_hdr h = { 1, 2, 0x0102, 0xabcd };
	uint8_t out[8];

	(void)state;
	vema_iface_hdr_encode(&h, out);
	assert_memory_equal(out, "\x00\x01\x00\x02\x01\x02\xab\xcd", 8);
	vema_iface_hdr_decode(out, &h);
	assert_int_equal(h.gen_count, 0xabcd);
}

static struct opa_vnic_counters numbered_counters(void)
{
	struct opa_vnic_counters c;
	uint64_t *p = (uint64_t *)&c;
	size_t i;

	/* Every counter distinct: 1, 2, 3 ... in declaration order. */
	for (i = 0; i < sizeof(c) / sizeof(uint64_t); i++)
		p[i] = i + 1;
	return c;
}

/* §2.7: summary counters, 360 bytes. */
static void test_summary(void **state)
{
	struct opa_vnic_counters c = numbered_counters();
	struct vema_counters_id id = { 9, 0x123, 1 };
	uint8_t out[VEMA_SUMMARY_LEN], zero[128] = { 0 };
	int i;

	(void)state;
	memset(out, 0xee, sizeof(out));
	vema_summary_encode(&id, &c, out);
	assert_int_equal(be16_at(out), 9);
	assert_int_equal(be16_at(out + 2), 0x123);
	assert_int_equal(be32_at(out + 4), 1);
	assert_int_equal(be64_at(out + 8), opa_vnic_tx_errors(&c));
	assert_int_equal(be64_at(out + 16), opa_vnic_rx_errors(&c));
	assert_int_equal(be64_at(out + 24), c.tx.packets);
	assert_int_equal(be64_at(out + 32), c.rx.packets);
	assert_int_equal(be64_at(out + 40), c.tx.bytes);
	assert_int_equal(be64_at(out + 48), c.rx.bytes);
	assert_int_equal(be64_at(out + 56), c.tx.unicast);
	assert_int_equal(be64_at(out + 64), c.tx.mcastbcast);
	assert_int_equal(be64_at(out + 72), c.tx.untagged);
	assert_int_equal(be64_at(out + 80), c.tx.vlan);
	for (i = 0; i < 7; i++)
		assert_int_equal(be64_at(out + 88 + 8 * i), c.tx.size[i]);
	assert_int_equal(be64_at(out + 144), c.rx.unicast);
	assert_int_equal(be64_at(out + 152), c.rx.mcastbcast);
	assert_int_equal(be64_at(out + 160), c.rx.untagged);
	assert_int_equal(be64_at(out + 168), c.rx.vlan);
	for (i = 0; i < 7; i++)
		assert_int_equal(be64_at(out + 176 + 8 * i), c.rx.size[i]);
	assert_memory_equal(out + 232, zero, 128);
}

/* §2.8: error counters, 304 bytes, with the agent's derivations. */
static void test_errors(void **state)
{
	struct opa_vnic_counters c = numbered_counters();
	struct vema_counters_id id = { 255, 0xfff, 1 };
	static const int zero_at[] = { 24, 32, 40, 48, 56, 72, 88, 112, 136, 144, 168 };
	uint8_t out[VEMA_ERRORS_LEN], zero[128] = { 0 };
	size_t i;

	(void)state;
	memset(out, 0xee, sizeof(out));
	vema_errors_encode(&id, &c, out);
	assert_int_equal(be16_at(out), 255);
	assert_int_equal(be16_at(out + 2), 0xfff);
	assert_int_equal(be32_at(out + 4), 1);
	assert_int_equal(be64_at(out + 8), opa_vnic_tx_errors(&c));
	assert_int_equal(be64_at(out + 16), opa_vnic_rx_errors(&c));
	assert_int_equal(be64_at(out + 64), c.tx_dlid_zero);
	assert_int_equal(be64_at(out + 80), c.tx_fifo_errors + c.tx_carrier_errors + c.tx_no_route);
	assert_int_equal(be64_at(out + 96), c.tx_drop_state);
	assert_int_equal(be64_at(out + 104), c.rx_nohandler);
	assert_int_equal(be64_at(out + 120), c.rx_runt);
	assert_int_equal(be64_at(out + 128), c.rx_oversize);
	assert_int_equal(be64_at(out + 152), c.rx_drop_state);
	assert_int_equal(be64_at(out + 160), c.rx_fifo_errors);
	for (i = 0; i < sizeof(zero_at) / sizeof(zero_at[0]); i++)
		assert_int_equal(be64_at(out + zero_at[i]), 0);
	assert_memory_equal(out + 176, zero, 128);
}

/* §3.2 example: fabric 0x301, vesw 2, port_num 5, OPA port 1, index 0, opcode 3, SLID 7. */
static void test_trap_kat(void **state)
{
	static const uint8_t hdr[40] = {
		0x80, 0x34, 0x80, 0x05, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01,
		0x00, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0x00, 0x06, 0x6a,
	};
	static const uint8_t notice[16] = {
		0x08, 0x00, 0x06, 0x6a, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x00,
	};
	static const uint8_t trap[16] = {
		0x03, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x05,
		0x00, 0x01, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00,
	};
	const struct vema_trap_data d = {
		.issuer_lid = 7, .fabric_id = 0x301, .vesw_id = 2, .veswportnum = 5,
		.opaportnum = 1, .veswportindex = 0, .opcode = VEMA_TRAP_LINK_STATUS_CHANGE,
	};
	uint8_t out[VEMA_TRAP_LEN], zero[VEMA_TRAP_LEN] = { 0 };

	(void)state;
	memset(out, 0xee, sizeof(out));
	vema_trap_encode(1, &d, out);
	assert_memory_equal(out, hdr, 40);
	assert_memory_equal(out + 40, notice, 16);
	assert_memory_equal(out + 56, zero, 16);	/* issuer_gid */
	assert_memory_equal(out + 72, trap, 16);
	assert_memory_equal(out + 88, zero, VEMA_TRAP_LEN - 88);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpi_reply),
		cmocka_unit_test(test_vpinfo_offsets),
		cmocka_unit_test(test_vpinfo_every_byte),
		cmocka_unit_test(test_mactbl_codec),
		cmocka_unit_test(test_iface_codec),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_trap_kat),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
