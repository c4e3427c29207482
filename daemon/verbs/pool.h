/* SPDX-License-Identifier: MIT */
/*
 * MKEY pools, SPDK's design (reference mlx5_sig_crypto.md §6.1): MKEYs of one
 * kind (signature, crypto or both) created in advance on one PD, borrowed and
 * returned, with counters.  A borrowed MKEY belongs to its borrower until
 * returned: a varlink connection (opaque here), whose MKEYs are returned when
 * it goes away, or an owner name, which outlives connections and is returned
 * only explicitly (not a restart either: nothing is borrowed after one, see
 * docs/decisions.md, "Pool borrows by owner name").  A returned MKEY is
 * invalidated (free again, its layout, signature and crypto gone), so the
 * next borrower starts clean and the MRs and DEK it used are no longer held.
 *
 * Pools are persistent, and a change to one (create, resize, destroy) is made
 * in two steps: the change itself leaves the pool pending, and once the state
 * file holding it is durable the change is settled (rdma_pool_settle), or, if
 * the file could not be written, undone (rdma_pool_undo).  Undoing never
 * needs a resource that could be missing: what a pending change would free is
 * kept until it settles, and what it added is not lent before.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "daemon/verbs/device.h"
#include "daemon/verbs/lend.h"
#include "daemon/verbs/mkey.h"

#define RDMA_POOL_NAME_MAX 64
/* An owner name of a borrow, with its NUL. */
#define RDMA_POOL_OWNER_MAX 64
/* SPDK creates its pool MKEYs with 128 translation entries. */
#define RDMA_POOL_DEFAULT_ENTRIES 128

/* A change not yet durable (see above). */
enum rdma_pool_pending {
	RDMA_POOL_SETTLED,
	RDMA_POOL_CREATING,       /* undo: the pool goes */
	RDMA_POOL_RESIZING,       /* undo: back to settled_size */
	RDMA_POOL_DESTROYING,     /* lends nothing; goes once settled, stays if undone */
	RDMA_POOL_LENDING,        /* its allow list changes (allow.next); lends as before meanwhile */
};

