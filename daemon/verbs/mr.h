/* SPDX-License-Identifier: MIT */
/*
 * Memory regions (virtio-net RoCE GET_DMA_MR, REG_USER_MR, DEREG_MR).
 *
 * An MR is named by its lkey, the keyed handle of the MR table
 * (index << 8 | tag): a key of a deregistered MR finds nothing even once its
 * slot is reused.  rkey = lkey when any remote access is granted, else 0
 * (reference roce_virtio.md §1.5).
 *
 * Three kinds:
 *  - daemon: memory rdmad allocates for itself (private anonymous pages: no
 *    descriptor, and neighbouring MRs' mappings merge, so 262,144 of them
 *    meet neither RLIMIT_NOFILE nor vm.max_map_count);
 *  - user: an application's memfd, registered through the client library;
 *  - dma: GET_DMA_MR.  No memory of its own: its addresses are the iovas of
 *    the daemon MRs of its PD (docs/decisions.md, "Memory regions").
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon/verbs/device.h"
#include "dataplane/keytab.h"

/* Access flags, as the RFC numbers them (enum virtio_ib_access_flags). */
#define RDMA_ACCESS_LOCAL_WRITE  (1u << 0)
#define RDMA_ACCESS_REMOTE_WRITE (1u << 1)
#define RDMA_ACCESS_REMOTE_READ  (1u << 2)
#define RDMA_ACCESS_ALL          (RDMA_ACCESS_LOCAL_WRITE | RDMA_ACCESS_REMOTE_WRITE | \
				  RDMA_ACCESS_REMOTE_READ)
/*
 * IBV_ACCESS_ON_DEMAND, at the bit libibverbs gives it (the RFC has no
 * such flag): the MR's pages are neither populated nor locked at registration,
 * they come when a transfer first touches them (docs/decisions.md, "On-demand
 * MRs").  Only MRs with memory of their own take it; it never reaches the
 * workers, for which every MR is just its bytes.
 */
#define RDMA_ACCESS_ON_DEMAND    (1u << 6)
#define RDMA_ACCESS_MR_ALL       (RDMA_ACCESS_ALL | RDMA_ACCESS_ON_DEMAND)

/* Daemon MRs sit at iovas this far apart at least, so no range spans two of them. */
#define RDMA_MR_IOVA_BASE  0x100000000ull
#define RDMA_MR_IOVA_ALIGN 4096ull

enum rdma_mr_type { RDMA_MR_DAEMON, RDMA_MR_USER, RDMA_MR_DMA };

struct rdma_mr {
	struct rdma_object obj;   /* handle = lkey; refs: its PD */
	struct rdma_object *pd;
	enum rdma_mr_type type;
	uint32_t access;
	uint32_t rkey;
	uint64_t iova;            /* address of the first byte (0 for dma) */
	uint64_t length;          /* bytes (0 for dma: it has none of its own) */
	uint8_t *addr;            /* first byte, inside the mapping; NULL for dma */
	void *map;                /* the mapping's pages the MR lies in (page aligned) */
	bool invalidated;         /* a LOCAL_INV made its key free: it names nothing any more */
	size_t map_size;
	/* A user MR's memfd mapped once for all its MRs (mr_map.h): map lies inside; NULL: map is its own. */
	struct rdma_mr_map *shared;
	/* Not on demand, and mlock() allowed it (CAP_IPC_LOCK or RLIMIT_MEMLOCK): no page ever leaves. */
	bool pinned;
	/* A VM's dma MR: the guest's memory it reaches (n_windows > 0), else its PD's daemon MRs. */
	unsigned n_windows;
	struct dp_dma_window *windows;
};

static inline struct rdma_mr *rdma_mr(struct rdma_object *obj)
{
	return (struct rdma_mr *)obj;
}

/* The word of each access bit ("local_write", ..., "on_demand"), or NULL. */
const char *rdma_access_name(uint32_t bit);
/*
 * Checks that access holds only bits of allowed (RDMA_ACCESS_ALL, or
 * RDMA_ACCESS_MR_ALL for an MR with memory of its own) and the verbs rule
 * that remote write needs local write.
 */
int rdma_access_check(uint32_t access, uint32_t allowed, struct rdma_error *err);

/*
 * The create functions return -errno with err filled for a refused request,
 * or with err->code RDMA_ERR_NONE when the system failed (out of memory).
 */

/* A daemon MR of size bytes (1..max_size, zeroed) on pd. */
int rdma_mr_create(struct rdma_device *dev, uint32_t pd, uint64_t size, uint32_t access,
		   uint64_t max_size, struct rdma_mr **out, struct rdma_error *err);
/*
 * REG_USER_MR: length bytes of the memfd at offset, which the application sees
 * at iova.  The MRs on one memfd share one mapping of it (mr_map.h), which
 * keeps the file; no descriptor is kept.  io.rdmad.Mr.RegUser reaches it
 * with the descriptor passed with the call.
 */
int rdma_mr_register_memfd(struct rdma_device *dev, uint32_t pd, int memfd, uint64_t offset,
			   uint64_t length, uint64_t iova, uint32_t access, uint64_t max_size,
			   struct rdma_mr **out, struct rdma_error *err);
