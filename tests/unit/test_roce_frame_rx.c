/* SPDX-License-Identifier: MIT */
/*
 * The packet path's frame parser (dataplane/roce/frame_rx.c) and the ICRC checked against the
 * header a packet came with (roce_icrc_check_wire): frames built here with the codec, each
 * sealed for the header it carries, then every refusal one at a time, and GSO buffers cut
 * into the datagrams the kernel would have made of them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "dataplane/bytes.h"
#include "dataplane/offload/crc.h"
#include "dataplane/roce/frame_rx.h"
#include "dataplane/roce/icrc.h"
#include "dataplane/roce/transport.h"

#define PORT 4791

static const uint8_t gid4_a[16] = { [10] = 0xff, [11] = 0xff, 10, 232, 0, 1 };
static const uint8_t gid4_b[16] = { [10] = 0xff, [11] = 0xff, 10, 232, 0, 2 };
static const uint8_t gid6_a[16] = { 0xfd, 0, 0x02, 0x32, [15] = 1 };
static const uint8_t gid6_b[16] = { 0xfd, 0, 0x02, 0x32, [15] = 2 };

struct seen {
	unsigned n;
	struct roce_ip_udp hdr[8];
	size_t transport_len[8];
	enum roce_reason icrc[8];
};

static void collect(void *arg, const struct roce_frame_seg *s)
{
	struct seen *seen = arg;

	assert_true(seen->n < 8);
	assert_int_equal(roce_ip_udp_parse(s->ip_udp, s->ip_udp_len, &seen->hdr[seen->n]), ROCE_OK);
	seen->transport_len[seen->n] = s->transport_len;
	seen->icrc[seen->n] = roce_icrc_check_wire(s->ip_udp, s->ip_udp_len, s->transport, s->transport_len);
	seen->n++;
}

static struct roce_ip_udp addrs(bool v6, uint16_t id)
{
	struct roce_ip_udp a = { .tclass = 0x8a, .hop_limit = 64, .ip_id = id, .df = true,
				 .sport = 49152, .dport = PORT };

	memcpy(a.sgid, v6 ? gid6_a : gid4_a, 16);
	memcpy(a.dgid, v6 ? gid6_b : gid4_b, 16);
	return a;
}

/* An Ethernet frame of an RC SEND ONLY of payload_len bytes, sealed for a's header; its length. */
static size_t frame(const struct roce_ip_udp *a, size_t payload_len, uint8_t *out)
{
	struct roce_pkt p = { .bth = { .opcode = ROCE_SEND_ONLY, .pkey = 0xffff, .dest_qp = 17, .psn = 5 } };
	uint8_t payload[2048];
	size_t len;

	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 7);
	memset(out, 0, 12);
	dp_put_be16(out + 12, roce_gid_is_ipv4(a->sgid) ? 0x0800 : 0x86dd);
	assert_int_equal(roce_frame_build(a, &p, payload, payload_len, out + 14, ROCE_FRAME_MAX - 14, &len),
			 ROCE_OK);
	return 14 + len;
}

static enum roce_reason rx(const uint8_t *f, size_t len, const struct roce_frame_info *info,
			   struct seen *seen)
{
	memset(seen, 0, sizeof(*seen));
	return roce_frame_rx(f, len, info, PORT, collect, seen);
}

static void ipv4_csum_again(uint8_t *f)
{
	dp_put_be16(f + 14 + 10, 0);
	dp_put_be16(f + 14 + 10, dp_ip_csum(0, f + 14, (f[14] & 0xf) * 4));
}