struct rdma_pool {
	struct rdma_object obj;   /* handle = pool number; refs: its PD */
	struct rdma_device *dev;
	char name[RDMA_POOL_NAME_MAX];
	uint32_t mkey_flags;      /* RDMA_MKEY_BLOCK_SIGNATURE and/or RDMA_MKEY_CRYPTO */
	uint16_t max_entries;     /* of each MKEY, rounded as rdma_mkey_create does */
	struct rdma_object *pd;
	bool own_pd;              /* created with the pool (no PD given), destroyed with it */
	struct rdma_mkey **mkeys;
	uint32_t size;            /* MKEYs in the pool: mkeys[0 .. size) */
	/* MKEYs allocated: size, and after it those a pending shrink frees once it settles. */
	uint32_t n_mkeys;
	/* Borrow takes from mkeys[0 .. lendable): those a pending resize keeps either way. */
	uint32_t lendable;
	enum rdma_pool_pending pending;
	uint32_t settled_size;    /* the size before a pending resize */
	uint32_t borrowed;
	uint32_t high_water;      /* most MKEYs borrowed at once */
	uint64_t borrows, returns, borrow_failures;
	struct rdma_lend allow;   /* who besides root may borrow */
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
 * the pool's own.  All or nothing.  The pool is pending (RDMA_POOL_CREATING):
 * it lends nothing before it settles.  A name taken by a pool being destroyed
 * is refused with InvalidState until that settles.
 */
int rdma_pool_create(struct rdma_device *dev, const char *name, uint32_t mkey_flags, uint32_t size,
		     uint32_t pd, uint32_t max_entries, struct rdma_pool **out, struct rdma_error *err);
/* The pool named name, or NULL with NoSuchObject (handle 0: pools are named). */
struct rdma_pool *rdma_pool_find(struct rdma_device *dev, const char *name, struct rdma_error *err);
/*
 * Creates or destroys available MKEYs; never below what is borrowed.  The
 * pool has its new size at once, pending (RDMA_POOL_RESIZING) unless the size
 * did not change: MKEYs added are lent once it settles, MKEYs removed are
 * freed then.  Only for a settled pool.
 */
int rdma_pool_resize(struct rdma_device *dev, struct rdma_pool *pool, uint32_t size,
		     struct rdma_error *err);
/*
 * Refused (ObjectInUse naming one) while MKEYs are borrowed, unless force, or
 * while posted WRs go through one.  The pool is then pending
 * (RDMA_POOL_DESTROYING): it lends nothing and goes once it settles.  A forced
 * destroy takes the borrowed MKEYs back at once (invalidated, as on Return),
 * so that nothing can start using them.  Only for a settled pool.
 */
int rdma_pool_destroy(struct rdma_device *dev, struct rdma_pool *pool, bool force,
		      struct rdma_error *err);
/* allow becomes the pool's list once saved (RDMA_POOL_LENDING meanwhile).  Only for a settled pool. */
int rdma_pool_lend(struct rdma_pool *pool, const struct rdma_lend_policy *allow, struct rdma_error *err);
/*
 * Whether caller may borrow from the pool (root may; NULL: the daemon
 * itself).  InvalidState on "name", naming the pool and the caller and what
 * root runs to allow them: pools are no secret (group rdma lists them).
 */
int rdma_pool_check_caller(const struct rdma_pool *pool, const struct rdma_lend_caller *caller,
			   struct rdma_error *err);
/*
 * The pool's pending change is durable: it holds (a destroyed pool is freed
 * here, with its own PD unless something else uses that).
 */
void rdma_pool_settle(struct rdma_device *dev, struct rdma_pool *pool);
/* The pool's pending change could not be saved: the pool is as it was before (or gone, if new). */
void rdma_pool_undo(struct rdma_device *dev, struct rdma_pool *pool);

/*
 * One available MKEY, held by connection conn, or when owner is not NULL by
 * that owner name (1 to RDMA_POOL_OWNER_MAX - 1 letters, digits, '_', '.',
 * '-', '@', ':'; InvalidArgument "owner" otherwise).  InvalidState (counted in
 * borrow_failures) when none is available, and InvalidState (not counted)
 * while the pool is being created or destroyed.
 */
int rdma_pool_borrow(struct rdma_pool *pool, const void *conn, const char *owner,
		     struct rdma_mkey **out, struct rdma_error *err);
/*
 * Gives back an MKEY borrowed by conn (owner NULL) or under owner, from any
 * connection; refused with InvalidState naming "handle" or "owner" for
 * another holder, and with ObjectInUse while posted WRs go through it.  One
 * whose connection goes away with WRs posted through it is given back once
 * they are retired.
 */
int rdma_pool_return(struct rdma_mkey *mkey, const void *conn, const char *owner,
		     struct rdma_error *err);
/* Who holds a borrowed MKEY, for the API to describe. */
enum rdma_pool_holder {
	RDMA_POOL_HOLDER_NONE,        /* in the pool */
	RDMA_POOL_HOLDER_CONNECTION,  /* mkey->borrower is the connection */
	RDMA_POOL_HOLDER_OWNER,       /* mkey->owner is the name */
	RDMA_POOL_HOLDER_DRAINING,    /* its connection went away; back once its WRs retire */
};
enum rdma_pool_holder rdma_pool_holder(const struct rdma_mkey *mkey);
/* Gives back the MKEYs whose owner went away, now that no posted WR goes through them. */
void rdma_pool_reap(struct rdma_pool *pool);
/* Gives back every MKEY connection conn holds on dev (not those under owner names); how many. */
unsigned rdma_pool_return_all(struct rdma_device *dev, const void *conn);
