/* SPDX-License-Identifier: MIT */
/*
 * guest_mem.h - the "virtual machine's" RAM: one memfd shared with the
 * back end as two regions of the vhost-user memory table, guest-physical
 * 0.. and 4 GiB.. (RAM split around a PCI hole), and a page allocator over
 * both that hands out guest-physical pages for rings, commands and data.
 */
#ifndef VHOST_GUEST_GUEST_MEM_H
#define VHOST_GUEST_GUEST_MEM_H

#include <stddef.h>
#include <stdint.h>

#define GUEST_PAGE		4096u
#define GUEST_REGIONS		2
#define GUEST_HIGH_GPA		(4ull << 30)

struct guest_region {
	uint64_t gpa;
	uint64_t size;
	uint8_t *host;		/* also the front end's "user address" */
	uint64_t mmap_offset;	/* in the memfd */
};

struct guest_mem {
	int fd;
	uint8_t *base;
	size_t bytes;
	struct guest_region region[GUEST_REGIONS];
	size_t npages;
	uint8_t *page_used;	/* one byte per page, in region order */
};

int guest_mem_open(struct guest_mem *m, size_t mib);
void guest_mem_close(struct guest_mem *m);

/* Host pointer to len bytes at gpa inside one region, or NULL. */
void *guest_mem_host(const struct guest_mem *m, uint64_t gpa, size_t len);
/* The front end's user address of gpa (what SET_VRING_ADDR carries), 0 if none. */
uint64_t guest_mem_uaddr(const struct guest_mem *m, uint64_t gpa);

/* npages contiguous pages (zeroed) inside one region: 0 and *gpa, or -ENOMEM. */
int guest_mem_alloc(struct guest_mem *m, size_t npages, uint64_t *gpa);
/* One page of region r (zeroed). */
int guest_mem_alloc_in(struct guest_mem *m, unsigned r, uint64_t *gpa);
void guest_mem_free(struct guest_mem *m, uint64_t gpa, size_t npages);

#endif
