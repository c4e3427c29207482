/* SPDX-License-Identifier: MIT */
/*
 * RoCE v2 packet codec (dataplane/roce/).  Known answers:
 *   - a CNP captured on a ConnectX-4 Lx (hardware ICRC; the reference roce_virtio.md §2.7
 *     cites it, the frame is in secdev/scapy test/contrib/roce.uts), reference ICRC wire
 *     bytes 82 fd 00 2a;
 *   - scapy's UC SEND ONLY example of the same file (ICRC 0x78f353f3 as scapy reads the
 *     wire, IP checksum 0xb4d5, UDP checksum 0xaca2);
 *   - three frames recorded from tests/tools/roce-icrc.py (`vectors`), the independent
 *     checker written from the reference §5.4 in Python/zlib: IPv4 RC WRITE ONLY IMM,
 *     IPv6 UD SEND ONLY IMM (no hardware IPv6 vector exists, §5.4), IPv4 RC NAK.
 * The rest are bit layouts from §2.2/§2.4, the §2.5 header stacks, round trips, one test per
 * refusal, the PSN wrap and the §2.8 source port.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "dataplane/roce/icrc.h"
#include "dataplane/roce/ip_udp.h"
#include "dataplane/roce/opcode.h"
#include "dataplane/roce/packet.h"
#include "dataplane/engine/psn.h"
#include "dataplane/roce/sport.h"

/* ---------------------------------------------------------------- vectors */

/* ConnectX-4 Lx CNP, the IP datagram (the 14-byte Ethernet header dropped). */
static const uint8_t vec_cx4_cnp[60] = {
	0x45, 0xc2, 0x00, 0x3c, 0x71, 0x8c, 0x40, 0x00, 0x40, 0x11, 0x91, 0x61,
	0x0a, 0x00, 0x11, 0x01, 0x0a, 0x00, 0x12, 0x01, 0x00, 0x00, 0x12, 0xb7,
	0x00, 0x28, 0x00, 0x00, 0x81, 0x00, 0xff, 0xff, 0x40, 0x00, 0x01, 0x18,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x82, 0xfd, 0x00, 0x2a,
};

/* scapy's UC SEND ONLY: TOS 1, ID 1144, DF, TTL 64, M 1, PadCnt 2, QP 211, PSN 13571856. */
static const uint8_t vec_scapy_uc[64] = {
	0x45, 0x01, 0x00, 0x40, 0x04, 0x78, 0x40, 0x00, 0x40, 0x11, 0xb4, 0xd5,
	0xc0, 0xa8, 0x00, 0x07, 0xc0, 0xa8, 0x00, 0x07, 0xc0, 0x00, 0x12, 0xb7,
	0x00, 0x2c, 0xac, 0xa2, 0x24, 0x60, 0xff, 0xff, 0x00, 0x00, 0x00, 0xd3,
	0x00, 0xcf, 0x17, 0x10, 0x46, 0x30, 0x81, 0x8b, 0xe2, 0x89, 0x35, 0xd9,
	0x0e, 0x9a, 0x95, 0x50, 0x54, 0x01, 0xbe, 0x88, 0x5e, 0x50, 0x00, 0x00,
	0x78, 0xf3, 0x53, 0xf3,
};

static const uint8_t vec_rc_write_imm_v4[72] = {
	0x45, 0x8a, 0x00, 0x48, 0x00, 0x00, 0x40, 0x00, 0x11, 0x11, 0x54, 0x53,
	0x0a, 0x63, 0x00, 0x01, 0x0a, 0x63, 0x00, 0x02, 0xc1, 0xa5, 0x12, 0xb7,
	0x00, 0x34, 0x00, 0x00, 0x0b, 0x90, 0xff, 0xff, 0x80, 0x00, 0x01, 0x23,
	0x80, 0xff, 0xff, 0xfe, 0x00, 0x00, 0x7f, 0x00, 0x00, 0x00, 0x10, 0x00,
	0x00, 0xab, 0xcd, 0xef, 0x00, 0x00, 0x00, 0x07, 0xde, 0xad, 0xbe, 0xef,
	0x52, 0x6f, 0x43, 0x45, 0x20, 0x76, 0x32, 0x00, 0xc8, 0xc5, 0x6b, 0x1f,
};
static const uint8_t vec_ud_send_imm_v6[92] = {
	0x62, 0xea, 0xbc, 0xde, 0x00, 0x34, 0x11, 0x40, 0xfd, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0xfd, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x02, 0xd0, 0x0d, 0x12, 0xb7, 0x00, 0x34, 0xfe, 0x9b,
	0x65, 0x30, 0xff, 0xff, 0x40, 0x00, 0x00, 0x42, 0x00, 0x00, 0x00, 0x07,
	0x11, 0x11, 0x11, 0x11, 0x00, 0x00, 0x00, 0x44, 0x01, 0x02, 0x03, 0x04,
	0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x2c, 0x20, 0x75, 0x64, 0x20, 0x76, 0x36,
	0x21, 0x00, 0x00, 0x00, 0x28, 0xaf, 0xcf, 0xc1,
};
static const uint8_t vec_rc_nak_v4[48] = {
	0x45, 0x00, 0x00, 0x30, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xb7, 0x69,
	0xc0, 0xa8, 0x01, 0x01, 0xc0, 0xa8, 0x01, 0x02, 0xc0, 0x00, 0x12, 0xb7,
	0x00, 0x1c, 0x00, 0x00, 0x11, 0x00, 0xff, 0xff, 0x00, 0x00, 0x0a, 0xbc,
	0x00, 0x00, 0x00, 0x10, 0x60, 0x00, 0x00, 0x05, 0xb2, 0x8a, 0xdf, 0xce,
};

static void gid_v4(uint8_t gid[16], uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	memset(gid, 0, 16);
	gid[10] = gid[11] = 0xff;
	gid[12] = a;
	gid[13] = b;
	gid[14] = c;
	gid[15] = d;
}

static void gid_hex(uint8_t gid[16], uint8_t last)
{
	memset(gid, 0, 16);
	gid[0] = 0xfd;
	gid[15] = last;
}

static void assert_frame_equal(const struct roce_ip_udp *a, const struct roce_pkt *p,
			       const uint8_t *want, size_t want_len)
{
	uint8_t out[256];
	size_t len = 0;

	assert_int_equal(roce_frame_build(a, p, p->payload, p->payload_len, out, sizeof(out),
					  &len), ROCE_OK);
	assert_int_equal(len, want_len);
	assert_memory_equal(out, want, want_len);
}

