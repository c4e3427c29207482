/* SPDX-License-Identifier: MIT */
/*
 * Omni-Path packet codecs (dataplane/opa/).  Known answers come from the reference
 * /work/shared/reference/opa_vnic.md (line numbers cited at each vector), the rest are
 * round trips and one test per refusal.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "dataplane/opa/opa16b.h"
#include "dataplane/opa/opa9b.h"
#include "dataplane/opa/vnic_encap.h"
#include "dataplane/opa/vnic_fields.h"

/* ---------------------------------------------------------------- 16B header */

/* Reference §4.3, lines 509-514: SLID 0x123456, DLID 0xABCDEF, SC 5, RC 3, PKEY 0x8001,
 * entropy 0x5a, vesw 0x123, 60-byte frame, 88 bytes, Length 11 (§6.2 line 703). */
static const uint8_t kat_vnic_head[20] = {
	0x56, 0x34, 0xb2, 0x00, 0xef, 0xcd, 0x5b, 0xc6, 0x78, 0xa1,
	0x01, 0x80, 0x5a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x23, 0x01,
};
static const uint8_t kat_vnic_tail[8] = { 0, 0, 0, 0, 0, 0, 0, 0x03 };

static const struct opa_vnic_tx kat_tx = {
	.slid = 0x123456, .dlid = 0xabcdef, .sc = 5, .rc = 3, .pkey = 0x8001,
	.entropy = 0x5a, .vesw_id = 0x123,
};

static void test_16b_kat_decode(void **state)
{
	struct opa16b_hdr h;

	(void)state;
	opa16b_decode(kat_vnic_head, &h);
	assert_int_equal(h.slid, 0x123456);
	assert_int_equal(h.dlid, 0xabcdef);
	assert_int_equal(h.length, 11);
	assert_int_equal(h.sc, 5);
	assert_int_equal(h.rc, 3);
	assert_int_equal(h.l2, 2);
	assert_int_equal(h.lt, 1);
	assert_int_equal(h.l4, 0x78);
	assert_int_equal(h.pkey, 0x8001);
	assert_int_equal(h.entropy, 0x5a);
	assert_int_equal(h.becn, 0);
	assert_int_equal(h.fecn, 0);
	assert_int_equal(h.age, 0);
}

static void test_16b_kat_build(void **state)
{
	struct opa16b_hdr h = {
		.slid = 0x123456, .dlid = 0xabcdef, .length = 11, .sc = 5, .rc = 3, .l2 = 2,
		.lt = 1, .l4 = 0x78, .pkey = 0x8001, .entropy = 0x5a,
	};
	uint8_t out[16];

	(void)state;
	assert_int_equal(opa16b_build(&h, out), OPA_OK);
	assert_memory_equal(out, kat_vnic_head, 16);
}

/* Every single-bit field at its top value lands where §4.1 (lines 459-477) puts it. */
static void test_16b_flag_bits(void **state)
{
	struct opa16b_hdr h = { .becn = 1, .fecn = 1, .age = 0xff, .l2 = 2, .lt = 1 }, back;
	uint8_t out[16];

	(void)state;
	memset(&back, 0, sizeof(back));	/* padding, for memcmp */
	assert_int_equal(opa16b_build(&h, out), OPA_OK);
	assert_int_equal(out[3], 0x80);			/* W0 bit 31 BECN */
	assert_int_equal(out[7], 0x80 | 0x40 | 0x10);	/* W1 LT, L2=2, FECN bit 28 */
	assert_int_equal(out[14], 0xff);		/* W3 bits 16-23 Age */
	opa16b_decode(out, &back);
	assert_memory_equal(&h, &back, sizeof(h));
}

static void test_16b_round_trip(void **state)
{
	struct opa16b_hdr h = {
		.slid = 0xfedcba, .dlid = 0x0f0001, .length = 0x7ff, .sc = 0x1f, .rc = 7, .l2 = 2,
		.lt = 1, .l4 = 0x12, .pkey = 0x7fff, .entropy = 0xbeef, .age = 9,
	}, back;
	uint8_t out[16];

	(void)state;
	memset(&back, 0, sizeof(back));	/* padding, for memcmp */
	assert_int_equal(opa16b_build(&h, out), OPA_OK);
	opa16b_decode(out, &back);
	assert_memory_equal(&h, &back, sizeof(h));
}

