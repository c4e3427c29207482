/* SPDX-License-Identifier: MIT */
/*
 * What a peer can send us over UDP 4791: any bytes as a RoCE v2 transport packet (BTH ..
 * ICRC) and as a whole IP datagram.  Whatever parses must build back to the same bytes (pad
 * and CNP reserved bytes, which a receiver ignores, come back as zeros), the ICRC check must
 * stay inside the buffer (libFuzzer gives exact-size buffers, ASan watches), and where the
 * input's ICRC checked out the builder must produce that same ICRC.
 */
#include "tests/fuzz/fuzz.h"
#include "dataplane/bytes.h"
#include "dataplane/roce/icrc.h"
#include "dataplane/roce/ip_udp.h"
#include "dataplane/roce/packet.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static uint8_t out[65536 + 128];

/* Bytes a receiver ignores and a builder writes as zeros: the pad, a CNP's reserved bytes. */
static void zero_ignored(uint8_t *pkt, const struct roce_pkt *p)
{
	size_t body = p->op->hdr_len + p->payload_len;

	memset(pkt + body, 0, p->bth.pad_cnt);
	if (p->op->flags & ROCE_F_CNP_RSVD)
		memset(pkt + p->op->hdr_len - ROCE_CNP_RSVD_LEN, 0, ROCE_CNP_RSVD_LEN);
}

/* The transport packet of size bytes at data; true if it parsed and the bytes a receiver
 * ignores were zeros (so the input's ICRC is the one the builder computes). */
static bool check_transport(const uint8_t *data, size_t size, struct roce_pkt *p)
{
	static uint8_t want[sizeof(out)];
	size_t len;

	if (roce_pkt_parse(data, size, p) != ROCE_OK)
		return false;
	if (p->payload != data + p->op->hdr_len ||
	    p->op->hdr_len + p->payload_len + p->bth.pad_cnt + ROCE_ICRC_LEN != size ||
	    p->icrc != data + size - ROCE_ICRC_LEN)
		abort();
	if (roce_pkt_build(p, p->payload, p->payload_len, out, sizeof(out), &len) != ROCE_OK ||
	    len != size)
		abort();
	memcpy(want, data, size);
	zero_ignored(want, p);
	memset(want + size - ROCE_ICRC_LEN, 0, ROCE_ICRC_LEN);
	if (memcmp(out, want, size))
		abort();
	return !memcmp(data, want, size - ROCE_ICRC_LEN);
}

/* The headers a builder would need to write ip's IP and UDP headers again; false when ip has
 * what the builder never writes (IPv4 options or flags other than DF, fragments). */
static bool headers_of(const uint8_t *ip, size_t ip_udp_len, struct roce_ip_udp *a)
{
	const uint8_t *udp = ip + ip_udp_len - ROCE_UDP_HDR_LEN;

	memset(a, 0, sizeof(*a));
	if (ip[0] >> 4 == 4) {
		uint16_t frag = dp_get_be16(ip + 6);

		if (ip[0] != 0x45 || (frag != 0 && frag != 0x4000))
			return false;
		a->tclass = ip[1];
		a->ip_id = dp_get_be16(ip + 4);
		a->df = frag != 0;
		a->hop_limit = ip[8];
		a->sgid[10] = a->sgid[11] = a->dgid[10] = a->dgid[11] = 0xff;
		memcpy(a->sgid + 12, ip + 12, 4);
		memcpy(a->dgid + 12, ip + 16, 4);
	} else {
		a->tclass = dp_get_be16(ip) >> 4;
		a->flow_label = dp_get_be32(ip) & 0xfffff;
		a->hop_limit = ip[7];
		memcpy(a->sgid, ip + 8, 16);
		memcpy(a->dgid, ip + 24, 16);
		/* An IPv6 address that looks IPv4-mapped would be written as IPv4. */
		if (roce_gid_is_ipv4(a->sgid) || roce_gid_is_ipv4(a->dgid))
			return false;
	}
	a->sport = dp_get_be16(udp);
	a->dport = dp_get_be16(udp + 2);
	return true;
}

static void check_ip(const uint8_t *data, size_t size)
{
	enum roce_reason icrc = roce_icrc_check_ip(data, size);
	struct roce_ip_view v;
	struct roce_ip_udp a;
	struct roce_pkt p;
	size_t len, ip_len, ip_csum, udp_csum;
	bool as_built;

	if (roce_ip_locate(data, size, &v) != ROCE_OK) {
		if (icrc == ROCE_OK || icrc == ROCE_BAD_ICRC)
			abort();	/* the check must refuse what locate refuses */
		return;
	}
	as_built = check_transport(v.transport, v.transport_len, &p);
	if (!as_built || !headers_of(data, v.ip_udp_len, &a))
		return;
	/* A socket receiver does not see the IPv4 ID: it finds it from a right ICRC (icrc_id.c). */
	if (icrc == ROCE_OK && data[0] >> 4 == 4) {
		struct roce_ip_udp seen = a;

		seen.ip_id = 0;
		if (roce_icrc_check_payload(&seen, v.transport, v.transport_len) != ROCE_OK)
			abort();
	} else {
		(void)roce_icrc_check_payload(&a, v.transport, v.transport_len);
	}
	if (roce_frame_build(&a, &p, p.payload, p.payload_len, out, sizeof(out), &len) != ROCE_OK)
		abort();
	ip_len = v.ip_udp_len + v.transport_len;
	if (len != ip_len)
		abort();
	/* The checksums are ours to compute (the input's may be anything) and the ICRC too,
	 * unless the input's was right. */
	udp_csum = v.ip_udp_len - 2;
	ip_csum = data[0] >> 4 == 4 ? 10 : udp_csum;	/* IPv6 has none */
	if (memcmp(out, data, ip_csum) ||
	    (ip_csum < udp_csum &&
	     memcmp(out + ip_csum + 2, data + ip_csum + 2, udp_csum - ip_csum - 2)) ||
	    memcmp(out + v.ip_udp_len, v.transport, v.transport_len - ROCE_ICRC_LEN))
		abort();
	if (icrc == ROCE_OK && memcmp(out + len - ROCE_ICRC_LEN, data + len - ROCE_ICRC_LEN, 4))
		abort();
	if (roce_icrc_check_ip(out, len) != ROCE_OK)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct roce_pkt p;

	check_transport(data, size, &p);
	check_ip(data, size);
	return 0;
}
