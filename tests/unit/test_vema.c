/* SPDX-License-Identifier: MIT */
/*
 * The VEMA agent (daemon/vnic/vema.c, vema_trap.c, vema_state.c) through a fake driver:
 * the MAD core filter (reference opa_vnic.md §1.3), the reply frame (§1.4), the §2.9
 * status matrix, the attributes, traps and their rate limit (§3), persistence.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>

#include "daemon/vnic/vema.h"

/* ---------------------------------------------------------------- the fake driver */

struct fake {
	int create_rc;
	unsigned created, changed, last_changed, mactable, resets, removed;
	struct opa_vnic_counters counters;
	uint8_t uc[400][6], mc[3][6];
	size_t n_uc, n_mc;
	int send_rc;
	unsigned sent;
	struct mad_addr sent_to;
	uint8_t sent_mad[VEMA_TRAP_LEN];
	size_t sent_len;
	uint64_t now;
};

static int fake_created(void *ctx, struct vnic_vport *vp)
{
	struct fake *f = ctx;

	f->created++;
	return f->create_rc;
}

static void fake_changed(void *ctx, struct vnic_vport *vp, unsigned changed)
{
	struct fake *f = ctx;

	f->changed++;
	f->last_changed = changed;
}

static void fake_mactable(void *ctx, struct vnic_vport *vp, uint32_t offset, uint32_t num)
{
	((struct fake *)ctx)->mactable++;
}

static void fake_reset(void *ctx, struct vnic_vport *vp)
{
	((struct fake *)ctx)->resets++;
}

static void fake_removed(void *ctx, struct vnic_vport *vp)
{
	((struct fake *)ctx)->removed++;
}

static void fake_counters(void *ctx, const struct vnic_vport *vp, struct opa_vnic_counters *c)
{
	*c = ((struct fake *)ctx)->counters;
}

static size_t fake_iface(void *ctx, const struct vnic_vport *vp, bool multicast, size_t start,
			 uint8_t (*out)[6], size_t max, size_t *total)
{
	struct fake *f = ctx;
	uint8_t (*list)[6] = multicast ? f->mc : f->uc;
	size_t n = multicast ? f->n_mc : f->n_uc, i;

	*total = n;
	for (i = 0; start + i < n && i < max; i++)
		memcpy(out[i], list[start + i], 6);
	return i;
}

static int fake_send(void *ctx, const struct mad_addr *to, const uint8_t *mad, size_t len)
{
	struct fake *f = ctx;

	if (f->send_rc)
		return f->send_rc;
	f->sent++;
	f->sent_to = *to;
	assert_true(len <= sizeof(f->sent_mad));
	memcpy(f->sent_mad, mad, len);
	f->sent_len = len;
	return 0;
}

static uint64_t fake_now(void *ctx)
{
	return ((struct fake *)ctx)->now;
}

static const struct vema_ops fake_ops = {
	.vport_created = fake_created,
	.vport_changed = fake_changed,
	.mactable_changed = fake_mactable,
	.vport_reset = fake_reset,
	.vport_removed = fake_removed,
	.read_counters = fake_counters,
	.iface_macs = fake_iface,
	.send = fake_send,
	.now_us = fake_now,
};

struct t {
	struct fake fake;
	struct vema v;
	uint8_t req[VEMA_MAD_LEN];
	uint8_t reply[VEMA_MAD_LEN];
};

static int setup(void **state)
{
	struct t *t = calloc(1, sizeof(*t));

	if (!t)
		return -1;
	t->fake.now = 1000;
	vema_init(&t->v, &fake_ops, &t->fake);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct t *t = *state;

	vema_fini(&t->v);
	free(t);
	return 0;
}

static const struct mad_addr em = { .lid = 1, .sl = 0, .pkey = 0xffff, .qpn = 1 };

/* A VEMA request header in t->req, data zeroed. */
static uint8_t *request(struct t *t, uint8_t method, uint16_t attr_id, uint32_t attr_mod)
{
	uint8_t *m = t->req;

	memset(m, 0, sizeof(t->req));
	m[0] = 0x80;
	m[1] = 0x34;
	m[2] = 0x80;
	m[3] = method;
	m[8] = 0xab;	/* TID */
	m[15] = 0xcd;
	m[16] = attr_id >> 8;
	m[17] = attr_id;
	m[20] = attr_mod >> 24;
	m[21] = attr_mod >> 16;
	m[22] = attr_mod >> 8;
	m[23] = attr_mod;
	m[37] = 0x00;
	m[38] = 0x06;
	m[39] = 0x6a;
	return m + VEMA_HDR_LEN;
}

static size_t send_req(struct t *t, size_t len)
{
	return vema_handle(&t->v, &em, t->req, len, t->reply, sizeof(t->reply));
}

static uint16_t status_of(const struct t *t)
{
	return t->reply[4] << 8 | t->reply[5];
}

/* Sends the request, expects a full reply and returns its status. */
static uint16_t call(struct t *t)
{
	assert_int_equal(send_req(t, VEMA_MAD_LEN), VEMA_MAD_LEN);
	return status_of(t);
}

static const uint8_t *data_of(const struct t *t)
{
	return t->reply + VEMA_HDR_LEN;
}