static void test_16b_build_refusals(void **state)
{
	const struct opa16b_hdr ok = { .l2 = 2, .lt = 1 };
	struct opa16b_hdr h;
	uint8_t out[16];

	(void)state;
	h = ok, h.slid = 0x1000000;
	assert_int_equal(opa16b_build(&h, out), OPA_BAD_FIELD);
	h = ok, h.dlid = 0x1000000;
	assert_int_equal(opa16b_build(&h, out), OPA_BAD_FIELD);
	h = ok, h.length = 0x800;
	assert_int_equal(opa16b_build(&h, out), OPA_BAD_FIELD);
	h = ok, h.sc = 32;
	assert_int_equal(opa16b_build(&h, out), OPA_BAD_FIELD);
	h = ok, h.rc = 8;
	assert_int_equal(opa16b_build(&h, out), OPA_BAD_FIELD);
	h = ok, h.l2 = 4;
	assert_int_equal(opa16b_build(&h, out), OPA_BAD_FIELD);
	h = ok, h.lt = 2;
	assert_int_equal(opa16b_build(&h, out), OPA_BAD_FIELD);
	h = ok, h.becn = 2;
	assert_int_equal(opa16b_build(&h, out), OPA_BAD_FIELD);
	h = ok, h.fecn = 2;
	assert_int_equal(opa16b_build(&h, out), OPA_BAD_FIELD);
}

static void test_16b_parse_refusals(void **state)
{
	uint8_t p[88] = { 0 };
	struct opa16b_hdr h;

	(void)state;
	memcpy(p, kat_vnic_head, 20);
	assert_int_equal(opa16b_parse(p, 88, &h), OPA_OK);
	assert_int_equal(opa16b_parse(p, 15, &h), OPA_SHORT);
	assert_int_equal(opa16b_parse(p, 80, &h), OPA_BAD_LENGTH);
	p[7] &= ~0x40;					/* L2 = 0 (LT kept) */
	assert_int_equal(opa16b_parse(p, 88, &h), OPA_BAD_L2);
	p[7] = kat_vnic_head[7] & ~0x80;		/* LT clear */
	assert_int_equal(opa16b_parse(p, 88, &h), OPA_BAD_LT);
}

/* ---------------------------------------------------------------- 9B MAD packets */

/* Reference §1.2 lines 93-97: Get VESWPortInfo, vport 3, TID 0x1122334455667788. */
static const uint8_t kat_mad_hdr[40] = {
	0x80, 0x34, 0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66,
	0x77, 0x88, 0x00, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x06, 0x6a,
};

static const struct opa9b_mad_addr kat_addr = {
	.sc = 0, .sl = 0, .dlid = 0x0001, .slid = 0x0002, .pkey = 0xffff, .src_qp = 1, .psn = 0,
};

/* An independent bitwise CRC-32 (IEEE 802.3, reflected) to check the ICRC against. */
static uint32_t crc32_bitwise(const uint8_t *p, size_t n)
{
	uint32_t c = 0xffffffff;
	int k;

	while (n--) {
		c ^= *p++;
		for (k = 0; k < 8; k++)
			c = c >> 1 ^ (0xedb88320 & -(c & 1));
	}
	return ~c;
}

static void test_crc32_oracle(void **state)
{
	(void)state;
	assert_int_equal(crc32_bitwise((const uint8_t *)"123456789", 9), 0xcbf43926); /* CRC-32 */
}

/* A 272-byte MAD (the trap size, §1.1 line 60) with the §1.2 header; LRH/BTH/DETH bytes
 * written out from the §6.2 recipe A text (line 666-668), not from the code. */
static void test_9b_kat_headers(void **state)
{
	static const uint8_t want[28] = {
		0x00, 0x02, 0x00, 0x01, 0x00, 0x4c, 0x00, 0x02,		/* LRH: 304 B = 76 dw */
		0x64, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01,		/* BTH: UD SEND, QP 1 */
		0x00, 0x00, 0x00, 0x00,
		0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,		/* DETH: QP1 Q_Key, QP 1 */
	};
	uint8_t mad[272] = { 0 }, pkt[OPA9B_MAX_PKT], masked[304];
	size_t len;
	uint32_t icrc;

	(void)state;
	memcpy(mad, kat_mad_hdr, sizeof(kat_mad_hdr));
	assert_int_equal(opa9b_mad_build(&kat_addr, mad, sizeof(mad), pkt, sizeof(pkt), &len), OPA_OK);
	assert_int_equal(len, 304);
	assert_memory_equal(pkt, want, sizeof(want));
	assert_memory_equal(pkt + 28, mad, sizeof(mad));
	/* ICRC: CRC-32 with the SC nibble and BTH byte 4 as ones, least significant byte first. */
	memcpy(masked, pkt, 300);
	masked[0] |= 0xf0;
	masked[12] = 0xff;
	icrc = crc32_bitwise(masked, 300);
	assert_int_equal(pkt[300] | pkt[301] << 8 | pkt[302] << 16 | (uint32_t)pkt[303] << 24, icrc);
}

