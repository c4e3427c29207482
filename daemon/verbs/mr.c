/* SPDX-License-Identifier: MIT */
#include "daemon/verbs/mr.h"
#include "daemon/verbs/mr_map.h"
#include "dataplane/keytab.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static void mr_release(struct rdma_device *dev, struct rdma_object *obj)
{
	struct rdma_mr *mr = rdma_mr(obj);

	/* No worker reaches the memory once it is unmapped. */
	rdma_device_key_clear(dev, obj->handle);
	if (mr->shared)
		rdma_mr_map_put(mr->shared);
	else if (mr->map)
		munmap(mr->map, mr->map_size);
	free(mr->windows);
}

/* A QP whose posted, not yet retired WRs reach the MR's memory: the worker would read it unmapped. */
static struct rdma_object *mr_busy_user(struct rdma_device *dev, const struct rdma_object *obj)
{
	const struct rdma_mr *mr = (const struct rdma_mr *)obj;

	return mr->addr ? rdma_device_memory_user(dev, mr->addr, mr->length) : NULL;
}

const struct rdma_object_type rdma_mr_type = {
	.size = sizeof(struct rdma_mr),
	.release = mr_release,
	.busy_user = mr_busy_user,
};

const char *rdma_access_name(uint32_t bit)
{
	switch (bit) {
	case RDMA_ACCESS_LOCAL_WRITE:  return "local_write";
	case RDMA_ACCESS_REMOTE_WRITE: return "remote_write";
	case RDMA_ACCESS_REMOTE_READ:  return "remote_read";
	case RDMA_ACCESS_ON_DEMAND:    return "on_demand";
	}
	return NULL;
}

int rdma_access_check(uint32_t access, uint32_t allowed, struct rdma_error *err)
{
	uint32_t bad = access & ~allowed;

	if (bad) {
		uint32_t first = bad & -bad;
		char words[96] = "", what[32];
		size_t n = 0;

		for (uint32_t bit = 1; bit; bit <<= 1)
			if ((allowed & bit) && n < sizeof(words))
				n += (size_t)snprintf(words + n, sizeof(words) - n, "%s%s",
						      n ? ", " : "", rdma_access_name(bit));
		if (rdma_access_name(first))
			snprintf(what, sizeof(what), "'%s'", rdma_access_name(first));
		else
			snprintf(what, sizeof(what), "0x%x", first);
		return rdma_error_invalid(err, "access", "%s is not one of %s", what, words);
	}
	/* As ibv_reg_mr: a peer may not write what the owner could not. */
	if ((access & RDMA_ACCESS_REMOTE_WRITE) && !(access & RDMA_ACCESS_LOCAL_WRITE))
		return rdma_error_invalid(err, "access", "remote_write needs local_write too");
	return 0;
}

static int page_size(void)
{
	long p = sysconf(_SC_PAGESIZE);

	return p > 0 ? (int)p : 4096;
}

/* The system failed us, not the request: no model error, the caller answers with errno. */
static int system_error(struct rdma_error *err, int r)
{
	memset(err, 0, sizeof(*err));
	return r;
}

/* The key table's entry of the MR (dataplane/keytab.h), or NULL out of memory. */
static struct dp_key *key_of(const struct rdma_mr *mr)
{
	struct dp_key *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	*k = (struct dp_key){
		.key = mr->obj.handle, .kind = mr->type == RDMA_MR_DMA ? DP_KEY_DMA : DP_KEY_MR,
		/* on_demand is the driver's business: the workers just touch the bytes. */
		.pd = mr->pd->handle, .access = mr->access & RDMA_ACCESS_ALL, .rkey = mr->rkey != 0,
		.dma_target = mr->type == RDMA_MR_DAEMON, .iova = mr->iova, .length = mr->length,
		.addr = mr->addr, .n_windows = mr->n_windows,
	};
	if (mr->n_windows)
		memcpy(k->windows, mr->windows, mr->n_windows * sizeof(*mr->windows));
	return k;
}

