/* SPDX-License-Identifier: MIT */
#include "daemon/verbs/secret.h"

#include <errno.h>
#include <gcrypt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Enough for a few hundred DEKs and their ciphers at once; more is added in chunks. */
#define SECMEM_POOL  (256 * 1024)
#define SECMEM_CHUNK (256 * 1024)

/*
 * Whether the pool can be locked, tried on memory of its size before
 * libgcrypt takes it: without CAP_IPC_LOCK and with a small RLIMIT_MEMLOCK,
 * libgcrypt falls back to memory that may be swapped out, and says nothing
 * once its warnings are off.
 */
static bool pool_lockable(void)
{
	void *probe = aligned_alloc(4096, SECMEM_POOL);
	bool ok;

	if (!probe)
		return false;
	/* The system calls themselves: sanitizers replace mlock() with a no-op that succeeds. */
	ok = syscall(SYS_mlock, probe, SECMEM_POOL) == 0;
	if (ok)
		syscall(SYS_munlock, probe, SECMEM_POOL);
	free(probe);
	return ok;
}

int secret_init(bool *locked)
{
	*locked = true;
	if (gcry_control(GCRYCTL_INITIALIZATION_FINISHED_P))
		return 0;
	*locked = pool_lockable();
	if (!gcry_check_version(GCRYPT_VERSION))
		return -ENOTSUP;
	gcry_control(GCRYCTL_AUTO_EXPAND_SECMEM, SECMEM_CHUNK);
	gcry_control(GCRYCTL_INIT_SECMEM, SECMEM_POOL, 0);
	/* Unlocked, the pool is still ours, just swappable: said once by the caller, not per use. */
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
