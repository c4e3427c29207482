/* SPDX-License-Identifier: MIT */
/*
 * Pages apart for key material (see secret_pool.h).  Blocks are powers of two
 * from 32 bytes to a quarter chunk, carved from 256 KiB chunks and kept on a
 * free list per size once given back (wiped); a larger block is a mapping of
 * its own.  Every block starts with a 16-byte head that says its size, so
 * that a free, which is told only the address, wipes all of it.
 */
#include "daemon/verbs/secret_pool.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CHUNK      (256 * 1024)
#define CLASS_MIN  5                    /* 32-byte blocks */
#define CLASS_MAX  16                   /* 64 KiB blocks: four to a chunk */
#define N_CLASSES  (CLASS_MAX - CLASS_MIN + 1)
#define LARGE      N_CLASSES            /* a block that is a mapping of its own */

/* 16 bytes, so that what follows is aligned for any type libgcrypt puts there. */
struct head {
	union {
		struct head *next;      /* on a free list */
		uint64_t span;          /* in use: the block's bytes, head included */
	};
	uint64_t class;
};

struct region {
	char *base;
	size_t len;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct head *free_list[N_CLASSES];
static char *bump, *bump_end;           /* the unused end of the newest chunk */
static struct region *regions;          /* chunks and large blocks: what the pool owns */
static size_t n_regions, cap_regions;
static bool all_locked = true;

/*
 * Fresh zeroed pages, left out of core files, locked if they can be.  Not
 * dumping them is what this pool is for: pages that cannot be marked are
 * given back, never used.  The system call itself for mlock: sanitizers
 * replace mlock() with a no-op that succeeds.
 */
static char *map_pages(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (madvise(p, len, MADV_DONTDUMP) < 0) {
		munmap(p, len);
		return NULL;
	}
	if (syscall(SYS_mlock, p, len) < 0)
		all_locked = false;
	return p;
}

static int region_add(char *base, size_t len)
{
	if (n_regions == cap_regions) {
		size_t cap = cap_regions ? 2 * cap_regions : 16;
		struct region *r = realloc(regions, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		regions = r;
		cap_regions = cap;
	}
	regions[n_regions++] = (struct region){ base, len };
	return 0;
}

static struct region *region_of(const void *p)
{
	uintptr_t a = (uintptr_t)p;

	for (size_t i = 0; i < n_regions; i++)
		if (a >= (uintptr_t)regions[i].base && a < (uintptr_t)regions[i].base + regions[i].len)
			return &regions[i];
	return NULL;
}

static unsigned class_of(size_t span)
{
	unsigned c = CLASS_MIN;

	while (((size_t)1 << c) < span)
		c++;
	return c - CLASS_MIN;
}

static void push_free(struct head *h, unsigned class)
{
	h->next = free_list[class];
	h->class = class;
	free_list[class] = h;
}

/* What is left of the newest chunk goes to the free lists, largest blocks first. */
static void spill_bump(void)
{
	for (unsigned c = CLASS_MAX; c >= CLASS_MIN; c--)
		while ((size_t)(bump_end - bump) >= ((size_t)1 << c)) {
			push_free((struct head *)bump, c - CLASS_MIN);
			bump += (size_t)1 << c;
		}
}

static int chunk_add(void)
{
	char *p = map_pages(CHUNK);

	if (!p)
		return -ENOMEM;
	if (region_add(p, CHUNK) < 0) {
		munmap(p, CHUNK);
		return -ENOMEM;
	}
	spill_bump();
	bump = p;
	bump_end = p + CHUNK;
	return 0;
}

/* A block of the class; chunks are page-aligned and every block a multiple of 32 bytes. */
static struct head *take(unsigned class)
{
	size_t span = (size_t)1 << (class + CLASS_MIN);
	struct head *h = free_list[class];

	if (h) {
		free_list[class] = h->next;
		return h;
	}
	if ((size_t)(bump_end - bump) < span && chunk_add() < 0)
		return NULL;
	h = (struct head *)bump;
	bump += span;
	return h;
}

static struct head *take_large(size_t span)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t len = (span + page - 1) & ~(page - 1);
	char *p = map_pages(len);

	if (!p)
		return NULL;
	if (region_add(p, len) < 0) {
		munmap(p, len);
		return NULL;
	}
	((struct head *)p)->span = len;
	return (struct head *)p;
}

void *secret_pool_alloc(size_t n)
{
	size_t span = n + sizeof(struct head);
	struct head *h;
	unsigned class;

	if (span < n)
		return NULL;
	pthread_mutex_lock(&lock);
	if (span > ((size_t)1 << CLASS_MAX)) {
		class = LARGE;
		h = take_large(span);
	} else {
		class = class_of(span);
		h = take(class);
		if (h)
			h->span = (size_t)1 << (class + CLASS_MIN);
	}
	if (h)
		h->class = class;
	pthread_mutex_unlock(&lock);
	/* Zero already: fresh pages, or wiped when given back. */
	return h ? h + 1 : NULL;
}

bool secret_pool_owns(const void *p)
{
	bool owns;

	if (!p)
		return false;
	pthread_mutex_lock(&lock);
	owns = region_of(p) != NULL;
	pthread_mutex_unlock(&lock);
	return owns;
}

void secret_pool_free(void *p)
{
	struct head *h;
	struct region *r;

	if (!p)
		return;
	h = (struct head *)p - 1;
	explicit_bzero(p, h->span - sizeof(*h));
	pthread_mutex_lock(&lock);
	if (h->class != LARGE) {
		push_free(h, (unsigned)h->class);
	} else if ((r = region_of(h))) {
		munmap(r->base, r->len);
		*r = regions[--n_regions];
	}
	pthread_mutex_unlock(&lock);
}

void *secret_pool_realloc(void *p, size_t n)
{
	size_t have;
	void *q;

	if (!p)
		return secret_pool_alloc(n);
	have = ((struct head *)p - 1)->span - sizeof(struct head);
	if (n <= have)
		return p;
	q = secret_pool_alloc(n);
	if (!q)
		return NULL;
	memcpy(q, p, have);
	secret_pool_free(p);
	return q;
}

int secret_pool_init(bool *locked)
{
	int r = 0;

	pthread_mutex_lock(&lock);
	if (!n_regions)
		r = chunk_add();
	*locked = all_locked;
	pthread_mutex_unlock(&lock);
	return r;
}