static void test_9b_icrc_masks_only_variant_fields(void **state)
{
	uint8_t mad[256], pkt[OPA9B_MAX_PKT];
	uint32_t base;
	size_t len, i;

	(void)state;
	memset(mad, 0x5c, sizeof(mad));
	assert_int_equal(opa9b_mad_build(&kat_addr, mad, sizeof(mad), pkt, sizeof(pkt), &len), OPA_OK);
	base = opa9b_icrc(pkt, len);
	pkt[0] ^= 0xa0;			/* SC, rewritten hop by hop */
	pkt[12] ^= 0x55;		/* BTH reserved byte */
	assert_int_equal(opa9b_icrc(pkt, len), base);
	pkt[0] ^= 0xa0;
	pkt[12] ^= 0x55;
	for (i = 1; i < len - 4; i++) {
		if (i == 12)
			continue;
		pkt[i] ^= 1;
		assert_int_not_equal(opa9b_icrc(pkt, len), base);
		pkt[i] ^= 1;
	}
}

static void test_9b_round_trip(void **state)
{
	static const size_t lens[] = { 24, 25, 26, 27, 40, 256, 272, 2047, 2048 };
	const struct opa9b_mad_addr a = {
		.sc = 0xf, .sl = 0xa, .dlid = 0xbeef, .slid = 0x1234, .pkey = 0x8001,
		.src_qp = 0xabcdef, .psn = 0x123456,
	};
	uint8_t mad[2048], pkt[OPA9B_MAX_PKT];
	struct opa9b_mad_pkt p;
	size_t i, j, len;

	(void)state;
	for (j = 0; j < sizeof(mad); j++)
		mad[j] = j * 7 + 3;
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		assert_int_equal(opa9b_mad_build(&a, mad, lens[i], pkt, sizeof(pkt), &len), OPA_OK);
		assert_int_equal(len, opa9b_mad_pkt_len(lens[i]));
		assert_int_equal(len % 4, 0);
		assert_int_equal(opa9b_mad_parse(pkt, len, &p), OPA_OK);
		assert_memory_equal(&p.addr, &a, sizeof(a));
		assert_int_equal(p.mad_len, lens[i]);
		assert_ptr_equal(p.mad, pkt + OPA9B_HDRS_LEN);
		assert_memory_equal(p.mad, mad, lens[i]);
	}
}

static void test_9b_build_refusals(void **state)
{
	uint8_t mad[2049] = { 0 }, pkt[OPA9B_MAX_PKT + 8];
	struct opa9b_mad_addr a = kat_addr;
	size_t len;

	(void)state;
	assert_int_equal(opa9b_mad_build(&a, mad, 23, pkt, sizeof(pkt), &len), OPA_BAD_MAD_LEN);
	assert_int_equal(opa9b_mad_build(&a, mad, 2049, pkt, sizeof(pkt), &len), OPA_BAD_MAD_LEN);
	assert_int_equal(opa9b_mad_build(&a, mad, 256, pkt, 287, &len), OPA_NO_ROOM);
	a.sc = 16;
	assert_int_equal(opa9b_mad_build(&a, mad, 256, pkt, sizeof(pkt), &len), OPA_BAD_FIELD);
	a = kat_addr, a.sl = 16;
	assert_int_equal(opa9b_mad_build(&a, mad, 256, pkt, sizeof(pkt), &len), OPA_BAD_FIELD);
	a = kat_addr, a.src_qp = 1u << 24;
	assert_int_equal(opa9b_mad_build(&a, mad, 256, pkt, sizeof(pkt), &len), OPA_BAD_FIELD);
	a = kat_addr, a.psn = 1u << 24;
	assert_int_equal(opa9b_mad_build(&a, mad, 256, pkt, sizeof(pkt), &len), OPA_BAD_FIELD);
}

/* Builds a good 256-byte MAD packet into pkt, changes byte off to val, and re-seals the ICRC
 * so that only the field under test is wrong. */
static size_t mad_pkt_with(uint8_t *pkt, size_t off, uint8_t val)
{
	uint8_t mad[256] = { 0 };
	uint32_t icrc;
	size_t len;

	memcpy(mad, kat_mad_hdr, sizeof(kat_mad_hdr));
	assert_int_equal(opa9b_mad_build(&kat_addr, mad, 256, pkt, OPA9B_MAX_PKT, &len), OPA_OK);
	pkt[off] = val;
	icrc = opa9b_icrc(pkt, len);
	pkt[len - 4] = icrc;
	pkt[len - 3] = icrc >> 8;
	pkt[len - 2] = icrc >> 16;
	pkt[len - 1] = icrc >> 24;
	return len;
}

