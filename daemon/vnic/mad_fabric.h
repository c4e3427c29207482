/* SPDX-License-Identifier: MIT */
/*
 * The MAD transport over the software fabric (docs/opa-fabric.md): MADs go out as 9B packets
 * by the fabric map; MADs the fabric's worker received wait in the fabric's queue until the
 * driver, on the worker event whose type it gave the fabric (cookie = the fabric), calls
 * mad_fabric_dispatch(), which hands each to t->recv on the main thread.
 */
#pragma once

#include "daemon/vnic/mad_transport.h"

struct opa_fabric;

/* A transport over fab (not owned: the driver frees the fabric after the transport). */
int mad_fabric_open(struct mad_transport **out, struct opa_fabric *fab, mad_recv_fn recv,
		    void *userdata);

/*
 * Main thread: delivers what waits, at most a queue's worth per call so that a flood cannot
 * hold the event loop (the fabric's worker emits a new event for what arrives after).
 */
unsigned mad_fabric_dispatch(struct mad_transport *t);

/* The fabric under t (to match a worker event's cookie). */
struct opa_fabric *mad_fabric_of(struct mad_transport *t);
