/* SPDX-License-Identifier: MIT */
/*
 * Memory for key material: libgcrypt secure memory (locked, so never swapped
 * out), zeroed when taken and wiped before it is given back.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Once per process, before any secret: libgcrypt with a secure-memory pool
 * that grows as DEKs are added (the dataplane's own initialisation then sees
 * libgcrypt ready and leaves it).  -ENOTSUP for a too old libgcrypt.
 * *locked: false when the pool cannot be locked in memory (no CAP_IPC_LOCK
 * and RLIMIT_MEMLOCK too small), so key material may reach swap.
 */
int secret_init(bool *locked);
/* n zeroed bytes of secure memory, or NULL. */
uint8_t *secret_alloc(size_t n);
/* Wipes the n bytes at p and frees them; NULL is fine. */
void secret_free(uint8_t *p, size_t n);
/* a and b hold the same n bytes; the time taken does not depend on where they differ. */
bool secret_equal(const uint8_t *a, const uint8_t *b, size_t n);
