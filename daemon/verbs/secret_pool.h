/* SPDX-License-Identifier: MIT */
/*
 * The memory every key byte of rdmad lives in: pages mapped apart from the
 * heap, marked MADV_DONTDUMP so that a core file (the kernel's, or gcore's)
 * leaves them out, locked when the process may lock them, and wiped when a
 * block is given back.  libgcrypt takes its secure memory from here (see
 * secret.c), so DEKs, KEKs, credentials and the AES key schedules of cipher
 * handles opened with GCRY_CIPHER_SECURE all do.  Thread-safe: dataplane
 * workers close cipher handles too.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* n bytes (zeroed), or NULL: out of memory, or n too large. */
void *secret_pool_alloc(size_t n);
/* p came from secret_pool_alloc() and is not yet freed (NULL is not). */
bool secret_pool_owns(const void *p);
/* Wipes and gives back a block of the pool; NULL is fine. */
void secret_pool_free(void *p);
/* A block of n bytes holding what p held (up to n), p given back; as realloc(). */
void *secret_pool_realloc(void *p, size_t n);
/*
 * Maps the first pages now, so that what the pool can be is known before the
 * first key: -errno when nothing can be mapped or marked.  *locked: whether
 * the pages could be locked (no CAP_IPC_LOCK and a small RLIMIT_MEMLOCK:
 * they may be swapped out; still never dumped).
 */
int secret_pool_init(bool *locked);