static void test_whole_ipv4_and_ipv6(void **state)
{
	static uint8_t f[ROCE_FRAME_MAX];
	struct roce_ip_udp a = addrs(false, 0x1234), b = addrs(true, 0);
	struct roce_frame_info info;
	struct seen seen;
	size_t len = frame(&a, 100, f);

	(void)state;
	info = (struct roce_frame_info){ .wire_len = len };
	assert_int_equal(rx(f, len, &info, &seen), ROCE_OK);
	assert_int_equal(seen.n, 1);
	assert_int_equal(seen.icrc[0], ROCE_OK);
	assert_int_equal(seen.hdr[0].ip_id, 0x1234);
	assert_true(seen.hdr[0].df);
	assert_int_equal(seen.hdr[0].sport, 49152);
	assert_memory_equal(seen.hdr[0].sgid, gid4_a, 16);
	assert_memory_equal(seen.hdr[0].dgid, gid4_b, 16);
	/* Ethernet padding past the IP length is not the packet's. */
	info.wire_len = len + 6;
	assert_int_equal(rx(f, len + 6, &info, &seen), ROCE_OK);
	assert_int_equal(seen.transport_len[0], 12 + 100 + 4);

	len = frame(&b, 33, f);
	info = (struct roce_frame_info){ .wire_len = len };
	assert_int_equal(rx(f, len, &info, &seen), ROCE_OK);
	assert_int_equal(seen.n, 1);
	assert_int_equal(seen.icrc[0], ROCE_OK);
	assert_memory_equal(seen.hdr[0].sgid, gid6_a, 16);
	assert_int_equal(seen.hdr[0].hop_limit, 64);
}

/* Sealed for one ID, sent with another: the socket path's solving accepts it, the wire check does not. */
static void test_icrc_for_another_id(void **state)
{
	static uint8_t f[ROCE_FRAME_MAX];
	struct roce_ip_udp a = addrs(false, 7), sock = addrs(false, 0);
	struct roce_frame_info info;
	struct seen seen;
	size_t len = frame(&a, 64, f);

	(void)state;
	dp_put_be16(f + 14 + 4, 5);
	ipv4_csum_again(f);
	info = (struct roce_frame_info){ .wire_len = len };
	assert_int_equal(rx(f, len, &info, &seen), ROCE_OK);
	assert_int_equal(seen.icrc[0], ROCE_ICRC_OTHER_ID);
	assert_int_equal(roce_icrc_check_payload(&sock, f + 14 + 28, len - 14 - 28), ROCE_OK);
	/* A damaged byte is damage, whatever the ID. */
	dp_put_be16(f + 14 + 4, 7);
	ipv4_csum_again(f);
	f[14 + 28 + 20] ^= 1;
	assert_int_equal(rx(f, len, &info, &seen), ROCE_OK);
	assert_int_equal(seen.icrc[0], ROCE_BAD_ICRC);
	/* Routers' fields are masked: TTL and TOS changed on the way, the ICRC still right. */
	f[14 + 28 + 20] ^= 1;
	f[14 + 8] = 3;
	f[14 + 1] = 0x02;
	ipv4_csum_again(f);
	assert_int_equal(rx(f, len, &info, &seen), ROCE_OK);
	assert_int_equal(seen.icrc[0], ROCE_OK);
}

/* IPv4 options are part of the header the ICRC covers; the datagram is found behind them. */
static void test_ipv4_options(void **state)
{
	static uint8_t f[ROCE_FRAME_MAX], g[ROCE_FRAME_MAX];
	struct roce_ip_udp a = addrs(false, 99);
	struct roce_frame_info info;
	struct seen seen;
	size_t len = frame(&a, 40, f), t_len = len - 14 - 28;

	(void)state;
	/* Four NOP-padded bytes of options (type 1 is NOP) between the header and UDP. */
	memcpy(g, f, 14 + 20);
	memset(g + 14 + 20, 1, 4);
	memcpy(g + 14 + 24, f + 14 + 20, len - 14 - 20);
	g[14] = 0x46;
	dp_put_be16(g + 14 + 2, 24 + 8 + t_len);
	ipv4_csum_again(g);
	roce_icrc_seal(g + 14, 24 + 8, g + 14 + 32, t_len);
	info = (struct roce_frame_info){ .wire_len = len + 4 };
	assert_int_equal(rx(g, len + 4, &info, &seen), ROCE_OK);
	assert_int_equal(seen.icrc[0], ROCE_OK);
	assert_int_equal(seen.hdr[0].ip_id, 99);
}