/* What the workers see of the MR from now on. */
static int publish(struct rdma_device *dev, struct rdma_mr *mr, struct rdma_mr **out)
{
	struct dp_key *k = key_of(mr);

	if (!k) {
		rdma_object_free(dev, &mr->obj);
		return -ENOMEM;
	}
	rdma_device_key_set(dev, k);
	*out = mr;
	return 0;
}

/* What may refuse a new MR of type before its memory is made: its access and its PD. */
static int check_request(struct rdma_device *dev, uint32_t pd, uint32_t access,
			 enum rdma_mr_type type, struct rdma_error *err)
{
	/* A dma MR has no memory of its own to map on demand. */
	int r = rdma_access_check(access, type == RDMA_MR_DMA ? RDMA_ACCESS_ALL : RDMA_ACCESS_MR_ALL,
				  err);

	if (r < 0)
		return r;
	return rdma_object_lookup(dev, RDMA_OBJ_PD, pd, err) ? 0 : -ENOENT;
}

/* A new MR of type on pd with access: the table entry, its keys and the PD reference. */
static int mr_new(struct rdma_device *dev, uint32_t pd, uint32_t access, enum rdma_mr_type type,
		  struct rdma_mr **out, struct rdma_error *err)
{
	struct rdma_object *pd_obj, *obj;
	struct rdma_mr *mr;
	int r;

	r = check_request(dev, pd, access, type, err);
	if (r < 0)
		return r;
	pd_obj = rdma_object_lookup(dev, RDMA_OBJ_PD, pd, err);
	obj = rdma_object_create(dev, RDMA_OBJ_MR, err);
	if (!obj)
		return -ENOSPC;
	mr = rdma_mr(obj);
	mr->type = type;
	mr->access = access;
	mr->pd = pd_obj;
	r = rdma_object_use(obj, pd_obj);
	if (r < 0) {
		rdma_object_free(dev, obj);
		return system_error(err, r);
	}
	/* rxe and the prototype: one key for both when a peer may use the MR, else no rkey. */
	mr->rkey = access & (RDMA_ACCESS_REMOTE_READ | RDMA_ACCESS_REMOTE_WRITE) ? obj->handle : 0;
	*out = mr;
	return 0;
}

/*
 * A daemon MR's memory is rdmad's own (mr.h): private anonymous pages.  A
 * pinned one is locked as it is mapped, so that it merges with its locked
 * neighbours (locked after populating, each kept a mapping of its own); past
 * RLIMIT_MEMLOCK without CAP_IPC_LOCK that fails, and it is mapped populated
 * but not locked.  An on-demand one comes page by page, as its memfd did:
 * under THP "always" a first touch would bring a huge page of untouched
 * neighbours (best effort).
 */
static int map_daemon(struct rdma_mr_pending *pend, bool on_demand)
{
	int flags = MAP_PRIVATE | MAP_ANONYMOUS | (on_demand ? 0 : MAP_POPULATE);
	void *map = MAP_FAILED;

	if (!on_demand)
		map = mmap(NULL, pend->map_size, PROT_READ | PROT_WRITE, flags | MAP_LOCKED, -1, 0);
	pend->pinned = map != MAP_FAILED;
	if (map == MAP_FAILED)
		map = mmap(NULL, pend->map_size, PROT_READ | PROT_WRITE, flags, -1, 0);
	if (map == MAP_FAILED)
		return -errno;
	pend->map = map;
	if (on_demand)
		madvise(map, pend->map_size, MADV_NOHUGEPAGE);
	return 0;
}

/*
 * Makes pend's memory ready: a daemon MR's is mapped here, a user MR's lies
 * in its memfd's shared mapping already.  A pinned MR (the verbs default)
 * gets every page now, and locked if the daemon may: a worker then never
 * faults on it.  An on-demand one gets only the address range: each page
 * comes (allocated, or found in the memfd) when a transfer first touches it,
 * the kernel's fault handling being the soft device's page-fault path.
 */
