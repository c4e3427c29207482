/* SPDX-License-Identifier: MIT */
#include "dataplane/virtio/guest_mem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct vhost_mem_region {
	struct vhost_mem_region_desc desc;
	uint8_t *host;                 /* the region's first byte in rdmad */
	void *map;                     /* the mapping, from a page boundary of the file */
	size_t map_len;
	int fd;                        /* the table's dup */
};

struct vhost_mem {
	_Atomic unsigned refs;
	uint64_t id;
	unsigned n;
	struct vhost_mem_region r[VHOST_MEM_REGIONS_MAX];
};

static _Atomic uint64_t next_id = 1;

/* [a, a + alen) and [b, b + blen) share a byte; neither wraps (checked before). */
static bool ranges_overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

static bool range_wraps(uint64_t start, uint64_t len)
{
	return len > UINT64_MAX - start;
}

static int check_descs(const struct vhost_mem_region_desc *d, unsigned n)
{
	if (n == 0 || n > VHOST_MEM_REGIONS_MAX)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++) {
		if (!d[i].size || range_wraps(d[i].guest_phys, d[i].size) ||
		    range_wraps(d[i].user_addr, d[i].size) || range_wraps(d[i].mmap_offset, d[i].size))
			return -EINVAL;
		for (unsigned j = 0; j < i; j++)
			if (ranges_overlap(d[i].guest_phys, d[i].size, d[j].guest_phys, d[j].size) ||
			    ranges_overlap(d[i].user_addr, d[i].size, d[j].user_addr, d[j].size))
				return -EINVAL;
	}
	return 0;
}

/* The file must hold the whole region now, and (when asked) be unable to shrink later. */
static int check_file(int fd, const struct vhost_mem_region_desc *d, unsigned flags)
{
	struct stat st;
	int seals;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if (st.st_size < 0 || (uint64_t)st.st_size < d->mmap_offset + d->size)
		return -ERANGE;
	if (flags & VHOST_MEM_SEALED_ONLY) {
		seals = fcntl(fd, F_GET_SEALS);
		if (seals < 0 || !(seals & F_SEAL_SHRINK))
			return -EPERM;
	}
	return 0;
}

static int map_region(struct vhost_mem_region *r, int fd, unsigned flags)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t start = r->desc.mmap_offset & ~(page - 1);
	uint64_t lead = r->desc.mmap_offset - start;
	int err;

	err = check_file(fd, &r->desc, flags);
	if (err)
		return err;
	if (r->desc.size > SIZE_MAX - lead || start > (uint64_t)INT64_MAX)
		return -EINVAL;
	r->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (r->fd < 0)
		return -errno;
	r->map_len = (size_t)(lead + r->desc.size);
	r->map = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)start);
	if (r->map == MAP_FAILED) {
		r->map = NULL;
		return -errno;
	}
	r->host = (uint8_t *)r->map + lead;
	return 0;
}

static void free_regions(struct vhost_mem *m)
{
	for (unsigned i = 0; i < VHOST_MEM_REGIONS_MAX; i++) {
		if (m->r[i].map)
			munmap(m->r[i].map, m->r[i].map_len);
		if (m->r[i].fd >= 0)
			close(m->r[i].fd);
	}
	free(m);
}

int vhost_mem_new(const struct vhost_mem_region_desc *desc, const int *fds, unsigned n,
		  unsigned flags, struct vhost_mem **out)
{
	struct vhost_mem *m;
	int err;

	*out = NULL;
	err = check_descs(desc, n);
	if (err)
		return err;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	for (unsigned i = 0; i < VHOST_MEM_REGIONS_MAX; i++)
		m->r[i].fd = -1;
	for (unsigned i = 0; i < n; i++) {
		m->r[i].desc = desc[i];
		err = map_region(&m->r[i], fds[i], flags);
		if (err) {
			free_regions(m);
			return err;
		}
	}
	m->n = n;
	m->id = atomic_fetch_add(&next_id, 1);
	atomic_init(&m->refs, 1);
	*out = m;
	return 0;
}

struct vhost_mem *vhost_mem_ref(struct vhost_mem *m)
{
	if (m)
		atomic_fetch_add_explicit(&m->refs, 1, memory_order_relaxed);
	return m;
}

void vhost_mem_unref(struct vhost_mem *m)
{
	if (m && atomic_fetch_sub_explicit(&m->refs, 1, memory_order_acq_rel) == 1)
		free_regions(m);
}

uint64_t vhost_mem_id(const struct vhost_mem *m)
{
	return m->id;
}

unsigned vhost_mem_region_count(const struct vhost_mem *m)
{
	return m->n;
}

const struct vhost_mem_region_desc *vhost_mem_region(const struct vhost_mem *m, unsigned i)
{
	return i < m->n ? &m->r[i].desc : NULL;
}

int vhost_mem_region_fd(const struct vhost_mem *m, unsigned i)
{
	return i < m->n ? m->r[i].fd : -ENXIO;
}

/* The offset of [addr, addr + len) in the region that starts at base and holds size bytes, or -1. */
static int64_t offset_in(uint64_t base, uint64_t size, uint64_t addr, uint64_t len)
{
	uint64_t off;

	if (addr < base)
		return -1;
	off = addr - base;
	if (off > size || len > size - off)
		return -1;
	return (int64_t)off;
}

static int find_gpa(const struct vhost_mem *m, uint64_t gpa, uint64_t len, uint64_t *off)
{
	for (unsigned i = 0; i < m->n; i++) {
		int64_t o = offset_in(m->r[i].desc.guest_phys, m->r[i].desc.size, gpa, len);

		if (o >= 0) {
			*off = (uint64_t)o;
			return (int)i;
		}
	}
	return -EFAULT;
}

void *vhost_mem_gpa(const struct vhost_mem *m, uint64_t gpa, uint64_t len)
{
	uint64_t off;
	int i = find_gpa(m, gpa, len, &off);

	return i < 0 ? NULL : m->r[i].host + off;
}

void *vhost_mem_uva(const struct vhost_mem *m, uint64_t uva, uint64_t len)
{
	for (unsigned i = 0; i < m->n; i++) {
		int64_t o = offset_in(m->r[i].desc.user_addr, m->r[i].desc.size, uva, len);

		if (o >= 0)
			return m->r[i].host + o;
	}
	return NULL;
}

int vhost_mem_gpa_region(const struct vhost_mem *m, uint64_t gpa, uint64_t len, uint64_t *file_offset)
{
	uint64_t off;
	int i = find_gpa(m, gpa, len, &off);

	if (i >= 0)
		*file_offset = m->r[i].desc.mmap_offset + off;
	return i;
}

int vhost_mem_gpa_iov(const struct vhost_mem *m, uint64_t gpa, uint64_t len, struct iovec *iov,
		      unsigned max)
{
	unsigned n = 0;

	if (range_wraps(gpa, len))
		return -EFAULT;
	while (len) {
		uint64_t off, take;
		int i = find_gpa(m, gpa, 1, &off);

		if (i < 0)
			return -EFAULT;
		if (n == max)
			return -E2BIG;
		take = m->r[i].desc.size - off;
		if (take > len)
			take = len;
		iov[n].iov_base = m->r[i].host + off;
		iov[n].iov_len = (size_t)take;
		n++;
		gpa += take;
		len -= take;
	}
	return (int)n;
}