static uint32_t be32_at(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

static uint16_t be16_at(const uint8_t *p)
{
	return p[0] << 8 | p[1];
}

/* Set VESWPortInfo on vport idx with vesw_id, config_state, port_num, encap_slid. */
static uint16_t set_vport(struct t *t, uint32_t idx, uint16_t vesw_id, uint8_t config)
{
	uint8_t *d = request(t, VEMA_METHOD_SET, VEMA_ATTR_VESWPORT_INFO, idx);

	d[2] = vesw_id >> 8;
	d[3] = vesw_id;
	d[148] = 1500 >> 8;
	d[149] = 1500 & 0xff;
	d[152 + 14] = config;
	return call(t);
}

static void set_trap_lid(struct t *t, uint32_t lid, uint8_t sl_byte)
{
	uint8_t *d = request(t, VEMA_METHOD_SET, VEMA_ATTR_CLASS_PORT_INFO, 0);

	d[60] = lid >> 24;
	d[61] = lid >> 16;
	d[62] = lid >> 8;
	d[63] = lid;
	d[76] = sl_byte;
	assert_int_equal(call(t), VEMA_STATUS_OK);
}

/* ---------------------------------------------------------------- the MAD core filter */

/* §1.2 vector: Get VESWPortInfo, vport 3, TID 0x1122334455667788. */
static void test_header_kat(void **state)
{
	static const uint8_t kat[40] = {
		0x80, 0x34, 0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x11, 0x22, 0x33, 0x44,
		0x55, 0x66, 0x77, 0x88, 0x00, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x06, 0x6a,
	};
	struct t *t = *state;
	uint8_t expect[40];

	memcpy(expect, kat, 40);
	expect[3] = 0x81;
	assert_int_equal(vema_handle(&t->v, &em, kat, sizeof(kat), t->reply, sizeof(t->reply)),
			 VEMA_MAD_LEN);
	assert_memory_equal(t->reply, expect, 40);
	/* POD reply (vport 3 absent): eth_mtu 1500 at data 148. */
	assert_int_equal(be16_at(data_of(t) + 148), 1500);
	assert_int_equal(t->v.stats.replies, 1);
}

/* §1.3: class 0x34 with the wrong version or OUI, another class, no OUI: 24-byte 0x000C. */
static void test_unmatched(void **state)
{
	struct t *t = *state;
	size_t i;
	struct {
		uint8_t method, off, val;
		size_t len;
	} cases[] = {
		{ VEMA_METHOD_GET, 2, 0x81, VEMA_MAD_LEN },	/* class version */
		{ VEMA_METHOD_SET, 2, 0x01, VEMA_MAD_LEN },
		{ VEMA_METHOD_GET, 39, 0x6b, VEMA_MAD_LEN },	/* OUI */
		{ VEMA_METHOD_SET, 37, 0x01, VEMA_MAD_LEN },
		{ VEMA_METHOD_GET, 1, 0x03, VEMA_MAD_LEN },	/* another class (SA) */
		{ VEMA_METHOD_SET, 1, 0x35, 256 },
		{ VEMA_METHOD_GET, 1, 0x34, 39 },		/* no OUI */
		{ VEMA_METHOD_SET, 1, 0x34, 24 },
	};

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		request(t, cases[i].method, VEMA_ATTR_VESWPORT_INFO, 0);
		t->req[cases[i].off] = cases[i].val;
		memset(t->reply, 0xee, sizeof(t->reply));
		assert_int_equal(send_req(t, cases[i].len), 24);
		assert_int_equal(t->reply[3], 0x81);
		assert_int_equal(status_of(t), 0x000c);
		assert_memory_equal(t->reply, t->req, 3);
		assert_memory_equal(t->reply + 6, t->req + 6, 18);
		assert_int_equal(t->reply[24], 0xee);	/* nothing past the common header */
	}
	assert_int_equal(t->v.stats.unmatched_replies, i);
	assert_null(vema_vport(&t->v, 0));		/* the Set never reached VEMA */
}

/* Every other method, matched or not, and base version 1 or short: no reply. */
static void test_dropped(void **state)
{
	static const uint8_t methods[] = { 0x00, 0x03, 0x05, 0x06, 0x07, 0x12, 0x81, 0x82, 0x86 };
	struct t *t = *state;
	size_t i;

	for (i = 0; i < sizeof(methods); i++) {
		request(t, methods[i], VEMA_ATTR_CLASS_PORT_INFO, 0);
		assert_int_equal(send_req(t, VEMA_MAD_LEN), 0);
		t->req[1] = 0x03;
		assert_int_equal(send_req(t, VEMA_MAD_LEN), 0);
	}
	assert_int_equal(t->v.stats.dropped[VEMA_DROP_METHOD], 2 * sizeof(methods));

	request(t, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0);
	t->req[0] = 0x01;
	assert_int_equal(send_req(t, VEMA_MAD_LEN), 0);
	t->req[0] = 0x81;
	assert_int_equal(send_req(t, VEMA_MAD_LEN), 0);
	assert_int_equal(t->v.stats.dropped[VEMA_DROP_BASE_VERSION], 2);

	request(t, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0);
	assert_int_equal(send_req(t, 23), 0);
	assert_int_equal(send_req(t, 0), 0);
	assert_int_equal(t->v.stats.dropped[VEMA_DROP_SHORT], 2);

	assert_int_equal(vema_handle(&t->v, &em, t->req, VEMA_MAD_LEN, t->reply, 2047), 0);
	assert_int_equal(t->v.stats.dropped[VEMA_DROP_NO_ROOM], 1);
	assert_int_equal(t->v.stats.replies, 0);
}

/* §1.4: 2048 bytes, 40 bytes echoed (RMPP, reserved, status field overwritten), data zero. */
static void test_reply_frame(void **state)
{
	struct t *t = *state;
	uint8_t zero[VEMA_DATA_LEN] = { 0 };
	int i;

	request(t, VEMA_METHOD_GET, 0x7777, 0xffffff05);
	for (i = 24; i < 37; i++)
		t->req[i] = i;
	t->req[6] = 0x42;
	t->req[18] = 0x43;
	t->req[4] = 0x01;	/* a status in a request is not echoed */
	memset(t->reply, 0xee, sizeof(t->reply));
	assert_int_equal(call(t), 0x000c);
	assert_int_equal(t->reply[3], 0x81);
	assert_memory_equal(t->reply + 6, t->req + 6, 34);
	assert_memory_equal(t->reply, t->req, 3);
	assert_memory_equal(data_of(t), zero, VEMA_DATA_LEN);
}

/* ---------------------------------------------------------------- §2.9 status matrix */

struct cell {
	uint16_t attr;
	uint8_t method;
	bool exists;
	uint16_t status;
};

