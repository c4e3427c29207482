/* SPDX-License-Identifier: MIT */
/*
 * A virtual machine's memory as its vhost-user front end describes it
 * (SET_MEM_TABLE): up to eight regions, each a range of guest physical
 * addresses, the front end's own address of the same bytes, and a file the
 * bytes live in.  rdmad maps every region MAP_SHARED from its file and
 * translates guest addresses (descriptors) and front-end addresses (ring
 * addresses of SET_VRING_ADDR) to its own pointers.
 *
 * A table is immutable once made and reference counted (atomically): a queue
 * keeps the table it was started with while a new one replaces it, and the
 * last reference unmaps it.  Every byte behind a translated pointer belongs
 * to the guest, which may change it at any time: read it once, into memory of
 * your own, before you decide anything from it.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define VHOST_MEM_REGIONS_MAX 8

/* One region as the front end describes it (the wire's field order). */
struct vhost_mem_region_desc {
	uint64_t guest_phys;
	uint64_t size;
	uint64_t user_addr;
	uint64_t mmap_offset;          /* where the region starts in its file */
};

struct vhost_mem;

/* vhost_mem_new's flags */
enum {
	/*
	 * Refuse a file that could shrink under the mapping (a memfd without
	 * F_SEAL_SHRINK, or any file that cannot be sealed): a front end that
	 * truncates its file after we mapped it would fault rdmad on its next
	 * access (SIGBUS).  Without it the size is still checked once, here.
	 */
	VHOST_MEM_SEALED_ONLY = 1u << 0,
};

/*
 * Makes a table of n regions (1..VHOST_MEM_REGIONS_MAX), fds[i] the file of
 * desc[i].  The caller keeps its fds (close them after); the table holds a
 * dup of each (vhost_mem_region_fd).  Refused with -EINVAL: no region, too
 * many, an empty one, one whose guest or front-end range wraps around or
 * overlaps another's, an fd that is not a regular file (memfd, tmpfs,
 * hugetlbfs); -ERANGE: a file shorter than mmap_offset + size; -EPERM: a
 * file not sealed against shrinking under VHOST_MEM_SEALED_ONLY; -errno of
 * dup or mmap.  On success *out holds the one reference.
 */
int vhost_mem_new(const struct vhost_mem_region_desc *desc, const int *fds, unsigned n,
		  unsigned flags, struct vhost_mem **out);

/* Another reference; m may be NULL (then NULL). */
struct vhost_mem *vhost_mem_ref(struct vhost_mem *m);
/* Drops one reference; the last unmaps the regions and closes the dups.  NULL is nothing. */
void vhost_mem_unref(struct vhost_mem *m);

/* A number no other table made in this process has: tells two tables apart after a free. */
uint64_t vhost_mem_id(const struct vhost_mem *m);
unsigned vhost_mem_region_count(const struct vhost_mem *m);
/* Region i's description; NULL when i is out of range. */
const struct vhost_mem_region_desc *vhost_mem_region(const struct vhost_mem *m, unsigned i);
/* The table's own dup of region i's file (still the table's: dup it to keep it); -ENXIO when none. */
int vhost_mem_region_fd(const struct vhost_mem *m, unsigned i);

/*
 * The host pointer of guest physical [gpa, gpa + len) when the whole range
 * lies in one region, else NULL.  len 0 asks for an address inside a region
 * or at its end.
 */
void *vhost_mem_gpa(const struct vhost_mem *m, uint64_t gpa, uint64_t len);
/* The same for a front-end (user) address range. */
void *vhost_mem_uva(const struct vhost_mem *m, uint64_t uva, uint64_t len);
/*
 * Which region holds the whole of guest physical [gpa, gpa + len), and the
 * range's offset in that region's file (to map it from vhost_mem_region_fd):
 * the region's index, or -EFAULT.
 */
int vhost_mem_gpa_region(const struct vhost_mem *m, uint64_t gpa, uint64_t len, uint64_t *file_offset);
/*
 * Guest physical [gpa, gpa + len) as host pieces, one per region it crosses,
 * the regions following each other in guest physical space without a gap:
 * the number of pieces written to iov (0 for len 0), -EFAULT when a byte of
 * the range lies in no region, -E2BIG when it needs more than max pieces.
 */
int vhost_mem_gpa_iov(const struct vhost_mem *m, uint64_t gpa, uint64_t len, struct iovec *iov,
		      unsigned max);