static void test_9b_parse_refusals(void **state)
{
	uint8_t pkt[OPA9B_MAX_PKT];
	struct opa9b_mad_pkt p;
	size_t len;

	(void)state;
	len = mad_pkt_with(pkt, 0, 0);
	assert_int_equal(opa9b_mad_parse(pkt, len, &p), OPA_OK);
	assert_int_equal(opa9b_mad_parse(pkt, 31, &p), OPA_SHORT);
	assert_int_equal(opa9b_mad_parse(pkt, len - 4, &p), OPA_BAD_LENGTH);
	len = mad_pkt_with(pkt, 1, 0x03);			/* LNH 3: GRH follows */
	assert_int_equal(opa9b_mad_parse(pkt, len, &p), OPA_BAD_LNH);
	len = mad_pkt_with(pkt, 0, 0x01);			/* LVer 1 */
	assert_int_equal(opa9b_mad_parse(pkt, len, &p), OPA_BAD_LVER);
	len = mad_pkt_with(pkt, 8, 0x04);			/* RC SEND-only */
	assert_int_equal(opa9b_mad_parse(pkt, len, &p), OPA_BAD_OPCODE);
	len = mad_pkt_with(pkt, 9, 0x01);			/* TVer 1 */
	assert_int_equal(opa9b_mad_parse(pkt, len, &p), OPA_BAD_TVER);
	len = mad_pkt_with(pkt, 15, 0x00);			/* dest QP 0 */
	assert_int_equal(opa9b_mad_parse(pkt, len, &p), OPA_BAD_QP);
	len = mad_pkt_with(pkt, 23, 0x01);			/* Q_Key 0x80010001 */
	assert_int_equal(opa9b_mad_parse(pkt, len, &p), OPA_BAD_QKEY);
	len = mad_pkt_with(pkt, 0, 0);
	pkt[100] ^= 0x01;					/* payload corrupted */
	assert_int_equal(opa9b_mad_parse(pkt, len, &p), OPA_BAD_ICRC);
}

static void test_9b_parse_mad_length_refusals(void **state)
{
	uint8_t pkt[OPA9B_MAX_PKT + 8] = { 0 };
	struct opa9b_mad_pkt p;
	size_t len;

	(void)state;
	len = mad_pkt_with(pkt, 0, 0);
	/* 20-byte MAD: shrink the packet and its LRH length (ICRC is checked after lengths). */
	pkt[5] = (OPA9B_HDRS_LEN + 20 + 4) / 4;
	assert_int_equal(opa9b_mad_parse(pkt, OPA9B_HDRS_LEN + 20 + 4, &p), OPA_BAD_MAD_LEN);
	/* 24 bytes with PadCnt 3 leaves a 21-byte MAD. */
	len = mad_pkt_with(pkt, 9, 0x30);
	pkt[5] = (OPA9B_HDRS_LEN + 24 + 4) / 4;
	assert_int_equal(opa9b_mad_parse(pkt, OPA9B_HDRS_LEN + 24 + 4, &p), OPA_BAD_MAD_LEN);
	/* 2052 bytes, no pad: over the 2048-byte OPA MAD. */
	len = OPA9B_HDRS_LEN + 2052 + 4;
	pkt[4] = (len / 4) >> 8;
	pkt[5] = len / 4;
	pkt[9] = 0;
	assert_int_equal(opa9b_mad_parse(pkt, len, &p), OPA_BAD_MAD_LEN);
}

/* ---------------------------------------------------------------- VNIC encapsulation */

static void fill_frame(uint8_t *f, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		f[i] = i * 13 + 1;
}

/* §4.3 lines 509-514, and the inner MACs of §6.2 line 704-705. */
static void test_vnic_kat_encap(void **state)
{
	uint8_t frame[60], pkt[128];
	size_t len;

	(void)state;
	fill_frame(frame, sizeof(frame));
	assert_int_equal(opa_vnic_encap(&kat_tx, frame, 60, pkt, sizeof(pkt), &len), OPA_OK);
	assert_int_equal(len, 88);
	assert_memory_equal(pkt, kat_vnic_head, 20);
	assert_memory_equal(pkt + 20, frame, 60);
	assert_memory_equal(pkt + 80, kat_vnic_tail, 8);
}

/* §4.2 line 485: L=60 -> pad 3, 88 B, 11 QW; L=64 -> pad 7, 96 B; L=1514 -> pad 5, 1544 B. */
static void test_vnic_kat_lengths(void **state)
{
	static const struct { size_t l, pad, total; } v[] = {
		{ 60, 3, 88 }, { 64, 7, 96 }, { 1514, 5, 1544 },
	};
	uint8_t frame[1514], pkt[1600];
	struct opa16b_hdr h;
	size_t i, len;

	(void)state;
	fill_frame(frame, sizeof(frame));
	for (i = 0; i < 3; i++) {
		assert_int_equal(opa_vnic_wire_len(v[i].l), v[i].total);
		assert_int_equal(opa_vnic_encap(&kat_tx, frame, v[i].l, pkt, sizeof(pkt), &len), OPA_OK);
		assert_int_equal(len, v[i].total);
		assert_int_equal(pkt[len - 1], v[i].pad);
		opa16b_decode(pkt, &h);
		assert_int_equal(h.length, v[i].total / 8);
	}
}