static const struct cell matrix[] = {
	{ 0x0001, VEMA_METHOD_GET, true, 0 },	    { 0x0001, VEMA_METHOD_GET, false, 0 },
	{ 0x0001, VEMA_METHOD_SET, true, 0 },	    { 0x0001, VEMA_METHOD_SET, false, 0 },
	{ 0x0002, VEMA_METHOD_GET, true, 0x0c },    { 0x0002, VEMA_METHOD_SET, false, 0x0c },
	{ 0x0011, VEMA_METHOD_GET, true, 0 },	    { 0x0011, VEMA_METHOD_GET, false, 0 },
	{ 0x0011, VEMA_METHOD_SET, true, 0 },	    { 0x0011, VEMA_METHOD_SET, false, 0 },
	{ 0x0012, VEMA_METHOD_GET, true, 0 },	    { 0x0012, VEMA_METHOD_GET, false, 0x1c },
	{ 0x0012, VEMA_METHOD_SET, true, 0 },	    { 0x0012, VEMA_METHOD_SET, false, 0x1c },
	{ 0x0013, VEMA_METHOD_GET, true, 0 },	    { 0x0013, VEMA_METHOD_GET, false, 0x1c },
	{ 0x0013, VEMA_METHOD_SET, true, 0x0c },    { 0x0013, VEMA_METHOD_SET, false, 0x0c },
	{ 0x0014, VEMA_METHOD_GET, true, 0 },	    { 0x0014, VEMA_METHOD_GET, false, 0x1c },
	{ 0x0014, VEMA_METHOD_SET, true, 0x0c },    { 0x0014, VEMA_METHOD_SET, false, 0x0c },
	{ 0x0015, VEMA_METHOD_GET, true, 0x0c },    { 0x0015, VEMA_METHOD_GET, false, 0x0c },
	{ 0x0015, VEMA_METHOD_SET, true, 0 },	    { 0x0015, VEMA_METHOD_SET, false, 0x1c },
	{ 0x0020, VEMA_METHOD_GET, true, 0 },	    { 0x0020, VEMA_METHOD_GET, false, 0x1c },
	{ 0x0020, VEMA_METHOD_SET, true, 0x0c },    { 0x0020, VEMA_METHOD_SET, false, 0x0c },
	{ 0x0022, VEMA_METHOD_GET, true, 0 },	    { 0x0022, VEMA_METHOD_GET, false, 0x1c },
	{ 0x0022, VEMA_METHOD_SET, true, 0x0c },    { 0x0022, VEMA_METHOD_SET, false, 0x0c },
	{ 0x0021, VEMA_METHOD_GET, true, 0x0c },    { 0x0021, VEMA_METHOD_SET, false, 0x0c },
	{ 0x0000, VEMA_METHOD_GET, true, 0x0c },    { 0xffff, VEMA_METHOD_SET, false, 0x0c },
};

static void test_status_matrix(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(matrix) / sizeof(matrix[0]); i++) {
		struct t *t = NULL;
		uint8_t *d;

		assert_int_equal(setup((void **)&t), 0);
		if (matrix[i].exists)
			assert_int_equal(set_vport(t, 5, 1, 3), 0);
		d = request(t, matrix[i].method, matrix[i].attr, 5);
		d[3] = 1;	/* MAC table: offset 0, one entry */
		if (call(t) != matrix[i].status)
			fail_msg("attr 0x%04x method %u %s: status 0x%04x, want 0x%04x",
				 matrix[i].attr, matrix[i].method,
				 matrix[i].exists ? "exists" : "absent", status_of(t),
				 matrix[i].status);
		teardown((void **)&t);
	}
}

static void test_create_fails(void **state)
{
	struct t *t = *state;

	t->fake.create_rc = -ENOMEM;
	assert_int_equal(set_vport(t, 9, 1, 3), 0x001c);
	assert_null(vema_vport(&t->v, 9));
	assert_int_equal(t->fake.created, 1);
	assert_int_equal(t->fake.changed, 0);
	t->fake.create_rc = 0;
	assert_int_equal(set_vport(t, 9, 1, 3), 0);
	assert_non_null(vema_vport(&t->v, 9));
	assert_int_equal(t->fake.last_changed, VPORT_CHG_ALL);
}

/* ---------------------------------------------------------------- attributes */

/* §2.2: Set stores all 80 bytes; Get forces the first 8 (KAT 80 80 ff 01 00 00 00 12). */
static void test_class_port_info(void **state)
{
	static const uint8_t kat[8] = { 0x80, 0x80, 0xff, 0x01, 0x00, 0x00, 0x00, 0x12 };
	struct t *t = *state;
	uint8_t *d, block[VEMA_CPI_LEN];
	int i;

	request(t, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0);
	assert_int_equal(call(t), 0);
	assert_memory_equal(data_of(t), kat, 8);

	d = request(t, VEMA_METHOD_SET, VEMA_ATTR_CLASS_PORT_INFO, 0x77);
	for (i = 0; i < VEMA_CPI_LEN; i++)
		d[i] = block[i] = 0xa0 ^ i;
	d[VEMA_CPI_LEN] = 0x99;		/* beyond the attribute: not stored */
	assert_int_equal(call(t), 0);
	assert_memory_equal(data_of(t), kat, 8);
	assert_memory_equal(data_of(t) + 8, block + 8, VEMA_CPI_LEN - 8);
	assert_int_equal(data_of(t)[VEMA_CPI_LEN], 0);

	request(t, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 3);
	assert_int_equal(call(t), 0);
	assert_memory_equal(data_of(t) + 8, block + 8, VEMA_CPI_LEN - 8);
	vema_export_cpi(&t->v, block);
	assert_int_equal(block[0], 0xa0);	/* stored as written */
}

/* §2.3: Get of an absent vport gives the POD values. */
static void test_vpinfo_pod(void **state)
{
	struct t *t = *state;
	uint8_t expect[VEMA_VPINFO_LEN] = { 0 };

	request(t, VEMA_METHOD_GET, VEMA_ATTR_VESWPORT_INFO, 200);
	assert_int_equal(call(t), 0);
	expect[148] = 0x05;	/* eth_mtu 1500 */
	expect[149] = 0xdc;
	expect[152 + 14] = 1;	/* config_state */
	expect[152 + 15] = 1;	/* oper_state */
	expect[152 + 16] = 0x08;	/* max_mac_tbl_ent 2048 */
	expect[152 + 18] = 0x01;	/* max_smac_ent 256 */
	assert_memory_equal(data_of(t), expect, VEMA_VPINFO_LEN);
	assert_null(vema_vport(&t->v, 200));
}

