/* SPDX-License-Identifier: MIT */
/*
 * The start-up self-test of a kernel level (kern_selftest.h).  It runs once per level the CPU
 * has, before a level is chosen; about 1 MiB through each level and the portable one.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "dataplane/offload/kern_impl.h"
#include "dataplane/offload/kern_selftest.h"

#define KAT_BLOCKS 3            /* the CRC32C streams take blocks in threes */
#define DIFF_BLOCKS 4           /* three in streams and one after */
#define DIFF_MAX_LEN 4160
#define DIFF_DST_STRIDE (DIFF_MAX_LEN + 8)
#define CORRUPT_BLOCK 2

const struct dp_kern_known_answer dp_kern_known_answers[] = {
	{ "T10-DIF CRC", { .sig_type = DP_SIG_T10DIF, .block_size = 512,
			   .t10dif = { .bg_type = DP_T10DIF_BG_CRC, .bg = 0xffff } }, 0xa5, 0xec7d },
	{ "T10-DIF IP checksum", { .sig_type = DP_SIG_T10DIF, .block_size = 512,
				   .t10dif = { .bg_type = DP_T10DIF_BG_CSUM, .bg = 0 } }, 0xa5, 0x5a5a },
	{ "CRC32", { .sig_type = DP_SIG_CRC, .block_size = 512, .crc = { DP_CRC_CRC32, 0 } }, 0x01, 0x15d286f7 },
	{ "CRC32C", { .sig_type = DP_SIG_CRC, .block_size = 512, .crc = { DP_CRC_CRC32C, 0xffffffff } },
	  0x00, 0x30fcedc0 },
	{ "CRC64_XP10", { .sig_type = DP_SIG_CRC, .block_size = 512, .crc = { DP_CRC_CRC64_XP10, ~0ull } },
	  0x00, 0x1de60e2868a782e9ull },
};
const size_t dp_kern_known_answer_count = sizeof(dp_kern_known_answers) / sizeof(dp_kern_known_answers[0]);

static const uint32_t diff_lens[] = { 512, 520, 4048, 4096, 4160 };

/* Static: the self-test runs in a constructor, before any thread, and then only in tests. */
static uint8_t src[DIFF_BLOCKS * DIFF_MAX_LEN];
static uint8_t dst[DIFF_BLOCKS * DIFF_DST_STRIDE], ref_dst[DIFF_BLOCKS * DIFF_DST_STRIDE];
static int broken_level = -1;
static dp_kern_guard_fn guard_blocks;   /* the one dp_kern_selftest was given */

void dp_kern_selftest_set_broken(int l)
{
	broken_level = l;
}

/* The level's kernels; those of a level the test hook broke give a wrong last guard. */
static void run(enum dp_kern_level l, const struct dp_sig_domain *d, uint64_t *g, uint8_t *to, size_t ds,
		size_t len, size_t n)
{
	guard_blocks(l, d, g, to, ds, src, len, len, n);
	if ((int)l == broken_level)
		g[n - 1] ^= 1;
}

static int known_answers(enum dp_kern_level l, char *reason, size_t size)
{
	uint64_t g[KAT_BLOCKS];

	for (size_t k = 0; k < dp_kern_known_answer_count; k++) {
		const struct dp_kern_known_answer *v = &dp_kern_known_answers[k];

		memset(src, v->fill, KAT_BLOCKS * 512);
		for (int copy = 0; copy < 2; copy++) {
			run(l, &v->domain, g, copy ? dst : NULL, 520, 512, KAT_BLOCKS);
			for (int i = 0; i < KAT_BLOCKS; i++)
				if (g[i] != v->guard || (copy && memcmp(dst + i * 520, src, 512))) {
					snprintf(reason, size, "known answer %s (%s), block %d: %s0x%" PRIx64
						 ", want 0x%" PRIx64, v->name, copy ? "copy" : "generate", i,
						 g[i] == v->guard ? "copy differs, guard " : "", g[i], v->guard);
					return -EIO;
				}
		}
	}
	return 0;
}

/* Runs n blocks of len at level l and at the portable level; 0 when guards and copies agree,
 * else -EIO with the first difference in reason.  g gets the level's guards. */
static int against_portable(enum dp_kern_level l, const struct dp_kern_known_answer *v, size_t len, bool copy,
			    uint64_t *g, char *reason, size_t size)
{
	uint64_t want[DIFF_BLOCKS];

	memset(dst, 0x5a, sizeof(dst));
	memset(ref_dst, 0x5a, sizeof(ref_dst));
	run(l, &v->domain, g, copy ? dst : NULL, DIFF_DST_STRIDE, len, DIFF_BLOCKS);
	guard_blocks(DP_KERN_PORTABLE, &v->domain, want, copy ? ref_dst : NULL, DIFF_DST_STRIDE, src,
		     len, len, DIFF_BLOCKS);
	for (int i = 0; i < DIFF_BLOCKS; i++)
		if (g[i] != want[i]) {
			snprintf(reason, size, "%s, %zu-byte blocks (%s), block %d: guard 0x%" PRIx64
				 ", portable 0x%" PRIx64, v->name, len, copy ? "copy" : "generate", i, g[i], want[i]);
			return -EIO;
		}
	if (memcmp(dst, ref_dst, sizeof(dst))) {
		snprintf(reason, size, "%s, %zu-byte blocks (copy): the copied bytes differ from portable's",
			 v->name, len);
		return -EIO;
	}
	return 0;
}

/* Every guard type and block size, generated and copied, then the copy of a run with one bit
 * flipped in a block: the level must find it at that block, with portable's value. */
static int differential(enum dp_kern_level l, char *reason, size_t size)
{
	uint32_t x = 0x9e3779b9;
	uint64_t clean[DIFF_BLOCKS], bad[DIFF_BLOCKS];

	for (size_t k = 0; k < dp_kern_known_answer_count; k++) {
		const struct dp_kern_known_answer *v = &dp_kern_known_answers[k];

		for (size_t s = 0; s < sizeof(diff_lens) / sizeof(diff_lens[0]); s++) {
			size_t len = diff_lens[s];
			size_t flip = CORRUPT_BLOCK * len + (x % len);

			for (size_t i = 0; i < DIFF_BLOCKS * len; i++) {
				x = x * 1664525u + 1013904223u;
				src[i] = (uint8_t)(x >> 24);
			}
			if (against_portable(l, v, len, false, clean, reason, size) ||
			    against_portable(l, v, len, true, clean, reason, size))
				return -EIO;
			src[flip] ^= 0x10;
			if (against_portable(l, v, len, true, bad, reason, size))
				return -EIO;
			for (int i = 0; i < DIFF_BLOCKS; i++)
				if ((bad[i] != clean[i]) != (i == CORRUPT_BLOCK)) {
					snprintf(reason, size, "%s, %zu-byte blocks: a bit flipped in block %d, "
						 "the guard of block %d %s", v->name, len, CORRUPT_BLOCK, i,
						 i == CORRUPT_BLOCK ? "did not change" : "changed");
					return -EIO;
				}
		}
	}
	return 0;
}

int dp_kern_selftest(enum dp_kern_level l, dp_kern_guard_fn guard, char *reason, size_t size)
{
	guard_blocks = guard;
	if (known_answers(l, reason, size) < 0)
		return -EIO;
	if (l == DP_KERN_PORTABLE)
		return 0;
	return differential(l, reason, size);
}
