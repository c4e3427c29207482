/* SPDX-License-Identifier: MIT */
/*
 * A RoCE v2 link endpoint's way out (dp_roce_open_link): what a virtual
 * machine's device does on its TAP, as the guest's own NIC would, with the
 * guest's addresses.  Each packet of the batch as a frame: the link's vnet
 * header (zero: no offload asked), Ethernet to its route's next hop, the IP
 * and UDP headers its ICRC was sealed for (IPv4 ID 0 and DF), written at
 * once; a frame the link does not take is lost, as on a full NIC ring (RC
 * sends it again).  The way in is link_rx.c.
 */
#include "dataplane/roce/roce_int.h"
#include "dataplane/worker.h"

#include <arpa/inet.h>
#include <string.h>
#include <sys/uio.h>

#define ETH_HDR_LEN 14

void roce_link_send(struct dp_worker *w, struct dp_roce *r)
{
	for (unsigned i = 0; i < r->tx.n; i++) {
		const struct roce_ip_udp *hdr = &r->tx_hdr[i];
		uint8_t *eth = r->frame + r->link.vnet_hdr;
		size_t len = r->tx.iov[i].iov_len, ip_len = roce_ip_udp_len(hdr);
		uint16_t type = htons(roce_gid_is_ipv4(hdr->sgid) ? 0x0800 : 0x86dd);
		struct iovec iov[2] = {
			{ r->frame, r->link.vnet_hdr + ETH_HDR_LEN + ip_len }, { r->tx.iov[i].iov_base, len },
		};

		memset(r->frame, 0, r->link.vnet_hdr);
		memcpy(eth, r->tx_dmac[i], 6);
		memcpy(eth + 6, r->link.mac, 6);
		memcpy(eth + 12, &type, 2);
		if (!ip_len || roce_ip_udp_build(hdr, len, eth + ETH_HDR_LEN) != ROCE_OK ||
		    writev(r->link.fd, iov, 2) != (ssize_t)(iov[0].iov_len + len))
			DEVICE_COUNT(w, r->nic, tx_errors);
	}
}
