/* SPDX-License-Identifier: MIT */
/*
 * MKEY pools, SPDK's design (reference mlx5_sig_crypto.md §6.1): MKEYs of one
 * kind (signature, crypto or both) created in advance on one PD, borrowed and
 * returned, with counters.  A borrowed MKEY belongs to its borrower (a varlink
 * connection, opaque here) until returned; whatever a borrower still holds is
 * returned when it goes away.  A returned MKEY is invalidated (free again, its
 * layout, signature and crypto gone), so the next borrower starts clean and
 * the MRs and DEK it used are no longer held.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "daemon/verbs/device.h"
#include "daemon/verbs/mkey.h"

#define RDMA_POOL_NAME_MAX 64
/* SPDK creates its pool MKEYs with 128 translation entries. */
#define RDMA_POOL_DEFAULT_ENTRIES 128

struct rdma_pool {
	struct rdma_object obj;   /* handle = pool number; refs: its PD */
	struct rdma_device *dev;
	char name[RDMA_POOL_NAME_MAX];
	uint32_t mkey_flags;      /* RDMA_MKEY_BLOCK_SIGNATURE and/or RDMA_MKEY_CRYPTO */
	uint16_t max_entries;     /* of each MKEY, rounded as rdma_mkey_create does */
	struct rdma_object *pd;
	bool own_pd;              /* created with the pool (no PD given), destroyed with it */
	struct rdma_mkey **mkeys;
	uint32_t size;
	uint32_t borrowed;
	uint32_t high_water;      /* most MKEYs borrowed at once */
	uint64_t borrows, returns, borrow_failures;
};

static inline struct rdma_pool *rdma_pool(struct rdma_object *obj)
{
	return (struct rdma_pool *)obj;
}

const char *rdma_pool_name(const struct rdma_pool *pool);
/* "signature", "crypto", "signature+crypto"; and back (0 for an unknown word). */
const char *rdma_pool_type_name(uint32_t mkey_flags);
uint32_t rdma_pool_type_flags(const char *name);
uint32_t rdma_pool_available(const struct rdma_pool *pool);

/*
 * size MKEYs of mkey_flags with max_entries entries each, on pd; pd 0: a PD of
 * the pool's own.  All or nothing.
 */
int rdma_pool_create(struct rdma_device *dev, const char *name, uint32_t mkey_flags, uint32_t size,
		     uint32_t pd, uint32_t max_entries, struct rdma_pool **out, struct rdma_error *err);
/* The pool named name, or NULL with NoSuchObject (handle 0: pools are named). */
struct rdma_pool *rdma_pool_find(struct rdma_device *dev, const char *name, struct rdma_error *err);
/* Creates or destroys available MKEYs; never below what is borrowed. */
int rdma_pool_resize(struct rdma_device *dev, struct rdma_pool *pool, uint32_t size,
		     struct rdma_error *err);
/* Refused (ObjectInUse naming one) while MKEYs are borrowed, unless force. */
int rdma_pool_destroy(struct rdma_device *dev, struct rdma_pool *pool, bool force,
		      struct rdma_error *err);

/* One available MKEY for owner; InvalidState (counted in borrow_failures) when none is. */
int rdma_pool_borrow(struct rdma_pool *pool, const void *owner, struct rdma_mkey **out,
		     struct rdma_error *err);
/*
 * Gives back an MKEY owner borrowed; refused (ObjectInUse) while posted WRs
 * go through it.  One whose owner goes away with WRs posted through it is
 * given back once they are retired.
 */
int rdma_pool_return(struct rdma_mkey *mkey, const void *owner, struct rdma_error *err);
/* Gives back the MKEYs whose owner went away, now that no posted WR goes through them. */
void rdma_pool_reap(struct rdma_pool *pool);
/* Gives back every MKEY owner holds on dev; how many. */
unsigned rdma_pool_return_all(struct rdma_device *dev, const void *owner);
