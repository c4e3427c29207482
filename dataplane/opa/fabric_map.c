/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "dataplane/opa/fabric_map.h"

/* While building: one (lid, address) pair per add, in the order added. */
struct pair {
	uint32_t lid;
	uint32_t seq;	/* keeps a LID's addresses in the order given */
	struct dp_udp_addr addr;
};

struct opa_fabric_map {
	uint32_t own_lid;
	struct dp_udp_addr own_addr;
	bool sealed;
	struct pair *pairs;
	size_t n_pairs, cap_pairs;
	/* Sealed: routes sorted by LID, their addresses one array. */
	struct opa_fabric_route *routes;
	size_t n_routes;
	struct dp_udp_addr *addrs;
};

struct opa_fabric_map *opa_fabric_map_new(uint32_t own_lid, const struct dp_udp_addr *own_addr)
{
	struct opa_fabric_map *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->own_lid = own_lid;
	m->own_addr = *own_addr;
	return m;
}

int opa_fabric_map_add(struct opa_fabric_map *m, uint32_t lid, const struct dp_udp_addr *addr)
{
	size_t i;

	if (m->sealed)
		return -EPERM;
	if (!lid || lid > OPA_LID_MAX)
		return -EINVAL;
	if (addr->sa.sa_family != AF_INET && addr->sa.sa_family != AF_INET6)
		return -EINVAL;
	/* Quadratic, but only while the driver builds a map from its configuration. */
	for (i = 0; i < m->n_pairs; i++)
		if (m->pairs[i].lid == lid && dp_udp_addr_equal(&m->pairs[i].addr, addr))
			return -EEXIST;
	if (m->n_pairs == m->cap_pairs) {
		size_t cap = m->cap_pairs ? 2 * m->cap_pairs : 16;
		struct pair *p = realloc(m->pairs, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		m->pairs = p;
		m->cap_pairs = cap;
	}
	m->pairs[m->n_pairs] = (struct pair){ .lid = lid, .seq = m->n_pairs, .addr = *addr };
	m->n_pairs++;
	return 0;
}

static int pair_cmp(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	if (x->lid != y->lid)
		return x->lid < y->lid ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int opa_fabric_map_seal(struct opa_fabric_map *m)
{
	size_t i, n_addrs = 0;

	if (m->sealed)
		return 0;
	if (m->n_pairs)	/* an empty map has no array to sort */
		qsort(m->pairs, m->n_pairs, sizeof(*m->pairs), pair_cmp);
	m->routes = calloc(m->n_pairs ? m->n_pairs : 1, sizeof(*m->routes));
	m->addrs = calloc(m->n_pairs ? m->n_pairs : 1, sizeof(*m->addrs));
	if (!m->routes || !m->addrs) {
		free(m->routes);
		free(m->addrs);
		m->routes = NULL;
		m->addrs = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < m->n_pairs; i++) {
		const struct pair *p = &m->pairs[i];
		struct opa_fabric_route *r;

		if (!m->n_routes || m->routes[m->n_routes - 1].lid != p->lid) {
			r = &m->routes[m->n_routes++];
			r->lid = p->lid;
			r->addrs = &m->addrs[n_addrs];
		}
		r = &m->routes[m->n_routes - 1];
		if (dp_udp_addr_equal(&p->addr, &m->own_addr))
			continue;
		m->addrs[n_addrs++] = p->addr;
		r->n++;
	}
	free(m->pairs);
	m->pairs = NULL;
	m->n_pairs = m->cap_pairs = 0;
	m->sealed = true;
	return 0;
}

const struct opa_fabric_route *opa_fabric_map_lookup(const struct opa_fabric_map *m, uint32_t lid)
{
	size_t lo = 0, hi = m->n_routes;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint32_t x = m->routes[mid].lid;

		if (x == lid)
			return &m->routes[mid];
		if (x < lid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

uint32_t opa_fabric_map_own_lid(const struct opa_fabric_map *m)
{
	return m->own_lid;
}

const struct dp_udp_addr *opa_fabric_map_own_addr(const struct opa_fabric_map *m)
{
	return &m->own_addr;
}

size_t opa_fabric_map_count(const struct opa_fabric_map *m)
{
	return m->n_routes;
}

const struct opa_fabric_route *opa_fabric_map_route(const struct opa_fabric_map *m, size_t i)
{
	return i < m->n_routes ? &m->routes[i] : NULL;
}

void opa_fabric_map_free(struct opa_fabric_map *m)
{
	if (!m)
		return;
	free(m->pairs);
	free(m->routes);
	free(m->addrs);
	free(m);
}