/* A Set with every byte patterned: writable and reserved bytes come back, read-only ones
 * are the agent's; the fields land where §2.3 says. */
static void test_vpinfo_set(void **state)
{
	static const struct {
		int off, len;
	} read_only[] = {
		{ 156, 1 }, { 167, 1 }, { 168, 2 }, { 170, 2 }, { 172, 4 }, { 268, 2 }, { 270, 2 },
	};
	struct t *t = *state;
	const struct vnic_vport *vp;
	uint8_t pattern[VEMA_VPINFO_LEN], got[VEMA_VPINFO_LEN];
	uint8_t *d;
	size_t i;

	for (i = 0; i < VEMA_VPINFO_LEN; i++)
		pattern[i] = i * 13 + 1;
	pattern[152 + 14] = VNIC_STATE_FORWARDING;
	d = request(t, VEMA_METHOD_SET, VEMA_ATTR_VESWPORT_INFO, 0x1234502);
	memcpy(d, pattern, sizeof(pattern));
	assert_int_equal(call(t), 0);
	vp = vema_vport(&t->v, 2);
	assert_non_null(vp);
	assert_int_equal(vp->index, 2);

	memcpy(got, data_of(t), VEMA_VPINFO_LEN);
	assert_int_equal(got[156], VNIC_ETH_LINK_DOWN);		/* not opened */
	assert_int_equal(got[167], VNIC_STATE_DROP_ALL);
	assert_int_equal(be16_at(got + 168), 2048);
	assert_int_equal(be16_at(got + 170), 256);
	assert_int_equal(be32_at(got + 172), 0);
	assert_int_equal(be16_at(got + 268), 0);
	assert_int_equal(be16_at(got + 270), 0);
	for (i = 0; i < sizeof(read_only) / sizeof(read_only[0]); i++)
		memcpy(got + read_only[i].off, pattern + read_only[i].off, read_only[i].len);
	assert_memory_equal(got, pattern, VEMA_VPINFO_LEN);

	/* The model holds the fields decoded from their offsets. */
	assert_int_equal(vp->info.vesw.fabric_id, be16_at(pattern + 0));
	assert_int_equal(vp->info.vesw.vesw_id, be16_at(pattern + 2));
	assert_int_equal(vp->info.vesw.def_port_mask, be16_at(pattern + 10));
	assert_int_equal(vp->info.vesw.pkey, be16_at(pattern + 14));
	assert_int_equal(vp->info.vesw.u_mcast_dlid, be32_at(pattern + 20));
	assert_int_equal(vp->info.vesw.u_ucast_dlid[0], be32_at(pattern + 24));
	assert_int_equal(vp->info.vesw.u_ucast_dlid[15], be32_at(pattern + 84));
	assert_int_equal(vp->info.vesw.rc, be32_at(pattern + 88));
	assert_int_equal(vp->info.vesw.eth_mtu, be16_at(pattern + 148));
	assert_int_equal(vp->info.port.port_num, be32_at(pattern + 152));
	assert_memory_equal(vp->info.port.base_mac, pattern + 160, 6);
	assert_int_equal(vp->info.port.config_state, VNIC_STATE_FORWARDING);
	assert_int_equal(vp->info.port.encap_slid, be32_at(pattern + 180));
	assert_memory_equal(vp->info.port.pcp_to_sc_uc, pattern + 184, 8);
	assert_memory_equal(vp->info.port.pcp_to_vl_uc, pattern + 192, 8);
	assert_memory_equal(vp->info.port.pcp_to_sc_mc, pattern + 200, 8);
	assert_memory_equal(vp->info.port.pcp_to_vl_mc, pattern + 208, 8);
	assert_int_equal(vp->info.port.non_vlan_sc_uc, pattern[216]);
	assert_int_equal(vp->info.port.non_vlan_vl_mc, pattern[219]);

	/* Opened by the host: the Get shows FORWARDING / link up. */
	assert_int_equal(vema_host_open(&t->v, 2), 0);
	request(t, VEMA_METHOD_GET, VEMA_ATTR_VESWPORT_INFO, 2);
	assert_int_equal(call(t), 0);
	assert_int_equal(data_of(t)[156], VNIC_ETH_LINK_UP);
	assert_int_equal(data_of(t)[167], VNIC_STATE_FORWARDING);
}

/* A Set shorter than the attribute: the missing bytes are zero. */
static void test_short_set(void **state)
{
	struct t *t = *state;
	uint8_t *d = request(t, VEMA_METHOD_SET, VEMA_ATTR_VESWPORT_INFO, 4);

	memset(d, 0x11, VEMA_DATA_LEN);
	assert_int_equal(send_req(t, VEMA_HDR_LEN + 20), VEMA_MAD_LEN);
	assert_int_equal(status_of(t), 0);
	assert_int_equal(vema_vport(&t->v, 4)->info.vesw.fabric_id, 0x1111);
	assert_int_equal(vema_vport(&t->v, 4)->info.vesw.u_mcast_dlid, 0);
	assert_int_equal(vema_vport(&t->v, 4)->info.vesw.eth_mtu, 0);
	assert_int_equal(vport_max_mtu(vema_vport(&t->v, 4)), 68);
}

static uint8_t *mac_req(struct t *t, uint8_t method, uint32_t idx, uint16_t off, uint16_t num,
			uint32_t digest)
{
	uint8_t *d = request(t, method, VEMA_ATTR_MAC_ENTRIES, idx);

	d[0] = off >> 8;
	d[1] = off;
	d[2] = num >> 8;
	d[3] = num;
	d[4] = digest >> 24;
	d[5] = digest >> 16;
	d[6] = digest >> 8;
	d[7] = digest;
	return d + 8;
}

