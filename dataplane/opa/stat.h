/* SPDX-License-Identifier: MIT */
/*
 * Counters another thread reads while one or several threads write them, without a lock.
 * A counter with one writer is bumped with a relaxed load and store (no locked instruction:
 * the hot path pays nothing); one with several writers with a relaxed fetch-and-add.  A reader
 * takes relaxed loads: each counter is exact, the set is "consistent enough" (a packet may
 * show in one counter and not yet in the next).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

static inline void opa_stat_add(uint64_t *c, uint64_t n)
{
	__atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
}

static inline void opa_stat_add_shared(uint64_t *c, uint64_t n)
{
	__atomic_fetch_add(c, n, __ATOMIC_RELAXED);
}

/* Copies a struct made only of uint64_t counters, one relaxed load each. */
static inline void opa_stat_copy(void *dst, const void *src, size_t bytes)
{
	const uint64_t *s = src;
	uint64_t *d = dst;
	size_t i;

	for (i = 0; i < bytes / sizeof(uint64_t); i++)
		d[i] = __atomic_load_n(&s[i], __ATOMIC_RELAXED);
}
