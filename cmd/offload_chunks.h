/* SPDX-License-Identifier: MIT */
/*
 * `rdmactl offload` of an input of any size, a chunk at a time: where one
 * transfer may be cut so that each piece, run as a transfer of its own, gives
 * the bytes and the signature error the whole would.  A cut falls where the
 * blocks of every domain with a signature and the data units of the crypted
 * stream all end; the piece after it starts its ref tags (REF_REMAP) and its
 * tweak where the whole transfer had them there.
 */
#pragma once

#include "dataplane/offload/transform.h"

#include <stddef.h>
#include <stdint.h>

struct offload_chunks {
	struct dp_transform_cfg cfg;    /* the whole transfer's, its copy mask pinned */
	enum dp_dir dir;
	size_t in_bytes;                /* input bytes of every chunk but the last */
	uint64_t data_bytes;            /* the data bytes they hold */
	uint64_t done;                  /* chunks run: the caller counts them */
};

/*
 * Chunks of about target input bytes (never less than the smallest cut) for
 * cfg in direction dir; copy_mask is the one the whole transfer's transform
 * has in effect (dp_transform_copy_mask()), which a piece's shifted tags must
 * not change.
 */
void offload_chunks_init(struct offload_chunks *c, const struct dp_transform_cfg *cfg,
			 uint8_t copy_mask, enum dp_dir dir, size_t target);
/* The configuration of the next chunk. */
void offload_chunks_next_cfg(const struct offload_chunks *c, struct dp_transform_cfg *cfg);
/* Input bytes before the next chunk: a piece's error offset plus these is the transfer's. */
uint64_t offload_chunks_in_offset(const struct offload_chunks *c);
