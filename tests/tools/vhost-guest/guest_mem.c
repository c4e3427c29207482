/* SPDX-License-Identifier: MIT */
/* guest_mem.c - the guest's RAM and its page allocator (see guest_mem.h). */
#include "guest_mem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int guest_mem_open(struct guest_mem *m, size_t mib)
{
	size_t half;
	unsigned r;

	memset(m, 0, sizeof(*m));
	m->fd = -1;
	if (mib < 2 || mib > 65536)
		return -EINVAL;
	m->bytes = mib << 20;
	half = m->bytes / 2;
	/* Sealed against resizing, as QEMU's memory-backend-memfd does by default (seal=on). */
	m->fd = memfd_create("vhost-guest-ram", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (m->fd < 0)
		return -errno;
	if (ftruncate(m->fd, (off_t)m->bytes) < 0 ||
	    fcntl(m->fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0)
		goto fail;
	m->base = mmap(NULL, m->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, m->fd, 0);
	if (m->base == MAP_FAILED) {
		m->base = NULL;
		goto fail;
	}
	for (r = 0; r < GUEST_REGIONS; r++) {
		m->region[r].gpa = r ? GUEST_HIGH_GPA : 0;
		m->region[r].size = half;
		m->region[r].mmap_offset = r * half;
		m->region[r].host = m->base + r * half;
	}
	m->npages = m->bytes / GUEST_PAGE;
	m->page_used = calloc(m->npages, 1);
	if (!m->page_used)
		goto fail;
	/* Guest-physical page 0 stays unused: an address of 0 is never a buffer. */
	m->page_used[0] = 1;
	return 0;
fail:
	r = errno;
	guest_mem_close(m);
	return -(int)r;
}

void guest_mem_close(struct guest_mem *m)
{
	if (m->base)
		munmap(m->base, m->bytes);
	if (m->fd >= 0)
		close(m->fd);
	free(m->page_used);
	memset(m, 0, sizeof(*m));
	m->fd = -1;
}

static const struct guest_region *region_of(const struct guest_mem *m, uint64_t gpa, size_t len)
{
	unsigned r;

	for (r = 0; r < GUEST_REGIONS; r++) {
		const struct guest_region *g = &m->region[r];

		if (gpa >= g->gpa && gpa - g->gpa <= g->size && len <= g->size - (gpa - g->gpa))
			return g;
	}
	return NULL;
}

void *guest_mem_host(const struct guest_mem *m, uint64_t gpa, size_t len)
{
	const struct guest_region *g = region_of(m, gpa, len);

	return g ? g->host + (gpa - g->gpa) : NULL;
}

uint64_t guest_mem_uaddr(const struct guest_mem *m, uint64_t gpa)
{
	return (uint64_t)(uintptr_t)guest_mem_host(m, gpa, 0);
}

static size_t pages_per_region(const struct guest_mem *m)
{
	return m->npages / GUEST_REGIONS;
}

static uint64_t page_gpa(const struct guest_mem *m, size_t page)
{
	size_t per = pages_per_region(m);

	return m->region[page / per].gpa + (uint64_t)(page % per) * GUEST_PAGE;
}

static long page_index(const struct guest_mem *m, uint64_t gpa)
{
	const struct guest_region *g = region_of(m, gpa, GUEST_PAGE);

	if (!g || gpa % GUEST_PAGE)
		return -1;
	return (long)((size_t)(g - m->region) * pages_per_region(m) + (gpa - g->gpa) / GUEST_PAGE);
}

static void take(struct guest_mem *m, size_t first, size_t npages, uint64_t *gpa)
{
	memset(m->page_used + first, 1, npages);
	*gpa = page_gpa(m, first);
	memset(guest_mem_host(m, *gpa, npages * GUEST_PAGE), 0, npages * GUEST_PAGE);
}

int guest_mem_alloc(struct guest_mem *m, size_t npages, uint64_t *gpa)
{
	size_t per = pages_per_region(m), r, i, run;

	if (npages == 0 || npages > per)
		return -ENOMEM;
	for (r = 0; r < GUEST_REGIONS; r++) {
		for (i = 0, run = 0; i < per; i++) {
			run = m->page_used[r * per + i] ? 0 : run + 1;
			if (run == npages) {
				take(m, r * per + i + 1 - npages, npages, gpa);
				return 0;
			}
		}
	}
	return -ENOMEM;
}

int guest_mem_alloc_in(struct guest_mem *m, unsigned r, uint64_t *gpa)
{
	size_t per = pages_per_region(m), i;

	if (r >= GUEST_REGIONS)
		return -EINVAL;
	for (i = 0; i < per; i++) {
		if (!m->page_used[r * per + i]) {
			take(m, r * per + i, 1, gpa);
			return 0;
		}
	}
	return -ENOMEM;
}

void guest_mem_free(struct guest_mem *m, uint64_t gpa, size_t npages)
{
	size_t k;

	for (k = 0; k < npages; k++) {
		long p = page_index(m, gpa + k * GUEST_PAGE);

		if (p > 0)
			m->page_used[p] = 0;
	}
}
