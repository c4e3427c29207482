/* SPDX-License-Identifier: MIT */
/*
 * What the NIC's fuzz targets share: a NIC on one worker without a thread,
 * whose turns the target runs itself (commands, then every poller), and one
 * MR of 64 KiB at MR_IOVA with local and remote access in PD 1, whose bytes
 * are mem (ASan watches every access outside them).  Each target includes
 * it once: the statics are that program's.
 */
#pragma once

#include "dataplane/engine/engine.h"
#include "dataplane/loopback/loopback.h"

#include <stdlib.h>

#define PD        1
#define MR_KEY    (1u << 8 | 0x5a)
#define MR_IOVA   0x10000u
#define MR_BYTES  65536
#define ACCESS    (DP_ACCESS_LOCAL_WRITE | DP_ACCESS_REMOTE_WRITE | DP_ACCESS_REMOTE_READ)

static struct dp_worker worker, *workers[1] = { &worker };
static struct dp_nic nic;
static uint8_t *mem;

static void turns(unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		dp_worker_run_commands(&worker);
		for (unsigned p = 0; p < worker.n_pollers; p++)
			worker.pollers[p].fn(&worker, worker.pollers[p].arg);
	}
}

/* The worker, the NIC (16 QP numbers) and the MR; aborts when any cannot be made. */
static void nic_fixture_setup(void)
{
	struct dp_key *k = calloc(1, sizeof(*k));

	mem = calloc(1, MR_BYTES);
	if (!k || !mem || dp_worker_init(&worker, 0, -1) || dp_nic_init(&nic, workers, 1, 4, 4, 16) ||
	    dp_loopback_open(&nic))
		abort();
	*k = (struct dp_key){ .key = MR_KEY, .kind = DP_KEY_MR, .pd = PD, .access = ACCESS, .rkey = true,
			      .iova = MR_IOVA, .length = MR_BYTES, .addr = mem };
	if (dp_keytab_set(&nic.keytab, k))
		abort();
}

/* q on the worker, through RTR to RTS with attr (its state is set here); aborts when refused. */
static void nic_fixture_to_rts(struct dp_qp *q, struct dp_qp_attr *attr)
{
	dp_qp_attach(q, &worker);
	attr->state = DP_QPS_RTR;
	if (dp_qp_update(q, attr))
		abort();
	attr->state = DP_QPS_RTS;
	if (dp_qp_update(q, attr))
		abort();
	turns(1);
}
