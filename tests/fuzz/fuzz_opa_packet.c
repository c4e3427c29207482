/* SPDX-License-Identifier: MIT */
/*
 * What the fabric can send: any bytes as a 16B header, a VNIC packet and a 9B MAD packet.
 * Whatever a parser accepts must build again and parse back to the same content, and the
 * header-field choices must stay in range for any frame.
 */
#include "tests/fuzz/fuzz.h"
#include "dataplane/opa/opa16b.h"
#include "dataplane/opa/opa9b.h"
#include "dataplane/opa/vnic_encap.h"
#include "dataplane/opa/vnic_fields.h"

#include <stdlib.h>
#include <string.h>

static void check_16b(const uint8_t *data, size_t size)
{
	struct opa16b_hdr h, back;
	uint8_t out[OPA16B_HDR_LEN];

	/* The struct has padding; zero it so memcmp compares fields only. */
	memset(&h, 0, sizeof(h));
	memset(&back, 0, sizeof(back));
	if (opa16b_parse(data, size, &h) != OPA_OK)
		return;
	if (opa16b_build(&h, out) != OPA_OK)
		abort();
	opa16b_decode(out, &back);
	if (memcmp(&h, &back, sizeof(h)))
		abort();
}

static void check_vnic(const uint8_t *data, size_t size)
{
	static uint8_t out[OPA_VNIC_MAX_PKT];
	struct opa_vnic_rx rx, again;
	struct opa_vnic_tx tx;
	size_t len;

	if (opa_vnic_decap(data, size, OPA_VNIC_ANY_VESW, 9000, &rx) != OPA_OK)
		return;
	if (rx.frame < data || rx.frame + rx.frame_len > data + size)
		abort();
	tx = (struct opa_vnic_tx){
		.slid = rx.hdr.slid, .dlid = rx.hdr.dlid ? rx.hdr.dlid : 1, .sc = rx.hdr.sc,
		.rc = rx.hdr.rc, .pkey = rx.hdr.pkey, .entropy = rx.hdr.entropy,
		.vesw_id = rx.vesw_id,
	};
	if (opa_vnic_encap(&tx, rx.frame, rx.frame_len, out, sizeof(out), &len) != OPA_OK)
		abort();
	if (opa_vnic_decap(out, len, rx.vesw_id, 9000, &again) != OPA_OK ||
	    again.frame_len != rx.frame_len || memcmp(again.frame, rx.frame, rx.frame_len))
		abort();
}

static void check_9b(const uint8_t *data, size_t size)
{
	static uint8_t out[OPA9B_MAX_PKT];
	struct opa9b_mad_pkt p, again;
	size_t len;

	if (opa9b_mad_parse(data, size, &p) != OPA_OK)
		return;
	if (opa9b_mad_build(&p.addr, p.mad, p.mad_len, out, sizeof(out), &len) != OPA_OK)
		abort();
	if (opa9b_mad_parse(out, len, &again) != OPA_OK || again.mad_len != p.mad_len ||
	    memcmp(&again.addr, &p.addr, sizeof(p.addr)) || memcmp(again.mad, p.mad, p.mad_len))
		abort();
}

/* The input doubles as an Ethernet frame; the tables come from its first bytes. */
static void check_fields(const uint8_t *data, size_t size)
{
	struct opa_vnic_mac_entry mac = { { 0 }, 0 };
	struct opa_vnic_dlid_tables t = { .macs = &mac, .n_macs = 1 };
	struct opa_vnic_port port = { .rc_word = 0xffffffff };
	struct opa_vnic_tx tx;
	size_t i;

	if (size < 16)
		return;
	memcpy(mac.mac, data, 6);
	mac.dlid_sd = data[6] << 24 | data[7] << 16 | data[8];
	t.u_mcast_dlid = data[9];
	for (i = 0; i < OPA_VNIC_DEF_PORTS; i++)
		t.u_ucast_dlid[i] = i + 1;
	opa_vnic_flow_table(data[10] | data[11] << 8, t.flow_tbl);
	for (i = 0; i < OPA_VNIC_FLOW_TBL; i++)
		if (t.flow_tbl[i] >= OPA_VNIC_DEF_PORTS && t.flow_tbl[i] != OPA_VNIC_NO_PORT)
			abort();
	if (opa_vnic_tx_fields(&port, &t, data, size, data[12] << 8 | data[13], &tx) == OPA_SHORT)
		abort();
	if (tx.rc > 7 || tx.dlid > OPA16B_LID_MAX)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_16b(data, size);
	check_vnic(data, size);
	check_9b(data, size);
	check_fields(data, size);
	return 0;
}