/* §4.2 line 482: frames under 60 bytes are zero-padded to 60 first. */
static void test_vnic_short_frame_padded(void **state)
{
	uint8_t frame[14], pkt[128];
	struct opa_vnic_rx rx;
	size_t len;

	(void)state;
	fill_frame(frame, sizeof(frame));
	assert_int_equal(opa_vnic_encap(&kat_tx, frame, 14, pkt, sizeof(pkt), &len), OPA_OK);
	assert_int_equal(len, 88);
	assert_int_equal(opa_vnic_decap(pkt, len, 0x123, 1500, &rx), OPA_OK);
	assert_int_equal(rx.frame_len, 60);
	assert_memory_equal(rx.frame, frame, 14);
	for (size_t i = 14; i < 60; i++)
		assert_int_equal(rx.frame[i], 0);
}

static void test_vnic_round_trip(void **state)
{
	uint8_t frame[9018], pkt[9100];
	struct opa_vnic_rx rx;
	size_t l, len;

	(void)state;
	fill_frame(frame, sizeof(frame));
	for (l = 60; l <= 9018; l += (l < 200 ? 1 : 97)) {
		assert_int_equal(opa_vnic_encap(&kat_tx, frame, l, pkt, sizeof(pkt), &len), OPA_OK);
		assert_int_equal(len % 8, 0);
		assert_int_equal(opa_vnic_decap(pkt, len, 0x123, 9000, &rx), OPA_OK);
		assert_int_equal(rx.frame_len, l);
		assert_memory_equal(rx.frame, frame, l);
		assert_int_equal(rx.vesw_id, 0x123);
		assert_int_equal(rx.hdr.slid, kat_tx.slid);
		assert_int_equal(rx.hdr.dlid, kat_tx.dlid);
		assert_int_equal(rx.hdr.sc, kat_tx.sc);
		assert_int_equal(rx.hdr.rc, kat_tx.rc);
		assert_int_equal(rx.hdr.pkey, kat_tx.pkey);
		assert_int_equal(rx.hdr.entropy, kat_tx.entropy);
	}
}

static void test_vnic_encap_refusals(void **state)
{
	static uint8_t frame[16400], pkt[16400];
	struct opa_vnic_tx tx = kat_tx;
	size_t len;

	(void)state;
	tx.dlid = 0;
	assert_int_equal(opa_vnic_encap(&tx, frame, 60, pkt, sizeof(pkt), &len), OPA_DLID_ZERO);
	tx = kat_tx, tx.vesw_id = 0x1000;
	assert_int_equal(opa_vnic_encap(&tx, frame, 60, pkt, sizeof(pkt), &len), OPA_BAD_FIELD);
	tx = kat_tx, tx.sc = 32;
	assert_int_equal(opa_vnic_encap(&tx, frame, 60, pkt, sizeof(pkt), &len), OPA_BAD_FIELD);
	tx = kat_tx, tx.slid = 0x1000000;
	assert_int_equal(opa_vnic_encap(&tx, frame, 60, pkt, sizeof(pkt), &len), OPA_BAD_FIELD);
	/* 16376 bytes (2047 flits) is the largest packet: 16351-byte frame, pad 0. */
	assert_int_equal(opa_vnic_encap(&kat_tx, frame, 16351, pkt, sizeof(pkt), &len), OPA_OK);
	assert_int_equal(len, 16376);
	assert_int_equal(opa_vnic_encap(&kat_tx, frame, 16352, pkt, sizeof(pkt), &len), OPA_TOO_LONG);
	assert_int_equal(opa_vnic_encap(&kat_tx, frame, (size_t)-1, pkt, sizeof(pkt), &len),
			 OPA_TOO_LONG);
	assert_int_equal(opa_vnic_encap(&kat_tx, frame, 60, pkt, 87, &len), OPA_NO_ROOM);
}

static size_t kat_packet(uint8_t *pkt, size_t frame_len)
{
	uint8_t frame[1600];
	size_t len;

	fill_frame(frame, frame_len);
	assert_int_equal(opa_vnic_encap(&kat_tx, frame, frame_len, pkt, 1700, &len), OPA_OK);
	return len;
}

