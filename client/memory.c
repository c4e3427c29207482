/* SPDX-License-Identifier: MIT */
/*
 * Memory shared with rdmad: buffers that are memfd mappings, and MRs
 * registered from them (io.rdmad.Mr.RegUser, the memfd passed with
 * SCM_RIGHTS).  rdmad maps the same pages: what the application writes in
 * its buffer is what a transfer reads, with no copy.
 */
#include "client/internal.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Grows an array of elements of size bytes to hold one more. */
static int grow(void **array, size_t *cap, size_t n, size_t size)
{
	size_t want = *cap ? *cap * 2 : 8;
	void *p;

	if (n < *cap)
		return 0;
	p = realloc(*array, want * size);
	if (!p)
		return client_fail(-ENOMEM, "out of memory");
	*array = p;
	*cap = want;
	return 0;
}

void *rdmad_alloc_buf(struct rdmad_context *ctx, size_t size)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t rounded;
	void *addr;
	int fd, r;

	client_ok();
	if (size == 0 || size > SIZE_MAX - (size_t)page)
		return client_fail_null(client_fail(-EINVAL, "a buffer of %zu bytes", size));
	rounded = (size + (size_t)page - 1) & ~((size_t)page - 1);
	r = grow((void **)&ctx->bufs, &ctx->cap_bufs, ctx->n_bufs, sizeof(*ctx->bufs));
	if (r < 0)
		return client_fail_null(r);
	fd = memfd_create("rdmad-buf", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return client_fail_null(client_fail(-errno, "memfd_create: %s", strerror(errno)));
	/* rdmad takes memory whose size cannot shrink under its mapping. */
	if (ftruncate(fd, (off_t)rounded) < 0 || fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK) < 0) {
		r = client_fail(-errno, "sizing the memfd: %s", strerror(errno));
		close(fd);
		return client_fail_null(r);
	}
	addr = mmap(NULL, rounded, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (addr == MAP_FAILED) {
		r = client_fail(-errno, "mmap: %s", strerror(errno));
		close(fd);
		return client_fail_null(r);
	}
	ctx->bufs[ctx->n_bufs++] = (struct client_buf){ .addr = addr, .size = rounded, .fd = fd };
	return addr;
}

static struct client_buf *buf_containing(struct rdmad_context *ctx, const void *addr, size_t length)
{
	uintptr_t a = (uintptr_t)addr;

	for (size_t i = 0; i < ctx->n_bufs; i++) {
		uintptr_t start = (uintptr_t)ctx->bufs[i].addr;

		if (a >= start && a - start <= ctx->bufs[i].size &&
		    length <= ctx->bufs[i].size - (a - start))
			return &ctx->bufs[i];
	}
	return NULL;
}

static void buf_release(struct client_buf *b)
{
	munmap(b->addr, b->size);
	close(b->fd);
}

int rdmad_free_buf(struct rdmad_context *ctx, void *buf)
{
	client_ok();
	for (size_t i = 0; i < ctx->n_bufs; i++) {
		if (ctx->bufs[i].addr != buf)
			continue;
		/* rdmad's MRs keep their own mapping: it outlives this one. */
		buf_release(&ctx->bufs[i]);
		ctx->bufs[i] = ctx->bufs[--ctx->n_bufs];
		return 0;
	}
	return client_fail(-EINVAL, "%p is no buffer of rdmad_alloc_buf", buf);
}

void client_bufs_free_all(struct rdmad_context *ctx)
{
	for (size_t i = 0; i < ctx->n_bufs; i++)
		buf_release(&ctx->bufs[i]);
	free(ctx->bufs);
	ctx->bufs = NULL;
	ctx->n_bufs = ctx->cap_bufs = 0;
}

/* An MR key's index in rdmad's key space: MRs' are below 2^23 (MKEYs' from there). */
#define MR_KEY_INDEXES (1u << 23)

struct rdmad_mr *client_mr_by_key(struct rdmad_context *ctx, uint32_t lkey)
{
	size_t i = lkey >> 8;
	struct rdmad_mr *mr = i < ctx->n_mr_slots ? ctx->mr_slots[i] : NULL;

	/* The whole key, tag included: a stale key of the slot's previous MR finds nothing. */
	return mr && mr->lkey == lkey ? mr : NULL;
}