/*
 * The same in three steps, so that the slow one, making the memory ready,
 * may run off the main thread: a request checked and its memory found
 * (rdma_mr_pending_daemon or _memfd), its memory mapped (rdma_mr_pending_map:
 * populated and locked unless on demand, a second a GiB; touches nothing but
 * pend, so any thread may run it), then the MR made and published
 * (rdma_mr_pending_finish, which checks the PD again, as it may have gone
 * meanwhile).  A pending MR that does not finish is released.
 */
struct rdma_mr_pending {
	enum rdma_mr_type type;
	uint32_t pd, access;
	size_t map_size;
	size_t first;             /* the MR's first byte in the mapping */
	uint64_t length;
	uint64_t iova;            /* of a user MR; a daemon MR's is given at finish */
	void *map;                /* once mapped (a user MR's at once, inside shared) */
	struct rdma_mr_map *shared;
	bool pinned;
};

int rdma_mr_pending_daemon(struct rdma_device *dev, uint32_t pd, uint64_t size, uint32_t access,
			   uint64_t max_size, struct rdma_mr_pending *pend, struct rdma_error *err);
int rdma_mr_pending_memfd(struct rdma_device *dev, uint32_t pd, int memfd, uint64_t offset,
			  uint64_t length, uint64_t iova, uint32_t access, uint64_t max_size,
			  struct rdma_mr_pending *pend, struct rdma_error *err);
/*
 * 0, or the -errno of mmap.  A user MR's pages, already in the shared
 * mapping, are populated and locked here (unless on demand); locked pages
 * stay locked while the mapping lasts, whichever MR on the memfd asked.
 */
int rdma_mr_pending_map(struct rdma_mr_pending *pend);
/* Releases pend's memory when it fails; on success the MR holds it. */
int rdma_mr_pending_finish(struct rdma_device *dev, struct rdma_mr_pending *pend,
			   struct rdma_mr **out, struct rdma_error *err);
void rdma_mr_pending_release(struct rdma_mr_pending *pend);

/* GET_DMA_MR on pd. */
int rdma_mr_get_dma(struct rdma_device *dev, uint32_t pd, uint32_t access, struct rdma_mr **out,
		    struct rdma_error *err);
/*
 * GET_DMA_MR of a virtual machine: its addresses are the guest's physical
 * ones, the n windows (1..DP_DMA_WINDOWS_MAX) of its memory table.
 */
int rdma_mr_get_dma_windows(struct rdma_device *dev, uint32_t pd, uint32_t access,
			    const struct dp_dma_window *w, unsigned n, struct rdma_mr **out,
			    struct rdma_error *err);
/* The guest's memory moved (a new memory table): such an MR reaches the new windows from now on. */
int rdma_mr_set_windows(struct rdma_device *dev, struct rdma_mr *mr, const struct dp_dma_window *w,
			unsigned n);

/* Page-aligned bytes of a descriptor: a run of a guest's pages, contiguous in its memory. */
struct rdma_mr_run {
	int fd;
	uint64_t offset, bytes;
};
/*
 * REG_USER_MR of a virtual machine: the runs of its pages mapped side by
 * side (shared: the guest's own memory, which the MR neither copies nor
 * pins), the MR's first byte first bytes into the first run, length bytes
 * long, at iova (the guest's virtual address).  At most RDMA_MR_RUNS_MAX runs.
 */
#define RDMA_MR_RUNS_MAX 4096
int rdma_mr_register_runs(struct rdma_device *dev, uint32_t pd, const struct rdma_mr_run *runs,
			  unsigned n, uint64_t first, uint64_t length, uint64_t iova, uint32_t access,
			  struct rdma_mr **out, struct rdma_error *err);

/*
 * The bytes [offset, offset + length) of an MR as the CPU sees them (rdmactl
 * mr read/write: the owner's view, so access flags do not apply).  Offsets
 * count from the MR's first byte.  A dma MR has no bytes of its own: refused.
 */
int rdma_mr_bytes(struct rdma_mr *mr, uint64_t offset, uint64_t length, uint8_t **out,
		  struct rdma_error *err);

/*
 * How much of the MR's memory is in RAM now (mincore): pages of its mapping,
 * and how many of them are resident.  0 and 0 for a dma MR.  An on-demand
 * MR starts with none the device has touched; a pinned one has them all.
 */
int rdma_mr_residency(const struct rdma_mr *mr, uint64_t *pages, uint64_t *resident);

/*
 * What the device does with an SGE or a RETH: the memory of [addr, addr +
 * length) reached through key, checked as rxe checks it: the key must be
 * the MR's lkey (local) or rkey (remote), the MR in pd, every bit of access
 * granted, and the range inside the MR (for a dma MR: inside one daemon MR
 * of its PD).  Errors name the field at fault: key, pd, access, addr or length.
 */
int rdma_mr_resolve(struct rdma_device *dev, uint32_t key, bool remote, uint32_t pd,
		    uint32_t access, uint64_t addr, uint64_t length, uint8_t **out,
		    struct rdma_error *err);