static void test_vnic_decap_refusals(void **state)
{
	uint8_t pkt[1700];
	struct opa_vnic_rx rx;
	size_t len;

	(void)state;
	len = kat_packet(pkt, 60);
	assert_int_equal(opa_vnic_decap(pkt, 15, 0x123, 1500, &rx), OPA_SHORT);
	assert_int_equal(opa_vnic_decap(pkt, 80, 0x123, 1500, &rx), OPA_BAD_LENGTH);
	assert_int_equal(opa_vnic_decap(pkt, len, 0x124, 1500, &rx), OPA_BAD_VESW);
	assert_int_equal(opa_vnic_decap(pkt, len, OPA_VNIC_ANY_VESW, 1500, &rx), OPA_OK);
	/* Only the low 12 bits of the L4 header are the id. */
	pkt[19] |= 0xf0;
	assert_int_equal(opa_vnic_decap(pkt, len, 0x123, 1500, &rx), OPA_OK);
	/* A tail claiming 4 more pad bytes leaves a 56-byte runt; upper tail bits are ignored. */
	pkt[len - 1] = 0x40 | 7;
	assert_int_equal(opa_vnic_decap(pkt, len, 0x123, 1500, &rx), OPA_RUNT);
	pkt[len - 1] = 0x40 | 3;
	assert_int_equal(opa_vnic_decap(pkt, len, 0x123, 1500, &rx), OPA_OK);
	pkt[8] = 0x77;						/* L4 type */
	assert_int_equal(opa_vnic_decap(pkt, len, 0x123, 1500, &rx), OPA_BAD_L4);
	pkt[8] = 0x78;
	pkt[7] &= ~0x40;
	assert_int_equal(opa_vnic_decap(pkt, len, 0x123, 1500, &rx), OPA_BAD_L2);
	pkt[7] = (pkt[7] | 0x40) & ~0x80;
	assert_int_equal(opa_vnic_decap(pkt, len, 0x123, 1500, &rx), OPA_BAD_LT);
	/* A 16-byte packet whose Length says 2 flits: header fine, no room for the rest. */
	len = kat_packet(pkt, 60);
	pkt[2] = 0x20;						/* Length 2 */
	pkt[3] = 0;
	assert_int_equal(opa_vnic_decap(pkt, 16, 0x123, 1500, &rx), OPA_SHORT);
	/* §4.8 step 7: frame > MTU + 18 is oversize; exactly MTU + 18 passes. */
	len = kat_packet(pkt, 1518);
	assert_int_equal(opa_vnic_decap(pkt, len, 0x123, 1500, &rx), OPA_OK);
	len = kat_packet(pkt, 1519);
	assert_int_equal(opa_vnic_decap(pkt, len, 0x123, 1500, &rx), OPA_OVERSIZE);
}

/* ---------------------------------------------------------------- header field choices */

/* §4.5 line 541 applied by hand: 0x12345678 -> 0x08, 0xdeadbeef -> 0x22. */
static void test_entropy(void **state)
{
	(void)state;
	assert_int_equal(opa_vnic_entropy(0x12345678), 0x08);
	assert_int_equal(opa_vnic_entropy(0xdeadbeef), 0x22);
	assert_int_equal(opa_vnic_entropy(0), 0);
}

/* §4.5 line 544: set bits ascending, repeated; 0xFF when none. */
static void test_flow_table(void **state)
{
	uint8_t t[32];
	int i;

	(void)state;
	opa_vnic_flow_table(0x000a, t);
	for (i = 0; i < 32; i++)
		assert_int_equal(t[i], i % 2 ? 3 : 1);
	opa_vnic_flow_table(0x8007, t);
	for (i = 0; i < 32; i++)
		assert_int_equal(t[i], ((const uint8_t[]){ 0, 1, 2, 15 })[i % 4]);
	opa_vnic_flow_table(0, t);
	for (i = 0; i < 32; i++)
		assert_int_equal(t[i], 0xff);
}

static const struct opa_vnic_mac_entry macs[] = {
	{ { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55 }, 0x00100000 },		/* DLID 0x1000 */
	{ { 0x00, 0x11, 0x22, 0x33, 0x44, 0x66 }, 0x00200000 | OPA_VNIC_SD_IS_SRC_MAC },
	{ { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 }, 0x00300000 },		/* multicast, listed */
	{ { 0x00, 0x11, 0x22, 0x33, 0x44, 0x77 }, 0x00000007 },		/* DLID 0: falls through */
};

static struct opa_vnic_dlid_tables dlid_tables(uint16_t def_port_mask)
{
	struct opa_vnic_dlid_tables t = {
		.macs = macs, .n_macs = sizeof(macs) / sizeof(macs[0]), .u_mcast_dlid = 0xc000,
	};
	int i;

	for (i = 0; i < 16; i++)
		t.u_ucast_dlid[i] = 0x100 + i;
	opa_vnic_flow_table(def_port_mask, t.flow_tbl);
	return t;
}

