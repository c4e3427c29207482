/* SPDX-License-Identifier: MIT */
#include "dataplane/keytab.h"
#include "dataplane/worker.h"

#include <errno.h>
#include <stdlib.h>

/* The slot of key, or -1 when its index is in neither range. */
static int64_t slot_of(const struct dp_keytab *kt, uint32_t key)
{
	uint32_t index = key >> 8;

	if (index < kt->n_mr)
		return index;
	if (index >= DP_MKEY_INDEX_BASE && index - DP_MKEY_INDEX_BASE < kt->n_mkey)
		return (int64_t)kt->n_mr + (index - DP_MKEY_INDEX_BASE);
	return -1;
}

int dp_keytab_init(struct dp_keytab *kt, uint32_t n_mr, uint32_t n_mkey)
{
	*kt = (struct dp_keytab){ .n_mr = n_mr, .n_mkey = n_mkey };
	kt->slots = calloc((size_t)n_mr + n_mkey, sizeof(*kt->slots));
	return kt->slots ? 0 : -ENOMEM;
}

static void entry_free(struct dp_keytab *kt, struct dp_key *k)
{
	/* What a worker's publish left: nobody holds it once the table itself goes. */
	if (k)
		entry_free(kt, atomic_exchange_explicit(&k->replaced, NULL, memory_order_acq_rel));
	if (k && kt->free_entry)
		kt->free_entry(k);
	free(k);
}

void dp_keytab_release(struct dp_keytab *kt)
{
	for (uint64_t i = 0; kt->slots && i < (uint64_t)kt->n_mr + kt->n_mkey; i++)
		entry_free(kt, atomic_load_explicit(&kt->slots[i], memory_order_relaxed));
	free(kt->slots);
	kt->slots = NULL;
}

void dp_keytab_set_workers(struct dp_keytab *kt, struct dp_worker **workers, unsigned n)
{
	kt->workers = workers;
	kt->n_workers = n;
}

/*
 * A worker reads an entry only within one turn of its loop; once it has run
 * a command submitted after the entry left its slot, it can hold it no more.
 */
static void retire(struct dp_keytab *kt, struct dp_key *old)
{
	if (!old)
		return;
	dp_worker_barrier_all(kt->workers, kt->n_workers);
	entry_free(kt, old);
}

int dp_keytab_set(struct dp_keytab *kt, struct dp_key *k)
{
	int64_t slot = slot_of(kt, k->key);

	if (slot < 0)
		return -EINVAL;
	retire(kt, atomic_exchange_explicit(&kt->slots[slot], k, memory_order_acq_rel));
	return 0;
}

void dp_keytab_clear(struct dp_keytab *kt, uint32_t key)
{
	int64_t slot = slot_of(kt, key);

	if (slot >= 0)
		retire(kt, atomic_exchange_explicit(&kt->slots[slot], NULL, memory_order_acq_rel));
}

int dp_keytab_publish(struct dp_keytab *kt, struct dp_key *k)
{
	int64_t slot = slot_of(kt, k->key);
	struct dp_key *old;

	if (slot < 0)
		return -EINVAL;
	/* replaced is set before k shows: whoever sees k in the slot finds it. */
	old = atomic_load_explicit(&kt->slots[slot], memory_order_acquire);
	do
		atomic_store_explicit(&k->replaced, old, memory_order_relaxed);
	while (!atomic_compare_exchange_weak_explicit(&kt->slots[slot], &old, k, memory_order_acq_rel,
						      memory_order_acquire));
	return 0;
}

void dp_keytab_retire(struct dp_keytab *kt, struct dp_key *k)
{
	retire(kt, atomic_exchange_explicit(&k->replaced, NULL, memory_order_acq_rel));
}

bool dp_keytab_holds(const struct dp_keytab *kt, const struct dp_key *k)
{
	int64_t slot = slot_of(kt, k->key);

	return slot >= 0 && atomic_load_explicit(&kt->slots[slot], memory_order_acquire) == k;
}

const struct dp_key *dp_keytab_get(const struct dp_keytab *kt, uint32_t key)
{
	int64_t slot = slot_of(kt, key);
	const struct dp_key *k;

	if (slot < 0)
		return NULL;
	k = atomic_load_explicit(&kt->slots[slot], memory_order_acquire);
	return k && k->key == key && !atomic_load_explicit(&k->invalid, memory_order_acquire) ? k : NULL;
}

int dp_keytab_invalidate(const struct dp_keytab *kt, uint32_t key, uint32_t pd, bool remote)
{
	int64_t slot = slot_of(kt, key);
	struct dp_key *k = slot < 0 ? NULL : atomic_load_explicit(&kt->slots[slot], memory_order_acquire);

	if (!k || k->key != key || atomic_load_explicit(&k->invalid, memory_order_acquire) || k->pd != pd ||
	    (remote && !k->remote_invalidate))
		return -EPERM;
	atomic_store_explicit(&k->invalid, true, memory_order_release);
	return 0;
}

/* Whether [addr, addr + length) lies in [base, base + size), without overflow. */
static bool within(uint64_t base, uint64_t size, uint64_t addr, uint64_t length)
{
	return addr >= base && addr - base <= size && length <= size - (addr - base);
}

static bool holds(const struct dp_key *k, uint64_t addr, uint64_t length)
{
	return within(k->iova, k->length, addr, length);
}

/* The MR with memory of pd whose iovas hold the range (what a DMA MR reaches). */
static const struct dp_key *dma_target(const struct dp_keytab *kt, uint32_t pd, uint64_t addr,
				       uint64_t length)
{
	for (uint32_t i = 0; i < kt->n_mr; i++) {
		const struct dp_key *k = atomic_load_explicit(&kt->slots[i], memory_order_acquire);

		if (k && k->dma_target && k->pd == pd && holds(k, addr, length) &&
		    !atomic_load_explicit(&k->invalid, memory_order_acquire))
			return k;
	}
	return NULL;
}

/* The bytes of [addr, addr + length) in one of a DMA key's windows, or NULL. */
static uint8_t *dma_window(const struct dp_key *k, uint64_t addr, uint64_t length)
{
	for (unsigned i = 0; i < k->n_windows && i < DP_DMA_WINDOWS_MAX; i++) {
		const struct dp_dma_window *w = &k->windows[i];

		if (within(w->iova, w->length, addr, length))
			return w->addr + (addr - w->iova);
	}
	return NULL;
}

uint8_t *dp_keytab_resolve(const struct dp_keytab *kt, uint32_t key, bool remote, uint32_t pd,
			   uint32_t access, uint64_t addr, uint64_t length)
{
	const struct dp_key *k = dp_keytab_get(kt, key);

	if (!k || k->kind == DP_KEY_MKEY || (remote && !k->rkey) || k->pd != pd ||
	    (access & ~k->access))
		return NULL;
	if (k->kind == DP_KEY_DMA && k->n_windows)
		return dma_window(k, addr, length);
	if (k->kind == DP_KEY_DMA)
		k = dma_target(kt, pd, addr, length);
	else if (!holds(k, addr, length))
		k = NULL;
	return k ? k->addr + (addr - k->iova) : NULL;
}