static void parse_ip(const uint8_t *ip, size_t len, struct roce_pkt *p)
{
	struct roce_ip_view v;

	assert_int_equal(roce_ip_locate(ip, len, &v), ROCE_OK);
	memset(p, 0, sizeof(*p));
	assert_int_equal(roce_pkt_parse(v.transport, v.transport_len, p), ROCE_OK);
}

/* ---------------------------------------------------------------- known answers */

static void test_kat_cx4_cnp(void **state)
{
	struct roce_ip_udp a = {
		.tclass = 0xc2, .hop_limit = 0x40, .ip_id = 0x718c, .df = true,
		.sport = 0, .dport = ROCE_UDP_PORT,
	};
	struct roce_pkt p;

	(void)state;
	assert_int_equal(roce_icrc_check_ip(vec_cx4_cnp, sizeof(vec_cx4_cnp)), ROCE_OK);
	assert_int_equal(roce_icrc(vec_cx4_cnp, 28, vec_cx4_cnp + 28, 32), 0x2a00fd82);
	parse_ip(vec_cx4_cnp, sizeof(vec_cx4_cnp), &p);
	assert_int_equal(p.bth.opcode, ROCE_OP_CNP);
	assert_string_equal(p.op->name, "CNP");
	assert_true(p.bth.becn);
	assert_false(p.bth.fecn);
	assert_int_equal(p.bth.dest_qp, 0x118);
	assert_int_equal(p.bth.pkey, 0xffff);
	assert_int_equal(p.bth.psn, 0);
	assert_int_equal(p.payload_len, 0);
	/* Built from the parsed fields, the frame is the captured one, IP checksum included. */
	gid_v4(a.sgid, 10, 0, 17, 1);
	gid_v4(a.dgid, 10, 0, 18, 1);
	assert_frame_equal(&a, &p, vec_cx4_cnp, sizeof(vec_cx4_cnp));
}

static void test_kat_scapy_uc(void **state)
{
	struct roce_ip_udp a = {
		.tclass = 1, .hop_limit = 64, .ip_id = 1144, .df = true,
		.sport = 49152, .dport = ROCE_UDP_PORT,
	};
	uint8_t out[128];
	struct roce_pkt p;
	size_t len;

	(void)state;
	assert_int_equal(roce_icrc_check_ip(vec_scapy_uc, sizeof(vec_scapy_uc)), ROCE_OK);
	parse_ip(vec_scapy_uc, sizeof(vec_scapy_uc), &p);
	assert_int_equal(p.bth.opcode, ROCE_OPCODE(ROCE_TR_UC, ROCE_SEND_ONLY));
	assert_true(p.bth.mig_req);
	assert_int_equal(p.bth.pad_cnt, 2);
	assert_int_equal(p.bth.dest_qp, 211);
	assert_int_equal(p.bth.psn, 13571856);
	assert_int_equal(p.payload_len, 18);
	/* We send UDP checksum 0 where scapy wrote 0xaca2; the ICRC masks it, so it agrees. */
	gid_v4(a.sgid, 192, 168, 0, 7);
	gid_v4(a.dgid, 192, 168, 0, 7);
	assert_int_equal(roce_frame_build(&a, &p, p.payload, p.payload_len, out, sizeof(out), &len),
			 ROCE_OK);
	assert_int_equal(len, sizeof(vec_scapy_uc));
	assert_memory_equal(out, vec_scapy_uc, 26);
	assert_int_equal(out[26] | out[27], 0);
	assert_memory_equal(out + 28, vec_scapy_uc + 28, sizeof(vec_scapy_uc) - 28);
}

static void test_kat_recorded_v4_write_imm(void **state)
{
	struct roce_ip_udp a = {
		.tclass = 0x8a, .hop_limit = 17, .ip_id = 0, .df = true, .sport = 0xc1a5,
		.dport = ROCE_UDP_PORT,
	};
	struct roce_pkt p;

	(void)state;
	assert_int_equal(roce_icrc_check_ip(vec_rc_write_imm_v4, sizeof(vec_rc_write_imm_v4)),
			 ROCE_OK);
	parse_ip(vec_rc_write_imm_v4, sizeof(vec_rc_write_imm_v4), &p);
	assert_string_equal(p.op->name, "RC_WRITE_ONLY_IMM");
	assert_true(p.bth.se);
	assert_true(p.bth.ack_req);
	assert_true(p.bth.fecn);
	assert_int_equal(p.bth.pad_cnt, 1);
	assert_int_equal(p.bth.psn, 0xfffffe);
	assert_int_equal(p.reth.va, 0x7f0000001000ull);
	assert_int_equal(p.reth.rkey, 0xabcdef);
	assert_int_equal(p.reth.dma_len, 7);
	assert_int_equal(p.imm, 0xdeadbeef);
	assert_int_equal(p.payload_len, 7);
	assert_memory_equal(p.payload, "RoCE v2", 7);
	gid_v4(a.sgid, 10, 99, 0, 1);
	gid_v4(a.dgid, 10, 99, 0, 2);
	assert_frame_equal(&a, &p, vec_rc_write_imm_v4, sizeof(vec_rc_write_imm_v4));
}

static void test_kat_recorded_v6_ud(void **state)
{
	struct roce_ip_udp a = {
		.tclass = 0x2e, .hop_limit = 64, .flow_label = 0xabcde, .sport = 0xd00d,
		.dport = ROCE_UDP_PORT,
	};
	struct roce_pkt p;

	(void)state;
	assert_int_equal(roce_icrc_check_ip(vec_ud_send_imm_v6, sizeof(vec_ud_send_imm_v6)),
			 ROCE_OK);
	parse_ip(vec_ud_send_imm_v6, sizeof(vec_ud_send_imm_v6), &p);
	assert_string_equal(p.op->name, "UD_SEND_ONLY_IMM");
	assert_true(p.bth.becn);
	assert_int_equal(p.deth.qkey, 0x11111111);
	assert_int_equal(p.deth.src_qp, 0x44);
	assert_int_equal(p.imm, 0x01020304);
	assert_int_equal(p.payload_len, 13);
	gid_hex(a.sgid, 1);
	gid_hex(a.dgid, 2);
	/* Byte-equal includes the IPv6 UDP checksum the tool computed. */
	assert_frame_equal(&a, &p, vec_ud_send_imm_v6, sizeof(vec_ud_send_imm_v6));
}

