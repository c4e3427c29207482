/* SPDX-License-Identifier: MIT */
/*
 * Memory for key material: pages left out of core files (MADV_DONTDUMP) and
 * locked when they can be (see secret_pool.h), zeroed when taken and wiped
 * before they are given back.  libgcrypt's secure memory is the same pages,
 * so its cipher handles' key schedules are there too.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct secret_memory {
	bool locked;            /* false: no CAP_IPC_LOCK and a small RLIMIT_MEMLOCK; may reach swap */
	bool undumped;          /* false: libgcrypt in FIPS mode keeps its own pool, which is dumped */
};

/*
 * Once per process, before any secret: libgcrypt with its secure memory
 * taken from the pool of secret_pool.h (the dataplane's own initialisation
 * then sees libgcrypt ready and leaves it).  -ENOTSUP for a too old
 * libgcrypt, -ENOMEM when no page of the pool can be had.  *mem says what
 * the memory is.
 */
int secret_init(struct secret_memory *mem);
/* n zeroed bytes of secure memory, or NULL. */
uint8_t *secret_alloc(size_t n);
/* Wipes the n bytes at p and frees them; NULL is fine. */
void secret_free(uint8_t *p, size_t n);
/* a and b hold the same n bytes; the time taken does not depend on where they differ. */
bool secret_equal(const uint8_t *a, const uint8_t *b, size_t n);