int rdma_mr_pending_map(struct rdma_mr_pending *pend)
{
	bool on_demand = pend->access & RDMA_ACCESS_ON_DEMAND;

	if (!pend->shared)
		return map_daemon(pend, on_demand);
	if (on_demand)
		return 0;
	/*
	 * The shared mapping was made without MAP_POPULATE (its other pages may
	 * be on demand): this MR's pages are populated here, not left to mlock
	 * (which a sanitizer's runtime makes a no-op).  Before Linux 5.14 this
	 * fails and mlock alone populates them.
	 */
	madvise(pend->map, pend->map_size, MADV_POPULATE_WRITE);
	/* Best effort: without CAP_IPC_LOCK past RLIMIT_MEMLOCK the pages stay populated, not locked. */
	pend->pinned = mlock(pend->map, pend->map_size) == 0;
	return 0;
}

void rdma_mr_pending_release(struct rdma_mr_pending *pend)
{
	if (pend->shared)
		rdma_mr_map_put(pend->shared);
	else if (pend->map)
		munmap(pend->map, pend->map_size);
	pend->shared = NULL;
	pend->map = NULL;
}

static int check_size(struct rdma_device *dev, const char *field, uint64_t size, uint64_t max_size,
		      struct rdma_error *err)
{
	if (max_size > dev->attr.max_mr_size)
		max_size = dev->attr.max_mr_size;
	if (size == 0 || size > max_size)
		return rdma_error_invalid(err, field, "%llu bytes; an MR holds 1 to %llu bytes "
					  "(max_mr_size)", (unsigned long long)size,
					  (unsigned long long)max_size);
	return 0;
}

int rdma_mr_pending_daemon(struct rdma_device *dev, uint32_t pd, uint64_t size, uint32_t access,
			   uint64_t max_size, struct rdma_mr_pending *pend, struct rdma_error *err)
{
	int r;

	*pend = (struct rdma_mr_pending){ .type = RDMA_MR_DAEMON, .pd = pd, .access = access,
					  .length = size };
	r = check_size(dev, "size", size, max_size, err);
	if (r < 0)
		return r;
	if (size > SIZE_MAX - (size_t)page_size())
		return rdma_error_invalid(err, "size", "%llu bytes do not fit in this address space",
					  (unsigned long long)size);
	r = check_request(dev, pd, access, RDMA_MR_DAEMON, err);
	if (r < 0)
		return r;
	pend->map_size = (size + page_size() - 1) & ~((size_t)page_size() - 1);
	return 0;
}

int rdma_mr_pending_memfd(struct rdma_device *dev, uint32_t pd, int memfd, uint64_t offset,
			  uint64_t length, uint64_t iova, uint32_t access, uint64_t max_size,
			  struct rdma_mr_pending *pend, struct rdma_error *err)
{
	uint64_t page_off = offset & ~((uint64_t)page_size() - 1);
	struct stat st;
	int seals, r;

	*pend = (struct rdma_mr_pending){ .type = RDMA_MR_USER, .pd = pd, .access = access,
					  .length = length, .iova = iova };
	r = check_size(dev, "length", length, max_size, err);
	if (r < 0)
		return r;
	if (iova > UINT64_MAX - length)
		return rdma_error_invalid(err, "iova", "iova + length passes 2^64");
	if (fstat(memfd, &st) < 0 || !S_ISREG(st.st_mode))
		return rdma_error_invalid(err, "fd", "not a memfd");
	/* The device writes the pages: a read-only descriptor would fail the mapping. */
	if ((fcntl(memfd, F_GETFL) & O_ACCMODE) != O_RDWR)
		return rdma_error_invalid(err, "fd", "not open for reading and writing");
	if (offset > (uint64_t)st.st_size || length > (uint64_t)st.st_size - offset)
		return rdma_error_invalid(err, "length", "offset %llu + length %llu pass the end of "
					  "the memfd (%llu bytes)", (unsigned long long)offset,
					  (unsigned long long)length, (unsigned long long)st.st_size);
	/* Pages that vanished under a mapping would fault in the daemon. */
	seals = fcntl(memfd, F_GET_SEALS);
	if (seals < 0 || !(seals & F_SEAL_SHRINK))
		return rdma_error_invalid(err, "fd", "must be a memfd sealed with F_SEAL_SHRINK");
	r = check_request(dev, pd, access, RDMA_MR_USER, err);
	if (r < 0)
		return r;
	if (offset + length > SIZE_MAX)
		return rdma_error_invalid(err, "length", "offset + length do not fit in this address space");
	r = rdma_mr_map_get(dev, memfd, &st, (size_t)(offset + length), &pend->shared);
	if (r < 0)
		return system_error(err, r);
	/* The offset need not be page aligned: the MR's pages from the one it starts in (unlike §1.7's prototype). */
	pend->map = (uint8_t *)pend->shared->addr + page_off;
	pend->first = (size_t)(offset - page_off);
	pend->map_size = (size_t)(offset - page_off + length);
	return 0;
}