/* §4.6 lines 548-558 in order; the locally administered MAC is the cs_gen_lmac vector of
 * lines 560-561 (06:2c:00:05:00:00 -> LID 5) and the second inner MAC of line 705. */
static void test_dlid_choice(void **state)
{
	struct opa_vnic_dlid_tables t = dlid_tables(0x000a);
	const uint8_t lmac5[6] = { 0x06, 0x2c, 0x00, 0x05, 0x00, 0x00 };
	const uint8_t lmac7[6] = { 0x06, 0x2c, 0x00, 0x07, 0x00, 0x00 };
	const uint8_t lmac_big[6] = { 0x06, 0x2c, 0x00, 0x56, 0x34, 0x12 };
	const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	const uint8_t mcast_other[6] = { 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 };
	const uint8_t global[6] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x99 };

	(void)state;
	assert_int_equal(opa_vnic_dlid(&t, macs[0].mac, 0), 0x1000);		/* table */
	assert_int_equal(opa_vnic_dlid(&t, macs[2].mac, 0), 0x3000);		/* table beats mcast */
	assert_int_equal(opa_vnic_dlid(&t, bcast, 0), 0xc000);
	assert_int_equal(opa_vnic_dlid(&t, mcast_other, 0), 0xc000);
	assert_int_equal(opa_vnic_dlid(&t, lmac5, 0), 5);
	assert_int_equal(opa_vnic_dlid(&t, lmac7, 0), 7);
	assert_int_equal(opa_vnic_dlid(&t, lmac_big, 0), 0x123456);
	/* Source-MAC entries and DLID-0 entries do not route: default port instead.
	 * entropy 0x5a: (0xa + 0x5) & 31 = 15 -> flow_tbl[15] = port 3. */
	assert_int_equal(opa_vnic_dlid(&t, macs[1].mac, 0x5a), 0x103);
	assert_int_equal(opa_vnic_dlid(&t, macs[3].mac, 0x5a), 0x103);
	/* entropy 0xf1: (1 + 15) & 31 = 16 -> flow_tbl[16] = port 1. */
	assert_int_equal(opa_vnic_dlid(&t, global, 0xf1), 0x101);
	t = dlid_tables(0);
	assert_int_equal(opa_vnic_dlid(&t, global, 0x5a), 0);			/* no default port */
}

static const struct opa_vnic_port port = {
	.encap_slid = 0x123456, .pkey = 0x8001, .vesw_id = 0x123,
	/* slot n (shift 4n) holds RC n + 1 so each protocol class is told apart */
	.rc_word = 0x07654321,
	.pcp_to_sc_uc = { 0, 1, 2, 3, 4, 5, 6, 7 },
	.pcp_to_sc_mc = { 8, 9, 10, 11, 12, 13, 14, 15 },
	.non_vlan_sc_uc = 20, .non_vlan_sc_mc = 21,
};

/* Builds an Ethernet frame: dst, optional 802.1Q tag with pcp, ethertype, L3 protocol byte. */
static size_t make_frame(uint8_t *f, const uint8_t *dst, int vlan_pcp, uint16_t type, uint8_t l4)
{
	size_t off = 12;

	memset(f, 0, 64);
	memcpy(f, dst, 6);
	if (vlan_pcp >= 0) {
		f[12] = 0x81, f[13] = 0x00, f[14] = vlan_pcp << 5, f[15] = 0x05;
		off = 16;
	}
	f[off] = type >> 8, f[off + 1] = type;
	if (type == 0x0800)
		f[off + 2 + 9] = l4;
	else if (type == 0x86dd)
		f[off + 2 + 6] = l4;
	return 64;
}

static const uint8_t ucast[6] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55 };
static const uint8_t mcast[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 };

/* §4.4 lines 519-522. */
static void test_sc_choice(void **state)
{
	uint8_t f[64];

	(void)state;
	make_frame(f, ucast, 5, 0x0800, 6);
	assert_int_equal(opa_vnic_sc(&port, f, 64), 5);
	make_frame(f, mcast, 5, 0x0800, 6);
	assert_int_equal(opa_vnic_sc(&port, f, 64), 13);
	make_frame(f, ucast, -1, 0x0800, 6);
	assert_int_equal(opa_vnic_sc(&port, f, 64), 20);
	make_frame(f, mcast, -1, 0x0800, 6);
	assert_int_equal(opa_vnic_sc(&port, f, 64), 21);
	make_frame(f, ucast, 7, 0x0800, 6);
	f[12] = 0x88, f[13] = 0xa8;			/* 802.1ad outer tag: not an 802.1Q PCP */
	assert_int_equal(opa_vnic_sc(&port, f, 64), 20);
}

