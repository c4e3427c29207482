/* SPDX-License-Identifier: MIT */
/*
 * An application's memfd mapped once for all its MRs (REG_USER_MR through
 * the client library).  Each MR with a mapping of its own made one mmap and
 * kept one descriptor: a program registering 262,144 small MRs in one buffer
 * ran rdmad out of descriptors at RLIMIT_NOFILE and, past that, out of
 * mappings at vm.max_map_count (65,530 by default).  Now the MRs on one
 * memfd share one mapping of the whole file, found by its inode, which lives
 * as long as its last MR; the mapping holds the file, so its inode is not
 * reused meanwhile.  The memfd is sealed against shrinking (mr.c checks), so
 * every page of the mapping stays there; one that grew past the mapping gets
 * a new one for the MRs that reach past the old end.
 *
 * Main thread only (the model's thread): nothing here locks.
 */
#pragma once

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

struct rdma_device;
struct rdma_mr_maps;

struct rdma_mr_map {
	dev_t dev;
	ino_t ino;
	void *addr;               /* the memfd's bytes from offset 0 */
	size_t size;
	unsigned refs;            /* MRs (and pending ones) inside */
	/* Where later MRs find it; NULL once a larger mapping of the memfd replaced it. */
	struct rdma_mr_maps *table;
	struct rdma_mr_map *next; /* in its bucket */
};

/*
 * The mapping of memfd (whose stat is st) that holds its bytes [0, end),
 * with a reference taken; made (not populated) when there is none.
 * -errno of mmap or of memory.
 */
int rdma_mr_map_get(struct rdma_device *dev, int memfd, const struct stat *st, size_t end,
		    struct rdma_mr_map **out);
/* Drops a reference (NULL: none); the last one unmaps. */
void rdma_mr_map_put(struct rdma_mr_map *map);
/* The device's table, once its MRs are gone; a mapping still held lives on, found by none. */
void rdma_mr_maps_free(struct rdma_device *dev);
