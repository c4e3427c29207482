/* SPDX-License-Identifier: MIT */
/*
 * The key table the workers read: what an lkey, an rkey or an MKEY names,
 * resolved by the worker that executes the request, against the PD of the QP
 * that executes it (as a NIC reads its memory-key context table).
 *
 * A key is index << 8 | tag; the table has one fixed slot per index (MR
 * indexes from 0, MKEY indexes from DP_MKEY_INDEX_BASE) holding an immutable
 * entry whose key carries the tag, so a stale key (old tag) finds nothing.
 * The driver (main thread) changes a slot by publishing a new entry; the entry
 * it replaces is freed only once every worker has passed a barrier, so a
 * worker that loaded it during its turn never reads freed memory.
 */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "dataplane/wqe.h"

/* The first index of MKEY keys: MR keys are below it, so a key names one object of either. */
#define DP_MKEY_INDEX_BASE (1u << 23)

/* Access bits, numbered as the RFC and IBV_ACCESS_* both number them. */
#define DP_ACCESS_LOCAL_WRITE  (1u << 0)
#define DP_ACCESS_REMOTE_WRITE (1u << 1)
#define DP_ACCESS_REMOTE_READ  (1u << 2)

enum dp_key_kind {
	DP_KEY_MR = 1,    /* memory of its own */
	DP_KEY_DMA,       /* GET_DMA_MR: the iovas of the MRs with memory of its PD */
	DP_KEY_MKEY,      /* an indirect MKEY (dataplane/mkey.h) */
};

struct dp_mkey;

/*
 * Memory a DMA key reaches by address, when it is not the MRs of its PD: a
 * virtual machine's, whose guest physical addresses [iova, iova + length)
 * are the bytes from addr on (docs/decisions.md, "A VM's RoCE device").
 */
struct dp_dma_window {
	uint64_t iova, length;
	uint8_t *addr;
};

#define DP_DMA_WINDOWS_MAX 8

struct dp_key {
	uint32_t key;             /* index << 8 | tag */
	enum dp_key_kind kind;
	uint32_t pd;
	uint32_t access;          /* DP_ACCESS_*; local read is implied */
	bool rkey;                /* the key is also an rkey (remote access was granted) */
	bool dma_target;          /* DP_KEY_MR: memory rdmad allocated, which DMA MRs reach */
	/* MR: iovas [iova, iova + length) are the bytes from addr on. */
	uint64_t iova, length;
	uint8_t *addr;
	struct dp_mkey *mkey;     /* DP_KEY_MKEY */
	/* DP_KEY_DMA: the windows it reaches (n_windows > 0), else the MRs of its PD. */
	unsigned n_windows;
	struct dp_dma_window windows[DP_DMA_WINDOWS_MAX];
	bool remote_invalidate;   /* a SEND_WITH_INV may invalidate it (an MKEY's flag) */
	/* A LOCAL_INV or SEND_WITH_INV made it free: it names nothing until the driver publishes anew. */
	_Atomic bool invalid;
	struct dp_key *retired_next;   /* driver only */
	/*
	 * Published by a worker (dp_keytab_publish): the entry it replaced,
	 * which the driver frees after the barrier (dp_keytab_retire).
	 */
	_Atomic(struct dp_key *) replaced;
};

struct dp_worker;

struct dp_keytab {
	uint32_t n_mr, n_mkey;    /* slots of each range */
	_Atomic(struct dp_key *) *slots;
	/* Driver only: the workers that must pass a barrier before an entry is freed. */
	struct dp_worker **workers;
	unsigned n_workers;
	void (*free_entry)(struct dp_key *k);   /* frees what the entry holds (an MKEY context) */
};

int dp_keytab_init(struct dp_keytab *kt, uint32_t n_mr, uint32_t n_mkey);
/* Every entry is freed: no worker may read the table any more. */
void dp_keytab_release(struct dp_keytab *kt);
/* Driver: the workers that read the table (entries go only once each passed a barrier). */
void dp_keytab_set_workers(struct dp_keytab *kt, struct dp_worker **workers, unsigned n);

/*
 * Driver: k (malloc'ed, owned by the table from now on) replaces the slot of
 * k->key; the entry it replaces, if any, is freed once every worker passed a
 * barrier, before this returns.  -EINVAL when the key has no slot.
 */
int dp_keytab_set(struct dp_keytab *kt, struct dp_key *k);
/* Driver: the slot of key is empty from now on; its entry freed as above. */
void dp_keytab_clear(struct dp_keytab *kt, uint32_t key);

/*
 * Worker (a configure WR, in order with the WQEs around it): k, built by the
 * driver, replaces the slot of k->key at once.  The worker frees nothing:
 * the entry replaced is left in k->replaced for dp_keytab_retire.
 */
int dp_keytab_publish(struct dp_keytab *kt, struct dp_key *k);
/* Driver: k, published by a worker, is in its slot; the entry it replaced is freed as above. */
void dp_keytab_retire(struct dp_keytab *kt, struct dp_key *k);
/* Driver: whether k is the entry in its slot now (invalidated or not). */
bool dp_keytab_holds(const struct dp_keytab *kt, const struct dp_key *k);

/* Worker (or driver): the entry of key, or NULL for a key of nothing (stale tag, empty slot, invalidated). */
const struct dp_key *dp_keytab_get(const struct dp_keytab *kt, uint32_t key);

/*
 * Worker: the key goes to the free state (IBV_WR_LOCAL_INV, or a
 * SEND_WITH_INV's at the responder: remote).  The key must name an MR or an
 * MKEY of pd (remote: an MKEY created with remote_invalidate); -EPERM
 * otherwise, and nothing changes.
 */
int dp_keytab_invalidate(const struct dp_keytab *kt, uint32_t key, uint32_t pd, bool remote);

/*
 * Worker: the bytes [addr, addr + length) reached through an lkey (remote
 * false) or an rkey, checked as a NIC checks them: key of an MR, PD, every
 * bit of access granted, range inside the MR (a DMA MR: inside one of its
 * windows, or one MR with memory of its PD).  NULL when any check fails.
 */
uint8_t *dp_keytab_resolve(const struct dp_keytab *kt, uint32_t key, bool remote, uint32_t pd,
			   uint32_t access, uint64_t addr, uint64_t length);
