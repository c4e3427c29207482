/* SPDX-License-Identifier: MIT */
/*
 * A loop for the library's data-path tests: one context with a PD, a CQ
 * (optionally on a completion channel), 16 KiB of registered memory and two
 * RC QPs connected to each other in RTS.
 */
#pragma once

#include <rdmad/rdmad.h>
#include <stddef.h>
#include <stdint.h>

struct loop {
	struct rdmad_context *ctx;
	struct rdmad_pd *pd;
	struct rdmad_comp_channel *channel;   /* set before loop_open to have the CQ on it */
	struct rdmad_cq *cq;
	struct rdmad_qp *a, *b;
	uint8_t *buf;
	struct rdmad_mr *mr;
};

#define LOOP_BYTES (4 * 4096)

/* An RC or UD QP of the loop's PD completing into its CQ (8 WRs each way, 2 send SGEs, 64 inline bytes). */
struct rdmad_qp *loop_new_qp(struct loop *l, uint8_t type);
/* Through INIT and RTR to RTS, connected to QP peer on the same rdmad. */
void loop_to_rts(struct rdmad_qp *qp, uint32_t peer);
/* The same, with the RNR NAK timer code the QP answers with as responder. */
void loop_to_rts_rnr(struct rdmad_qp *qp, uint32_t peer, uint8_t min_rnr_timer);
void loop_open(struct loop *l);
/* The next completion, waiting for it (up to 2 s). */
struct rdmad_wc loop_next_wc(struct rdmad_cq *cq);
/* length bytes of the loop's memory at offset. */
struct rdmad_sge loop_sge(struct loop *l, size_t offset, uint32_t length);