static void put_entry(uint8_t *e, uint8_t last, uint32_t dlid_sd)
{
	static const uint8_t base[6] = { 0x02, 0, 0, 0, 0, 0 };

	memcpy(e, base, 6);
	e[5] = last;
	memset(e + 6, 0xff, 6);
	e[12] = dlid_sd >> 24;
	e[13] = dlid_sd >> 16;
	e[14] = dlid_sd >> 8;
	e[15] = dlid_sd;
}

/* §2.4 through MADs: block replace, zero-MAC delete, digest, limits, release. */
static void test_mac_table(void **state)
{
	struct t *t = *state;
	const uint8_t *r;
	uint8_t *e;
	int i;

	assert_int_equal(set_vport(t, 1, 1, 3), 0);
	e = mac_req(t, VEMA_METHOD_SET, 1, 100, 3, 0x01020304);
	for (i = 0; i < 3; i++)
		put_entry(e + 16 * i, 0xa0 + i, (0x10 + i) << 8);
	assert_int_equal(call(t), 0);
	assert_int_equal(t->fake.mactable, 1);
	r = data_of(t);
	assert_int_equal(be16_at(r), 100);
	assert_int_equal(be16_at(r + 2), 3);
	assert_int_equal(be32_at(r + 4), 0x01020304);
	assert_memory_equal(r + 8, e, 48);

	/* Replace [101, 103): slot 101 deleted, 102 rewritten; 100 kept. */
	e = mac_req(t, VEMA_METHOD_SET, 1, 101, 2, 0x05060708);
	put_entry(e + 16, 0xb2, 0x2220);
	assert_int_equal(call(t), 0);

	e = mac_req(t, VEMA_METHOD_GET, 1, 99, 5, 0xffffffff);
	assert_int_equal(call(t), 0);
	r = data_of(t);
	assert_int_equal(be16_at(r), 99);
	assert_int_equal(be16_at(r + 2), 5);
	assert_int_equal(be32_at(r + 4), 0x05060708);	/* the stored digest, not the request's */
	r += 8;
	for (i = 0; i < 16; i++)
		assert_int_equal(r[i], 0);			/* 99 empty */
	assert_int_equal(r[16 + 5], 0xa0);			/* 100 kept */
	for (i = 0; i < 16; i++)
		assert_int_equal(r[32 + i], 0);			/* 101 deleted */
	assert_int_equal(r[48 + 5], 0xb2);			/* 102 replaced */
	assert_int_equal(be32_at(r + 48 + 12), 0x2220);
	for (i = 0; i < 16; i++)
		assert_int_equal(r[64 + i], 0);			/* 103 empty */

	/* The digest reads in VESWPortInfo too. */
	request(t, VEMA_METHOD_GET, VEMA_ATTR_VESWPORT_INFO, 1);
	assert_int_equal(call(t), 0);
	assert_int_equal(be32_at(data_of(t) + 172), 0x05060708);

	/* Limits: 125 per MAD, 2048 in all. */
	mac_req(t, VEMA_METHOD_SET, 1, 0, 126, 1);
	assert_int_equal(call(t), 0x001c);
	mac_req(t, VEMA_METHOD_GET, 1, 0, 126, 1);
	assert_int_equal(call(t), 0x001c);
	mac_req(t, VEMA_METHOD_SET, 1, 2047, 2, 1);
	assert_int_equal(call(t), 0x001c);
	mac_req(t, VEMA_METHOD_GET, 1, 0xffff, 0, 1);
	assert_int_equal(call(t), 0x001c);
	e = mac_req(t, VEMA_METHOD_SET, 1, 1923, 125, 9);
	put_entry(e + 16 * 124, 0xcc, 0x100);
	assert_int_equal(call(t), 0);
	assert_int_equal(data_of(t)[8 + 16 * 124 + 5], 0xcc);
	assert_int_equal(be32_at(data_of(t) + 4), 9);
	assert_int_equal(t->fake.mactable, 3);

	/* Delete VESW releases the table: digest 0, slots empty. */
	request(t, VEMA_METHOD_SET, VEMA_ATTR_DELETE_VESW, 1);
	assert_int_equal(call(t), 0);
	mac_req(t, VEMA_METHOD_GET, 1, 100, 1, 0);
	assert_int_equal(call(t), 0);
	assert_int_equal(be32_at(data_of(t) + 4), 0);
	assert_int_equal(data_of(t)[8 + 5], 0);
}

/* §2.6: back to POD through the Set path, the vport stays, the reply is VESWPortInfo. */
static void test_delete_vesw(void **state)
{
	struct t *t = *state;
	const struct vnic_vport *vp;
	uint8_t *d;

	d = request(t, VEMA_METHOD_SET, VEMA_ATTR_VESWPORT_INFO, 6);
	d[2] = 0x01;		/* vesw_id 0x100 */
	d[160] = 0x06;		/* base MAC */
	d[165] = 0x01;
	d[152 + 14] = 3;
	d[183] = 0x44;		/* encap_slid */
	d[151] = 0x77;		/* reserved */
	assert_int_equal(call(t), 0);
	assert_int_equal(vema_host_open(&t->v, 6), 0);
	vema_vport(&t->v, 6)->info.port.uc_macs_gen_count = 5;

	request(t, VEMA_METHOD_SET, VEMA_ATTR_DELETE_VESW, 6);
	assert_int_equal(call(t), 0);
	assert_int_equal(be16_at(t->reply + 16), 0x0015);
	assert_int_equal(t->fake.resets, 1);
	vp = vema_vport(&t->v, 6);
	assert_non_null(vp);
	assert_int_equal(vp->info.vesw.vesw_id, 0);
	assert_true(mactable_mac_is_zero(vp->info.port.base_mac));
	assert_int_equal(vp->info.port.config_state, VNIC_STATE_DROP_ALL);
	assert_int_equal(vp->info.port.encap_slid, 0);
	assert_int_equal(vp->info.vesw.eth_mtu, 1500);
	assert_int_equal(vp->info.vesw.rsvd4[1], 0);
	assert_false(vport_oper_up(vp));
	assert_int_equal(be16_at(data_of(t) + 2), 0);
	assert_int_equal(data_of(t)[167], VNIC_STATE_DROP_ALL);
	assert_int_equal(be16_at(data_of(t) + 268), 5);	/* gen counts are read-only */
}

