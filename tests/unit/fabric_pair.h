/* SPDX-License-Identifier: MIT */
/*
 * What the fabric tests share: fabrics on 127.0.0.1 with kernel-chosen ports, maps built
 * once every socket is bound, a plain UDP socket to play a third node, and waiting for a
 * datagram (loopback delivers at once, but a test should not depend on it).
 */
#pragma once

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "dataplane/udp.h"
#include "dataplane/opa/fabric.h"
#include "dataplane/opa/fabric_map.h"

#define LOOPBACK_ANY	"127.0.0.1:0"

static inline struct dp_udp_addr loopback_any(void)
{
	struct dp_udp_addr a;
	const char *why;

	assert_int_equal(dp_udp_addr_parse(LOOPBACK_ANY, 0, &a, &why), 0);
	return a;
}

/* An empty sealed map, for a fabric whose peers are not bound yet. */
static inline struct opa_fabric_map *empty_map(uint32_t lid)
{
	struct dp_udp_addr any = loopback_any();
	struct opa_fabric_map *m = opa_fabric_map_new(lid, &any);

	assert_non_null(m);
	assert_int_equal(opa_fabric_map_seal(m), 0);
	return m;
}

static inline struct opa_fabric *fabric_open(uint32_t lid, unsigned mad_queue, uint32_t event)
{
	struct opa_fabric_config cfg = {
		.lid = lid, .addr = loopback_any(), .mad_event = event, .mad_queue = mad_queue,
	};
	struct opa_fabric *f;

	assert_int_equal(opa_fabric_new(&f, &cfg, empty_map(lid)), 0);
	return f;
}

/*
 * Gives f a map of (lid, address) pairs, n of them, then frees the old one: no worker runs in
 * these tests, so none can hold it (the daemon passes a barrier first).
 */
static inline void fabric_set_map(struct opa_fabric *f, unsigned n, const uint32_t *lids,
				  const struct dp_udp_addr *const *addrs)
{
	struct opa_fabric_map *m = opa_fabric_map_new(opa_fabric_lid(f), opa_fabric_local_addr(f));
	unsigned i;

	assert_non_null(m);
	for (i = 0; i < n; i++)
		assert_int_equal(opa_fabric_map_add(m, lids[i], addrs[i]), 0);
	assert_int_equal(opa_fabric_map_seal(m), 0);
	opa_fabric_map_free(opa_fabric_publish_map(f, m));
}

static inline void wait_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	assert_int_equal(poll(&p, 1, 2000), 1);
}

/* Polls f until it saw n datagrams (or fails after two seconds). */
static inline void fabric_poll_n(struct opa_fabric *f, struct dp_worker *w, unsigned n)
{
	unsigned seen = 0;
	int tries;

	for (tries = 0; seen < n && tries < 200; tries++) {
		seen += opa_fabric_poll(f, w);
		if (seen < n)
			usleep(10000);
	}
	assert_int_equal(seen, n);
}

/* A plain UDP socket standing for a third node. */
static inline void raw_open(struct dp_udp *u)
{
	struct dp_udp_addr any = loopback_any();

	assert_int_equal(dp_udp_open(u, &any), 0);
}

/* One datagram from u, into buf; its length. */
static inline size_t raw_recv(struct dp_udp *u, uint8_t *buf, size_t size)
{
	ssize_t n;

	wait_readable(u->fd);
	n = recv(u->fd, buf, size, MSG_DONTWAIT);
	assert_true(n >= 0);
	return n;
}

static inline int raw_pending(struct dp_udp *u)
{
	struct pollfd p = { .fd = u->fd, .events = POLLIN };

	return poll(&p, 1, 50);
}