static void test_refusals(void **state)
{
	static uint8_t f[ROCE_FRAME_MAX];
	struct roce_ip_udp a = addrs(false, 1), b = addrs(true, 0);
	struct roce_frame_info info;
	struct seen seen;
	size_t len = frame(&a, 64, f);

	(void)state;
	info = (struct roce_frame_info){ .wire_len = len + 1 };
	assert_int_equal(rx(f, len, &info, &seen), ROCE_BAD_LINK);	/* truncated */
	info = (struct roce_frame_info){ .wire_len = len, .vlan_tagged = true };
	assert_int_equal(rx(f, len, &info, &seen), ROCE_BAD_LINK);
	info = (struct roce_frame_info){ .wire_len = 10 };
	assert_int_equal(rx(f, 10, &info, &seen), ROCE_BAD_LINK);
	info = (struct roce_frame_info){ .wire_len = len };
	dp_put_be16(f + 12, 0x8100);					/* a tag in the frame */
	assert_int_equal(rx(f, len, &info, &seen), ROCE_BAD_LINK);
	dp_put_be16(f + 12, 0x86dd);					/* IPv4 behind IPv6's type */
	assert_int_equal(rx(f, len, &info, &seen), ROCE_BAD_LINK);
	dp_put_be16(f + 12, 0x0800);
	f[14 + 6] |= 0x20;						/* more fragments */
	ipv4_csum_again(f);
	assert_int_equal(rx(f, len, &info, &seen), ROCE_FRAGMENT);
	f[14 + 6] &= ~0x20;
	f[14 + 7] = 8;							/* an offset */
	ipv4_csum_again(f);
	assert_int_equal(rx(f, len, &info, &seen), ROCE_FRAGMENT);
	f[14 + 7] = 0;
	f[14 + 10] ^= 0x55;						/* header checksum */
	assert_int_equal(rx(f, len, &info, &seen), ROCE_BAD_CSUM);
	ipv4_csum_again(f);
	f[14 + 9] = 6;							/* TCP */
	ipv4_csum_again(f);
	assert_int_equal(rx(f, len, &info, &seen), ROCE_BAD_IP);
	f[14 + 9] = 17;
	ipv4_csum_again(f);
	f[14 + 20 + 3] ^= 1;						/* another port */
	assert_int_equal(rx(f, len, &info, &seen), ROCE_BAD_IP);
	f[14 + 20 + 3] ^= 1;
	dp_put_be16(f + 14 + 2, dp_get_be16(f + 14 + 2) + 4);		/* IP longer than the frame */
	ipv4_csum_again(f);
	assert_int_equal(rx(f, len, &info, &seen), ROCE_BAD_LENGTH);
	dp_put_be16(f + 14 + 2, dp_get_be16(f + 14 + 2) - 4);
	ipv4_csum_again(f);
	f[14] = 0x44;							/* IHL below 5 */
	assert_int_equal(rx(f, len, &info, &seen), ROCE_BAD_IP);
	f[14] = 0x45;
	/* A wrong UDP checksum counts where the kernel did not vouch for it. */
	dp_put_be16(f + 14 + 26, 0x1234);
	assert_int_equal(rx(f, len, &info, &seen), ROCE_BAD_CSUM);
	info.csum_trusted = true;
	assert_int_equal(rx(f, len, &info, &seen), ROCE_OK);
	dp_put_be16(f + 14 + 26, 0);					/* none: IPv4 allows it */
	info.csum_trusted = false;
	assert_int_equal(rx(f, len, &info, &seen), ROCE_OK);
	/* IPv6 needs one; the one roce_frame_build wrote is right. */
	len = frame(&b, 64, f);
	info = (struct roce_frame_info){ .wire_len = len };
	assert_int_equal(rx(f, len, &info, &seen), ROCE_OK);
	dp_put_be16(f + 14 + 46, 0);
	assert_int_equal(rx(f, len, &info, &seen), ROCE_BAD_CSUM);
	assert_int_equal(seen.n, 0);
}

/*
 * A GSO buffer of three datagrams (1024, 1024 and 100 bytes of payload) that crossed a veth
 * whole: the header is the first's with the lengths of all, each datagram sealed for the ID
 * the kernel gives it (first, first + 1, ...).
 */