/* §2.5: window of the host's list, total, gen count; 0 = as many as fit. */
static void test_iface_macs(void **state)
{
	struct t *t = *state;
	const uint8_t *r;
	uint8_t *d;
	size_t i;

	assert_int_equal(set_vport(t, 3, 1, 3), 0);
	t->fake.n_uc = 400;
	for (i = 0; i < 400; i++) {
		t->fake.uc[i][0] = 0x02;
		t->fake.uc[i][4] = i >> 8;
		t->fake.uc[i][5] = i;
	}
	t->fake.n_mc = 2;
	t->fake.mc[1][0] = 0x01;
	vema_vport(&t->v, 3)->info.port.uc_macs_gen_count = 0x0a0b;

	d = request(t, VEMA_METHOD_GET, VEMA_ATTR_IFACE_UCAST_MACS, 3);
	d[1] = 5;		/* start 5 */
	d[3] = 2;		/* two wanted */
	assert_int_equal(call(t), 0);
	r = data_of(t);
	assert_int_equal(be16_at(r), 5);
	assert_int_equal(be16_at(r + 2), 2);
	assert_int_equal(be16_at(r + 4), 400);
	assert_int_equal(be16_at(r + 6), 0x0a0b);
	assert_int_equal(r[8 + 5], 5);
	assert_int_equal(r[14 + 5], 6);
	assert_int_equal(r[20], 0);

	d = request(t, VEMA_METHOD_GET, VEMA_ATTR_IFACE_UCAST_MACS, 3);
	d[2] = 0xff;		/* more than fit: 333 */
	assert_int_equal(call(t), 0);
	assert_int_equal(be16_at(data_of(t) + 2), 333);
	assert_int_equal(data_of(t)[8 + 332 * 6 + 5], 332 & 0xff);

	request(t, VEMA_METHOD_GET, VEMA_ATTR_IFACE_MCAST_MACS, 3);
	assert_int_equal(call(t), 0);
	r = data_of(t);
	assert_int_equal(be16_at(r + 2), 2);
	assert_int_equal(be16_at(r + 4), 2);
	assert_int_equal(r[8 + 6], 0x01);
}

/* §2.7/§2.8 through the agent: the driver's counters, vport index, vesw_id, OPA port 1. */
static void test_counters(void **state)
{
	struct t *t = *state;
	const uint8_t *r;

	assert_int_equal(set_vport(t, 0x42, 0x0fed, 3), 0);
	t->fake.counters.tx.packets = 11;
	t->fake.counters.rx_nohandler = 7;
	t->fake.counters.tx_no_route = 3;
	t->fake.counters.tx_fifo_errors = 4;

	request(t, VEMA_METHOD_GET, VEMA_ATTR_SUMMARY_COUNTERS, 0x42);
	assert_int_equal(call(t), 0);
	r = data_of(t);
	assert_int_equal(be16_at(r), 0x42);
	assert_int_equal(be16_at(r + 2), 0x0fed);
	assert_int_equal(be32_at(r + 4), 1);
	assert_int_equal(be32_at(r + 28), 11);
	assert_int_equal(be32_at(r + 12), 7);	/* tx_errors = fifo 4 + no_route 3 */
	assert_int_equal(be32_at(r + 20), 7);	/* rx_errors = nohandler 7 */

	request(t, VEMA_METHOD_GET, VEMA_ATTR_ERROR_COUNTERS, 0x42);
	assert_int_equal(call(t), 0);
	r = data_of(t);
	assert_int_equal(be32_at(r + 84), 7);	/* tx_logic */
	assert_int_equal(be32_at(r + 108), 7);	/* rx_bad_veswid */
}

/* ---------------------------------------------------------------- traps */

/* §3.2 example through the agent: the link-status trap of an open. */
static void test_trap_kat(void **state)
{
	static const uint8_t notice[16] = {
		0x08, 0x00, 0x06, 0x6a, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x00,
	};
	static const uint8_t trap[16] = {
		0x03, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x05,
		0x00, 0x01, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00,
	};
	static const uint8_t hdr[24] = {
		0x80, 0x34, 0x80, 0x05, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
		0x00, 0x02, 0, 0, 0, 0, 0, 0,
	};
	struct t *t = *state;
	uint8_t *d;

	set_trap_lid(t, 0x0abc, 5 << 3 | 0x7);
	d = request(t, VEMA_METHOD_SET, VEMA_ATTR_VESWPORT_INFO, 0);
	d[0] = 0x03;
	d[1] = 0x01;
	d[3] = 0x02;
	d[152 + 3] = 5;
	d[152 + 31] = 7;
	assert_int_equal(call(t), 0);
	assert_int_equal(vema_host_open(&t->v, 0), 0);
	assert_int_equal(t->fake.sent, 1);
	assert_int_equal(t->fake.sent_len, 272);
	assert_memory_equal(t->fake.sent_mad, hdr, 24);
	assert_memory_equal(t->fake.sent_mad + 37, "\x00\x06\x6a", 3);
	assert_memory_equal(t->fake.sent_mad + 40, notice, 16);
	assert_memory_equal(t->fake.sent_mad + 72, trap, 16);
	assert_int_equal(t->fake.sent_to.lid, 0x0abc);
	assert_int_equal(t->fake.sent_to.sl, 5);
	assert_int_equal(t->fake.sent_to.qpn, 1);
	assert_int_equal(t->fake.sent_to.pkey, 0xffff);

	/* TIDs count up per OPA port. */
	assert_int_equal(vema_host_close(&t->v, 0), 0);
	assert_int_equal(t->fake.sent_mad[15], 2);
	assert_int_equal(t->fake.sent_mad[72 + 11], 3);
	assert_int_equal(t->v.stats.traps_sent, 2);
}

