/* SPDX-License-Identifier: MIT */
#include "daemon/secret.h"

#include <errno.h>
#include <gcrypt.h>
#include <string.h>

/* Enough for a few hundred DEKs and their ciphers at once; more is added in chunks. */
#define SECMEM_POOL  (256 * 1024)
#define SECMEM_CHUNK (256 * 1024)

int secret_init(void)
{
	if (gcry_control(GCRYCTL_INITIALIZATION_FINISHED_P))
		return 0;
	if (!gcry_check_version(GCRYPT_VERSION))
		return -ENOTSUP;
	gcry_control(GCRYCTL_AUTO_EXPAND_SECMEM, SECMEM_CHUNK);
	gcry_control(GCRYCTL_INIT_SECMEM, SECMEM_POOL, 0);
	/* Without CAP_IPC_LOCK the pool cannot be locked: still ours, just swappable; no warning per use. */
	gcry_control(GCRYCTL_DISABLE_SECMEM_WARN);
	gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
	return 0;
}

uint8_t *secret_alloc(size_t n)
{
	return gcry_calloc_secure(1, n);
}

void secret_free(uint8_t *p, size_t n)
{
	if (!p)
		return;
	explicit_bzero(p, n);
	gcry_free(p);
}

bool secret_equal(const uint8_t *a, const uint8_t *b, size_t n)
{
	uint8_t diff = 0;

	for (size_t i = 0; i < n; i++)
		diff |= a[i] ^ b[i];
	return diff == 0;
}