int rdma_mr_pending_finish(struct rdma_device *dev, struct rdma_mr_pending *pend,
			   struct rdma_mr **out, struct rdma_error *err)
{
	uint64_t align = RDMA_MR_IOVA_ALIGN;
	struct rdma_mr *mr;
	int r = mr_new(dev, pend->pd, pend->access, pend->type, &mr, err);

	if (r < 0) {
		rdma_mr_pending_release(pend);
		return r;
	}
	mr->shared = pend->shared;
	pend->shared = NULL;
	mr->map = pend->map;
	mr->map_size = pend->map_size;
	mr->pinned = pend->pinned;
	mr->addr = (uint8_t *)pend->map + pend->first;
	mr->length = pend->length;
	mr->obj.registered_bytes = mr->length;
	mr->iova = pend->iova;
	pend->map = NULL;
	if (mr->type == RDMA_MR_DAEMON) {
		/* Disjoint, never reused iovas with a gap, so a range never runs from one MR into the next. */
		if (!dev->mr_iova_next)
			dev->mr_iova_next = RDMA_MR_IOVA_BASE;
		mr->iova = dev->mr_iova_next;
		dev->mr_iova_next += (mr->map_size + align - 1) / align * align + align;
	}
	return publish(dev, mr, out);
}

/* The three steps at once, on the caller's thread. */
static int pending_now(struct rdma_device *dev, struct rdma_mr_pending *pend, struct rdma_mr **out,
		       struct rdma_error *err)
{
	int r = rdma_mr_pending_map(pend);

	if (r < 0) {
		rdma_mr_pending_release(pend);
		return system_error(err, r);
	}
	return rdma_mr_pending_finish(dev, pend, out, err);
}

int rdma_mr_create(struct rdma_device *dev, uint32_t pd, uint64_t size, uint32_t access,
		   uint64_t max_size, struct rdma_mr **out, struct rdma_error *err)
{
	struct rdma_mr_pending pend;
	int r = rdma_mr_pending_daemon(dev, pd, size, access, max_size, &pend, err);

	return r < 0 ? r : pending_now(dev, &pend, out, err);
}

int rdma_mr_register_memfd(struct rdma_device *dev, uint32_t pd, int memfd, uint64_t offset,
			   uint64_t length, uint64_t iova, uint32_t access, uint64_t max_size,
			   struct rdma_mr **out, struct rdma_error *err)
{
	struct rdma_mr_pending pend;
	int r = rdma_mr_pending_memfd(dev, pd, memfd, offset, length, iova, access, max_size, &pend,
				      err);

	return r < 0 ? r : pending_now(dev, &pend, out, err);
}

int rdma_mr_get_dma(struct rdma_device *dev, uint32_t pd, uint32_t access, struct rdma_mr **out,
		    struct rdma_error *err)
{
	struct rdma_mr *mr;
	int r = mr_new(dev, pd, access, RDMA_MR_DMA, &mr, err);

	return r < 0 ? r : publish(dev, mr, out);
}

static int check_windows(const struct dp_dma_window *w, unsigned n, struct rdma_error *err)
{
	if (n == 0 || n > DP_DMA_WINDOWS_MAX)
		return rdma_error_invalid(err, "windows", "%u; a guest's memory is 1 to %u regions", n,
					  DP_DMA_WINDOWS_MAX);
	return 0;
}

int rdma_mr_get_dma_windows(struct rdma_device *dev, uint32_t pd, uint32_t access,
			    const struct dp_dma_window *w, unsigned n, struct rdma_mr **out,
			    struct rdma_error *err)
{
	struct rdma_mr *mr;
	int r = check_windows(w, n, err);