static size_t gso_frame(uint8_t *g, uint16_t first_id, size_t *seg)
{
	static uint8_t f[ROCE_FRAME_MAX];
	const size_t payloads[3] = { 1024, 1024, 100 };
	size_t off = 14 + 28, len = 0;

	for (unsigned i = 0; i < 3; i++) {
		struct roce_ip_udp a = addrs(false, (uint16_t)(first_id + i));

		len = frame(&a, payloads[i], f);
		if (i == 0) {
			memcpy(g, f, 14 + 28);
			*seg = len - 14 - 28;
		}
		memcpy(g + off, f + 14 + 28, len - 14 - 28);
		off += len - 14 - 28;
	}
	dp_put_be16(g + 14 + 2, off - 14);
	dp_put_be16(g + 14 + 24, off - 14 - 20);
	ipv4_csum_again(g);
	return off;
}

static void test_gso_buffer(void **state)
{
	static uint8_t g[ROCE_FRAME_MAX];
	struct roce_frame_info info = { 0 };
	struct seen seen;
	size_t seg, len = gso_frame(g, 0xfffe, &seg);

	(void)state;
	info.wire_len = len;
	info.vnet[1] = 5;						/* VIRTIO_NET_HDR_GSO_UDP_L4 */
	info.vnet[4] = seg & 0xff;
	info.vnet[5] = seg >> 8;
	assert_int_equal(rx(g, len, &info, &seen), ROCE_OK);
	assert_int_equal(seen.n, 3);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(seen.icrc[i], ROCE_OK);
		assert_int_equal(seen.hdr[i].ip_id, (uint16_t)(0xfffe + i));	/* wraps */
	}
	assert_int_equal(seen.transport_len[0], seg);
	assert_int_equal(seen.transport_len[2], 12 + 100 + 4);
	/* A wrong segment size cuts packets apart wrong: their ICRCs say so. */
	info.vnet[4] = (seg / 2) & 0xff;
	info.vnet[5] = (seg / 2) >> 8;
	assert_int_equal(rx(g, len, &info, &seen), ROCE_OK);
	assert_int_not_equal(seen.icrc[0], ROCE_OK);
	/* Too small for a packet; an offload that is not UDP's; a last piece too short. */
	info.vnet[4] = 8;
	info.vnet[5] = 0;
	assert_int_equal(rx(g, len, &info, &seen), ROCE_BAD_LINK);
	info.vnet[4] = seg & 0xff;
	info.vnet[5] = seg >> 8;
	info.vnet[1] = 1;						/* TCPv4 */
	assert_int_equal(rx(g, len, &info, &seen), ROCE_BAD_LINK);
	info.vnet[1] = 5;
	info.vnet[4] = (len - 14 - 28 - 3) & 0xff;
	info.vnet[5] = (len - 14 - 28 - 3) >> 8;
	assert_int_equal(rx(g, len, &info, &seen), ROCE_SHORT);
	assert_int_equal(seen.n, 0);
}

/* Kernels before 6.2 drop UDP GSO buffers before a packet ring: auto does not use one there. */
static void test_kernels_whose_rings_carry_gso(void **state)
{
	assert_false(dp_roce_ring_carries_udp_gso("6.1.0-18-amd64"));
	assert_false(dp_roce_ring_carries_udp_gso("5.10.0-28-amd64"));
	assert_false(dp_roce_ring_carries_udp_gso("4.19.0"));
	assert_true(dp_roce_ring_carries_udp_gso("6.2.0"));
	assert_true(dp_roce_ring_carries_udp_gso("6.18.44-fc-v595"));
	assert_true(dp_roce_ring_carries_udp_gso("7.0.1"));
	assert_false(dp_roce_ring_carries_udp_gso("linux"));
	assert_false(dp_roce_ring_carries_udp_gso(""));
	assert_false(dp_roce_ring_carries_udp_gso(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole_ipv4_and_ipv6),
		cmocka_unit_test(test_icrc_for_another_id),
		cmocka_unit_test(test_ipv4_options),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_gso_buffer),
		cmocka_unit_test(test_kernels_whose_rings_carry_gso),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