/* Room in the slots for the MR of key index i (below MR_KEY_INDEXES), new ones NULL. */
static int mr_slots_cover(struct rdmad_context *ctx, size_t i)
{
	size_t n = ctx->n_mr_slots ? ctx->n_mr_slots : 64;
	struct rdmad_mr **more;

	if (i < ctx->n_mr_slots)
		return 0;
	while (n <= i)
		n *= 2;
	more = realloc(ctx->mr_slots, n * sizeof(*more));
	if (!more)
		return -ENOMEM;
	memset(more + ctx->n_mr_slots, 0, (n - ctx->n_mr_slots) * sizeof(*more));
	ctx->mr_slots = more;
	ctx->n_mr_slots = n;
	return 0;
}

void client_mrs_free_all(struct rdmad_context *ctx)
{
	for (size_t i = 0; i < ctx->n_mr_slots; i++)
		free(ctx->mr_slots[i]);
	free(ctx->mr_slots);
	ctx->mr_slots = NULL;
	ctx->n_mr_slots = 0;
}

struct rdmad_mr *rdmad_reg_memfd(struct rdmad_pd *pd, int fd, uint64_t offset, size_t length,
				 uint64_t iova, void *addr, unsigned access)
{
	struct rdmad_context *ctx = pd->context;
	struct json_object *p = json_object_new_object(), *reply = NULL, *rec;
	struct rdmad_mr *mr;
	int r;

	client_add_u64(p, "pd", pd->handle);
	client_add_u64(p, "fd", 0);
	client_add_u64(p, "offset", offset);
	client_add_u64(p, "length", length);
	client_add_u64(p, "iova", iova);
	json_object_object_add(p, "access", client_access_words(access));
	mr = calloc(1, sizeof(*mr));
	if (!mr) {
		json_object_put(p);
		return client_fail_null(client_fail(-ENOMEM, "out of memory"));
	}
	r = client_call(ctx, "io.rdmad.Mr.RegUser", p, &fd, 1, &reply);
	if (r < 0) {
		free(mr);
		return client_fail_null(r);
	}
	rec = client_get(reply, "mr");
	*mr = (struct rdmad_mr){
		.context = ctx, .pd = pd, .addr = addr, .length = client_get_u64(rec, "mrlen"),
		.iova = client_get_u64(rec, "iova"), .handle = (uint32_t)client_get_u64(rec, "handle"),
		.lkey = (uint32_t)client_get_u64(rec, "lkey"), .rkey = (uint32_t)client_get_u64(rec, "rkey"),
	};
	json_object_put(reply);
	r = mr->lkey >> 8 < MR_KEY_INDEXES ? mr_slots_cover(ctx, mr->lkey >> 8) : -EPROTO;
	if (r < 0) {
		uint32_t lkey = mr->lkey;

		/* Not kept, so deregistered again: nothing stays that the program cannot name. */
		(void)client_destroy_handle(ctx, "io.rdmad.Mr.Destroy", mr->handle);
		free(mr);
		return client_fail_null(r == -EPROTO ? client_fail(r, "rdmad answered with lkey 0x%x, "
								   "no MR's", lkey) :
				       client_fail(r, "out of memory"));
	}
	ctx->mr_slots[mr->lkey >> 8] = mr;
	return mr;
}

struct rdmad_mr *rdmad_reg_mr(struct rdmad_pd *pd, void *addr, size_t length, unsigned access)
{
	struct client_buf *b;

	client_ok();
	b = buf_containing(pd->context, addr, length);
	if (!b || length == 0)
		return client_fail_null(client_fail(-EINVAL, "%zu bytes at %p are not inside one buffer "
						    "of rdmad_alloc_buf", length, addr));
	return rdmad_reg_memfd(pd, b->fd, (uint64_t)((uintptr_t)addr - (uintptr_t)b->addr), length,
			       (uint64_t)(uintptr_t)addr, addr, access);
}

int rdmad_dereg_mr(struct rdmad_mr *mr)
{
	struct rdmad_context *ctx = mr->context;
	int r;

	r = client_destroy_handle(ctx, "io.rdmad.Mr.Destroy", mr->handle);
	if (r < 0)
		return r;
	if (client_mr_by_key(ctx, mr->lkey) == mr)
		ctx->mr_slots[mr->lkey >> 8] = NULL;
	free(mr);
	return 0;
}

int client_check_sges(struct rdmad_context *ctx, const struct rdmad_sge *sg, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		const struct rdmad_mr *mr = client_mr_by_key(ctx, sg[i].lkey);

		if (mr && (sg[i].addr < mr->iova || sg[i].addr - mr->iova > mr->length ||
			   sg[i].length > mr->length - (sg[i].addr - mr->iova)))
			return client_fail(-EINVAL, "sg_list[%u]: %u bytes at 0x%llx are outside MR 0x%x",
					   i, sg[i].length, (unsigned long long)sg[i].addr, mr->lkey);
	}
	return 0;
}