/* §3.3: five per window, the window opened by the first trap after expiry. */
static void test_rate_limit(void **state)
{
	struct t *t = *state;
	int i;

	set_trap_lid(t, 9, 0);
	assert_int_equal(set_vport(t, 1, 1, 3), 0);
	assert_int_equal(set_vport(t, 2, 1, 3), 0);
	for (i = 0; i < 5; i++) {
		t->fake.now = 1000 + i;
		assert_int_equal(vema_port_event(&t->v, 1, VEMA_TRAP_UCAST_MAC_CHANGE),
				 VEMA_TRAP_SENT);
	}
	assert_int_equal(vema_port_event(&t->v, 1, VEMA_TRAP_UCAST_MAC_CHANGE),
			 VEMA_TRAP_RATE_LIMITED);
	/* Per vport. */
	assert_int_equal(vema_port_event(&t->v, 2, VEMA_TRAP_UCAST_MAC_CHANGE), VEMA_TRAP_SENT);
	t->fake.now = 1000 + VEMA_TRAP_WINDOW_US - 1;
	assert_int_equal(vema_port_event(&t->v, 1, VEMA_TRAP_MCAST_MAC_CHANGE),
			 VEMA_TRAP_RATE_LIMITED);
	t->fake.now = 1000 + VEMA_TRAP_WINDOW_US;
	for (i = 0; i < 5; i++)
		assert_int_equal(vema_port_event(&t->v, 1, VEMA_TRAP_MCAST_MAC_CHANGE),
				 VEMA_TRAP_SENT);
	assert_int_equal(vema_port_event(&t->v, 1, VEMA_TRAP_MCAST_MAC_CHANGE),
			 VEMA_TRAP_RATE_LIMITED);
	assert_int_equal(t->v.stats.traps_sent, 11);
	assert_int_equal(t->v.stats.traps_rate_limited, 3);
	assert_int_equal(vema_port_event(&t->v, 3, VEMA_TRAP_MCAST_MAC_CHANGE), VEMA_TRAP_NO_VPORT);
}

/* trap_lid 0: dropped, nothing sent, and the window's count still moves. */
static void test_trap_no_lid(void **state)
{
	struct t *t = *state;
	int i;

	assert_int_equal(set_vport(t, 1, 1, 3), 0);
	assert_int_equal(vema_port_event(&t->v, 1, VEMA_TRAP_LINK_STATUS_CHANGE), VEMA_TRAP_NO_LID);
	assert_int_equal(t->fake.sent, 0);
	assert_int_equal(t->v.stats.traps_no_lid, 1);

	set_trap_lid(t, 9, 0);
	assert_int_equal(vema_port_event(&t->v, 1, VEMA_TRAP_LINK_STATUS_CHANGE), VEMA_TRAP_SENT);
	set_trap_lid(t, 0, 0);
	for (i = 0; i < 4; i++)
		assert_int_equal(vema_port_event(&t->v, 1, VEMA_TRAP_LINK_STATUS_CHANGE),
				 VEMA_TRAP_NO_LID);
	set_trap_lid(t, 9, 0);
	assert_int_equal(vema_port_event(&t->v, 1, VEMA_TRAP_LINK_STATUS_CHANGE),
			 VEMA_TRAP_RATE_LIMITED);
	assert_int_equal(t->fake.sent, 1);
	assert_int_equal(t->fake.sent_mad[15], 1);	/* dropped traps took no TID */

	t->fake.now += VEMA_TRAP_WINDOW_US;
	t->fake.send_rc = -EHOSTUNREACH;
	assert_int_equal(vema_port_event(&t->v, 1, VEMA_TRAP_LINK_STATUS_CHANGE),
			 VEMA_TRAP_SEND_FAILED);
	assert_int_equal(t->v.stats.traps_send_failed, 1);
}

/* §3.1: host events, traps only on real change. */
static void test_host_events(void **state)
{
	const uint8_t uc[1][6] = { { 0x02, 0, 0, 0, 0, 9 } };
	const uint8_t mc[1][6] = { { 0x01, 0, 0x5e, 0, 0, 1 } };
	struct t *t = *state;
	const struct vnic_vport *vp;

	set_trap_lid(t, 9, 0);
	assert_int_equal(set_vport(t, 1, 0, 3), 0);
	vp = vema_vport(&t->v, 1);
	assert_int_equal(vema_host_open(&t->v, 1), -EINVAL);	/* vesw_id 0 */
	assert_int_equal(t->fake.sent, 0);
	assert_int_equal(vema_host_open(&t->v, 77), -ENOENT);

	assert_int_equal(vema_host_rx_mode(&t->v, 1, NULL, 0, NULL, 0), 0);
	assert_int_equal(t->fake.sent, 0);
	assert_int_equal(vema_host_rx_mode(&t->v, 1, uc, 1, NULL, 0), 0);
	assert_int_equal(t->fake.sent, 1);
	assert_int_equal(t->fake.sent_mad[72 + 11], VEMA_TRAP_UCAST_MAC_CHANGE);
	assert_int_equal(vema_host_rx_mode(&t->v, 1, uc, 1, mc, 1), 0);
	assert_int_equal(t->fake.sent, 2);
	assert_int_equal(t->fake.sent_mad[72 + 11], VEMA_TRAP_MCAST_MAC_CHANGE);
	assert_int_equal(vema_host_rx_mode(&t->v, 1, uc, 1, mc, 1), 0);
	assert_int_equal(t->fake.sent, 2);
	assert_int_equal(vp->info.port.uc_macs_gen_count, 1);
	assert_int_equal(vp->info.port.mc_macs_gen_count, 1);

	assert_int_equal(vema_host_mac_changed(&t->v, 1), 0);
	assert_int_equal(vp->info.port.uc_macs_gen_count, 2);
	assert_int_equal(t->fake.sent, 3);

	/* Carrier: state callback, no trap. */
	set_vport(t, 1, 5, 3);
	assert_int_equal(vema_host_open(&t->v, 1), 0);
	assert_int_equal(t->fake.sent, 4);
	assert_true(vport_oper_up(vp));
	t->fake.changed = 0;
	vema_link_carrier(&t->v, false);
	assert_false(vport_oper_up(vp));
	assert_int_equal(t->fake.changed, 1);
	assert_int_equal(t->fake.last_changed, VPORT_CHG_STATE);
	assert_int_equal(t->fake.sent, 4);
}

