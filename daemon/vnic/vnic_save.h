/* SPDX-License-Identifier: MIT */
/*
 * The Ethernet Manager's Sets answered once durable: a Set that changed what
 * vnic.json keeps is answered only when the committer said the file holding it
 * is durable (vnic_service_saved()), and undone if it could not be written.
 * Sets that come while some wait are held, and run once those are settled,
 * together: each write carries every Set that came during the last, and the
 * GetResps leave in the order the Sets came.  Main thread only.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/vnic/mad_transport.h"
#include "daemon/vnic/vema.h"

struct vnic_service;

/* Sets held while others wait, at most: a manager sending more is not waiting for replies. */
#define VNIC_SETS_HELD_MAX	256

/* A MAD kept: a Set held for later (from addr), then its reply (to addr). */
struct vnic_mad {
	struct vnic_mad *next;
	struct mad_addr addr;
	size_t len;
	uint8_t bytes[VEMA_MAD_LEN];
};

struct vnic_save {
	bool waiting;                          /* the replies wait for the committer */
	struct vnic_mad *replies, **replies_tail;  /* the Sets of the next or current write */
	struct vnic_mad *held, **held_tail;        /* Sets that came while the replies waited */
	unsigned n_held;
	/* What the Sets of the replies found, to undo them: ClassPortInfo and each vport they
	 * address (kept, and before[i] NULL if it was absent). */
	bool cpi_kept;
	uint8_t cpi[VEMA_CPI_LEN];
	bool kept[VNIC_MAX_VPORTS];
	struct vema_vport_state *before[VNIC_MAX_VPORTS];
};

void vnic_save_init(struct vnic_save *sv);
/* Drops what waits, unanswered (the committer must not call back any more). */
void vnic_save_fini(struct vnic_save *sv);
/* A Set MAD from the manager: run and answered, or kept for the disk, or held. */
void vnic_save_set(struct vnic_service *s, const struct mad_addr *from, const uint8_t *mad,
		   size_t len);
