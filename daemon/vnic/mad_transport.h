/* SPDX-License-Identifier: MIT */
/*
 * How MADs reach the VEMA agent and its replies and traps leave: one interface,
 * two backends.  On a host with an Omni-Path HFI, libibumad (mad_umad.c:
 * registered for class 0x34, version 0x80, OUI 00:06:6A, Get and Set); on
 * every other host, the software fabric (mad_fabric.c, docs/opa-fabric.md).
 * Both run on the main thread: received MADs arrive through the event loop.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

/* Where a MAD came from or goes to (the other end's, as a 9B packet names it). */
struct mad_addr {
	uint32_t lid;
	uint8_t sl;
	uint16_t pkey;
	uint32_t qpn;		/* 1: the GSI */
};

struct mad_transport;

/* A MAD arrived: mad[0..len) is valid during the call only. */
typedef void (*mad_recv_fn)(void *userdata, const struct mad_addr *from, const uint8_t *mad,
			    size_t len);

struct mad_transport_ops {
	const char *name;	/* "umad", "fabric" */
	/* Sends one MAD (24..2048 bytes); negative errno (-EHOSTUNREACH: no route to to->lid). */
	int (*send)(struct mad_transport *t, const struct mad_addr *to, const uint8_t *mad,
		    size_t len);
	/* This node's LID (the SLID of what it sends). */
	uint32_t (*lid)(struct mad_transport *t);
	void (*free)(struct mad_transport *t);
};

struct mad_transport {
	const struct mad_transport_ops *ops;
	mad_recv_fn recv;
	void *userdata;
};

static inline int mad_transport_send(struct mad_transport *t, const struct mad_addr *to,
				     const uint8_t *mad, size_t len)
{
	return t->ops->send(t, to, mad, len);
}

static inline void mad_transport_free(struct mad_transport *t)
{
	if (t)
		t->ops->free(t);
}
