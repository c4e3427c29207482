/* SPDX-License-Identifier: MIT */
/*
 * The start-up self-test of a kernel level (kern.h), as the kernel's crypto manager tests an
 * algorithm before it is used: the known answers of the digests through the level's kernels,
 * then a differential pass against the portable level over every guard type, block size and
 * direction, with a corrupted block that must be found at the same block with the same value.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "dataplane/offload/kern.h"
#include "dataplane/offload/sig.h"

/* A known answer: the guard of every block of 512 bytes of fill in domain. */
struct dp_kern_known_answer {
	const char *name;
	struct dp_sig_domain domain;
	uint8_t fill;
	uint64_t guard;
};

/* The vectors (reference mlx5_sig_crypto.md §2.8, hardware-confirmed), one per guard type;
 * test_dp_kern runs them too. */
extern const struct dp_kern_known_answer dp_kern_known_answers[];
extern const size_t dp_kern_known_answer_count;

/* A level's guard kernels, as dp_kern_guard_blocks_at (kern_impl.h) runs them. */
typedef void (*dp_kern_guard_fn)(enum dp_kern_level at, const struct dp_sig_domain *d, uint64_t *g,
				 uint8_t *dst, size_t ds, const uint8_t *src, size_t ss, size_t len,
				 size_t n);

/* Run the self-test of level l (which this CPU must run) through guard, passed in so that the
 * test calls nothing of the level chooser (kern.c) that calls it: 0, or -EIO with the first
 * failing check in reason ("known answer T10-DIF CRC: 0x..., want 0xec7d"). */
int dp_kern_selftest(enum dp_kern_level l, dp_kern_guard_fn guard, char *reason, size_t size);

/* Test hook (kern.h, dp_kern_selftest_break): from now on the self-test sees level l's kernels
 * give a wrong guard, as a broken kernel would; -1 for none. */
void dp_kern_selftest_set_broken(int l);