static void test_kat_recorded_v4_nak(void **state)
{
	struct roce_ip_udp a = {
		.hop_limit = 64, .df = true, .sport = 0xc000, .dport = ROCE_UDP_PORT,
	};
	struct roce_pkt p;

	(void)state;
	assert_int_equal(roce_icrc_check_ip(vec_rc_nak_v4, sizeof(vec_rc_nak_v4)), ROCE_OK);
	parse_ip(vec_rc_nak_v4, sizeof(vec_rc_nak_v4), &p);
	assert_string_equal(p.op->name, "RC_ACKNOWLEDGE");
	assert_int_equal(p.aeth.syndrome, 0x60);
	assert_int_equal(roce_aeth_type(p.aeth.syndrome), ROCE_AETH_NAK);
	assert_int_equal(roce_aeth_value(p.aeth.syndrome), ROCE_NAK_PSN_SEQ);
	assert_int_equal(p.aeth.msn, 5);
	gid_v4(a.sgid, 192, 168, 1, 1);
	gid_v4(a.dgid, 192, 168, 1, 2);
	assert_frame_equal(&a, &p, vec_rc_nak_v4, sizeof(vec_rc_nak_v4));
}

/* ---------------------------------------------------------------- ICRC masking */

/* Every byte of the datagram but the ICRC: changing it changes the ICRC unless it is one of
 * the masked fields of §2.7 (given as offsets from the IP header). */
static void check_every_byte(const uint8_t *vec, size_t len, size_t ip_udp_len,
			     const uint8_t *masked, size_t n_masked)
{
	uint8_t buf[128];
	uint32_t base = roce_icrc(vec, ip_udp_len, vec + ip_udp_len, len - ip_udp_len);
	size_t i, k;

	assert_true(len <= sizeof(buf));
	for (i = 0; i < len - ROCE_ICRC_LEN; i++) {
		bool is_masked = false;
		uint32_t crc;

		for (k = 0; k < n_masked; k++)
			is_masked |= masked[k] == i;
		memcpy(buf, vec, len);
		/* Keep the IPv6 version nibble: only the traffic class half of byte 0 is masked. */
		buf[i] ^= i == 0 ? 0x0f : 0xff;
		crc = roce_icrc(buf, ip_udp_len, buf + ip_udp_len, len - ip_udp_len);
		if (is_masked != (crc == base))
			fail_msg("byte %zu: masked %d but crc %s", i, is_masked,
				 crc == base ? "unchanged" : "changed");
	}
}

static void test_icrc_masks_v4(void **state)
{
	/* TOS 1, TTL 8, checksum 10-11, UDP checksum 26-27, BTH byte 4 = 32.  Byte 0 (version,
	 * IHL) is covered: flipping its low nibble must change the CRC. */
	static const uint8_t masked[] = { 1, 8, 10, 11, 26, 27, 32 };

	(void)state;
	check_every_byte(vec_rc_write_imm_v4, sizeof(vec_rc_write_imm_v4), 28, masked,
			 sizeof(masked));
}

static void test_icrc_masks_v6(void **state)
{
	/* Traffic class + flow label 0 (low nibble) - 3, hop limit 7, UDP checksum 46-47, BTH
	 * byte 4 = 52.  The identification of IPv4 has no IPv6 counterpart. */
	static const uint8_t masked[] = { 0, 1, 2, 3, 7, 46, 47, 52 };

	(void)state;
	check_every_byte(vec_ud_send_imm_v6, sizeof(vec_ud_send_imm_v6), 48, masked,
			 sizeof(masked));
}

/* The IPv4 ID is covered (§2.9): a packet sealed for ID 0 fails if the kernel picks another. */
static void test_icrc_covers_ipv4_id(void **state)
{
	uint8_t buf[sizeof(vec_rc_write_imm_v4)];

	(void)state;
	memcpy(buf, vec_rc_write_imm_v4, sizeof(buf));
	buf[5] = 0x01;
	assert_int_equal(roce_icrc_check_ip(buf, sizeof(buf)), ROCE_BAD_ICRC);
	memcpy(buf, vec_rc_write_imm_v4, sizeof(buf));
	buf[6] = 0;	/* DF cleared */
	assert_int_equal(roce_icrc_check_ip(buf, sizeof(buf)), ROCE_BAD_ICRC);
}

/* A socket sender has only the transport packet; sealing it against the headers its kernel
 * will write gives the same ICRC, and the receiver's check agrees. */
static void test_icrc_socket_path(void **state)
{
	struct roce_ip_udp a = {
		.tclass = 0x8a, .hop_limit = 17, .ip_id = 0, .df = true, .sport = 0xc1a5,
		.dport = ROCE_UDP_PORT,
	};
	uint8_t t[sizeof(vec_rc_write_imm_v4) - 28];

	(void)state;
	gid_v4(a.sgid, 10, 99, 0, 1);
	gid_v4(a.dgid, 10, 99, 0, 2);
	memcpy(t, vec_rc_write_imm_v4 + 28, sizeof(t));
	memset(t + sizeof(t) - 4, 0, 4);
	assert_int_equal(roce_icrc_seal_payload(&a, t, sizeof(t)), ROCE_OK);
	assert_memory_equal(t, vec_rc_write_imm_v4 + 28, sizeof(t));
	assert_int_equal(roce_icrc_check_payload(&a, t, sizeof(t)), ROCE_OK);
	/* Rebuilt with another ID (what a connected socket would send): that one is solved for. */
	a.ip_id = 0x1234;
	assert_int_equal(roce_icrc_check_payload(&a, t, sizeof(t)), ROCE_OK);
	t[20] ^= 0x40;
	assert_int_equal(roce_icrc_check_payload(&a, t, sizeof(t)), ROCE_BAD_ICRC);
	t[20] ^= 0x40;
	assert_int_equal(roce_icrc_check_payload(&a, t, 15), ROCE_SHORT);
	assert_int_equal(roce_icrc_seal_payload(&a, t, 15), ROCE_SHORT);
}

/* Ethernet padding after the IP datagram is not part of it. */
static void test_icrc_ignores_trailer(void **state)
{
	uint8_t buf[sizeof(vec_rc_nak_v4) + 6];

	(void)state;
	memcpy(buf, vec_rc_nak_v4, sizeof(vec_rc_nak_v4));
	memset(buf + sizeof(vec_rc_nak_v4), 0xee, 6);
	assert_int_equal(roce_icrc_check_ip(buf, sizeof(buf)), ROCE_OK);
}

/* ---------------------------------------------------------------- headers */

/* Field by field: the structs have padding that memcmp would compare. */
static void assert_bth_equal(const struct roce_bth *a, const struct roce_bth *b)
{
	assert_int_equal(a->opcode, b->opcode);
	assert_int_equal(a->se, b->se);
	assert_int_equal(a->mig_req, b->mig_req);
	assert_int_equal(a->pad_cnt, b->pad_cnt);
	assert_int_equal(a->tver, b->tver);
	assert_int_equal(a->pkey, b->pkey);
	assert_int_equal(a->fecn, b->fecn);
	assert_int_equal(a->becn, b->becn);
	assert_int_equal(a->resv6a, b->resv6a);
	assert_int_equal(a->dest_qp, b->dest_qp);
	assert_int_equal(a->ack_req, b->ack_req);
	assert_int_equal(a->resv7, b->resv7);
	assert_int_equal(a->psn, b->psn);
}

