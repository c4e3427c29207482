/* SPDX-License-Identifier: MIT */
/*
 * The MAD transport over libibumad, for a host with an Omni-Path HFI: VEMA
 * registers on the kernel's user MAD interface as the kernel agent did
 * (class 0x34, version 0x80, OUI 00:06:6A, Get and Set) and answers on QP1.
 *
 * The functions below the open call are the parts that need no hardware
 * (choosing the port, the registration, the send buffer's address, the
 * receive buffer's sender); they are separate so that tests run anywhere.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/umad.h>
#include <systemd/sd-event.h>

#include "daemon/vnic/mad_transport.h"

#define MAD_UMAD_CLASS		0x34
#define MAD_UMAD_CLASS_VERSION	0x80
#define MAD_UMAD_OUI		0x00066a
#define MAD_UMAD_QP1_QKEY	0x80010000u
#define MAD_UMAD_MAD_MIN	24
#define MAD_UMAD_MAD_MAX	2048
/*
 * The umad header with the P_Key index, as the kernel uses it once a port is
 * open (umad_size() is 8 bytes less before): the buffers here always have it.
 */
#define MAD_UMAD_HDR_SIZE	sizeof(struct ib_user_mad)

/*
 * Opens the first Omni-Path port (or ca_name/port when given; NULL/0 = any),
 * registers the VEMA agent and watches the umad descriptor in `event`.
 * Received MADs go to t->recv(t->userdata, ...), which the caller sets.
 * -ENODEV when the host has no Omni-Path port: use the software fabric.
 */
int mad_umad_open(struct mad_transport **out, sd_event *event, const char *ca_name, int port);

/* One port as the choice sees it (filled from umad_get_ca() and sysfs). */
struct mad_umad_port_desc {
	char ca_name[UMAD_CA_NAME_LEN];
	char driver[32];		/* the CA's kernel driver, "" when unknown */
	int portnum;
	unsigned state;			/* 4 = ACTIVE */
	char link_layer[UMAD_CA_NAME_LEN];
};

/* An HFI: driven by hfi1 (or named by it, hfi1_N) and its ports' link layer InfiniBand. */
bool mad_umad_port_is_opa(const struct mad_umad_port_desc *p);
/*
 * The index of the port to use among ports[0..n): an OPA port matching
 * want_ca (NULL: any) and want_port (0: any), an ACTIVE one first, else the
 * first that matches (its link may come up later).  -ENODEV when none.
 */
int mad_umad_choose_port(const struct mad_umad_port_desc *ports, size_t n, const char *want_ca,
			 int want_port);

/* Get and Set of class 0x34 version 0x80 under OUI 00:06:6A, no kernel RMPP. */
void mad_umad_reg_attr(struct umad_reg_attr *attr);

/*
 * Fills a send buffer (MAD_UMAD_HDR_SIZE + len bytes, cap available) for one MAD to
 * `to` on QP1: address, Q_Key 0x80010000, P_Key index of to->pkey in pkeys
 * (exact value, else the same partition with the other membership bit),
 * then the MAD.  -EMSGSIZE for a MAD outside 24..2048 or a short buffer,
 * -EINVAL for a LID, SL or QPN umad cannot carry, -ENXIO for a P_Key the
 * port does not have.
 */
int mad_umad_build_send(void *umad, size_t cap, const struct mad_addr *to, const uint16_t *pkeys,
			size_t npkeys, const uint8_t *mad, size_t len);

/*
 * The sender of a received umad buffer (with `len` MAD bytes).  -EIO for a
 * send completion the kernel reports (status != 0), -EMSGSIZE for a MAD
 * outside 24..2048, -ENXIO for a P_Key index outside the table.
 */
int mad_umad_parse_recv(const void *umad, size_t len, const uint16_t *pkeys, size_t npkeys,
			struct mad_addr *from);
