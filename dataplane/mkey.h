/* SPDX-License-Identifier: MIT */
/*
 * The NIC's context of an indirect MKEY: what a worker needs to move bytes
 * through it, built by the driver at each configure and published in the key
 * table (dataplane/keytab.h), never changed afterwards.  Its layout names
 * memory by address (the MRs it covers cannot go while the MKEY uses them);
 * its transform exists once per worker, since a transform keeps state while
 * it runs and QPs on several workers may go through one MKEY at once.
 *
 * Lengths and offsets of a transfer count wire bytes; the span is the
 * memory-domain bytes they stand for (reference mlx5_sig_crypto.md §2).
 */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dataplane/offload/transform.h"

/*
 * Bytes one transfer through an MKEY carries at most, here and through
 * io.rdmad.Mkey's tx and rx (the driver's RDMA_MKEY_TRANSFER_MAX is this).
 */
#define DP_MKEY_TRANSFER_MAX (32u << 20)

/*
 * What one thread counted of an MKEY's transfers: one per worker, on a line
 * of its own and written by that worker alone (no locked add on the data
 * path), kept by the driver across configures (the context is rebuilt).
 */
struct dp_mkey_counters {
	_Alignas(64) _Atomic uint64_t transfers;
	/* By enum dp_sig_err_type (0 unused): the API reports them by type, as the QP counters. */
	_Atomic uint64_t sig_errors[DP_SIG_ERR_APPTAG + 1];
};

/*
 * One layout entry: length bytes from addr (list), or in each round of an
 * interleaved layout, length bytes, then on by length + skip.
 */
struct dp_mkey_entry {
	uint8_t *addr;
	uint64_t length;
	uint64_t skip;
};

/* A worker's last wire length and the memory length it stands for: a WR's length repeats. */
struct dp_mkey_length_seen {
	_Alignas(64) uint64_t wire;
	uint64_t mem;
};

struct dp_mkey {
	uint32_t pd;
	uint32_t access;          /* DP_ACCESS_* */
	bool usable;              /* configured, with a layout and what its flags need */
	uint32_t rounds;          /* 1 for a list layout, repeat_count for an interleaved one */
	uint16_t n_entries;
	struct dp_mkey_entry *entries;
	uint64_t length;          /* memory-domain bytes of the layout */
	/* One per worker (index = worker); NULL when there is neither signature nor crypto. */
	struct dp_transform **transforms;
	unsigned n_transforms;
	struct dp_mkey_counters *counters;   /* one per worker (the driver's), n_counters of them */
	unsigned n_counters;
	struct dp_mkey_length_seen *seen;     /* one per worker, n_counters of them (the context's) */
};

/* A context for n_workers workers, zeroed but for what each worker keeps of its own; NULL: no memory. */
struct dp_mkey *dp_mkey_new(unsigned n_workers);

/* The memory-domain bytes a transfer through an MKEY covers. */
struct dp_mkey_span {
	const struct dp_mkey *mkey;
	uint64_t mem_offset;
	uint64_t mem_length;
};

/* Frees the context, its entries and its transforms. */
void dp_mkey_free(struct dp_mkey *m);

/*
 * Memory-domain bytes of wire_length wire bytes, or -EINVAL when they do not
 * map (reference §2.1: they end inside a wire field, or break the XTS job
 * size); worker: who asks (it keeps its last answer).
 */
int dp_mkey_mem_length(const struct dp_mkey *m, unsigned worker, uint64_t wire_length,
		       uint64_t *mem_length);

/*
 * The span of wire_length bytes from wire_offset, through the MKEY on PD pd
 * granting access; -EPERM (not usable, other PD, access missing) or -EINVAL
 * (lengths that do not map, past the layout, more than max_length) otherwise.
 */
int dp_mkey_span(const struct dp_mkey *m, unsigned worker, uint32_t pd, uint32_t access,
		 uint64_t wire_offset, uint64_t wire_length, uint64_t max_length, struct dp_mkey_span *out);

/* The span's memory when it is one piece, else NULL. */
uint8_t *dp_mkey_span_addr(const struct dp_mkey_span *s);
/* Copies the span's memory out of the layout into out, or in from in. */
void dp_mkey_gather(const struct dp_mkey_span *s, uint8_t *out);
void dp_mkey_scatter(const struct dp_mkey_span *s, const uint8_t *in);

/*
 * Worker worker runs the MKEY's transform (tx: memory -> wire; rx: wire ->
 * memory), or copies when it has none; *xfer is this transfer's signature
 * error (type NONE if none).  Counted in the worker's counters of the MKEY.
 */
int dp_mkey_run(const struct dp_mkey *m, unsigned worker, enum dp_dir dir, const uint8_t *in,
		size_t in_len, uint8_t *out, size_t out_len, struct dp_sig_err *xfer);