/* Each BTH field at its top value lands where §2.2 puts it. */
static void test_bth_layout(void **state)
{
	struct roce_bth h = {
		.opcode = 0xab, .se = true, .mig_req = true, .pad_cnt = 3, .tver = 0xf,
		.pkey = 0x1234, .fecn = true, .becn = true, .resv6a = 0x3f, .dest_qp = 0xfedcba,
		.ack_req = true, .resv7 = 0x7f, .psn = 0x876543,
	}, back;
	static const uint8_t want[12] = {
		0xab, 0xff, 0x12, 0x34, 0xff, 0xfe, 0xdc, 0xba, 0xff, 0x87, 0x65, 0x43,
	};
	uint8_t out[12];

	(void)state;
	assert_int_equal(roce_bth_build(&h, out), ROCE_OK);
	assert_memory_equal(out, want, 12);
	roce_bth_parse(out, &back);
	assert_bth_equal(&back, &h);
	/* One bit at a time. */
	memset(&h, 0, sizeof(h));
	h.se = true;
	assert_int_equal(roce_bth_build(&h, out), ROCE_OK);
	assert_int_equal(out[1], 0x80);
	h.se = false;
	h.mig_req = true;
	roce_bth_build(&h, out);
	assert_int_equal(out[1], 0x40);
	h.mig_req = false;
	h.pad_cnt = 1;
	roce_bth_build(&h, out);
	assert_int_equal(out[1], 0x10);
	h.pad_cnt = 0;
	h.becn = true;
	roce_bth_build(&h, out);
	assert_int_equal(out[4], 0x40);
	h.becn = false;
	h.fecn = true;
	roce_bth_build(&h, out);
	assert_int_equal(out[4], 0x80);
	h.fecn = false;
	h.ack_req = true;
	roce_bth_build(&h, out);
	assert_int_equal(out[8], 0x80);
}

static void test_bth_refusals(void **state)
{
	struct roce_bth ok = { .opcode = 4 }, h;
	uint8_t out[12];

	(void)state;
	h = ok, h.pad_cnt = 4;
	assert_int_equal(roce_bth_build(&h, out), ROCE_BAD_FIELD);
	h = ok, h.tver = 16;
	assert_int_equal(roce_bth_build(&h, out), ROCE_BAD_FIELD);
	h = ok, h.resv6a = 0x40;
	assert_int_equal(roce_bth_build(&h, out), ROCE_BAD_FIELD);
	h = ok, h.dest_qp = 1u << 24;
	assert_int_equal(roce_bth_build(&h, out), ROCE_BAD_FIELD);
	h = ok, h.resv7 = 0x80;
	assert_int_equal(roce_bth_build(&h, out), ROCE_BAD_FIELD);
	h = ok, h.psn = 1u << 24;
	assert_int_equal(roce_bth_build(&h, out), ROCE_BAD_FIELD);
}

static void test_ext_header_layouts(void **state)
{
	struct roce_reth reth = { 0x0102030405060708ull, 0x11223344, 0x55667788 }, reth2;
	struct roce_deth deth = { 0x80010000u, 0xaa, 0x123456 }, deth2;
	struct roce_aeth aeth = { 0x2e, 0xabcdef }, aeth2;
	static const uint8_t want_reth[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 0x11, 0x22, 0x33, 0x44,
					       0x55, 0x66, 0x77, 0x88 };
	static const uint8_t want_deth[8] = { 0x80, 0x01, 0, 0, 0xaa, 0x12, 0x34, 0x56 };
	static const uint8_t want_aeth[4] = { 0x2e, 0xab, 0xcd, 0xef };
	uint8_t out[16];

	(void)state;
	roce_reth_build(&reth, out);
	assert_memory_equal(out, want_reth, 16);
	roce_reth_parse(out, &reth2);
	assert_memory_equal(&reth2, &reth, sizeof(reth));
	assert_int_equal(roce_deth_build(&deth, out), ROCE_OK);
	assert_memory_equal(out, want_deth, 8);
	roce_deth_parse(out, &deth2);
	assert_int_equal(deth2.qkey, deth.qkey);
	assert_int_equal(deth2.resv8, deth.resv8);
	assert_int_equal(deth2.src_qp, deth.src_qp);
	deth.src_qp = 1u << 24;
	assert_int_equal(roce_deth_build(&deth, out), ROCE_BAD_FIELD);
	assert_int_equal(roce_aeth_build(&aeth, out), ROCE_OK);
	assert_memory_equal(out, want_aeth, 4);
	assert_int_equal(roce_aeth_parse(out, &aeth2), ROCE_OK);
	assert_int_equal(aeth2.syndrome, aeth.syndrome);
	assert_int_equal(aeth2.msn, aeth.msn);
	assert_int_equal(roce_aeth_type(0x2e), ROCE_AETH_RNR_NAK);
	assert_int_equal(roce_aeth_value(0x2e), 14);
	aeth.msn = 1u << 24;
	assert_int_equal(roce_aeth_build(&aeth, out), ROCE_BAD_FIELD);
}

/* §2.4 byte values: ACK 0x1F, RNR 0x20|t, NAK 0x60-0x63; bit 7 and type 10 refused. */
static void test_aeth_syndromes(void **state)
{
	struct roce_aeth a = { 0 };
	uint8_t out[4] = { 0 };

	(void)state;
	assert_int_equal(ROCE_AETH_ACK_UNLIMITED, 0x1f);
	assert_int_equal(ROCE_AETH_SYNDROME(ROCE_AETH_RNR_NAK, 14), 0x2e);
	assert_int_equal(ROCE_AETH_SYNDROME(ROCE_AETH_NAK, ROCE_NAK_PSN_SEQ), 0x60);
	assert_int_equal(ROCE_AETH_SYNDROME(ROCE_AETH_NAK, ROCE_NAK_INVALID_REQ), 0x61);
	assert_int_equal(ROCE_AETH_SYNDROME(ROCE_AETH_NAK, ROCE_NAK_REMOTE_ACCESS), 0x62);
	assert_int_equal(ROCE_AETH_SYNDROME(ROCE_AETH_NAK, ROCE_NAK_REMOTE_OP), 0x63);
	assert_int_equal(roce_aeth_type(0x1f), ROCE_AETH_ACK);
	a.syndrome = 0x80 | 0x1f;
	assert_int_equal(roce_aeth_build(&a, out), ROCE_BAD_SYNDROME);
	a.syndrome = 0x40;
	assert_int_equal(roce_aeth_build(&a, out), ROCE_BAD_SYNDROME);
	out[0] = 0x9f;
	assert_int_equal(roce_aeth_parse(out, &a), ROCE_BAD_SYNDROME);
	out[0] = 0x5f;
	assert_int_equal(roce_aeth_parse(out, &a), ROCE_BAD_SYNDROME);
}