/* §4.4 lines 527-537: the shift table. */
static void test_rc_choice(void **state)
{
	uint8_t f[64];

	(void)state;
	make_frame(f, ucast, -1, 0x0806, 0);
	assert_int_equal(opa_vnic_rc(port.rc_word, f, 64), 1);		/* not IP: 0 */
	make_frame(f, ucast, -1, 0x0800, 1);
	assert_int_equal(opa_vnic_rc(port.rc_word, f, 64), 2);		/* IPv4 other: 4 */
	make_frame(f, ucast, -1, 0x0800, 17);
	assert_int_equal(opa_vnic_rc(port.rc_word, f, 64), 3);		/* IPv4 UDP: 8 */
	make_frame(f, ucast, -1, 0x0800, 6);
	assert_int_equal(opa_vnic_rc(port.rc_word, f, 64), 4);		/* IPv4 TCP: 12 */
	make_frame(f, ucast, -1, 0x86dd, 58);
	assert_int_equal(opa_vnic_rc(port.rc_word, f, 64), 5);		/* IPv6 other: 16 */
	make_frame(f, ucast, -1, 0x86dd, 6);
	assert_int_equal(opa_vnic_rc(port.rc_word, f, 64), 6);		/* IPv6 TCP: 20 */
	make_frame(f, ucast, -1, 0x86dd, 17);
	assert_int_equal(opa_vnic_rc(port.rc_word, f, 64), 7);		/* IPv6 UDP: 24 */
	make_frame(f, ucast, 3, 0x0800, 6);
	assert_int_equal(opa_vnic_rc(port.rc_word, f, 64), 4);		/* through the VLAN tag */
	assert_int_equal(opa_vnic_rc(port.rc_word, f, 20), 2);		/* IPv4, header cut */
	assert_int_equal(opa_vnic_rc(port.rc_word, f, 13), 1);		/* no ethertype */
}

static void test_tx_fields(void **state)
{
	struct opa_vnic_dlid_tables t = dlid_tables(0x000a);
	const uint8_t global[6] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x99 };
	struct opa_vnic_tx tx;
	uint8_t f[64];

	(void)state;
	make_frame(f, ucast, 5, 0x0800, 17);
	assert_int_equal(opa_vnic_tx_fields(&port, &t, f, 64, 0x12345678, &tx), OPA_OK);
	assert_int_equal(tx.slid, 0x123456);
	assert_int_equal(tx.dlid, 0x1000);
	assert_int_equal(tx.sc, 5);
	assert_int_equal(tx.rc, 3);
	assert_int_equal(tx.pkey, 0x8001);
	assert_int_equal(tx.entropy, 0x08);
	assert_int_equal(tx.vesw_id, 0x123);
	assert_int_equal(opa_vnic_tx_fields(&port, &t, f, 13, 0, &tx), OPA_SHORT);
	t = dlid_tables(0);
	make_frame(f, global, -1, 0x0800, 17);
	assert_int_equal(opa_vnic_tx_fields(&port, &t, f, 64, 0, &tx), OPA_DLID_ZERO);
}

static void test_reason_names(void **state)
{
	int r;

	(void)state;
	for (r = 0; r < OPA_REASON_COUNT; r++)
		assert_string_not_equal(opa_reason_name(r), "unknown");
	assert_string_equal(opa_reason_name(OPA_BAD_ICRC), "bad_icrc");
	assert_string_equal(opa_reason_name(OPA_REASON_COUNT), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_16b_kat_decode),
		cmocka_unit_test(test_16b_kat_build),
		cmocka_unit_test(test_16b_flag_bits),
		cmocka_unit_test(test_16b_round_trip),
		cmocka_unit_test(test_16b_build_refusals),
		cmocka_unit_test(test_16b_parse_refusals),
		cmocka_unit_test(test_crc32_oracle),
		cmocka_unit_test(test_9b_kat_headers),
		cmocka_unit_test(test_9b_icrc_masks_only_variant_fields),
		cmocka_unit_test(test_9b_round_trip),
		cmocka_unit_test(test_9b_build_refusals),
		cmocka_unit_test(test_9b_parse_refusals),
		cmocka_unit_test(test_9b_parse_mad_length_refusals),
		cmocka_unit_test(test_vnic_kat_encap),
		cmocka_unit_test(test_vnic_kat_lengths),
		cmocka_unit_test(test_vnic_short_frame_padded),
		cmocka_unit_test(test_vnic_round_trip),
		cmocka_unit_test(test_vnic_encap_refusals),
		cmocka_unit_test(test_vnic_decap_refusals),
		cmocka_unit_test(test_entropy),
		cmocka_unit_test(test_flow_table),
		cmocka_unit_test(test_dlid_choice),
		cmocka_unit_test(test_sc_choice),
		cmocka_unit_test(test_rc_choice),
		cmocka_unit_test(test_tx_fields),
		cmocka_unit_test(test_reason_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
