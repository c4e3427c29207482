/* SPDX-License-Identifier: MIT */
/* The software fabric under an OPA port: its map, its socket on a worker, its MADs. */
#include "daemon/vnic/vnic_fabric.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "daemon/soft/workers.h"
#include "daemon/vnic/mad_fabric.h"
#include "lib/log.h"

static void on_fabric_mads(struct dp_worker *w, const struct dp_event *ev, void *userdata)
{
	struct vnic_service *s = userdata;

	if (s->mad && (void *)(uintptr_t)ev->cookie == s->fabric)
		mad_fabric_dispatch(s->mad);
}

static int build_map(const struct rdmad_fabric_config *fc, const struct dp_udp_addr *own,
		     struct opa_fabric_map **out, char *err, size_t err_size)
{
	struct opa_fabric_map *map = opa_fabric_map_new(fc->lid, own);
	int r = 0;

	if (!map)
		return -ENOMEM;
	for (unsigned i = 0; i < fc->n_nodes && r >= 0; i++)
		for (unsigned j = 0; j < fc->nodes[i].n_addrs && r >= 0; j++) {
			struct dp_udp_addr a;
			const char *why;

			r = dp_udp_addr_parse(fc->nodes[i].addrs[j], RDMAD_FABRIC_PORT_DEFAULT, &a,
					      &why);
			if (r >= 0)
				r = opa_fabric_map_add(map, fc->nodes[i].lid, &a);
			if (r == -EEXIST)
				r = 0;
			if (r < 0)
				snprintf(err, err_size, "fabric_node.%u: %s: %s", fc->nodes[i].lid,
					 fc->nodes[i].addrs[j], strerror(-r));
		}
	if (r >= 0)
		r = opa_fabric_map_seal(map);
	if (r < 0) {
		opa_fabric_map_free(map);
		return r;
	}
	*out = map;
	return 0;
}

int vnic_fabric_open(struct vnic_service *s, const struct rdmad_fabric_config *fc,
		     mad_recv_fn on_mad)
{
	struct opa_fabric_config cfg = { .lid = fc->lid, .mad_event = WORKER_EVENT_FABRIC_MADS };
	struct opa_fabric_map *map;
	const char *why;
	char err[256];
	int r;

	r = dp_udp_addr_parse(fc->address[0] ? fc->address : "0.0.0.0", RDMAD_FABRIC_PORT_DEFAULT,
			      &cfg.addr, &why);
	if (r < 0)
		return log_error_errno(r, "fabric_address: %s", why);
	r = build_map(fc, &cfg.addr, &map, err, sizeof(err));
	if (r < 0)
		return log_error_errno(r, "fabric map: %s", err);
	r = opa_fabric_new(&s->fabric, &cfg, map);
	if (r < 0) {
		opa_fabric_map_free(map);
		return log_error_errno(r, "cannot open the fabric's socket at %s",
				       fc->address[0] ? fc->address : "0.0.0.0:4795");
	}
	s->fabric_worker = worker_set_pick(s->env.workers);
	r = worker_set_on_event(s->env.workers, WORKER_EVENT_FABRIC_MADS, on_fabric_mads, s);
	if (r < 0)
		return r;
	dp_worker_submit_wait(s->fabric_worker, opa_fabric_attach, s->fabric);
	dp_worker_barrier(s->fabric_worker);
	r = opa_fabric_attach_error(s->fabric);
	if (r < 0)
		return log_error_errno(r, "the fabric's worker cannot watch its socket");
	return mad_fabric_open(&s->mad, s->fabric, on_mad, s);
}

int vnic_service_reload(struct vnic_service *s, const struct rdmad_fabric_config *fc, char *err,
			size_t err_size)
{
	struct opa_fabric_map *map, *old;
	int r;

	if (!s->fabric)
		return 0;
	r = build_map(fc, opa_fabric_local_addr(s->fabric), &map, err, err_size);
	if (r < 0)
		return r;
	old = opa_fabric_publish_map(s->fabric, map);
	/* The map is read by the fabric's worker and every port's. */
	for (unsigned i = 0; i < s->env.workers->n; i++)
		dp_worker_barrier(&s->env.workers->workers[i]);
	opa_fabric_map_free(old);
	return 0;
}