	if (r < 0)
		return r;
	r = mr_new(dev, pd, access, RDMA_MR_DMA, &mr, err);
	if (r < 0)
		return r;
	mr->windows = calloc(n, sizeof(*w));
	if (!mr->windows) {
		rdma_object_free(dev, &mr->obj);
		return system_error(err, -ENOMEM);
	}
	memcpy(mr->windows, w, n * sizeof(*w));
	mr->n_windows = n;
	return publish(dev, mr, out);
}

int rdma_mr_set_windows(struct rdma_device *dev, struct rdma_mr *mr, const struct dp_dma_window *w,
			unsigned n)
{
	struct rdma_error err;
	struct dp_key *k;

	if (!mr->n_windows || check_windows(w, n, &err) < 0)
		return -EINVAL;
	if (n > mr->n_windows) {
		struct dp_dma_window *more = realloc(mr->windows, n * sizeof(*w));

		if (!more)
			return -ENOMEM;
		mr->windows = more;
	}
	memcpy(mr->windows, w, n * sizeof(*w));
	mr->n_windows = n;
	k = key_of(mr);
	if (!k)
		return -ENOMEM;
	/* The entry it replaces goes once every worker passed a barrier: none reads the old windows. */
	rdma_device_key_set(dev, k);
	return 0;
}

/* Maps the runs side by side into one reserved range; MAP_FAILED and errno on failure. */
static void *map_runs(const struct rdma_mr_run *runs, unsigned n, size_t total)
{
	uint8_t *base = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	size_t at = 0;

	if (base == MAP_FAILED)
		return MAP_FAILED;
	for (unsigned i = 0; i < n; at += runs[i].bytes, i++)
		if (mmap(base + at, runs[i].bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
			 runs[i].fd, (off_t)runs[i].offset) == MAP_FAILED) {
			int e = errno;

			munmap(base, total);
			errno = e;
			return MAP_FAILED;
		}
	return base;
}

int rdma_mr_register_runs(struct rdma_device *dev, uint32_t pd, const struct rdma_mr_run *runs,
			  unsigned n, uint64_t first, uint64_t length, uint64_t iova, uint32_t access,
			  struct rdma_mr **out, struct rdma_error *err)
{
	uint64_t page = (uint64_t)page_size(), total = 0;
	struct rdma_mr_pending pend = { .type = RDMA_MR_USER, .pd = pd, .access = access,
					.length = length, .iova = iova };
	int r;

	if (n == 0 || n > RDMA_MR_RUNS_MAX)
		return rdma_error_invalid(err, "pages", "in %u runs of contiguous guest memory; an MR "
					  "is 1 to %u", n, RDMA_MR_RUNS_MAX);
	for (unsigned i = 0; i < n; i++) {
		if (runs[i].bytes == 0 || (runs[i].bytes | runs[i].offset) % page ||
		    runs[i].bytes > SIZE_MAX / 2 - total)
			return rdma_error_invalid(err, "pages", "run %u is not whole pages", i);
		total += runs[i].bytes;
	}
	r = check_size(dev, "length", length, total, err);
	if (r < 0)
		return r;
	if (first > total - length)
		return rdma_error_invalid(err, "virt_addr", "the first byte's offset %llu and length "
					  "%llu pass the pages given", (unsigned long long)first,
					  (unsigned long long)length);
	if (iova > UINT64_MAX - length)
		return rdma_error_invalid(err, "virt_addr", "virt_addr + length passes 2^64");
	/* On demand makes no sense for memory the guest already has: the request is refused as any bad flag. */
	r = check_request(dev, pd, access, RDMA_MR_DMA, err);
	if (r < 0)
		return r;
	pend.map = map_runs(runs, n, (size_t)total);
	if (pend.map == MAP_FAILED)
		return system_error(err, -errno);
	pend.map_size = (size_t)total;
	pend.first = (size_t)first;
	return rdma_mr_pending_finish(dev, &pend, out, err);
}

