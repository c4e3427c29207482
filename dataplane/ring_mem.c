/* SPDX-License-Identifier: MIT */
#include "dataplane/ring_mem.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

int dp_ring_mem_new(struct dp_ring_mem *m, const char *name, size_t bytes)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int r;

	*m = (struct dp_ring_mem){ .fd = -1 };
	if (!bytes || bytes > SIZE_MAX - page)
		return -EINVAL;
	m->bytes = (bytes + page - 1) & ~(page - 1);
	m->fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (m->fd < 0)
		return -errno;
	if (ftruncate(m->fd, (off_t)m->bytes) < 0 ||
	    fcntl(m->fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0)
		goto fail;
	m->addr = mmap(NULL, m->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, m->fd, 0);
	if (m->addr == MAP_FAILED) {
		m->addr = NULL;
		goto fail;
	}
	return 0;
fail:
	r = -errno;
	dp_ring_mem_free(m);
	return r;
}

void dp_ring_mem_free(struct dp_ring_mem *m)
{
	if (m->addr)
		munmap(m->addr, m->bytes);
	if (m->fd >= 0)
		close(m->fd);
	*m = (struct dp_ring_mem){ .fd = -1 };
}