/* ---------------------------------------------------------------- persistence */

static void test_export_restore(void **state)
{
	struct t *t = *state, *u = NULL;
	struct vema_vport_state *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	uint8_t cpi[VEMA_CPI_LEN], *e;
	int i;

	assert_non_null(a);
	assert_non_null(b);
	set_trap_lid(t, 0x55, 0x18);
	assert_int_equal(set_vport(t, 8, 0x77, 3), 0);
	e = mac_req(t, VEMA_METHOD_SET, 8, 2000, 3, 0xfeedface);
	for (i = 0; i < 3; i++)
		put_entry(e + 16 * i, i + 1, 0x300 + i);
	assert_int_equal(call(t), 0);
	assert_int_equal(vema_export_vport(&t->v, 9, a), -ENOENT);
	assert_int_equal(vema_export_vport(&t->v, 8, a), 0);
	assert_int_equal(a->n_macs, 3);
	assert_int_equal(a->macs[0].index, 2000);
	vema_export_cpi(&t->v, cpi);

	assert_int_equal(setup((void **)&u), 0);
	vema_restore_cpi(&u->v, cpi);
	assert_int_equal(vema_restore_vport(&u->v, 8, a), 0);
	assert_int_equal(u->fake.created, 1);
	assert_int_equal(u->fake.last_changed, VPORT_CHG_ALL);
	assert_int_equal(u->fake.mactable, 1);
	assert_int_equal(vema_export_vport(&u->v, 8, b), 0);
	assert_memory_equal(a->info, b->info, VEMA_VPINFO_LEN);
	assert_int_equal(b->n_macs, 3);
	assert_memory_equal(a->macs, b->macs, 3 * sizeof(a->macs[0]));
	assert_int_equal(vema_restore_vport(&u->v, 8, a), -EEXIST);
	a->macs[1].index = 2048;
	assert_int_equal(vema_restore_vport(&u->v, 9, a), -EINVAL);
	assert_null(vema_vport(&u->v, 9));
	assert_int_equal(vema_cpi_trap_lid(u->v.cpi), 0x55);
	teardown((void **)&u);
	free(a);
	free(b);
}

/* Undoing Sets: what a Set addresses, and a vport put back as exported, or removed. */
static void test_reset_remove(void **state)
{
	struct t *t = *state;
	struct vema_vport_state *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	uint8_t *e;

	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(set_vport(t, 4, 0x77, 3), 0);
	e = mac_req(t, VEMA_METHOD_SET, 4, 10, 1, 0xabc);
	put_entry(e, 1, 0x300);
	assert_int_equal(call(t), 0);
	assert_int_equal(vema_set_target(t->req, VEMA_MAD_LEN), 4);
	assert_int_equal(vema_set_target(t->req, VEMA_HDR_LEN - 1), VEMA_SET_NONE);
	assert_int_equal(vema_export_vport(&t->v, 4, a), 0);

	/* Changed, its table replaced and then dropped (Delete VESW): put back as it was. */
	assert_int_equal(set_vport(t, 4, 0x99, 3), 0);
	e = mac_req(t, VEMA_METHOD_SET, 4, 20, 1, 0xdef);
	put_entry(e, 2, 0x301);
	assert_int_equal(call(t), 0);
	request(t, VEMA_METHOD_SET, VEMA_ATTR_DELETE_VESW, 4);
	assert_int_equal(call(t), 0);
	assert_null(vema_vport(&t->v, 4)->macs);
	t->fake.changed = t->fake.mactable = 0;
	assert_int_equal(vema_reset_vport(&t->v, 4, a), 0);
	assert_int_equal(vema_export_vport(&t->v, 4, b), 0);
	assert_memory_equal(a->info, b->info, VEMA_VPINFO_LEN);
	assert_int_equal(b->n_macs, 1);
	assert_int_equal(b->macs[0].index, 10);
	assert_memory_equal(a->macs, b->macs, sizeof(a->macs[0]));
	assert_int_equal(t->fake.last_changed, VPORT_CHG_ALL);
	assert_int_equal(t->fake.mactable, 1);

	/* A vport a Set created: absent before, so removed; an absent one is restored. */
	assert_int_equal(vema_reset_vport(&t->v, 4, NULL), 0);
	assert_int_equal(t->fake.removed, 1);
	assert_null(vema_vport(&t->v, 4));
	vema_remove_vport(&t->v, 4);
	assert_int_equal(t->fake.removed, 1);
	assert_int_equal(vema_reset_vport(&t->v, 4, a), 0);
	assert_non_null(vema_vport(&t->v, 4));
	request(t, VEMA_METHOD_SET, VEMA_ATTR_CLASS_PORT_INFO, 0);
	assert_int_equal(vema_set_target(t->req, VEMA_MAD_LEN), VEMA_SET_CPI);
	request(t, VEMA_METHOD_SET, VEMA_ATTR_SUMMARY_COUNTERS, 4);
	assert_int_equal(vema_set_target(t->req, VEMA_MAD_LEN), VEMA_SET_NONE);
	free(a);
	free(b);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_header_kat),
		T(test_unmatched),
		T(test_dropped),
		T(test_reply_frame),
		cmocka_unit_test(test_status_matrix),
		T(test_create_fails),
		T(test_class_port_info),
		T(test_vpinfo_pod),
		T(test_vpinfo_set),
		T(test_short_set),
		T(test_mac_table),
		T(test_delete_vesw),
		T(test_iface_macs),
		T(test_counters),
		T(test_trap_kat),
		T(test_rate_limit),
		T(test_trap_no_lid),
		T(test_host_events),
		T(test_export_restore),
		T(test_reset_remove),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