/* [offset, offset + length) inside size bytes, the fields named as the caller knows them. */
static int check_range(uint64_t offset, uint64_t length, uint64_t size, const char *offset_field,
		       struct rdma_error *err)
{
	if (offset > size)
		return rdma_error_invalid(err, offset_field, "%llu is past the end of the MR "
					  "(%llu bytes)", (unsigned long long)offset,
					  (unsigned long long)size);
	if (length > size - offset)
		return rdma_error_invalid(err, "length", "%llu bytes from %s %llu pass the end of "
					  "the MR (%llu bytes)", (unsigned long long)length,
					  offset_field, (unsigned long long)offset,
					  (unsigned long long)size);
	return 0;
}

int rdma_mr_bytes(struct rdma_mr *mr, uint64_t offset, uint64_t length, uint8_t **out,
		  struct rdma_error *err)
{
	int r;

	if (mr->type == RDMA_MR_DMA)
		return rdma_error_unsupported(err, "handle", "a DMA MR has no memory of its own; "
					      "use the MR that holds the iova");
	r = check_range(offset, length, mr->length, "offset", err);
	if (r < 0)
		return r;
	*out = mr->addr + offset;
	return 0;
}

int rdma_mr_residency(const struct rdma_mr *mr, uint64_t *pages, uint64_t *resident)
{
	size_t page = (size_t)page_size(), n = (mr->map_size + page - 1) / page;
	/* A bounded vector, a chunk of the mapping at a time: an MR may have many pages. */
	unsigned char vec[1024];

	*pages = mr->map ? n : 0;
	*resident = 0;
	for (size_t done = 0; mr->map && done < n; ) {
		size_t chunk = n - done < sizeof(vec) ? n - done : sizeof(vec);

		if (mincore((uint8_t *)mr->map + done * page, chunk * page, vec) < 0)
			return -errno;
		for (size_t i = 0; i < chunk; i++)
			*resident += vec[i] & 1;
		done += chunk;
	}
	return 0;
}

/* The daemon MR of pd whose iovas hold [addr, addr + length). */
static struct rdma_mr *dma_target(struct rdma_device *dev, const struct rdma_object *pd,
				  uint64_t addr, uint64_t length)
{
	struct rdma_object *obj;

	for (uint32_t pos = 0; (obj = object_table_next(&dev->tables[RDMA_OBJ_MR], &pos)); ) {
		struct rdma_mr *m = rdma_mr(obj);

		if (m->type == RDMA_MR_DAEMON && m->pd == pd && addr >= m->iova &&
		    addr - m->iova <= m->length && length <= m->length - (addr - m->iova))
			return m;
	}
	return NULL;
}

int rdma_mr_resolve(struct rdma_device *dev, uint32_t key, bool remote, uint32_t pd,
		    uint32_t access, uint64_t addr, uint64_t length, uint8_t **out,
		    struct rdma_error *err)
{
	struct rdma_object *obj = object_table_find(&dev->tables[RDMA_OBJ_MR], key);
	struct rdma_mr *mr = obj ? rdma_mr(obj) : NULL;
	uint32_t missing;

	/* The table finds by lkey; an rkey is the same number, but only when remote access was granted. */
	if (!mr || (remote && mr->rkey != key))
		return rdma_error_invalid(err, "key", "0x%x is no %s of a memory region", key,
					  remote ? "rkey" : "lkey");
	if (mr->pd->handle != pd)
		return rdma_error_invalid(err, "pd", "the MR of key 0x%x is in PD %u, not %u", key,
					  mr->pd->handle, pd);
	missing = access & ~mr->access;
	if (missing)
		return rdma_error_invalid(err, "access", "the MR of key 0x%x does not grant %s", key,
					  rdma_access_name(missing & -missing));
	if (mr->type == RDMA_MR_DMA)
		mr = dma_target(dev, mr->pd, addr, length);
	else if (addr < mr->iova || addr - mr->iova > mr->length ||
		 length > mr->length - (addr - mr->iova))
		mr = NULL;
	if (!mr)
		return rdma_error_invalid(err, "addr", "no memory of key 0x%x holds the %llu bytes "
					  "at iova 0x%llx", key, (unsigned long long)length,
					  (unsigned long long)addr);
	*out = mr->addr + (addr - mr->iova);
	return 0;
}
