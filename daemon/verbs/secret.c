/* SPDX-License-Identifier: MIT */
#include "daemon/verbs/secret.h"
#include "daemon/verbs/secret_pool.h"

#include <errno.h>
#include <gcrypt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* libgcrypt's own pool, where it is used: a few hundred DEKs and their ciphers; more comes in chunks. */
#define SECMEM_POOL  (256 * 1024)
#define SECMEM_CHUNK (256 * 1024)

/*
 * Whether libgcrypt's pool can be locked, tried on memory of its size before
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

/* libgcrypt's allocation handlers: its secure memory from the pool, the rest from the heap. */
static void *pool_alloc(size_t n)
{
	return secret_pool_alloc(n);
}

static int pool_is_secure(const void *p)
{
	return secret_pool_owns(p);
}

static void *any_realloc(void *p, size_t n)
{
	return secret_pool_owns(p) ? secret_pool_realloc(p, n) : realloc(p, n);
}

static void any_free(void *p)
{
	if (secret_pool_owns(p))
		secret_pool_free(p);
	else
		free(p);
}

/*
 * libgcrypt's own pool (FIPS mode, where it refuses allocation handlers):
 * locked if it can be, but dumped with the rest of the process.
 */
static void gcrypt_pool_init(struct secret_memory *mem)
{
	mem->locked = pool_lockable();
	gcry_control(GCRYCTL_AUTO_EXPAND_SECMEM, SECMEM_CHUNK);
	gcry_control(GCRYCTL_INIT_SECMEM, SECMEM_POOL, 0);
}

int secret_init(struct secret_memory *mem)
{
	static struct secret_memory done;
	void *probe;
	int r;

	if (gcry_control(GCRYCTL_INITIALIZATION_FINISHED_P)) {
		*mem = done;
		return 0;
	}
	if (!gcry_check_version(GCRYPT_VERSION))
		return -ENOTSUP;
	if (gcry_fips_mode_active()) {
		gcrypt_pool_init(mem);
	} else {
		r = secret_pool_init(&mem->locked);
		if (r < 0)
			return r;
		gcry_set_allocation_handler(malloc, pool_alloc, pool_is_secure, any_realloc, any_free);
	}
	/* Unlocked, the pool is still ours, just swappable: said once by the caller, not per use. */
	gcry_control(GCRYCTL_DISABLE_SECMEM_WARN);
	gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
	/* What libgcrypt does, not what was asked: the handlers may have been refused. */
	probe = gcry_malloc_secure(1);
	mem->undumped = secret_pool_owns(probe);
	gcry_free(probe);
	done = *mem;
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