/* ---------------------------------------------------------------- opcode table */

/* §2.5: header bytes of every stack the reference lists, for each transport that has it. */
static void test_opcode_stacks(void **state)
{
	static const struct { uint8_t op; uint8_t hdr; bool payload; } rows[] = {
		{ 0x00, 12, 1 }, { 0x01, 12, 1 }, { 0x02, 12, 1 }, { 0x04, 12, 1 },
		{ 0x03, 16, 1 }, { 0x05, 16, 1 },
		{ 0x06, 28, 1 }, { 0x0a, 28, 1 }, { 0x07, 12, 1 }, { 0x08, 12, 1 },
		{ 0x09, 16, 1 }, { 0x0b, 32, 1 }, { 0x0c, 28, 0 },
		{ 0x0d, 16, 1 }, { 0x0f, 16, 1 }, { 0x10, 16, 1 }, { 0x0e, 12, 1 },
		{ 0x11, 16, 0 }, { 0x64, 20, 1 }, { 0x65, 24, 1 },
		/* UC mirrors RC's SEND/WRITE */
		{ 0x20, 12, 1 }, { 0x23, 16, 1 }, { 0x26, 28, 1 }, { 0x2b, 32, 1 },
		/* beyond §2.5: atomics, invalidate, CNP */
		{ 0x12, 24, 0 }, { 0x13, 40, 0 }, { 0x14, 40, 0 }, { 0x16, 16, 1 },
		{ 0x17, 16, 1 }, { 0x81, 28, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct roce_opcode_info *op = roce_opcode_info(rows[i].op);

		assert_non_null(op);
		if (op->hdr_len != rows[i].hdr || !(op->flags & ROCE_F_PAYLOAD) != !rows[i].payload)
			fail_msg("opcode 0x%02x: hdr %u payload %d", rows[i].op, op->hdr_len,
				 !!(op->flags & ROCE_F_PAYLOAD));
	}
}

static void test_opcode_known_set(void **state)
{
	unsigned int op, known = 0;

	(void)state;
	for (op = 0; op < 256; op++)
		known += roce_opcode_info(op) != NULL;
	/* RC 0x00-0x14 + 0x16, 0x17 (23), UC 0x20-0x2b (12), UD 0x64, 0x65, CNP 0x81. */
	assert_int_equal(known, 23 + 12 + 2 + 1);
	assert_null(roce_opcode_info(0x15));	/* reserved */
	assert_null(roce_opcode_info(0x2c));	/* UC has no READ */
	assert_null(roce_opcode_info(0x40));	/* RD */
	assert_null(roce_opcode_info(0x60));	/* UD SEND_FIRST */
	assert_null(roce_opcode_info(0x80));
	assert_string_equal(roce_opcode_info(0x0c)->name, "RC_READ_REQUEST");
	assert_string_equal(roce_opcode_info(0x2a)->name, "UC_WRITE_ONLY");
	assert_int_equal(roce_opcode_transport(0x65), ROCE_TR_UD);
	assert_true(roce_opcode_info(0x0d)->flags & ROCE_F_RESPONSE);
	assert_true(roce_opcode_info(0x06)->flags & ROCE_F_FIRST);
}

/* ---------------------------------------------------------------- packets */

static void fill_pkt(struct roce_pkt *p, uint8_t opcode)
{
	memset(p, 0, sizeof(*p));
	p->bth = (struct roce_bth){ .opcode = opcode, .pkey = 0xffff, .dest_qp = 0x123456,
				    .psn = 0xabcdef, .ack_req = true };
	p->deth = (struct roce_deth){ 0x11111111, 0, 0x44 };
	p->reth = (struct roce_reth){ 0x1000, 0x77, 4096 };
	p->atomic = (struct roce_atomic_eth){ 0x2000, 0x88, 5, 6 };
	p->aeth = (struct roce_aeth){ 0x1f, 9 };
	p->atomic_orig = 0x0102030405060708ull;
	p->imm = 0xcafef00d;
	p->inv_rkey = 0x99;
}

/* Every opcode of the table, payloads of 0-5 bytes where it may carry one. */
static void test_round_trip_every_opcode(void **state)
{
	static const uint8_t payload[5] = { 'a', 'b', 'c', 'd', 'e' };
	unsigned int op;
	size_t n;

	(void)state;
	for (op = 0; op < 256; op++) {
		const struct roce_opcode_info *info = roce_opcode_info(op);

		if (!info)
			continue;
		for (n = 0; n <= (info->flags & ROCE_F_PAYLOAD ? 5u : 0u); n++) {
			struct roce_pkt p, q;
			uint8_t out[128];
			size_t len;

			fill_pkt(&p, op);
			assert_int_equal(roce_pkt_build(&p, payload, n, out, sizeof(out), &len), ROCE_OK);
			assert_int_equal(len, roce_pkt_len(op, n));
			assert_int_equal(len % 4, 0);
			memset(&q, 0, sizeof(q));
			assert_int_equal(roce_pkt_parse(out, len, &q), ROCE_OK);
			assert_ptr_equal(q.op, info);
			assert_int_equal(q.payload_len, n);
			assert_int_equal(q.bth.pad_cnt, -n & 3);
			assert_memory_equal(q.payload, payload, n);
			assert_ptr_equal(q.icrc, out + len - 4);
			p.bth.pad_cnt = -n & 3;
			assert_bth_equal(&q.bth, &p.bth);
			if (info->flags & ROCE_F_DETH) {
				assert_int_equal(q.deth.qkey, p.deth.qkey);
				assert_int_equal(q.deth.src_qp, p.deth.src_qp);
			}
			if (info->flags & ROCE_F_RETH)
				assert_memory_equal(&q.reth, &p.reth, sizeof(p.reth));
			if (info->flags & ROCE_F_ATOMIC_ETH) {
				assert_int_equal(q.atomic.va, p.atomic.va);
				assert_int_equal(q.atomic.rkey, p.atomic.rkey);
				assert_int_equal(q.atomic.swap_add, p.atomic.swap_add);
				assert_int_equal(q.atomic.compare, p.atomic.compare);
			}
			if (info->flags & ROCE_F_AETH) {
				assert_int_equal(q.aeth.syndrome, p.aeth.syndrome);
				assert_int_equal(q.aeth.msn, p.aeth.msn);
			}
			if (info->flags & ROCE_F_ATOMIC_ACK)
				assert_int_equal(q.atomic_orig, p.atomic_orig);
			if (info->flags & ROCE_F_IMMDT)
				assert_int_equal(q.imm, p.imm);
			if (info->flags & ROCE_F_IETH)
				assert_int_equal(q.inv_rkey, p.inv_rkey);
		}
	}
}

static void test_build_refusals(void **state)
{
	uint8_t out[64], big[8];
	struct roce_pkt p;
	size_t len;

	(void)state;
	memset(big, 0, sizeof(big));
	fill_pkt(&p, 0x11);
	assert_int_equal(roce_pkt_build(&p, big, 1, out, sizeof(out), &len), ROCE_UNEXPECTED_PAYLOAD);
	fill_pkt(&p, 0x0c);
	assert_int_equal(roce_pkt_build(&p, big, 4, out, sizeof(out), &len), ROCE_UNEXPECTED_PAYLOAD);
	fill_pkt(&p, 0x40);
	assert_int_equal(roce_pkt_build(&p, NULL, 0, out, sizeof(out), &len), ROCE_BAD_OPCODE);
	fill_pkt(&p, 0x04);
	p.bth.tver = 1;
	assert_int_equal(roce_pkt_build(&p, NULL, 0, out, sizeof(out), &len), ROCE_BAD_TVER);
	fill_pkt(&p, 0x04);
	assert_int_equal(roce_pkt_build(&p, big, 5, out, 20, &len), ROCE_NO_ROOM);
	assert_int_equal(roce_pkt_build(&p, big, ROCE_MAX_PKT, out, sizeof(out), &len), ROCE_TOO_LONG);
	fill_pkt(&p, 0x04);
	p.bth.psn = 1u << 24;
	assert_int_equal(roce_pkt_build(&p, NULL, 0, out, sizeof(out), &len), ROCE_BAD_FIELD);
	fill_pkt(&p, 0x64);
	p.deth.src_qp = 1u << 24;
	assert_int_equal(roce_pkt_build(&p, NULL, 0, out, sizeof(out), &len), ROCE_BAD_FIELD);
	fill_pkt(&p, 0x11);
	p.aeth.syndrome = 0x40;
	assert_int_equal(roce_pkt_build(&p, NULL, 0, out, sizeof(out), &len), ROCE_BAD_SYNDROME);
	/* PadCnt in the struct is ignored: the payload decides. */
	fill_pkt(&p, 0x04);
	p.bth.pad_cnt = 3;
	assert_int_equal(roce_pkt_build(&p, big, 4, out, sizeof(out), &len), ROCE_OK);
	assert_int_equal(out[1] & 0x30, 0);
}

static void test_parse_refusals(void **state)
{
	static uint8_t huge[ROCE_MAX_PKT + 1];
	uint8_t buf[64];
	struct roce_pkt p;
	size_t len;

	(void)state;
	fill_pkt(&p, 0x04);
	assert_int_equal(roce_pkt_build(&p, "abcdefgh", 8, buf, sizeof(buf), &len), ROCE_OK);
	assert_int_equal(len, 24);
	assert_int_equal(roce_pkt_parse(buf, 15, &p), ROCE_SHORT);
	assert_int_equal(roce_pkt_parse(buf, 22, &p), ROCE_BAD_LENGTH);
	buf[1] |= 1;				/* TVer 1 */
	assert_int_equal(roce_pkt_parse(buf, len, &p), ROCE_BAD_TVER);
	buf[1] &= ~1;
	buf[0] = 0x42;				/* RD */
	assert_int_equal(roce_pkt_parse(buf, len, &p), ROCE_BAD_OPCODE);
	buf[0] = 0x0b;				/* WRITE ONLY IMM needs 32 + 4 bytes */
	assert_int_equal(roce_pkt_parse(buf, len, &p), ROCE_SHORT);
	buf[0] = 0x11;				/* ACK with 4 bytes of payload */
	assert_int_equal(roce_pkt_parse(buf, len, &p), ROCE_UNEXPECTED_PAYLOAD);
	buf[0] = 0x11;				/* ACK with a bad syndrome, no payload */
	buf[12] = 0x80;
	assert_int_equal(roce_pkt_parse(buf, 20, &p), ROCE_BAD_SYNDROME);
	buf[0] = 0x04;				/* SEND ONLY, no payload, PadCnt 2 */
	buf[1] = 0x20;
	assert_int_equal(roce_pkt_parse(buf, 16, &p), ROCE_BAD_PAD);
	assert_int_equal(roce_pkt_parse(buf, 20, &p), ROCE_OK);
	assert_int_equal(p.payload_len, 2);
	memset(huge, 0, sizeof(huge));
	huge[0] = 0x04;
	assert_int_equal(roce_pkt_parse(huge, ROCE_MAX_PKT + 1, &p), ROCE_TOO_LONG);
	assert_int_equal(roce_pkt_parse(huge, ROCE_MAX_PKT - 3, &p), ROCE_OK);
}

static void test_ip_refusals(void **state)
{
	uint8_t buf[sizeof(vec_rc_write_imm_v4)];
	struct roce_ip_view v;

	(void)state;
#define FRESH() memcpy(buf, vec_rc_write_imm_v4, sizeof(buf))
	FRESH();
	assert_int_equal(roce_ip_locate(buf, 0, &v), ROCE_SHORT);
	assert_int_equal(roce_ip_locate(buf, 19, &v), ROCE_SHORT);
	buf[0] = 0x55;
	assert_int_equal(roce_ip_locate(buf, sizeof(buf), &v), ROCE_BAD_IP);
	buf[0] = 0x44;				/* IHL 4 */
	assert_int_equal(roce_ip_locate(buf, sizeof(buf), &v), ROCE_BAD_IP);
	FRESH();
	buf[9] = 6;				/* TCP */
	assert_int_equal(roce_ip_locate(buf, sizeof(buf), &v), ROCE_BAD_IP);
	FRESH();
	assert_int_equal(roce_ip_locate(buf, sizeof(buf) - 1, &v), ROCE_BAD_LENGTH);
	buf[25] += 4;				/* UDP length disagrees */
	assert_int_equal(roce_ip_locate(buf, sizeof(buf), &v), ROCE_BAD_LENGTH);
	FRESH();
	buf[3] = 20 + 8 + 12;			/* room for the BTH but not the ICRC */
	buf[25] = 8 + 12;
	assert_int_equal(roce_ip_locate(buf, sizeof(buf), &v), ROCE_SHORT);
	FRESH();
	buf[sizeof(buf) - 1] ^= 1;
	assert_int_equal(roce_icrc_check_ip(buf, sizeof(buf)), ROCE_BAD_ICRC);
	FRESH();
	buf[60] ^= 0x20;			/* payload */
	assert_int_equal(roce_icrc_check_ip(buf, sizeof(buf)), ROCE_BAD_ICRC);
#undef FRESH
	memcpy(buf, vec_ud_send_imm_v6, 40);
	buf[6] = 0;				/* hop-by-hop extension header */
	assert_int_equal(roce_ip_locate(buf, 40, &v), ROCE_BAD_IP);
	assert_int_equal(roce_ip_locate(vec_ud_send_imm_v6, 39, &v), ROCE_SHORT);
}

static void test_ip_udp_build(void **state)
{
	struct roce_ip_udp a = { .dport = ROCE_UDP_PORT };
	struct roce_pkt p;
	uint8_t out[128];
	size_t len;

	(void)state;
	gid_v4(a.sgid, 1, 2, 3, 4);
	gid_hex(a.dgid, 2);				/* mixed families */
	assert_int_equal(roce_ip_udp_len(&a), 0);
	assert_int_equal(roce_ip_udp_build(&a, 16, out), ROCE_BAD_FIELD);
	fill_pkt(&p, 0x04);
	assert_int_equal(roce_frame_build(&a, &p, NULL, 0, out, sizeof(out), &len), ROCE_BAD_FIELD);
	gid_hex(a.sgid, 1);
	assert_int_equal(roce_ip_udp_len(&a), 48);
	a.flow_label = 1u << 20;
	assert_int_equal(roce_ip_udp_build(&a, 16, out), ROCE_BAD_FIELD);
	a.flow_label = 0;
	assert_int_equal(roce_ip_udp_build(&a, ROCE_MAX_PKT + 1, out), ROCE_TOO_LONG);
	assert_int_equal(roce_frame_build(&a, &p, NULL, 0, out, 40, &len), ROCE_NO_ROOM);
	gid_v4(a.sgid, 1, 2, 3, 4);
	gid_v4(a.dgid, 5, 6, 7, 8);
	assert_int_equal(roce_ip_udp_build(&a, ROCE_MAX_PKT - 19, out), ROCE_TOO_LONG);
	assert_int_equal(roce_frame_build(&a, &p, NULL, 0, out, sizeof(out), &len), ROCE_OK);
	assert_int_equal(len, 20 + 8 + 12 + 4);
	assert_int_equal(roce_icrc_check_ip(out, len), ROCE_OK);
	assert_true(roce_gid_is_ipv4(a.sgid));
	assert_false(roce_gid_is_ipv4(vec_ud_send_imm_v6 + 8));
}

/* ---------------------------------------------------------------- PSN */

static void test_psn_wrap(void **state)
{
	(void)state;
	assert_int_equal(dp_psn_add(0xffffff, 1), 0);
	assert_int_equal(dp_psn_add(0xfffffe, 5), 3);
	assert_int_equal(dp_psn_add(0, 0), 0);
	assert_int_equal(dp_psn_diff(0, 0xffffff), 1);
	assert_int_equal(dp_psn_diff(0xffffff, 0), -1);
	assert_int_equal(dp_psn_diff(3, 0xfffffe), 5);
	assert_int_equal(dp_psn_diff(0x7fffff, 0), 0x7fffff);
	assert_int_equal(dp_psn_diff(0x800000, 0), -0x800000);	/* the ambiguous half */
	assert_int_equal(dp_psn_diff(0, 0x800000), -0x800000);
	assert_int_equal(dp_psn_diff(0x123456, 0x123456), 0);
	assert_int_equal(dp_psn_cmp(0, 0xffffff), 1);
	assert_int_equal(dp_psn_cmp(0xffffff, 0), -1);
	assert_int_equal(dp_psn_cmp(5, 5), 0);
	assert_int_equal(dp_psn_cmp(0x100, 0x7fffff), -1);
	/* High bits above 24 are ignored. */
	assert_int_equal(dp_psn_diff(0x1000001, 0), 1);
}

static void test_psn_window(void **state)
{
	(void)state;
	/* 128 PSNs from 0xffffc0: 0xffffc0 .. 0x3f across the wrap. */
	assert_true(dp_psn_in_window(0xffffc0, 0xffffc0, 128));
	assert_true(dp_psn_in_window(0xffffff, 0xffffc0, 128));
	assert_true(dp_psn_in_window(0, 0xffffc0, 128));
	assert_true(dp_psn_in_window(0x3f, 0xffffc0, 128));
	assert_false(dp_psn_in_window(0x40, 0xffffc0, 128));
	assert_false(dp_psn_in_window(0xffffbf, 0xffffc0, 128));
	assert_false(dp_psn_in_window(5, 5, 0));
	assert_true(dp_psn_in_window(5, 5, 1));
	assert_false(dp_psn_in_window(6, 5, 1));
	/* A window over half the space is meaningless and refused. */
	assert_false(dp_psn_in_window(5, 5, DP_PSN_HALF + 1));
	assert_true(dp_psn_in_window(5 + DP_PSN_HALF - 1, 5, DP_PSN_HALF));
}

/* ---------------------------------------------------------------- UDP source port */

static void test_udp_sport(void **state)
{
	uint32_t l, r;

	(void)state;
	/* Values from the §2.8 formula evaluated in Python (not this C). */
	assert_int_equal(roce_udp_sport(0, 0x11, 0x12), 0xc132);
	assert_int_equal(roce_udp_sport(0, 0xffffff, 0xfffffe), 0xff12);
	assert_int_equal(roce_udp_sport(0, 1, 1), 0xc001);
	assert_int_equal(roce_udp_sport(0, 0, 7), 0xc000);
	assert_int_equal(roce_udp_sport(0xabcde, 5, 6), 0xfcf4);
	assert_int_equal(roce_udp_sport(0x1abcde, 5, 6), 0xfcf4);	/* 20 bits only */
	for (l = 1; l < 3000; l += 37)
		for (r = 2; r < 0xffffff; r = r * 3 + 1) {
			uint16_t s = roce_udp_sport(0, l, r);

			assert_true(s >= 0xc000);
			assert_int_equal(s, roce_udp_sport(0, r, l));	/* both ends agree */
		}
}

static void test_reason_names(void **state)
{
	int r;

	(void)state;
	for (r = 0; r < ROCE_REASON_COUNT; r++)
		assert_string_not_equal(roce_reason_name(r), "unknown");
	assert_string_equal(roce_reason_name(ROCE_BAD_ICRC), "bad_icrc");
	assert_string_equal(roce_reason_name(ROCE_REASON_COUNT), "unknown");
}

/* ---------------------------------------------------------------- the IPv4 ID from the ICRC */

/* The ID that the ICRC of the IPv4 datagram ip says it was sent with, headers rebuilt with ID 0. */
static bool solve_id_of(const uint8_t *ip, size_t len, uint16_t *id)
{
	uint8_t hdr[ROCE_IP_UDP_MAX];
	struct roce_ip_view v;
	uint32_t carried;

	assert_int_equal(roce_ip_locate(ip, len, &v), ROCE_OK);
	memcpy(hdr, ip, v.ip_udp_len);
	hdr[4] = hdr[5] = 0;
	carried = v.transport[v.transport_len - 4] | v.transport[v.transport_len - 3] << 8 |
		  v.transport[v.transport_len - 2] << 16 | (uint32_t)v.transport[v.transport_len - 1] << 24;
	return roce_icrc_solve_ipv4_id(carried ^ roce_icrc(hdr, v.ip_udp_len, v.transport, v.transport_len),
				       v.transport_len, id);
}

/* What a socket receiver knows of an IPv4 datagram: its addresses and ports, not its ID. */
static struct roce_ip_udp socket_view(const uint8_t *ip)
{
	struct roce_ip_udp a = { .df = true };

	gid_v4(a.sgid, ip[12], ip[13], ip[14], ip[15]);
	gid_v4(a.dgid, ip[16], ip[17], ip[18], ip[19]);
	a.sport = (uint16_t)(ip[20] << 8 | ip[21]);
	a.dport = (uint16_t)(ip[22] << 8 | ip[23]);
	return a;
}

/* Hardware's and scapy's packets carry IDs 0x718c and 1144: found from their ICRCs alone. */
static void test_icrc_id_known_answers(void **state)
{
	static const struct { const uint8_t *ip; size_t len; uint16_t id; } v[] = {
		{ vec_cx4_cnp, sizeof(vec_cx4_cnp), 0x718c },
		{ vec_scapy_uc, sizeof(vec_scapy_uc), 1144 },
		{ vec_rc_nak_v4, sizeof(vec_rc_nak_v4), 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct roce_ip_udp a = socket_view(v[i].ip);
		uint16_t id = 0xffff;

		assert_true(solve_id_of(v[i].ip, v[i].len, &id));
		assert_int_equal(id, v[i].id);
		/* A socket receiver, which rebuilds the headers with ID 0, accepts them. */
		assert_int_equal(roce_icrc_check_payload(&a, v[i].ip + 28, v[i].len - 28), ROCE_OK);
	}
}

/* Every ID at every length is found again; a damaged packet is not taken for a numbered one. */
static void test_icrc_id_round_trip_and_damage(void **state)
{
	uint8_t pkt[ROCE_BTH_LEN + 4096 + ROCE_ICRC_LEN];
	struct roce_ip_udp a = { .df = true, .sport = 49999, .dport = ROCE_UDP_PORT, .hop_limit = 64 };
	static const size_t lens[] = { ROCE_BTH_LEN + ROCE_ICRC_LEN, 64, 1040, 1056, 4112 };
	unsigned passed = 0;

	(void)state;
	gid_v4(a.sgid, 10, 1, 2, 3);
	gid_v4(a.dgid, 10, 1, 2, 4);
	for (size_t i = 0; i < sizeof(pkt); i++)
		pkt[i] = (uint8_t)(i * 7 + 3);
	for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++)
		for (uint32_t id = 0; id < 0x10000; id += 0x1111) {
			struct roce_ip_udp sent = a, seen = a;
			uint8_t hdr[ROCE_IP_UDP_MAX];
			uint32_t carried, computed;
			uint16_t found;

			sent.ip_id = (uint16_t)id;
			assert_int_equal(roce_icrc_seal_payload(&sent, pkt, lens[l]), ROCE_OK);
			assert_int_equal(roce_icrc_check_payload(&seen, pkt, lens[l]), ROCE_OK);
			assert_int_equal(roce_ip_udp_build(&seen, lens[l], hdr), ROCE_OK);
			carried = pkt[lens[l] - 4] | pkt[lens[l] - 3] << 8 | pkt[lens[l] - 2] << 16 |
				  (uint32_t)pkt[lens[l] - 1] << 24;
			computed = roce_icrc(hdr, 28, pkt, lens[l]);
			assert_true(roce_icrc_solve_ipv4_id(carried ^ computed, lens[l], &found));
			assert_int_equal(found, id);
		}
	/* Every single-bit error in a 64-byte packet sealed with ID 0 is caught (BTH byte 4 is masked). */
	a.ip_id = 0;
	assert_int_equal(roce_icrc_seal_payload(&a, pkt, 64), ROCE_OK);
	for (unsigned bit = 0; bit < 64 * 8; bit++) {
		if (bit / 8 == 4)
			continue;
		pkt[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		passed += roce_icrc_check_payload(&a, pkt, 64) == ROCE_OK;
		pkt[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	assert_int_equal(passed, 0);
	/* IPv6 has no ID: nothing is solved for, a wrong ICRC is wrong. */
	gid_hex(a.sgid, 1);
	gid_hex(a.dgid, 2);
	assert_int_equal(roce_icrc_seal_payload(&a, pkt, 64), ROCE_OK);
	pkt[40] ^= 1;
	assert_int_equal(roce_icrc_check_payload(&a, pkt, 64), ROCE_BAD_ICRC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kat_cx4_cnp),
		cmocka_unit_test(test_kat_scapy_uc),
		cmocka_unit_test(test_kat_recorded_v4_write_imm),
		cmocka_unit_test(test_kat_recorded_v6_ud),
		cmocka_unit_test(test_kat_recorded_v4_nak),
		cmocka_unit_test(test_icrc_masks_v4),
		cmocka_unit_test(test_icrc_masks_v6),
		cmocka_unit_test(test_icrc_covers_ipv4_id),
		cmocka_unit_test(test_icrc_socket_path),
		cmocka_unit_test(test_icrc_ignores_trailer),
		cmocka_unit_test(test_bth_layout),
		cmocka_unit_test(test_bth_refusals),
		cmocka_unit_test(test_ext_header_layouts),
		cmocka_unit_test(test_aeth_syndromes),
		cmocka_unit_test(test_opcode_stacks),
		cmocka_unit_test(test_opcode_known_set),
		cmocka_unit_test(test_round_trip_every_opcode),
		cmocka_unit_test(test_build_refusals),
		cmocka_unit_test(test_parse_refusals),
		cmocka_unit_test(test_ip_refusals),
		cmocka_unit_test(test_ip_udp_build),
		cmocka_unit_test(test_psn_wrap),
		cmocka_unit_test(test_psn_window),
		cmocka_unit_test(test_udp_sport),
		cmocka_unit_test(test_reason_names),
		cmocka_unit_test(test_icrc_id_known_answers),
		cmocka_unit_test(test_icrc_id_round_trip_and_damage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
