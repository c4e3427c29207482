/* SPDX-License-Identifier: MIT */
/*
 * The software fabric under an OPA port (docs/opa-fabric.md): the map from
 * rdmad.conf, the socket on a worker, MADs to the main thread.  vnic.c's.
 */
#pragma once

#include "daemon/vnic/vnic.h"

/* The fabric of fc on one of s's workers, and the MAD transport over it (on_mad receives). */
int vnic_fabric_open(struct vnic_service *s, const struct rdmad_fabric_config *fc,
		     mad_recv_fn on_mad);
