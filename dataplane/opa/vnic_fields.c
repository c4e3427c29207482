/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "dataplane/opa/vnic_fields.h"
#include "dataplane/bytes.h"

#define ETH_HLEN	14
#define ETH_P_8021Q	0x8100
#define ETH_P_8021AD	0x88a8
#define ETH_P_IP	0x0800
#define ETH_P_IPV6	0x86dd
#define IPPROTO_TCP_	6
#define IPPROTO_UDP_	17

/* Shifts into the rc word, as the kernel's OPA_VNIC_RC_* (IPv6 puts TCP before UDP). */
enum rc_shift {
	RC_DEFAULT = 0,
	RC_IPV4 = 4,
	RC_IPV4_UDP = 8,
	RC_IPV4_TCP = 12,
	RC_IPV6 = 16,
	RC_IPV6_TCP = 20,
	RC_IPV6_UDP = 24,
};

static int is_multicast(const uint8_t *mac)
{
	return mac[0] & 0x01;	/* broadcast too */
}

uint8_t opa_vnic_entropy(uint32_t flow_hash)
{
	flow_hash ^= flow_hash >> 8;
	flow_hash ^= flow_hash >> 16;
	return flow_hash & 0xff;
}

void opa_vnic_flow_table(uint16_t def_port_mask, uint8_t flow_tbl[OPA_VNIC_FLOW_TBL])
{
	uint8_t ports[OPA_VNIC_DEF_PORTS];
	unsigned int k = 0, i;

	for (i = 0; i < OPA_VNIC_DEF_PORTS; i++)
		if (def_port_mask & (1u << i))
			ports[k++] = i;
	for (i = 0; i < OPA_VNIC_FLOW_TBL; i++)
		flow_tbl[i] = k ? ports[i % k] : OPA_VNIC_NO_PORT;
}

static uint32_t mac_table_dlid(const struct opa_vnic_dlid_tables *t, const uint8_t dmac[6])
{
	size_t i;

	/* Exact match on all six bytes: the kernel stores mac_addr_mask but never applies it. */
	for (i = 0; i < t->n_macs; i++)
		if (!(t->macs[i].dlid_sd & OPA_VNIC_SD_IS_SRC_MAC) && !memcmp(t->macs[i].mac, dmac, 6))
			return t->macs[i].dlid_sd >> 8;
	return 0;
}

uint32_t opa_vnic_dlid(const struct opa_vnic_dlid_tables *t, const uint8_t dmac[6], uint8_t entropy)
{
	uint32_t dlid = mac_table_dlid(t, dmac);
	uint8_t def_port;

	if (dlid)
		return dlid;
	if (is_multicast(dmac))
		return t->u_mcast_dlid;
	if (dmac[0] & 0x02)	/* locally administered: the EM put the LID in bytes 3-5, LSB first */
		return dmac[5] << 16 | dmac[4] << 8 | dmac[3];
	def_port = t->flow_tbl[((entropy & 0xf) + (entropy >> 4)) & (OPA_VNIC_FLOW_TBL - 1)];
	if (def_port < OPA_VNIC_DEF_PORTS)
		return t->u_ucast_dlid[def_port];
	return 0;
}

uint8_t opa_vnic_sc(const struct opa_vnic_port *port, const uint8_t *frame, size_t len)
{
	int mc = is_multicast(frame);
	uint8_t pcp;

	/* Only an in-band 802.1Q tag counts, as __vlan_get_tag() in the kernel. */
	if (len < ETH_HLEN + 4 || dp_get_be16(frame + 12) != ETH_P_8021Q)
		return mc ? port->non_vlan_sc_mc : port->non_vlan_sc_uc;
	pcp = frame[14] >> 5;
	return mc ? port->pcp_to_sc_mc[pcp] : port->pcp_to_sc_uc[pcp];
}

static enum rc_shift rc_shift_of(const uint8_t *frame, size_t len)
{
	size_t off = 12;
	uint16_t proto;

	for (;;) {
		if (off + 2 > len)
			return RC_DEFAULT;
		proto = dp_get_be16(frame + off);
		if (proto != ETH_P_8021Q && proto != ETH_P_8021AD)
			break;
		off += 4;
	}
	off += 2;	/* network header */
	if (proto == ETH_P_IP) {
		if (off + 10 > len)
			return RC_IPV4;
		if (frame[off + 9] == IPPROTO_UDP_)
			return RC_IPV4_UDP;
		return frame[off + 9] == IPPROTO_TCP_ ? RC_IPV4_TCP : RC_IPV4;
	}
	if (proto == ETH_P_IPV6) {
		/* First next-header only: the kernel walks no extension headers. */
		if (off + 7 > len)
			return RC_IPV6;
		if (frame[off + 6] == IPPROTO_TCP_)
			return RC_IPV6_TCP;
		return frame[off + 6] == IPPROTO_UDP_ ? RC_IPV6_UDP : RC_IPV6;
	}
	return RC_DEFAULT;
}

uint8_t opa_vnic_rc(uint32_t rc_word, const uint8_t *frame, size_t len)
{
	return (rc_word >> rc_shift_of(frame, len)) & 7;
}

enum opa_reason opa_vnic_tx_fields(const struct opa_vnic_port *port,
				   const struct opa_vnic_dlid_tables *t, const uint8_t *frame,
				   size_t len, uint32_t flow_hash, struct opa_vnic_tx *tx)
{
	if (len < ETH_HLEN)
		return OPA_SHORT;
	tx->entropy = opa_vnic_entropy(flow_hash);
	tx->dlid = opa_vnic_dlid(t, frame, tx->entropy);
	tx->slid = port->encap_slid;
	tx->sc = opa_vnic_sc(port, frame, len);
	tx->rc = opa_vnic_rc(port->rc_word, frame, len);
	tx->pkey = port->pkey;
	tx->vesw_id = port->vesw_id;
	return tx->dlid ? OPA_OK : OPA_DLID_ZERO;
}
